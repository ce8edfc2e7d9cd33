"""A pytest test bench for scenarios/two_mass_switch.yaml (docs/testing.md).

It steps the scenario with the Python module's couplet.Simulation
(docs/python.md, "Stepping a simulation") and asserts on signals between
steps and at the end. From the repository's root, after ./build.sh:

    PYTHONPATH=build/python python3 -m pytest docs/examples/test_two_mass_switch.py \
        --junitxml=report.xml

Environment:
    COUPLET_SCENARIO              the scenario (default: the repository's
                                  scenarios/two_mass_switch.yaml)
    COUPLET_EXAMPLE_LEFT_X_BOUND  the bound on |left.x| asserted during the
                                  run (default: sqrt(2), the energy bound
                                  below); set it to 0.5 to watch that test
                                  fail, as the project's own test does
"""

import csv
import math
import os
from pathlib import Path

import pytest

import couplet

SCENARIO = os.environ.get(
    "COUPLET_SCENARIO", str(Path(__file__).resolve().parents[2] / "scenarios" / "two_mass_switch.yaml"))

# Both springs of the left mass start stretched by 1 m (left.x = 1, right.x = 0,
# c = c_coupling = 1 N/m) and nothing moves: the stored energy is 1 J. Springs
# and dampers only lose energy before the switch at t = 100 s, so the left
# spring's 0.5 * c * x^2 stays below 1 J: |left.x| <= sqrt(2) m.
LEFT_X_BOUND = float(os.environ.get("COUPLET_EXAMPLE_LEFT_X_BOUND", math.sqrt(2.0)))

# Two macro steps for the same bench: 10 ms (the scenario's) and 5 ms.
STEPS = [0.01, 0.005]


@pytest.mark.parametrize("step", STEPS)
def test_left_x_stays_within_the_energy_bound(step):
    sim = couplet.Simulation(SCENARIO, {"time.end": 20, "algorithm.step": step})
    while not sim.step_until(sim.time + 0.5):
        assert abs(sim["left.x"]) <= LEFT_X_BOUND, f"left.x = {sim['left.x']} at t = {sim.time} s"
    assert sim.time == pytest.approx(20.0)
    assert sim.summary["status"] == "completed"


def test_settles_at_the_static_equilibrium_after_the_switch():
    # Heavier damping so that the oscillation dies out within 20 s, and an
    # earlier switch. At rest before it both springs are slack (left.x = 0);
    # after it the right wall (4 N/m) pulls towards its anchor at 1 m:
    #   left:  -c x_l + f = 0, with f = c_coupling (x_r - x_l)  ->  x_r = 2 x_l
    #   right: -c_wall_after (x_r - 1) - f = 0                  ->  x_l = 4/9
    # and the coupling force right.f returned to the left mass is x_l = 4/9 N.
    sim = couplet.Simulation(
        SCENARIO, {
            "time.end": 60,
            "slaves.left.parameters.d": 6,
            "slaves.right.parameters.d_wall": 4,
            "slaves.right.parameters.switch_time": 20,
        })
    sim.step_until(19.0)
    assert sim["left.x"] == pytest.approx(0.0, abs=1e-2)
    assert sim.run()
    assert sim["left.x"] == pytest.approx(4.0 / 9.0, abs=1e-5)
    assert sim["right.f"] == pytest.approx(4.0 / 9.0, abs=1e-5)


@pytest.mark.parametrize("step", STEPS)
def test_values_between_steps_are_the_runs_own_trace(step, tmp_path):
    sim = couplet.Simulation(SCENARIO, {"time.end": 5, "algorithm.step": step}, output_dir=str(tmp_path))
    seen = {}
    while not sim.step_until(sim.time + 0.25):
        seen[sim.time] = sim["left.x"]
    seen[sim.time] = sim["left.x"]

    trace = dict(zip(sim.grid.tolist(), sim.trace("left.x").tolist()))
    with open(tmp_path / "signals.csv", newline="") as file:
        written = {float(row["time"]): float(row["left.x"]) for row in csv.DictReader(file)}
    assert len(seen) == 20
    for time, value in seen.items():
        # Bit for bit: the value read between steps is the one the run records.
        assert trace[time] == value, f"trace at t = {time}"
        assert written[time] == value, f"signals.csv at t = {time}"
