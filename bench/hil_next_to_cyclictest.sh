#!/bin/bash
# The 1 kHz HIL run next to cyclictest (Debian rt-tests) on the same machine in
# the same window (docs/results.md "Real time next to cyclictest"):
# scenarios/two_mass_switch_hil.yaml (two couplet-target processes in
# real-time mode, master paced at 1 kHz on absolute deadlines) while cyclictest
# measures the machine's own wake-up latency at 1 kHz, same priority.
# Reported as ratios: the run's overruns (> 0.5 ms tolerance) against
# cyclictest's wake-ups later than 0.5 ms, and the run's p99 lateness against
# cyclictest's p99.
#
#   bench/hil_next_to_cyclictest.sh [COUPLET_BINARY] [SECONDS] [OUTPUT_DIR]
set -euo pipefail
couplet=${1:-build/couplet}
seconds=${2:-60}
out=${3:-$(mktemp -d)}
here=$(cd "$(dirname "$0")/.." && pwd)
cyclictest=${CYCLICTEST:-$(command -v cyclictest || true)}
[ -x "$cyclictest" ] || { echo "cyclictest not found (Debian package rt-tests; or set CYCLICTEST)" >&2; exit 2; }
mkdir -p "$out"
loops=$((seconds * 1000))
# cyclictest -p 70: SCHED_FIFO as the scenario's master; -m: lock memory,
# -i 1000: 1 kHz, -h 20000: a histogram in 1 µs bins up to 20 ms (for counts and
# the p99), -q: quiet.
# Without SCHED_FIFO (no CAP_SYS_NICE, RLIMIT_RTPRIO 0) cyclictest does not run
# at all: rt-tests 2.4 (Debian 12) sets a real-time priority even with
# --policy=other and exits with "Unable to change scheduling policy". The probe's
# own exit status tells (piping it into grep under pipefail let the probe's
# failure decide the test, and FIFO was wrongly taken as permitted).
cyclic=""
if probe=$("$cyclictest" -p 70 -l 1 -q 2>&1); then
  echo "SCHED_FIFO permitted: cyclictest and the run's master at priority 70" >&2
  "$cyclictest" -m -p 70 -i 1000 -l "$loops" -h 20000 -q > "$out/cyclictest.txt" 2>&1 &
  cyclic=$!
else
  echo "SCHED_FIFO not permitted on this machine (cyclictest -p 70: $(echo "$probe" | grep -m1 -v '^#'))." >&2
  echo "cyclictest cannot run without it: skipped. The HIL run goes on alone under the normal scheduler" \
       "(couplet warns); comparison.json has its figures, \"sched_fifo\": false and no cyclictest side (null)." >&2
fi
run_status=0
"$couplet" run "$here/scenarios/two_mass_switch_hil.yaml" -o "$out/hil" --set "time.end=$seconds" > "$out/couplet.txt" 2>&1 ||
  run_status=$?
if [ -n "$cyclic" ]; then
  cyclic_status=0
  wait "$cyclic" || cyclic_status=$?
  if [ "$cyclic_status" -ne 0 ]; then
    echo "cyclictest failed (exit status $cyclic_status):" >&2
    cat "$out/cyclictest.txt" >&2
    exit 1
  fi
fi
if [ ! -f "$out/hil/summary.json" ]; then
  echo "couplet run wrote no summary (exit status $run_status):" >&2
  cat "$out/couplet.txt" >&2
  exit 1
fi
python3 - "$out" "$run_status" <<'PY'
import json, os, re, sys
out, status = sys.argv[1], int(sys.argv[2])
counts = {}
overflows = 0
measured = os.path.exists(f"{out}/cyclictest.txt")
for line in open(f"{out}/cyclictest.txt") if measured else []:
    words = line.split()
    if not words or line.startswith("#"):
        if line.startswith("# Histogram Overflows"):
            overflows = int(words[-1])
        continue
    if len(words) >= 2 and words[0].isdigit():
        counts[int(words[0])] = counts.get(int(words[0]), 0) + int(words[1])
total = sum(counts.values()) + overflows
above = sum(c for us, c in counts.items() if us > 500) + overflows
running, p99 = 0, None
for us in sorted(counts):
    running += counts[us]
    if p99 is None and running >= 0.99 * total:
        p99 = us
summary = json.load(open(f"{out}/hil/summary.json"))
realtime = summary["realtime"]
hil_p99 = realtime["lateness_us"]["p99"]
result = {
    "sched_fifo": re.search(r"SCHED_FIFO priority \d+ not permitted", open(f"{out}/couplet.txt").read()) is None,
    "seconds": realtime["cycles"] / 1000.0,
    "run_exit_status": status,
    "hil_cycles": realtime["cycles"], "hil_overruns": realtime["overruns"],
    "hil_p99_us": hil_p99, "hil_max_us": realtime["lateness_us"]["max"],
    "missed_results": realtime["missed_results"],
    "cyclictest_cycles": total if measured else None,
    "cyclictest_above_500us": above if measured else None,
    "cyclictest_p99_us": p99 if measured else None,
    "overruns_over_cyclictest_above_500us": realtime["overruns"] / max(above, 1) if measured else None,
    "p99_ratio": hil_p99 / max(p99, 1) if measured else None,
}
json.dump(result, open(f"{out}/comparison.json", "w"), indent=1)
print(json.dumps(result, indent=1))
PY
