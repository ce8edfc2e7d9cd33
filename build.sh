#!/usr/bin/env bash
# couplet developer entry point (the README's quick start).
#   ./build.sh run    install what is missing, build, run the default scenario
#   ./build.sh test   install what is missing, build, run the test suite (ctest)
#   ./build.sh package  build the Debian packages couplet, couplet-target and
#                       couplet-dev into the build directory (docs/deploy.md)
# Set BUILD_DIR to build elsewhere (default: build).
set -euo pipefail
cd "$(dirname "$0")"

packages=(cmake g++ make libeigen3-dev libsundials-dev libyaml-cpp-dev libcli11-dev
          libgtest-dev libbenchmark-dev nlohmann-json3-dev
          libboost-dev nanopb libnanopb-dev protobuf-compiler python3-protobuf
          libzip-dev libpugixml-dev pkgconf)
# Only for the tests: the report test parses the HTML with Python and renders it
# in headless Chromium (couplet report itself needs neither); the packaging
# tests run cpack, whose Debian dependencies come from dpkg-shlibdeps and file;
# the embedded core is checked for a Cortex-M4 with Debian's cross compiler.
test_packages=(chromium python3 dpkg-dev file gcc-arm-none-eabi libnewlib-arm-none-eabi)
package_packages=(dpkg-dev file)
build_dir=${BUILD_DIR:-build}

install_missing() {
  local missing=()
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "couplet needs these Debian packages: ${missing[*]}" >&2
    echo "install them as root:  apt-get install ${missing[*]}" >&2
    exit 1
  fi
  echo "installing: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# nanopb's C sources, for the Cortex-M4 build of the embedded core: Debian ships
# them only in its source package (the binary packages have the host library),
# so fetch that package, of the installed version, once into the build
# directory. No change to the machine's apt sources.
fetch_nanopb_source() {
  local target="$build_dir/deps/nanopb"
  [ -f "$target/pb_decode.c" ] && return 0
  local version work
  version=$(dpkg-query -W -f='${Version}' libnanopb-dev)
  work=$(mktemp -d)
  echo "deb-src http://deb.debian.org/debian bookworm main" >"$work/sources.list"
  mkdir -p "$work/lists/partial"
  local options=(-o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/nonexistent
                 -o Dir::State::Lists="$work/lists" -o Debug::NoLocking=1)
  if (cd "$work" && apt-get "${options[@]}" update -qq &&
      apt-get "${options[@]}" source --download-only -qq "nanopb=$version") >/dev/null 2>&1; then
    mkdir -p "$target"
    tar xzf "$work"/nanopb_*.orig.tar.gz -C "$target" --strip-components=1
  else
    echo "warning: could not fetch Debian's nanopb source package; the Cortex-M4 check is skipped" >&2
  fi
  rm -rf "$work"
}

configure() {
  cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
}

# Everything, or only the named targets.
build() {
  configure
  cmake --build "$build_dir" -j"$(nproc)" ${1:+--target "$@"}
}

case "${1:-}" in
  run)
    install_missing "${packages[@]}"
    # The tools, the example FMUs and device the README runs next; not the
    # tests and benchmarks.
    build couplet couplet-target couplet-netem couplet_test_fmus dc_motor_device couplet-embedded-mass
    "$build_dir"/couplet run scenarios/two_mass_switch.yaml -o out/two_mass_switch
    ;;
  test)
    install_missing "${packages[@]}" "${test_packages[@]}"
    fetch_nanopb_source
    build
    ctest --test-dir "$build_dir" --output-on-failure -j"$(nproc)"
    ;;
  package)
    install_missing "${packages[@]}" "${package_packages[@]}"
    build couplet couplet-target couplet-netem
    (cd "$build_dir" && cpack -G DEB)
    ls "$build_dir"/*.deb
    ;;
  *)
    echo "usage: $0 run|test|package" >&2
    exit 2
    ;;
esac
