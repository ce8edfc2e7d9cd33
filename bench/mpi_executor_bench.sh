#!/usr/bin/env bash
# Parallel efficiency of the MPI executor (docs/mpi.md, docs/results.md): the
# Kraft-Schweizer chain (`couplet generate chain`, n_K bodies in n segments, the
# Jacobi scheme) run with mpirun -np 1, 2, 4, ..., and once without mpirun.
#
#   bench/mpi_executor_bench.sh BUILD_DIR [BODIES SUBSYSTEMS END REPEATS RANKS...]
#   bench/mpi_executor_bench.sh build 512 8 0.0005 3 1 2 4
#
# T_p is the stepping loop's wall time on rank 0 (summary.json wall_time_s: from
# the first initial-output exchange to the last wave; MPI start-up and building
# the system are not in it), the best of REPEATS runs. Efficiency = T_1 / (p·T_p)
# with T_1 the run on one rank. The decision hash of every run must equal the
# run without mpirun (the script stops otherwise).
#
# On a machine shared with other sessions, Linux shares the CPU evenly between
# sessions (sched_autogroup), whatever `nice` says: weight this session up for
# the measurement (as root: echo -10 > /proc/self/autogroup; echo 0 afterwards).
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [BODIES SUBSYSTEMS END REPEATS RANKS...]}
bodies=${2:-512}
subsystems=${3:-8}
end=${4:-0.0005}
repeats=${5:-3}
shift $(( $# < 5 ? $# : 5 ))
ranks=("$@")
[ ${#ranks[@]} -eq 0 ] && ranks=(1 2 4)
couplet=$(realpath "$build/couplet")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# As root (CI), more ranks than cores allowed; shared memory without the
# single-copy mechanism (containers often forbid it).
mpirun=(mpirun --allow-run-as-root --oversubscribe ${MPI_BENCH_BIND:+--bind-to $MPI_BENCH_BIND} --mca btl self,vader
        --mca btl_vader_single_copy_mechanism none)

"$couplet" generate chain --bodies "$bodies" --subsystems "$subsystems" --end "$end" --reference none \
  -o "$work/chain.yaml"
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

best() {  # LABEL COMMAND...: best wall_time_s of the repeats; checks the hash
  local label=$1 best_time="" hash
  shift
  for ((k = 0; k < repeats; ++k)); do
    rm -rf "$work/out"
    # best runs in a command substitution, where set -e does not reach: a failed
    # run must stop it by name (the caller stops on its status).
    if ! "$@" run "$work/chain.yaml" -q --no-log -o "$work/out" >"$work/run.txt" 2>&1; then
      echo "$label: the run failed:" >&2
      cat "$work/run.txt" >&2
      exit 1
    fi
    hash=$(field "$work/out/summary.json" decision_hash)
    # The first run's hash (the run without mpirun) is the reference.
    [ -f "$work/hash" ] || echo "$hash" >"$work/hash"
    if [ "$hash" != "$(cat "$work/hash")" ]; then
      echo "$label: decision hash $hash differs from the sequential run's $(cat "$work/hash")" >&2
      exit 1
    fi
    local t share
    t=$(field "$work/out/summary.json" wall_time_s)
    # Rank 0's time in the exchanges (transfer and waiting for the slowest rank).
    share=$(python3 -c "import json,sys; s=json.load(open(sys.argv[1])); e=s.get('executor'); print(f\"{100*e['exchange_wall_s']/s['wall_time_s']:.0f}%\" if e and 'exchange_wall_s' in e else '-')" "$work/out/summary.json")
    if [ -z "$best_time" ] || python3 -c "import sys; sys.exit(not float(sys.argv[1]) < float(sys.argv[2]))" "$t" "$best_time"; then
      best_time=$t
      best_share=$share
    fi
  done
  echo "$best_time $best_share"
}

echo "chain: $bodies bodies in $subsystems segments ($(grep -c 'model:' "$work/chain.yaml") slaves), end $end s;" \
     "best of $repeats; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
result=$(best "no mpirun" "$couplet") || exit 1
read -r sequential _ <<<"$result"
printf "%-12s %10s %9s %11s %14s\n" "ranks" "T [s]" "speed-up" "efficiency" "in exchanges"
printf "%-12s %10.3f\n" "no mpirun" "$sequential"
t1=""
for p in "${ranks[@]}"; do
  result=$(best "np $p" "${mpirun[@]}" -np "$p" "$couplet") || exit 1
  read -r t share <<<"$result"
  [ -z "$t1" ] && t1=$t
  python3 -c "import sys; t1, t, p = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]); print(f'{p:<12} {t:10.3f} {t1 / t:9.2f} {100 * t1 / (p * t):10.1f}% {sys.argv[4]:>14}')" "$t1" "$t" "$p" "$share"
done
echo "decision hash of every run: $(cat "$work/hash")"
