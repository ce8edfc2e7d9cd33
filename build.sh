#!/usr/bin/env bash
# couplet developer entry point (the README's quick start).
#   ./build.sh run    install what is missing, build, run the default scenario
#   ./build.sh test   install what is missing, build, run the test suite (ctest)
#   ./build.sh package  build the Debian packages couplet, couplet-target and
#                       couplet-dev into the build directory (docs/deploy.md)
#   ./build.sh sanitize build and run the tests under ASan+UBSan (build-asan) and
#                       the threaded tests under TSan (build-tsan) (docs/hardening.md)
#   ./build.sh fuzz [SECONDS]  build the libFuzzer targets with clang (build-fuzz)
#                       and run each for SECONDS (default 60) (docs/hardening.md)
#   ./build.sh fuzz-build  only build the libFuzzer targets with clang (build-fuzz),
#                       run nothing: CI's check that they compile with clang
# Set BUILD_DIR to build elsewhere (default: build).
set -euo pipefail
cd "$(dirname "$0")"

packages=(cmake g++ make libeigen3-dev libsundials-dev libyaml-cpp-dev libcli11-dev
          libgtest-dev libbenchmark-dev nlohmann-json3-dev
          libboost-dev nanopb libnanopb-dev protobuf-compiler python3-protobuf
          libzip-dev zlib1g-dev libzstd-dev libsodium-dev libpugixml-dev pkgconf libmatio-dev libjs-dygraphs
          pybind11-dev python3-dev python3-numpy libopenmpi-dev openmpi-bin)
# Only for the tests: the report test parses the HTML with Python and renders it
# in headless Chromium (couplet report itself needs neither); the packaging
# tests run cpack, whose Debian dependencies come from dpkg-shlibdeps and file;
# the embedded core is checked for a Cortex-M4 with Debian's cross compiler and run on
# an emulated Cortex-M4 board (qemu-system-arm); the Python module's DataFrame
# helpers are tested with pandas (the module works without); couplet test's JUnit
# XML is validated against tests/data/junit.xsd with xmllint; the smoke test of
# bench/hil_next_to_cyclictest.sh runs cyclictest (rt-tests); the pytest example
# (docs/examples/test_two_mass_switch.py) runs under python3-pytest.
test_packages=(chromium python3 dpkg-dev file gcc-arm-none-eabi libnewlib-arm-none-eabi python3-pandas
               python3-pytest libxml2-utils rt-tests qemu-system-arm)
package_packages=(dpkg-dev file)
# clang, libFuzzer and clang's sanitizer runtimes (./build.sh fuzz and sanitize).
fuzz_packages=(clang libclang-rt-14-dev)
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

# The sanitizer builds (docs/hardening.md). ASan+UBSan: every library and test
# program, minus what does not need or cannot take it:
#   benchmarks          timings, no checks (COUPLET_BUILD_BENCHMARKS=OFF);
#   ShippedHilScenario.* a 60 s run paced at 1 kHz: a timing, which the
#                       instrumentation slows past the scenario's deadlines (the
#                       same links run instrumented in the link tests);
#   the numerics studies accuracy and convergence of the methods, no I/O
#                       (couplet_numerics_studies in tests/CMakeLists.txt), and
#                       the long accuracy studies in programs that test more
#                       (the FMU-against-built-in matrix's defect-control and
#                       JFM variants, the tolerance sweep, the damper's
#                       convergence, the NI Jacobi figures: 20 to 70 s each
#                       instrumented; their other variants run);
#   Install.*           installs, packages and rebuilds the project out of tree
#                       with the plain compiler: they test packaging, not memory;
#   Embedded.cortex_m4* cross-compiled for a Cortex-M4 (arm-none-eabi-gcc has no
#                       sanitizers); the host build of the same core
#                       (Embedded.core) runs instrumented; Embedded.qemu_*
#                       run that firmware on QEMU, the instrumented master's
#                       serial link runs instrumented in Embedded{ThroughDamagingRelay,Realtime}.*;
#   the mpirun jobs of mpi_executor_test (Ranks/MpiExecutor.*, MpiExecutorRefusals.*):
#                       Open MPI 4.1 leaves its own start-up allocations
#                       unfreed: a program doing nothing but MPI_Init and
#                       MPI_Finalize, built with -fsanitize=address, fails in
#                       every rank with ~120 KB in ~3 350 allocations reported
#                       by LeakSanitizer, so every rank of these jobs would fail
#                       whatever couplet does (the ownership test, without MPI,
#                       stays in).
asan_excluded='^(Install\.|ShippedHilScenario\.|TwoMassSwitch/FmuAgainstBuiltin\..*/(me|cs)_(defect_control|ifosmondi_jfm)$|DefectControl\.ToleranceSweepInSteadyState$|IfosmondiDamper\.|FixedStepCoupling\.TwoMassSwitchNiJacobiFigures$|Embedded\.(cortex_m4|qemu_)|Ranks/MpiExecutor\.|MpiExecutorRefusals\.)'
# TSan: the programs whose tests run a target, a link or a clock on threads of
# their own; they link the device library only (the host tools' tests run the
# same links in processes, where TSan sees no shared memory). And the
# thread-pool executor's test, which links the master library (runtime/) and
# runs slaves on the pool's threads.
tsan_targets=(in_process_transport_test udp_transport_test serial_transport_test wall_clock_test
              remote_slave_test target_server_test udp_session_peer_test working_reply_test
              late_result_policy_test thread_pool_dispatcher_test)

# With clang at -O0 and line tables only (-g1): g++ takes 2 to 9 times as long
# as a Release build to compile a file with ASan+UBSan at -O2 -g (the Beast
# server of the live view: 396 s against 43 s), clang at -O1 -g1 about 2 times,
# at -O0 -g1 about 0.7 times; stack traces keep their file:line.
sanitizer_build() {  # DIRECTORY SANITIZERS [TARGETS...]
  local directory=$1 sanitizers=$2 flags="-O0 -g1 -DNDEBUG"
  shift 2
  CC=clang CXX=clang++ cmake -S . -B "$directory" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" \
        -DCOUPLET_SANITIZE="$sanitizers" -DCOUPLET_BUILD_BENCHMARKS=OFF >/dev/null
  cmake --build "$directory" -j"$(nproc)" ${1:+--target "$@"}
}

sanitize_address_undefined() {
  local build_dir=build-asan
  fetch_nanopb_source
  sanitizer_build build-asan address,undefined
  # Leaks are reported (detect_leaks) and fail the test, as any other error.
  ASAN_OPTIONS=abort_on_error=0:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j"$(nproc)" -E "$asan_excluded"
}

sanitize_thread() {
  sanitizer_build build-tsan thread "${tsan_targets[@]}"
  # GoogleTest cases are discovered when their program is built, so only the
  # programs above have tests here (the others leave a <name>_NOT_BUILT
  # placeholder); the scripted tests (added by name, the Python module's among
  # them: it is not built here) are left out.
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    ctest --test-dir build-tsan --output-on-failure -j"$(nproc)" \
          -E '^(Install|Embedded|PythonExample|PythonModule|Fuzz)\.|_NOT_BUILT$'
}

fuzz_targets=(codec framing run_log scenario ssp model_description target_server link_answers)

# libFuzzer (clang): each target for SECONDS over a scratch copy of its
# committed corpus (new inputs stay in build-fuzz/corpus/, the repository's
# corpus is not touched); crashes, timeouts and leaks land in
# build-fuzz/crashes/<target>/ and fail the run.
# Configures build-fuzz with clang and builds the <name>_fuzzer programs: what
# `fuzz` runs, and on its own (`fuzz-build`) the check in CI that they compile.
fuzz_build() {
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOUPLET_FUZZ=ON \
        -DCOUPLET_BUILD_TESTS=OFF -DCOUPLET_BUILD_BENCHMARKS=OFF >/dev/null
  cmake --build build-fuzz -j"$(nproc)" --target "${fuzz_targets[@]/%/_fuzzer}"
}

fuzz() {  # SECONDS
  local seconds=$1 directory=build-fuzz failed=()
  fuzz_build
  for target in "${fuzz_targets[@]}"; do
    local corpus="$directory/corpus/$target" crashes="$directory/crashes/$target"
    mkdir -p "$corpus" "$crashes"
    cp -n tests/fuzz/corpus/"$target"/* "$corpus"/
    echo "fuzzing $target for $seconds s (crashes: $crashes/)"
    "$directory/tests/fuzz/${target}_fuzzer" "$corpus" -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=2048 -max_len=65536 -artifact_prefix="$crashes/" -print_final_stats=1 \
        2>"$directory/fuzz-$target.log" || true
    grep -E '^#[0-9]+ +DONE|^stat::number_of_executed_units|^stat::average_exec_per_sec' \
        "$directory/fuzz-$target.log" || true
    if [ -n "$(ls -A "$crashes")" ]; then
      failed+=("$target")
      grep -m1 -E 'ERROR: |fuzz property broken|runtime error' "$directory/fuzz-$target.log" >&2 || true
    fi
  done
  if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzzing found inputs that fail: ${failed[*]} (see $directory/crashes/)" >&2
    exit 1
  fi
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
    build couplet couplet-target couplet-netem couplet_python couplet_master_library
    (cd "$build_dir" && cpack -G DEB)
    ls "$build_dir"/*.deb
    ;;
  sanitize)
    install_missing "${packages[@]}" "${test_packages[@]}" "${fuzz_packages[@]}"
    sanitize_address_undefined
    sanitize_thread
    ;;
  fuzz)
    install_missing "${packages[@]}" "${fuzz_packages[@]}"
    fuzz "${2:-60}"
    ;;
  fuzz-build)
    install_missing "${packages[@]}" "${fuzz_packages[@]}"
    fuzz_build
    ;;
  *)
    echo "usage: $0 run|test|package|sanitize|fuzz [SECONDS]|fuzz-build" >&2
    exit 2
    ;;
esac
