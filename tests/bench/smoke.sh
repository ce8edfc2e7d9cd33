#!/usr/bin/env bash
# The runner of the BenchSmoke.* tests (bench/CMakeLists.txt, docs/hardening.md):
#
#   tests/bench/smoke.sh EXPECTED COMMAND [ARGUMENTS...]
#
# runs a benchmark program in its smoke mode and fails when the program exits
# with a non-zero status, when Google Benchmark reports a case that stopped on
# an error ("ERROR OCCURRED", which still exits 0), or when no line of the
# output matches EXPECTED (an extended regular expression: the figures the
# program exists to print). ctest's PASS_REGULAR_EXPRESSION alone would ignore
# the exit status.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 EXPECTED COMMAND [ARGUMENTS...]" >&2; exit 2; }
expected=$1
shift
output=$(mktemp)
trap 'rm -f "$output"' EXIT
"$@" 2>&1 | tee "$output"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo "BenchSmoke: '$1' exited with status $status" >&2
  exit 1
fi
if grep -q "ERROR OCCURRED" "$output"; then
  echo "BenchSmoke: '$1' reported a benchmark that stopped on an error (above)" >&2
  exit 1
fi
if ! grep -Eq -- "$expected" "$output"; then
  echo "BenchSmoke: no line of the output of '$1' matches /$expected/" >&2
  exit 1
fi
