#!/usr/bin/python3
"""ctest driver for docs/examples/read_run_log.py (tests/CMakeLists.txt).

    run_log_example_test.py reads|refuses COUPLET SOURCE_DIR PYTHON_MODULE_DIR

Runs `couplet run scenarios/two_mass_switch.yaml --set time.end=1` into a fresh
temporary directory, then the example (under Debian's /usr/bin/python3, as the
docs say, with PYTHONPATH at the generated couplet_pb2.py) on the log:
  reads:   exit 0; the summary agrees with couplet's summary.json and
           signals.csv (scenario, algorithm, macro steps, last left.x). Also
           runs the commands of docs/examples/README.md as written there (its
           /tmp paths moved into the temporary directory, build/couplet being
           COUPLET): they must exit 0 and print the 200 macro steps of 2 s.
  refuses: a copy with one payload bit flipped (still decodable: only the
           CRC catches it), and a copy cut inside a frame, each give a
           non-zero exit and one line naming the frame and its byte offset
           (found here by walking the frame lengths); the undamaged log reads.
Exit 0 when all checks pass; 1 with the failures listed otherwise.
"""

import csv
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

failures = []

# The interpreter the docs name: Debian's, with python3-protobuf.
SYSTEM_PYTHON = "/usr/bin/python3"


def check(condition, what):
    if not condition:
        failures.append(what)
    return condition


def run_example(source_dir, module_dir, log):
    env = dict(os.environ, PYTHONPATH=module_dir)
    example = os.path.join(source_dir, "docs", "examples", "read_run_log.py")
    return subprocess.run([SYSTEM_PYTHON, example, log], env=env, capture_output=True, text=True, timeout=120)


def frame_offsets(data):
    """Start offsets of the frames, walking the length fields (no CRC check)."""
    offsets, offset = [], 8
    while offset + 4 <= len(data):
        (length,) = struct.unpack_from("<I", data, offset)
        offsets.append(offset)
        offset += length + 8
    return offsets


def test_reads(source_dir, module_dir, out):
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    with open(os.path.join(out, "signals.csv")) as f:
        last_row = list(csv.DictReader(f))[-1]
    result = run_example(source_dir, module_dir, os.path.join(out, "run.log"))
    print(result.stdout, end="")
    print(result.stderr, end="", file=sys.stderr)
    check(result.returncode == 0, f"exit status {result.returncode}, expected 0")
    lines = result.stdout.splitlines()
    check(summary["macro_steps"] == 100, f"summary.json says {summary['macro_steps']} macro steps, expected 100")
    for expected in [f"scenario: {summary['scenario']} (scenarios/two_mass_switch.yaml)",
                     f"algorithm: {summary['algorithm']}",
                     f"macro steps: {summary['macro_steps']}",
                     "status: RUN_COMPLETED",
                     "step size: 0.01 s to 0.01 s (200 slave steps)"]:
        check(expected in lines, f"no line {expected!r} in the output")
    left = [line for line in lines if line.startswith("left: ")]
    if check(len(left) == 1, "no line 'left: ...' in the output"):
        expected = f"left: 100 steps, last at t=1 s: x={float(last_row['left.x']):.6g}, v={float(last_row['left.v']):.6g}"
        check(left[0] == expected, f"{left[0]!r}, expected {expected!r} (from signals.csv)")


def documented_commands(source_dir):
    """The shell block of docs/examples/README.md's Python section."""
    with open(os.path.join(source_dir, "docs", "examples", "README.md")) as f:
        text = f.read()
    section = text[text.index("## Reading a run log from Python"):]
    start = section.index("```sh\n") + len("```sh\n")
    return section[start:section.index("```", start)]


def test_documented_commands(source_dir, couplet, tmp):
    script = documented_commands(source_dir)
    check("/usr/bin/python3 docs/examples/read_run_log.py" in script,
          "docs/examples/README.md does not run the example with /usr/bin/python3")
    script = (script.replace("/tmp/couplet_py", os.path.join(tmp, "couplet_py"))
              .replace("/tmp/run", os.path.join(tmp, "documented_run"))
              .replace("build/couplet ", couplet + " "))
    result = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=source_dir,
                            capture_output=True, text=True, timeout=300)
    print(result.stdout, end="")
    print(result.stderr, end="", file=sys.stderr)
    check(result.returncode == 0, f"the commands of docs/examples/README.md: exit status {result.returncode}")
    check("macro steps: 200" in result.stdout.splitlines(),
          "the commands of docs/examples/README.md: no line 'macro steps: 200' in the output")


def expect_refusal(source_dir, module_dir, log, frame, offset, what):
    result = run_example(source_dir, module_dir, log)
    print(f"{what}: exit {result.returncode}; stderr: {result.stderr}", end="")
    check(result.returncode != 0, f"{what}: exit status 0, expected non-zero")
    check(result.stderr.count("\n") == 1, f"{what}: expected a one-line error, got {result.stderr!r}")
    where = f"frame {frame} at byte offset {offset}"
    check(where in result.stderr, f"{what}: {where!r} not in the error {result.stderr!r}")
    return result


def test_refuses(source_dir, module_dir, out, tmp):
    with open(os.path.join(out, "run.log"), "rb") as f:
        data = f.read()
    offsets = frame_offsets(data)
    if not check(len(offsets) > 10, f"only {len(offsets)} frames in the log"):
        return
    # One bit flipped in the last payload byte of a LogPlan frame in the middle
    # (payload tag 0x2a: LogRecord field 5). That byte ends LogPlan.wall_ns, a
    # varint, so the payload still decodes: only the CRC can catch it.
    index = next(i for i in range(len(offsets) // 2, len(offsets)) if data[offsets[i] + 4] == 0x2A)
    offset = offsets[index]
    (length,) = struct.unpack_from("<I", data, offset)
    corrupted = bytearray(data)
    corrupted[offset + 4 + length - 1] ^= 0x01
    path = os.path.join(tmp, "corrupted.log")
    with open(path, "wb") as f:
        f.write(corrupted)
    result = expect_refusal(source_dir, module_dir, path, index + 1, offset, "bit flipped")
    check("CRC mismatch" in result.stderr, f"bit flipped: 'CRC mismatch' not in the error {result.stderr!r}")
    # Cut inside the last-but-two frame.
    index = len(offsets) - 3
    offset = offsets[index]
    path = os.path.join(tmp, "cut.log")
    with open(path, "wb") as f:
        f.write(data[:offset + 6])
    expect_refusal(source_dir, module_dir, path, index + 1, offset, "cut inside a frame")
    # The untouched copy still reads: the damage, not the copying, is refused.
    result = run_example(source_dir, module_dir, os.path.join(out, "run.log"))
    check(result.returncode == 0, f"the undamaged log: exit status {result.returncode} ({result.stderr.strip()})")


def main(argv):
    if len(argv) != 5 or argv[1] not in ("reads", "refuses"):
        print(__doc__, file=sys.stderr)
        return 2
    mode = argv[1]
    couplet, source_dir, module_dir = (os.path.abspath(arg) for arg in argv[2:])
    if not os.path.exists(os.path.join(module_dir, "couplet_pb2.py")):
        print(f"FAIL: {module_dir}/couplet_pb2.py is missing (build the target couplet_python_module)")
        return 1
    tmp = tempfile.mkdtemp(prefix="couplet_python_example_")
    try:
        out = os.path.join(tmp, "out")
        run = subprocess.run([couplet, "run", "scenarios/two_mass_switch.yaml", "--set", "time.end=1", "-o", out],
                             cwd=source_dir, capture_output=True, text=True, timeout=300)
        if run.returncode != 0:
            print(f"FAIL: couplet run exited {run.returncode}\n{run.stdout}{run.stderr}")
            return 1
        if mode == "reads":
            test_reads(source_dir, module_dir, out)
            test_documented_commands(source_dir, couplet, tmp)
        else:
            test_refuses(source_dir, module_dir, out, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for failure in failures:
        print(f"FAIL: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
