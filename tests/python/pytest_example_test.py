"""Runs docs/examples/test_two_mass_switch.py with pytest and checks its JUnit XML.

Usage: pytest_example_test.py BUILD_DIR SOURCE_DIR

  1. As written: pytest exits 0 and report.xml counts 5 tests, no failure,
     no error, no skip.
  2. With COUPLET_EXAMPLE_LEFT_X_BOUND=0.5 (left.x starts at 1 m): pytest exits
     1 and report.xml counts exactly the two bound cases as failed, each
     message naming left.x; the other 3 tests pass.
Exit 0 when all checks pass; 1 with the failures listed otherwise.
"""

import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

EXPECTED_TESTS = 5
BOUND_CASES = {
    "test_left_x_stays_within_the_energy_bound[0.01]",
    "test_left_x_stays_within_the_energy_bound[0.005]",
}


def run_pytest(build, source, report, extra_env):
    example = os.path.join(source, "docs", "examples", "test_two_mass_switch.py")
    env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"), **extra_env)
    # No cache directory in the source tree; the root is the temporary directory
    # so that no configuration file of the checkout is picked up.
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--rootdir",
               os.path.dirname(report), "--junitxml", report, example]
    completed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=240)
    return completed.returncode, completed.stdout + completed.stderr


def read_report(report):
    if not os.path.exists(report):
        print(f"FAIL: pytest wrote no {report} (is pytest installed? Debian: python3-pytest)")
        sys.exit(1)
    root = ElementTree.parse(report).getroot()
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    counts = {key: int(suite.get(key)) for key in ("tests", "failures", "errors", "skipped")}
    return counts, cases


def main():
    build, source = sys.argv[1], sys.argv[2]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.xml")
        status, output = run_pytest(build, source, report, {})
        if status != 0:
            failures.append(f"pytest as written exited {status}:\n{output}")
        counts, cases = read_report(report)
        if counts != {"tests": EXPECTED_TESTS, "failures": 0, "errors": 0, "skipped": 0}:
            failures.append(f"as written: report.xml counts {counts}")
        if len(cases) != EXPECTED_TESTS:
            failures.append(f"as written: {len(cases)} test cases {sorted(cases)}")

        os.remove(report)
        status, output = run_pytest(build, source, report, {"COUPLET_EXAMPLE_LEFT_X_BOUND": "0.5"})
        if status != 1:
            failures.append(f"with a 0.5 m bound pytest exited {status} (expected 1):\n{output}")
        counts, cases = read_report(report)
        if counts != {"tests": EXPECTED_TESTS, "failures": len(BOUND_CASES), "errors": 0, "skipped": 0}:
            failures.append(f"with a 0.5 m bound: report.xml counts {counts}")
        failed = {name for name, case in cases.items() if case.find("failure") is not None}
        if failed != BOUND_CASES:
            failures.append(f"with a 0.5 m bound: failed cases {sorted(failed)}")
        for name in failed & BOUND_CASES:
            message = cases[name].find("failure").get("message", "")
            if "left.x = " not in message:
                failures.append(f"{name}: failure message {message!r} does not name left.x")

    for failure in failures:
        print("FAIL:", failure)
    print("pytest example:", "ok" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
