#!/usr/bin/env bash
# Proves that .ci/check_sources.sh fails where it must: a tree with a design-note
# citation, a paper-text citation, YAML:: outside the allowed files, or a scenario
# reader including another host_tools/ folder is refused naming the file and line;
# the same tree without them passes. Run by ctest as
# Sources.check_fails_on_violations.
set -uo pipefail
check="$(cd "$(dirname "$0")" && pwd)/check_sources.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

expect() {  # expect EXIT_CODE OUTPUT_SUBSTRING -- COMMAND...
  local want=$1 text=$2 output code
  shift 3
  output=$("$@" 2>&1)
  code=$?
  if [ "$code" -ne "$want" ] || ! grep -q -F -- "$text" <<<"$output"; then
    echo "FAILED: $* -> exit $code (want $want), output:"
    echo "$output"
    echo "(wanted: $text)"
    failures=$((failures + 1))
  else
    echo "ok: $* -> exit $code, '$text'"
  fi
}

# A tree (no git) holding every file the YAML allow-list names and a scenario
# reader, each using YAML::.
tree=$work/tree
mkdir -p "$tree/runtime" "$tree/docs" "$tree/host_tools/scenario"
echo 'YAML::Node node;' >"$tree/host_tools/scenario/reader.cpp"
sed -n '/^yaml_allowed=(/,/^)/p' "$check" | sed '1d;$d' | while read -r file; do
  mkdir -p "$tree/$(dirname "$file")"
  echo 'YAML::Node node;' >"$tree/$file"
done
printf '// Clean: see docs/references.md.\nint f();\n' >"$tree/runtime/clean.hpp"
expect 0 'citations: clean' -- "$check" citations "$tree"
expect 0 'yaml_confined: clean' -- "$check" yaml_confined "$tree"

section=$(printf '\302\247')  # the section sign, kept out of this file's own text
design="DES""IGN"
printf 'int a;\n// see %s %s4.2\n' "$design" "$section" >"$tree/runtime/bad_design.hpp"
expect 1 "runtime/bad_design.hpp:2:" -- "$check" citations "$tree"
rm "$tree/runtime/bad_design.hpp"

printf '# Notes\n\nAs in %s.md.\n' "$design" >"$tree/docs/notes.md"
expect 1 "docs/notes.md:3:" -- "$check" citations "$tree"
rm "$tree/docs/notes.md"

printf '// eq. 27 of %s/ifosmondi-jfm.txt\n' "papers" >"$tree/runtime/bad_paper.cpp"
expect 1 "runtime/bad_paper.cpp:1:" -- "$check" citations "$tree"
rm "$tree/runtime/bad_paper.cpp"

printf '#include <x>\nvoid g() { YAML::Node n; }\n' >"$tree/runtime/reads_yaml.cpp"
expect 1 "runtime/reads_yaml.cpp:2:" -- "$check" yaml_confined "$tree"
rm "$tree/runtime/reads_yaml.cpp"

printf '#include <x>\nvoid g() { YAML::Node n; }\n' >"$tree/host_tools/reads_yaml.cpp"
expect 1 "host_tools/reads_yaml.cpp:2:" -- "$check" yaml_confined "$tree"
rm "$tree/host_tools/reads_yaml.cpp"

echo '// no longer reads YAML' >"$tree/tests/fuzz/ssp_fuzz.cpp"
expect 1 "tests/fuzz/ssp_fuzz.cpp: allowed to use YAML:: but does not any more" -- \
  "$check" yaml_confined "$tree"

printf '#include "host_tools/scenario/scenario.hpp"\n' >"$tree/host_tools/scenario/reader.hpp"
expect 0 'scenario_apart: clean' -- "$check" scenario_apart "$tree"
printf '#include <x>\n#include "host_tools/assembly/system_builder.hpp"\n' \
  >"$tree/host_tools/scenario/builds.cpp"
expect 1 "host_tools/scenario/builds.cpp:2:" -- "$check" scenario_apart "$tree"
rm "$tree/host_tools/scenario/builds.cpp"

expect 2 'usage:' -- "$check" nonsense "$tree"

[ "$failures" -eq 0 ] || { echo "$failures case(s) failed"; exit 1; }
echo "all cases passed"
