#!/usr/bin/env bash
# Installation, packaging and the target-only build, checked as a user would
# use them (run by ctest; docs/deploy.md, docs/device-sdk.md).
#   install_test.sh SOURCE_DIR BUILD_DIR install|package|target-only|build-tree
# COUPLET_PYTHON: the interpreter the Python module was built for (default
# Debian's /usr/bin/python3).
set -euo pipefail
src=$1
build=$2
what=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/couplet-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
decision_hash() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["decision_hash"])' "$1/summary.json"; }

# The program embedding the master (tests/install/simulation_consumer, docs/library.md),
# built out of tree with find_package(couplet) under CMAKE_PREFIX_PATH=$1, steps
# two_mass_switch in half seconds and reaches the decision hash of `$2 run`.
check_simulation_consumer() {
  local prefix=$1 cli=$2 name=$3
  cmake -S "$src/tests/install/simulation_consumer" -B "$work/$name" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_BUILD_TYPE=Release >"$work/$name.log" 2>&1 ||
    { cat "$work/$name.log" >&2; fail "$name: configuring the consumer with find_package(couplet)"; }
  cmake --build "$work/$name" -j2 >"$work/$name.log" 2>&1 ||
    { cat "$work/$name.log" >&2; fail "$name: building the consumer against couplet::master"; }
  local scenario=$src/scenarios/two_mass_switch.yaml
  local output
  output=$("$work/$name/step_two_mass_switch" "$scenario" time.end=2) || fail "$name: the consumer failed: $output"
  echo "$output"
  grep -q "^t = 0.5 s: left.x = " <<<"$output" || fail "$name: no output read at t = 0.5 s"
  grep -q "^finished: yes, 200 communication points$" <<<"$output" || fail "$name: not 200 communication points"
  "$cli" run "$scenario" --set time.end=2 --no-log -o "$work/$name-cli" >/dev/null || fail "$name: $cli run"
  [ "$(sed -n 's/^decision hash //p' <<<"$output")" = "$(decision_hash "$work/$name-cli")" ] ||
    fail "$name: the embedded master decides otherwise than $cli run"
}

case "$what" in
  install)
    prefix=$work/prefix
    cmake --install "$build" --prefix "$prefix" >/dev/null
    libdir=$(cd "$prefix" && ls -d lib*/cmake/couplet | sed 's#/cmake/couplet##')
    for file in bin/couplet bin/couplet-target bin/couplet-netem \
                include/couplet/device.hpp include/couplet/slave.hpp include/couplet/polynomial.hpp \
                include/couplet/time.hpp include/couplet/errors.hpp include/couplet/fmi/fmi2.h \
                include/couplet/simulation.hpp "$libdir/libcouplet-master.so" \
                "$libdir/libcouplet-device.so" "$libdir/libcouplet-core.so" \
                "$libdir/cmake/couplet/coupletConfig.cmake" "$libdir/cmake/couplet/CoupletFmu.cmake" \
                "$libdir/pkgconfig/couplet.pc" share/couplet/systemd/couplet-target@.service; do
      [ -e "$prefix/$file" ] || fail "not installed: $file"
    done
    # Only the public API: no internal headers (target server, models, drivers).
    extra=$(find "$prefix/include" -type f ! -path '*/include/couplet/*.hpp' ! -name fmi2.h)
    [ -z "$extra" ] || fail "internal headers installed: $extra"
    "$prefix/bin/couplet-target" --help >/dev/null || fail "installed couplet-target --help"

    # The example device, out of tree, against the installed package.
    cmake -S "$src/examples/dc_motor" -B "$work/motor" -DCMAKE_PREFIX_PATH="$prefix" \
          -DCMAKE_BUILD_TYPE=Release >/dev/null || fail "configuring the example with find_package(couplet)"
    cmake --build "$work/motor" -j2 >/dev/null || fail "building the example against the installed package"
    "$work/motor/dc_motor_device" --describe | grep -q "speed \[rad/s\]" || fail "dc_motor_device --describe"

    # The installed couplet with the out-of-tree device decides as the build tree does.
    scenario=$src/examples/dc_motor/dc_motor.yaml
    "$prefix/bin/couplet" run "$scenario" -o "$work/installed" \
        --set "slaves.motor.link.program=$work/motor/dc_motor_device" >/dev/null
    "$build/couplet" run "$scenario" -o "$work/tree" \
        --set "slaves.motor.link.program=$build/examples/dc_motor/dc_motor_device" >/dev/null
    [ "$(decision_hash "$work/installed")" = "$(decision_hash "$work/tree")" ] ||
      fail "decision hashes differ between the installed and the in-tree device"

    # pkg-config, for builds without CMake.
    flags=$(PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" pkg-config --cflags --libs couplet) ||
      fail "pkg-config couplet"
    g++ -o "$work/motor-pc" "$src/examples/dc_motor/main.cpp" "$src/examples/dc_motor/dc_motor.cpp" \
        $flags -Wl,-rpath,"$prefix/$libdir" || fail "building the example with pkg-config flags"
    "$work/motor-pc" --describe | grep -q "device dc_motor" || fail "the pkg-config build does not run"

    # The Python module, where Debian's python3 looks, runs from the prefix
    # (its libraries found relative to itself) and decides as the installed couplet.
    module=$(ls "$prefix"/lib/python3/dist-packages/couplet.cpython-*.so 2>/dev/null) ||
      fail "the Python module is not installed in lib/python3/dist-packages"
    "$prefix/bin/couplet" run "$src/scenarios/two_mass_switch.yaml" --set time.end=1 -o "$work/cli" >/dev/null
    python_hash=$(cd "$work" && PYTHONPATH="$prefix/lib/python3/dist-packages" "${COUPLET_PYTHON:-/usr/bin/python3}" -c '
import couplet, sys
print(couplet.run(sys.argv[1], {"time.end": 1}, sys.argv[2]).decision_hash)' \
        "$src/scenarios/two_mass_switch.yaml" "$work/python") || fail "importing the installed module ($module)"
    [ "$python_hash" = "$(decision_hash "$work/cli")" ] ||
      fail "the installed Python module decides otherwise than the installed couplet"
    # The master embedded in a program of one's own, against the installed package.
    check_simulation_consumer "$prefix" "$prefix/bin/couplet" installed-consumer
    echo "install: ok"
    ;;

  package)
    (cd "$build" && cpack -G DEB -B "$work/packages" >"$work/cpack.log" 2>&1) ||
      { cat "$work/cpack.log" >&2; fail "cpack -G DEB"; }
    target=$(ls "$work"/packages/couplet-target_*.deb)
    dev=$(ls "$work"/packages/couplet-dev_*.deb)
    host=$(ls "$work"/packages/couplet_*.deb)
    dpkg-deb --info "$target" >/dev/null
    depends=$(dpkg-deb -f "$target" Depends)
    for library in libsundials-cvode libzip libpugixml libstdc++6; do
      grep -q "$library" <<<"$depends" || fail "couplet-target does not depend on $library: $depends"
    done
    grep -q "couplet-target (= " <<<"$(dpkg-deb -f "$host" Depends)" || fail "couplet does not depend on couplet-target"
    grep -q "couplet-target (= " <<<"$(dpkg-deb -f "$dev" Depends)" || fail "couplet-dev does not depend on couplet-target"
    # A small target package: no host tools, no headers.
    contents=$(dpkg-deb --contents "$target")
    grep -q "/usr/bin/couplet-target$" <<<"$contents" || fail "couplet-target package lacks the program"
    grep -q "libcouplet-device.so" <<<"$contents" || fail "couplet-target package lacks the device library"
    ! grep -q "/usr/bin/couplet$\|\.hpp$" <<<"$contents" || fail "couplet-target package holds host files"
    grep -q "/usr/bin/couplet$" <<<"$(dpkg-deb --contents "$host")" || fail "couplet package lacks couplet"
    grep -q "/usr/lib/python3/dist-packages/couplet\.cpython-.*\.so$" <<<"$(dpkg-deb --contents "$host")" ||
      fail "couplet package lacks the Python module"
    grep -q "include/couplet/device.hpp$" <<<"$(dpkg-deb --contents "$dev")" || fail "couplet-dev lacks the SDK header"
    # Unpacked into a private root, the target program runs.
    dpkg -x "$target" "$work/root"
    "$work/root/usr/bin/couplet-target" --help >/dev/null || fail "unpacked couplet-target --help"
    "$work/root/usr/bin/couplet-target" --model translational.mass --describe | grep -q "inputs: f" ||
      fail "unpacked couplet-target --describe"
    echo "package: ok ($(du -k "$target" | cut -f1) KiB target package)"
    ;;

  target-only)
    # The target-only build configures with the host-only packages hidden ...
    hidden=(-DCMAKE_DISABLE_FIND_PACKAGE_yaml-cpp=ON -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON
            -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON
            -DCMAKE_DISABLE_FIND_PACKAGE_pybind11=ON)
    cmake -S "$src" -B "$work/target-build" -DCOUPLET_TARGET_ONLY=ON "${hidden[@]}" >"$work/log" 2>&1 ||
      { cat "$work/log" >&2; fail "the target-only build needs a host-only package"; }
    grep -q "couplet-target" "$work/target-build/Makefile" || fail "no couplet-target in the target-only build"
    ! grep -q "couplet-netem\|couplet_host_tools" "$work/target-build/Makefile" ||
      fail "the target-only build builds host tools"
    # ... while the full build does need them (so hiding works).
    if cmake -S "$src" -B "$work/full-build" "${hidden[@]}" >"$work/log" 2>&1; then
      fail "the full build configured without yaml-cpp: hiding packages had no effect"
    fi
    echo "target-only: ok"
    ;;
  build-tree)
    # The same program against the build tree, nothing installed: its
    # coupletConfig.cmake and exported targets (cmake/CoupletInstall.cmake).
    [ -e "$build/coupletConfig.cmake" ] || fail "no coupletConfig.cmake in the build tree"
    check_simulation_consumer "$build" "$build/couplet" build-tree-consumer
    echo "build-tree: ok"
    ;;
  *)
    fail "unknown case $what"
    ;;
esac
