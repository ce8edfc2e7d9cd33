#!/usr/bin/env bash
# Source hygiene checks, run by ctest as Sources.citations, Sources.yaml_confined
# and Sources.scenario_apart (tests/CMakeLists.txt), so that ./build.sh test runs them.
#
#   .ci/check_sources.sh citations     [ROOT]  no citation of the design notes or of
#                                               the papers' text files, which are not in the
#                                               repository: cite the paper by title and
#                                               point to docs/references.md instead
#   .ci/check_sources.sh yaml_confined [ROOT]  YAML:: only in host_tools/scenario/
#   .ci/check_sources.sh scenario_apart [ROOT]  host_tools/scenario/ includes no other
#                                               host_tools/ folder: reading a scenario
#                                               needs nothing of what builds or runs it
#
# ROOT defaults to the repository this script lives in. The files checked are those
# git tracks plus the untracked ones it does not ignore (so a new file is checked
# before it is committed); outside a git work tree, every file under ROOT except
# build folders. Exit 0: clean; 1: violations, one "FILE:LINE: ..." line each; 2: usage.
set -euo pipefail

check=${1:-}
root=${2:-"$(cd "$(dirname "$0")/.." && pwd)"}

# YAML is read in one folder, host_tools/scenario/ (the scenario readers turn it
# into typed settings; nothing else sees the format). Besides it, tests that
# write a scenario text through yaml-cpp to feed a reader; a file listed here
# that stops using YAML:: must leave the list.
yaml_folder=host_tools/scenario/
yaml_allowed=(
  tests/fuzz/ssp_fuzz.cpp
  tests/host_tools/runlog/resim_test.cpp
)

usage() {
  echo "usage: $0 citations|yaml_confined|scenario_apart [ROOT]" >&2
  exit 2
}

# NUL-separated paths relative to ROOT.
list_files() {
  if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
     [ "$(git -C "$root" rev-parse --show-toplevel)" -ef "$root" ]; then
    git -C "$root" ls-files -z --cached --others --exclude-standard
  else
    (cd "$root" && find . -type d \( -name .git -o -name 'build*' \) -prune -o -type f -print0 |
       sed -z 's|^\./||')
  fi
}

existing_files() {
  list_files | while IFS= read -r -d '' file; do
    [ -f "$root/$file" ] && printf '%s\0' "$file"
  done
}

check_citations() {
  # The design notes (a DESIGN section sign or the .md file) and the extracted paper
  # texts under papers/ are not in the repository. The pattern does not match itself.
  local pattern='DESIGN[[:space:]]*§|DESIGN\.md|papers/[A-Za-z0-9_.-]+\.txt'
  local hits
  hits=$(cd "$root" && existing_files | xargs -0 -r grep -n -I -E -- "$pattern" || true)
  if [ -n "$hits" ]; then
    echo "$hits"
    echo "check_sources: citations of documents that are not in the repository (above);" \
         "cite the paper by title and docs/references.md, or the docs/ page that states" \
         "the contract" >&2
    return 1
  fi
  echo "check_sources: citations: clean"
}

is_allowed() {
  local file=$1 allowed
  [ "${file#"$yaml_folder"}" != "$file" ] && return 0
  for allowed in "${yaml_allowed[@]}"; do
    [ "$file" = "$allowed" ] && return 0
  done
  return 1
}

check_yaml_confined() {
  local status=0 file
  local -a users=()
  mapfile -d '' users < <(cd "$root" && existing_files |
    grep -z -E '\.(cpp|hpp|cc|h)$' | xargs -0 -r grep -l -Z -F -- 'YAML::' || true)
  for file in "${users[@]}"; do
    if ! is_allowed "$file"; then
      grep -n -F -- 'YAML::' "$root/$file" | head -1 | sed "s|^|$file:|;s|\$|  <- YAML:: outside $yaml_folder|"
      status=1
    fi
  done
  for file in "${yaml_allowed[@]}"; do
    if [ ! -f "$root/$file" ] || ! grep -q -F -- 'YAML::' "$root/$file"; then
      echo "$file: allowed to use YAML:: but does not any more: remove it from the list in $0"
      status=1
    fi
  done
  if [ $status -ne 0 ]; then
    echo "check_sources: YAML:: is confined to $yaml_folder (and the tests listed in $0)" >&2
    return 1
  fi
  echo "check_sources: yaml_confined: clean ($yaml_folder and ${#yaml_allowed[@]} tests)"
}

check_scenario_apart() {
  local hits
  hits=$(cd "$root" && existing_files | grep -z -E "^${yaml_folder}.*\.(cpp|hpp)\$" |
    xargs -0 -r grep -n -E '^[[:space:]]*#[[:space:]]*include[[:space:]]+"host_tools/' |
    grep -v -F "\"$yaml_folder" || true)
  if [ -n "$hits" ]; then
    echo "$hits"
    echo "check_sources: $yaml_folder includes only itself of host_tools/ (above): it reads" \
         "scenarios into typed settings, which the other folders build from" >&2
    return 1
  fi
  echo "check_sources: scenario_apart: clean"
}

case "$check" in
  citations) check_citations ;;
  yaml_confined) check_yaml_confined ;;
  scenario_apart) check_scenario_apart ;;
  *) usage ;;
esac
