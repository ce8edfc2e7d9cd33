#!/usr/bin/python3
"""ctest driver for the Python module `couplet` (docs/python.md, tests/CMakeLists.txt).

    couplet_module_test.py CASE BUILD_DIR SOURCE_DIR

BUILD_DIR holds the programs couplet, couplet-target and couplet-netem and,
in BUILD_DIR/python, the module and the protoc-generated couplet_pb2.py (put
on sys.path here, as PYTHONPATH would). Cases:

  run       couplet.run(two_mass_switch, overrides) against `couplet run --set`
            into another directory: identical summary (NRMSE of every signal,
            decision hash, counters), signals bit for bit as signals.csv, the
            overrides in effect; read_log().table() equals `couplet export`;
            replay() reproduces the decision hash, a log tampered with (a value
            changed, checksum valid) raises ReplayMismatch; output_dir=None
            makes a fresh directory; the GIL is released during a run; runs
            in parallel threads decide as they do one after the other.
  lossy     a remote slave behind couplet-netem (20 % loss), paced by the wall
            clock: the log's link totals are the counters summary.json reports
            (retransmissions and all); its step calls carry their own
            retransmissions, fewer than the total, and a round trip each; their missed
            flags sum to its missed results; the plans' pacer lateness gives
            its min, max and cycles exactly.
  damaged   a bit flipped in a middle frame, and a copy cut inside a frame:
            read_log raises DamagedLogError (a RunLogError, a RuntimeError)
            naming the frame and its byte offset; allow_damaged=True reads the
            records before it; replay(verify=True) of the flipped copy raises;
            a missing log and a file that is no log raise RunLogError naming it.
  streamed  read_table streams a log: the table read_log().table() gives
            (communication and grid rows), selected columns in the table's
            order, one row per `every` seconds and the last, KeyError for an
            unknown column, a cut log refused or read up to the cut.
  errors    a missing scenario, an unknown override key and a bad override
            value raise ConfigurationError (a ValueError) with couplet's
            message; a non-string override key raises TypeError.
  dataframe with pandas: the run's, the calls', the plans' and the table's
            DataFrames hold the arrays; with pandas hidden, an ImportError that
            names python3-pandas, while the arrays still work.
  stepping  couplet.Simulation: step_until(1.0) then sim["left.x"] equals the
            CLI's signals.csv at t = 1.0 bit for bit; a t inside a macro step
            ends at the step's end; the grid so far and the signals as arrays
            equal signals.csv's first rows; run() reaches the CLI's decision
            hash and summary; an unknown output raises KeyError naming it, a
            bad scenario ConfigurationError, a value before initialize()
            ConfigurationError; output_dir gets signals.csv and summary.json
            as the CLI's.
  discrete  two tally FMUs coupled through Integer and Boolean ports:
            couplet.run's signals are int64 and bool arrays with signals.csv's
            values; Simulation returns int and bool between steps; the log's
            table and grid hold the same columns with the same types.
  docs      the notebook session of docs/python.md runs as written (its
            /tmp directory moved into a temporary one) and prints the run's
            status, 1001 communication times and a reproduced replay.
Exit 0 when all checks pass; 1 with the failures listed otherwise.
"""

import csv
import json
import math
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

failures = []
SCENARIO = "scenarios/two_mass_switch.yaml"


def check(condition, what):
    if not condition:
        failures.append(what)
    return condition


def frame_offsets(data):
    """Start offsets of the frames, walking the length fields (no CRC check)."""
    offsets, offset = [], 8
    while offset + 4 <= len(data):
        (length,) = struct.unpack_from("<I", data, offset)
        offsets.append(offset)
        offset += length + 8
    return offsets


def cli_run(build, source, out, settings):
    # The scenario by the path the module gets: the log's header holds it.
    argv = [os.path.join(build, "couplet"), "run", os.path.join(source, SCENARIO), "-o", out]
    for setting in settings:
        argv += ["--set", setting]
    result = subprocess.run(argv, cwd=source, capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        raise RuntimeError(f"couplet run exited {result.returncode}: {result.stderr}")
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def read_csv_columns(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    return {name: [float(row[c]) if row[c] != "" else math.nan for row in body] for c, name in enumerate(header)}


def same_values(array, values):
    """Bit for bit, NaN equal to NaN."""
    return len(array) == len(values) and all(
        (math.isnan(a) and math.isnan(b)) or a == b for a, b in zip(array.tolist(), values))


def without_wall_time(summary):
    """The summary less what differs between two runs of the same decisions:
    timing, and the log's section (its path, how often its writer made the run
    wait, and its size: host clock times are varints of varying length)."""
    summary = json.loads(json.dumps(summary))
    summary.pop("wall_time_s", None)
    summary.pop("run_log", None)
    return summary


def rewrite_one_output(log_path, tampered_path):
    """A copy of the log whose left mass position in the 20th step call is raised
    by 1e-9, its frame's checksum recomputed: a log that reads, but whose
    decisions replay cannot reproduce."""
    import couplet_pb2
    with open(log_path, "rb") as f:
        data = bytearray(f.read())
    steps = 0
    for offset in frame_offsets(bytes(data)):
        (length,) = struct.unpack_from("<I", data, offset)
        record = couplet_pb2.LogRecord()
        record.ParseFromString(bytes(data[offset + 4:offset + 4 + length]))
        if record.WhichOneof("body") != "call" or record.call.slave != 0 or not record.call.end_outputs:
            continue
        steps += 1
        if steps < 20:
            continue
        record.call.end_outputs[0] += 1e-9
        payload = record.SerializeToString()
        if len(payload) != length:
            raise RuntimeError("the tampered record changed its length")
        data[offset + 4:offset + 4 + length] = payload
        crc = zlib.crc32(bytes(data[offset:offset + 4 + length]))
        struct.pack_into("<I", data, offset + 4 + length, crc)
        with open(tampered_path, "wb") as f:
            f.write(data)
        return
    raise RuntimeError("no 20th output record of slave 0 in the log")


def gil_is_released_during_run(couplet, scenario, tmp):
    """Counts the ticks this thread gets while another runs a scenario."""
    ticks = 0
    done = threading.Event()

    def run():
        couplet.run(scenario, {"time.end": 200, "algorithm.step": 0.005}, os.path.join(tmp, "threaded"))
        done.set()

    worker = threading.Thread(target=run)
    began = time.monotonic()
    worker.start()
    while not done.is_set() and worker.is_alive():
        ticks += 1
        time.sleep(0.001)
    worker.join()
    elapsed = time.monotonic() - began
    print(f"GIL: {ticks} ticks during a run of {elapsed:.2f} s")
    # Holding the GIL, the run would leave this loop one tick at most.
    return elapsed < 0.2 or ticks >= 10


def concurrent_runs_decide_as_sequential_ones(couplet, scenario, tmp):
    """Three step sizes run one after the other, then at once in threads."""
    from concurrent.futures import ThreadPoolExecutor
    steps = [0.01, 0.02, 0.04]

    def run(step, kind):
        settings = {"algorithm.step": step, "time.end": 50}
        return couplet.run(scenario, settings, os.path.join(tmp, f"{kind}-{step}")).decision_hash

    sequential = [run(step, "sequential") for step in steps]
    with ThreadPoolExecutor(len(steps)) as pool:
        concurrent = list(pool.map(lambda step: run(step, "concurrent"), steps))
    print(f"hashes: sequential {sequential}, concurrent {concurrent}")
    return len(set(sequential)) == len(steps) and concurrent == sequential


def case_run(couplet, build, source, tmp):
    settings = {"time.end": 20, "algorithm.step": 0.02}
    cli = cli_run(build, source, os.path.join(tmp, "cli"), [f"{k}={v}" for k, v in settings.items()])
    result = couplet.run(os.path.join(source, SCENARIO), overrides=settings, output_dir=os.path.join(tmp, "py"))
    check(cli["end_time"] == 20 and cli["macro_steps"] == 1000,
          f"the CLI run did not take the settings: {cli['end_time']} s, {cli['macro_steps']} macro steps")
    check(result.decision_hash == cli["decision_hash"],
          f"decision hash {result.decision_hash}, the CLI's {cli['decision_hash']}")
    check(result.summary["decision_hash"] == result.decision_hash, "summary and result disagree on the hash")
    check(result.status == "completed", f"status {result.status}")
    check(bool(cli.get("errors")), "the CLI summary has no NRMSE")
    for signal_name, error in cli.get("errors", {}).items():
        ours = result.summary.get("errors", {}).get(signal_name, {}).get("nrmse_pct")
        check(ours == error["nrmse_pct"], f"{signal_name}: NRMSE {ours} %, the CLI's {error['nrmse_pct']} %")
    ours, theirs = without_wall_time(result.summary), without_wall_time(cli)
    differing = sorted(key for key in set(ours) | set(theirs) if ours.get(key) != theirs.get(key))
    check(not differing, "the summaries differ beyond wall time: " +
          "; ".join(f"{key}: {ours.get(key)} here, {theirs.get(key)} from the CLI" for key in differing))
    with open(os.path.join(tmp, "py", "summary.json")) as f:
        check(json.load(f) == result.summary, "result.summary is not the summary.json written")
    check(result.output_dir == os.path.join(tmp, "py"), f"output_dir {result.output_dir}")

    columns = read_csv_columns(os.path.join(tmp, "cli", "signals.csv"))
    check(same_values(result.time, columns.pop("time")), "time is not signals.csv's time column")
    check(list(result.signals) == list(columns), f"signals {list(result.signals)}, signals.csv {list(columns)}")
    for name, values in columns.items():
        check(name in result.signals and same_values(result.signals[name], values),
              f"signal {name} differs from signals.csv")
    check(result.time.dtype.name == "float64" and len(result.time) == 2001, f"{len(result.time)} times, 2001 expected")

    log_path = os.path.join(tmp, "py", "run.log")
    log = couplet.read_log(log_path)
    exported = os.path.join(tmp, "export.csv")
    subprocess.run([os.path.join(build, "couplet"), "export", log_path, "--csv", exported], check=True,
                   capture_output=True, timeout=300)
    table = log.table()
    expected = read_csv_columns(exported)
    check(list(table) == list(expected), f"table columns {list(table)}, couplet export {list(expected)}")
    for name, values in expected.items():
        check(name in table and same_values(table[name], values), f"table column {name} differs from couplet export")
    check(log.decision_hash == result.decision_hash, f"the log's hash {log.decision_hash}")
    check(log.plans["macro_steps"][-1] == 1000 and log.plans["frontier_s"][-1] == 20.0,
          f"{log.plans['macro_steps'][-1]} macro steps up to {log.plans['frontier_s'][-1]} s")
    check(len(log.plans["plan"]) == log.end_record["plans"], f"{len(log.plans['plan'])} plans, end record {log.end_record}")
    check(log.end_record["status"] == "completed" and log.end_record["completed"], f"end record {log.end_record}")
    check(log.slave_names == ["left", "right"], f"slaves {log.slave_names}")
    check(("left.x", "right.x") in log.connections, f"connections {log.connections}")
    left = log.outputs("left")
    kinds = [log.call_kinds[k] for k in log.calls["kind"][left["call"]]]
    check(len(left["time"]) >= 1000 and "step" in kinds, f"left's outputs: {len(left['time'])} calls")

    replayed = couplet.replay(log_path)
    check(replayed.identical and replayed.verified, f"replay: {replayed.verdict}")
    check(replayed.replayed_hash == result.decision_hash == replayed.recorded_hash,
          f"replayed hash {replayed.replayed_hash}, recorded {replayed.recorded_hash}")
    tampered = os.path.join(tmp, "tampered.log")
    rewrite_one_output(log_path, tampered)
    try:
        couplet.replay(tampered)
        check(False, "replay of a tampered log raised nothing")
    except couplet.ReplayMismatch as error:
        print(f"tampered: {error}")
        # The left mass's position feeds the right slave's input x.
        check("diverged" in str(error) and "input 'right.x'" in str(error), f"tampered: message {error}")
    unverified = couplet.replay(tampered, verify=False)
    check(not unverified.identical and unverified.divergence, f"tampered, verify=False: {unverified.verdict}")

    fresh = couplet.run(os.path.join(source, SCENARIO), {"time.end": 1}, record_log=False)
    check(os.path.isdir(fresh.output_dir) and fresh.output_dir != os.path.join(tmp, "py") and
          os.path.exists(os.path.join(fresh.output_dir, "summary.json")),
          f"output_dir=None: {fresh.output_dir}")
    check(not os.path.exists(os.path.join(fresh.output_dir, "run.log")), "record_log=False wrote run.log")
    shutil.rmtree(fresh.output_dir, ignore_errors=True)
    check(gil_is_released_during_run(couplet, os.path.join(source, SCENARIO), tmp),
          "the main thread did not run during couplet.run: the GIL is held")
    check(concurrent_runs_decide_as_sequential_ones(couplet, os.path.join(source, SCENARIO), tmp),
          "runs in parallel threads decided otherwise than one after the other")


class Child:
    """A program that prints a ready line ending in its address; stopped on exit."""

    def __init__(self, argv):
        self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        match = re.search(r"(\d+\.\d+\.\d+\.\d+:\d+)\s*$", line)
        if not match:
            self.stop()
            raise RuntimeError(f"{argv[0]}: no ready line, got {line!r}")
        self.address = match.group(1)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def case_lossy(couplet, build, source, tmp):
    children = []
    try:
        target = Child([os.path.join(build, "couplet-target"), "--model", "translational.coupled_mass",
                        "--udp", "127.0.0.1:0"])
        children.append(target)
        netem = Child([os.path.join(build, "couplet-netem"), "--listen", "127.0.0.1:0", "--forward",
                       target.address, "--loss", "0.2", "--seed", "5"])
        children.append(netem)
        overrides = {"time.end": 3, "algorithm.step": 0.02,
                     "slaves.right.link": {"udp": netem.address, "retransmit_timeout": 0.002},
                     "clock": {"type": "wall", "realtime_factor": 1}}
        result = couplet.run(os.path.join(source, SCENARIO), overrides, os.path.join(tmp, "lossy"))
    finally:
        for child in reversed(children):
            child.stop()
    summary = result.summary
    log = couplet.read_log(os.path.join(tmp, "lossy", "run.log"))
    right = log.slave_names.index("right")
    check(log.slaves[right]["link"] is not None and netem.address in log.slaves[right]["link"],
          f"right's link {log.slaves[right]['link']}")
    on_right = log.calls["slave"] == right
    steps = log.calls["kind"] == log.call_kinds.index("step")
    # The log counts the retransmissions of each step's exchange; the summary's
    # link counters those of every exchange (set-up, output evaluations too).
    retransmissions = int(log.calls["retransmissions"][on_right & steps].sum())
    reported = summary["links"]["right"]["retransmissions"]
    print(f"retransmissions: {retransmissions} in the log's steps, {reported} in the summary")
    check(0 < retransmissions <= reported,
          f"{retransmissions} retransmissions in the log's steps, {reported} in the summary")
    check(int(log.calls["retransmissions"][~(on_right & steps)].sum()) == 0,
          "retransmissions on a local slave or outside a step")
    # The whole run's counters, from the log's link totals: those summary.json reports.
    totals = log.slaves[right]["link_totals"]
    expected = {key: value for key, value in summary["links"]["right"].items() if key != "link"}
    print(f"link totals in the log: {totals}")
    check(totals == expected, f"link totals {totals} in the log, {expected} in the summary")
    check(totals["retransmissions"] > retransmissions,
          f"{totals['retransmissions']} retransmissions in all, {retransmissions} in the steps:"
          " the set-up and output evaluations retransmit too")
    check(log.slaves[1 - right]["link_totals"] is None, "link totals of the local slave")
    round_trips = log.calls["round_trip_s"][on_right & steps]
    check(len(round_trips) == 150 and all(r >= 0 for r in round_trips),
          f"{len(round_trips)} steps of the remote slave, round trips {round_trips[:5]}...")
    missed = int(log.calls["missed"].sum())
    check(missed == summary["realtime"]["missed_results"],
          f"{missed} missed calls in the log, {summary['realtime']['missed_results']} in the summary")

    lateness_us = log.plans["pacer_lateness_ns"] / 1e3
    frontier = log.plans["frontier_s"]
    advanced = [i for i in range(len(frontier)) if frontier[i] > (frontier[i - 1] if i else log.start)]
    realtime = summary["realtime"]
    print(f"lateness: max {lateness_us.max()} us in the log, summary {realtime['lateness_us']}")
    check(len(advanced) == realtime["cycles"], f"{len(advanced)} paced plans in the log, {realtime['cycles']} cycles")
    paced = lateness_us[advanced]
    check(paced.max() == realtime["lateness_us"]["max"] and paced.min() == realtime["lateness_us"]["min"],
          f"lateness min/max {paced.min()}/{paced.max()} us in the log, summary {realtime['lateness_us']}")
    check(paced.max() > 0, "no pacer lateness at all in a wall-clock run")


def expect_damaged(couplet, path, frame, offset, what):
    try:
        couplet.read_log(path)
        check(False, f"{what}: read_log raised nothing")
        return
    except couplet.DamagedLogError as error:
        message = str(error)
        print(f"{what}: {type(error).__name__}: {message}")
        check(isinstance(error, couplet.RunLogError) and isinstance(error, RuntimeError),
              f"{what}: DamagedLogError is not a RunLogError and RuntimeError")
        where = f"frame {frame} at byte offset {offset}"
        check(where in message, f"{what}: {where!r} not in {message!r}")
        check(path in message, f"{what}: the path not in {message!r}")
    partial = couplet.read_log(path, allow_damaged=True)
    check(partial.damaged and f"frame {frame}" in partial.damage, f"{what}, allow_damaged: damage {partial.damage!r}")
    check(partial.frames == frame - 1, f"{what}, allow_damaged: {partial.frames} frames, {frame - 1} expected")
    return partial


def case_damaged(couplet, build, source, tmp):
    out = os.path.join(tmp, "out")
    couplet.run(os.path.join(source, SCENARIO), {"time.end": 2}, out)
    log_path = os.path.join(out, "run.log")
    whole = couplet.read_log(log_path)
    check(not whole.damaged and not whole.cut, "the undamaged log reads as damaged")
    with open(log_path, "rb") as f:
        data = f.read()
    offsets = frame_offsets(data)
    check(whole.frames == len(offsets), f"{whole.frames} frames read, {len(offsets)} in the file")

    index = len(offsets) // 2
    offset = offsets[index]
    (length,) = struct.unpack_from("<I", data, offset)
    flipped = bytearray(data)
    flipped[offset + 4 + length // 2] ^= 0x10
    flipped_path = os.path.join(tmp, "flipped.log")
    with open(flipped_path, "wb") as f:
        f.write(flipped)
    partial = expect_damaged(couplet, flipped_path, index + 1, offset, "bit flipped")
    if partial is not None:
        check(len(partial.calls["plan"]) < len(whole.calls["plan"]), "allow_damaged read every call")
    try:
        couplet.replay(flipped_path, verify=True)
        check(False, "replay(verify=True) of a corrupted log raised nothing")
    except couplet.ReplayMismatch as error:
        check("damaged" in str(error) and f"frame {index + 1}" in str(error), f"replay of a corrupted log: {error}")

    index = len(offsets) * 2 // 3
    cut_path = os.path.join(tmp, "cut.log")
    with open(cut_path, "wb") as f:
        f.write(data[:offsets[index] + 6])
    expect_damaged(couplet, cut_path, index + 1, offsets[index], "cut inside a frame")

    missing = os.path.join(tmp, "no-such.log")
    for path, what in [(missing, "missing log"), (os.path.join(source, SCENARIO), "not a log")]:
        try:
            couplet.read_log(path)
            check(False, f"{what}: read_log raised nothing")
        except couplet.RunLogError as error:
            print(f"{what}: {error}")
            check(path in str(error), f"{what}: the path not in {error}")


def expect_configuration_error(couplet, call, needle, what):
    try:
        call()
        check(False, f"{what}: raised nothing")
    except couplet.ConfigurationError as error:
        print(f"{what}: {error}")
        check(isinstance(error, ValueError), f"{what}: not a ValueError")
        check(needle in str(error), f"{what}: {needle!r} not in {error}")


def case_errors(couplet, build, source, tmp):
    scenario = os.path.join(source, SCENARIO)
    out = os.path.join(tmp, "out")
    expect_configuration_error(couplet, lambda: couplet.run(os.path.join(tmp, "missing.yaml"), output_dir=out),
                               "missing.yaml", "missing scenario")
    expect_configuration_error(couplet, lambda: couplet.run(scenario, {"algorithm.stepp": 0.1}, out),
                               "stepp", "unknown override key")
    expect_configuration_error(couplet, lambda: couplet.run(scenario, {"algorithm.step": "fast"}, out),
                               "algorithm.step", "override value not a number")
    try:
        couplet.run(scenario, {1: 2}, out)
        check(False, "a non-string override key raised nothing")
    except TypeError as error:
        print(f"non-string key: {error}")


def expect_error(kind, call, needle, what):
    try:
        call()
        check(False, f"{what}: raised nothing")
    except kind as error:
        print(f"{what}: {kind.__name__}: {error}")
        check(needle in str(error), f"{what}: {needle!r} not in {error}")


def case_stepping(couplet, build, source, tmp):
    scenario = os.path.join(source, SCENARIO)
    settings = {"time.end": 2}
    cli = cli_run(build, source, os.path.join(tmp, "cli"), ["time.end=2"])
    columns = read_csv_columns(os.path.join(tmp, "cli", "signals.csv"))
    at_one = columns["time"].index(1.0)

    sim = couplet.Simulation(scenario, settings)
    check(sim.time == 0.0 and not sim.finished, f"before stepping: t = {sim.time}, finished {sim.finished}")
    check(sim.step_until(1.0) is False, "step_until(1.0) finished the run")
    check(sim.time == 1.0, f"after step_until(1.0): t = {sim.time}")
    check(sim["left.x"] == columns["left.x"][at_one],
          f"sim['left.x'] = {sim['left.x']!r}, signals.csv at t = 1: {columns['left.x'][at_one]!r}")
    check(sim["left.v"] == columns["left.v"][at_one], "sim['left.v'] differs from signals.csv at t = 1")
    check(same_values(sim.grid, columns["time"][:at_one + 1]), f"grid so far: {len(sim.grid)} times")
    check(same_values(sim.trace("left.x"), columns["left.x"][:at_one + 1]), "trace('left.x') differs from signals.csv")
    check(list(sim.signals) == [name for name in columns if name != "time"], f"signals {list(sim.signals)}")
    check(same_values(sim.signals["left.x:reference"], columns["left.x:reference"][:at_one + 1]),
          "the reference so far differs from signals.csv")
    check(sim.summary["status"] == "running", f"summary before the end: {sim.summary['status']}")
    check("left.x" in sim.output_names and "right.f" in sim.output_names, f"output names {sim.output_names}")
    check(sim.run() is True and sim.finished and sim.time == 2.0, f"run(): t = {sim.time}, finished {sim.finished}")
    check(sim.decision_hash == cli["decision_hash"] == sim.summary["decision_hash"],
          f"decision hash {sim.decision_hash}, the CLI's {cli['decision_hash']}")
    ours, theirs = without_wall_time(sim.summary), without_wall_time(cli)
    check(ours == theirs, f"the summaries differ beyond wall time: {ours} / {theirs}")
    check(same_values(sim.grid, columns["time"]), "the whole grid differs from signals.csv")

    inside = couplet.Simulation(scenario, {"time.end": 2, "algorithm.step": 0.25})
    inside.step_until(0.3)
    check(inside.time == 0.5, f"step_until(0.3) with steps of 0.25 s ended at {inside.time}, not 0.5")

    out = os.path.join(tmp, "library")
    written = couplet.Simulation(scenario, settings, output_dir=out, record_log=True)
    written.run()
    with open(os.path.join(out, "signals.csv")) as mine, open(os.path.join(tmp, "cli", "signals.csv")) as theirs_csv:
        check(mine.read() == theirs_csv.read(), "Simulation(output_dir=...).run() wrote another signals.csv")
    check(os.path.exists(os.path.join(out, "run.log")), "record_log=True wrote no run.log")
    check(couplet.read_log(os.path.join(out, "run.log")).decision_hash == cli["decision_hash"],
          "the stepped run's log has another hash")

    # compress_log: run.log in zstd blocks, read as the plain one; with 1 MiB
    # segments a run's log goes on in run.2.log, read as one log.
    for name, make in (("stepped-z", lambda out: couplet.Simulation(scenario, settings, output_dir=out,
                                                                     record_log=True, compress_log=True).run()),
                       ("run-z", lambda out: couplet.run(scenario, settings, output_dir=out, compress_log=True))):
        out = os.path.join(tmp, name)
        make(out)
        with open(os.path.join(out, "run.log"), "rb") as log_file:
            check(log_file.read(8) == b"COUPLOGZ", f"{name}: compress_log=True wrote no compressed log")
        check(couplet.read_log(os.path.join(out, "run.log")).decision_hash == cli["decision_hash"],
              f"{name}: the compressed log has another hash")
    out = os.path.join(tmp, "segmented")
    long_run = dict(settings, **{"time.end": 200, "limits.run_log_segment_bytes": 1 << 20})
    segmented = couplet.run(scenario, long_run, output_dir=out)
    check(os.path.exists(os.path.join(out, "run.2.log")), "a 200 s run in 1 MiB segments wrote no run.2.log")
    check(couplet.read_log(os.path.join(out, "run.log")).decision_hash == segmented.decision_hash,
          "the segmented log has another hash than the run")

    expect_error(KeyError, lambda: sim["left.q"], "slave 'left' has no output 'q'", "unknown port")
    expect_error(KeyError, lambda: sim["nobody.x"], "no slave 'nobody'", "unknown slave")
    expect_error(couplet.ConfigurationError, lambda: couplet.Simulation(scenario, {"algorithm.stepp": 0.1}),
                 "stepp", "unknown override key")
    expect_error(couplet.ConfigurationError, lambda: couplet.Simulation(os.path.join(tmp, "missing.yaml")),
                 "missing.yaml", "missing scenario")
    fresh = couplet.Simulation(scenario, settings)
    expect_error(couplet.ConfigurationError, lambda: fresh["left.x"], "before initialize()",
                 "a value before initialize()")
    check(issubclass(couplet.ConfigurationError, ValueError), "ConfigurationError is no ValueError")
    try:
        import pandas  # noqa: F401
        frame = sim.dataframe()
        check(list(frame.columns)[:2] == ["time", "left.x"] and len(frame) == 201, f"dataframe {frame.shape}")
    except ImportError:
        pass


def case_dataframe(couplet, build, source, tmp):
    out = os.path.join(tmp, "out")
    result = couplet.run(os.path.join(source, SCENARIO), {"time.end": 2}, out)
    log = couplet.read_log(os.path.join(out, "run.log"))
    try:
        import pandas
    except ImportError:
        pandas = None
    if check(pandas is not None, "pandas is not importable (python3-pandas, a test package)"):
        frame = result.dataframe()
        check(list(frame.columns) == ["time"] + list(result.signals), f"run columns {list(frame.columns)}")
        check(frame["left.x"].tolist() == result.signals["left.x"].tolist(), "the run's DataFrame differs")
        calls = log.dataframe("calls")
        check(len(calls) == len(log.calls["plan"]), f"{len(calls)} call rows")
        check(set(calls["slave"]) == {"left", "right"} and "step" in set(calls["kind"]),
              f"call slaves {set(calls['slave'])}, kinds {set(calls['kind'])}")
        plans = log.dataframe("plans")
        check(plans["frontier_s"].tolist() == log.plans["frontier_s"].tolist(), "the plans' DataFrame differs")
        table = log.dataframe("table")
        check(list(table.columns) == list(log.table()), "the table's DataFrame columns differ")
        grid = log.dataframe("grid")
        check(grid["left.x"].tolist() == result.signals["left.x"].tolist(), "the grid DataFrame is not signals.csv")
        try:
            log.dataframe("nonsense")
            check(False, "dataframe('nonsense') raised nothing")
        except ValueError as error:
            check("nonsense" in str(error), f"dataframe('nonsense'): {error}")
    # Without pandas: an ImportError that says what to install; arrays still work.
    sys.modules["pandas"] = None
    try:
        for what, call in [("run", result.dataframe), ("log", lambda: log.dataframe("calls"))]:
            try:
                call()
                check(False, f"{what}.dataframe() without pandas raised nothing")
            except ImportError as error:
                print(f"without pandas: {error}")
                check("python3-pandas" in str(error), f"without pandas: {error}")
        check(len(result.signals["left.x"]) == 201, "the arrays need pandas")
    finally:
        del sys.modules["pandas"]


TALLIES = """name: tallies
time: {{start: 0, end: 10}}
slaves:
  a: {{fmu: {tally}}}
  b: {{fmu: {tally}}}
connections:
  - {{from: a.count, to: b.increment}}
  - {{from: a.odd, to: b.enable}}
algorithm: {{type: jacobi, step: 0.5}}
reference: none
"""


def case_discrete(couplet, build, source, tmp):
    scenario = os.path.join(tmp, "tallies.yaml")
    with open(scenario, "w") as f:
        f.write(TALLIES.format(tally=os.path.join(build, "tests", "fmus", "tally.fmu")))
    out = os.path.join(tmp, "run")
    result = couplet.run(scenario, None, out)
    check(result.status == "completed", f"status {result.status}")
    with open(os.path.join(out, "signals.csv")) as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    for name, kind in [("a.level", "f"), ("a.count", "i"), ("b.count", "i"), ("a.odd", "b"), ("b.enable", None)]:
        if kind is None:
            check(name not in result.signals, f"{name} (an input) among the signals")
            continue
        values = result.signals[name]
        check(values.dtype.kind == kind, f"{name}: dtype {values.dtype}, expected kind {kind}")
        column = [row[header.index(name)] for row in body]
        expected = [float(v) if kind == "f" else int(v) for v in column]
        check([v.item() if kind != "b" else int(v) for v in values] == expected,
              f"{name} differs from signals.csv")
    check(result.signals["b.count"][-1] == 25, f"b.count at t = 10: {result.signals['b.count'][-1]}")

    sim = couplet.Simulation(scenario)
    check("b.count" in sim.discrete_output_names and "b.count" not in sim.output_names,
          f"discrete names {sim.discrete_output_names}")
    sim.step_until(3.0)
    check(type(sim["b.count"]) is int and sim["b.count"] == 1, f"sim['b.count'] = {sim['b.count']!r}")
    check(sim["a.odd"] is True, f"sim['a.odd'] = {sim['a.odd']!r}")
    check(type(sim["a.level"]) is float, f"sim['a.level'] = {sim['a.level']!r}")
    sim.run()
    check(sim.signals["b.count"].tolist() == result.signals["b.count"].tolist(), "the stepped run's b.count differs")
    expect_error(KeyError, lambda: sim["a.nothing"], "no output 'a.nothing'", "unknown discrete port")

    log = couplet.read_log(os.path.join(out, "run.log"))
    table = log.table()
    check(table["b.count"].dtype.kind == "i" and table["a.odd"].dtype.kind == "b",
          f"table dtypes {table['b.count'].dtype} {table['a.odd'].dtype}")
    check(table["b.count"][-1] == 25, f"table b.count at the end: {table['b.count'][-1]}")
    grid = log.table(grid=True)
    for name in ["a.count", "a.odd", "b.count", "b.phase"]:
        check(grid[name].tolist() == result.signals[name].tolist(), f"the log's grid {name} is not signals.csv's")
    streamed = couplet.read_table(os.path.join(out, "run.log"), grid=True, columns=["b.count", "a.odd"])
    check(list(streamed) == ["time_s", "a.odd", "b.count"] and streamed["b.count"].dtype.kind == "i" and
          streamed["a.odd"].dtype.kind == "b", f"read_table's discrete columns: {streamed}")
    check(streamed["b.count"].tolist() == result.signals["b.count"].tolist(), "read_table's b.count differs")


def same_columns(table, expected, what):
    check(list(table) == list(expected), f"{what}: columns {list(table)}, expected {list(expected)}")
    for name, values in expected.items():
        check(name in table and table[name].dtype == values.dtype and same_values(table[name], values.tolist()),
              f"{what}: column {name} differs")


def case_streamed(couplet, build, source, tmp):
    """read_table streams the log: the same table as read_log().table(), some
    columns of it, one row per interval, a damaged log as read_log reads it."""
    out = os.path.join(tmp, "out")
    couplet.run(os.path.join(source, SCENARIO), {"time.end": 20, "algorithm.step": 0.02}, out)
    log_path = os.path.join(out, "run.log")
    log = couplet.read_log(log_path)
    whole, whole_grid = log.table(), log.table(grid=True)
    same_columns(couplet.read_table(log_path), whole, "read_table")
    same_columns(couplet.read_table(log_path, grid=True), whole_grid, "read_table(grid=True)")

    # Columns in the table's order, whatever the order asked in; the time always.
    some = couplet.read_table(log_path, columns=["right.f", "left.x"])
    same_columns(some, {name: whole[name] for name in ["time_s", "left.x", "right.f"]}, "columns")

    # One row per 0.5 s from the first (1001 communication times at 0.02 s).
    thinned = couplet.read_table(log_path, grid=True, columns=["left.x"], every=0.5)
    check(thinned["time_s"].tolist() == [0.5 * k for k in range(41)], f"every=0.5: times {thinned['time_s']}")
    rows = [whole_grid["time_s"].tolist().index(t) for t in thinned["time_s"]]
    check(thinned["left.x"].tolist() == [whole_grid["left.x"][r] for r in rows], "every=0.5: values differ")
    # An interval that does not divide the span: the last row comes too.
    odd = couplet.read_table(log_path, columns=["left.x"], every=0.3)
    check(odd["time_s"][-1] == 20.0 and odd["time_s"][-2] == 19.8 and len(odd["time_s"]) == 68,
          f"every=0.3: {len(odd['time_s'])} rows ending {odd['time_s'][-3:]}")

    expect_error(KeyError, lambda: couplet.read_table(log_path, columns=["left.nothing"]),
                 "no column 'left.nothing'", "unknown column")
    expect_error(couplet.RunLogError, lambda: couplet.read_table(log_path, every=0), "above 0", "every=0")

    with open(log_path, "rb") as f:
        data = f.read()
    offsets = frame_offsets(data)
    cut_path = os.path.join(tmp, "cut.log")
    with open(cut_path, "wb") as f:
        f.write(data[:offsets[len(offsets) // 2] + 6])
    expect_error(couplet.DamagedLogError, lambda: couplet.read_table(cut_path), "allow_damaged=True", "cut log")
    partial = couplet.read_table(cut_path, allow_damaged=True)
    same_columns(partial, couplet.read_log(cut_path, allow_damaged=True).table(), "cut log, allow_damaged")
    check(0 < len(partial["time_s"]) < len(whole["time_s"]), f"cut log: {len(partial['time_s'])} rows")


def documented_session(source):
    """The python block of docs/python.md's notebook session."""
    with open(os.path.join(source, "docs", "python.md")) as f:
        text = f.read()
    section = text[text.index("## A notebook session"):]
    start = section.index("```python\n") + len("```python\n")
    return section[start:section.index("```", start)]


def case_docs(couplet, build, source, tmp):
    script = documented_session(source).replace("/tmp/py_run", os.path.join(tmp, "py_run"))
    env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"))
    result = subprocess.run([sys.executable, "-c", script], cwd=source, env=env, capture_output=True,
                            text=True, timeout=300)
    print(result.stdout, end="")
    print(result.stderr, end="", file=sys.stderr)
    check(result.returncode == 0, f"the session of docs/python.md: exit status {result.returncode}")
    lines = result.stdout.splitlines()
    check(any(line.startswith("completed 0x") for line in lines), "no line 'completed 0x...'")
    check("every recorded decision reproduced bit for bit True" in lines, "the replay line is missing")
    check(any(line.startswith("1001 communication times") for line in lines), "the table line is missing")


CASES = {"run": case_run, "docs": case_docs, "lossy": case_lossy, "damaged": case_damaged, "errors": case_errors,
         "dataframe": case_dataframe, "stepping": case_stepping, "discrete": case_discrete,
         "streamed": case_streamed}


def main(argv):
    if len(argv) != 4 or argv[1] not in CASES:
        print(__doc__, file=sys.stderr)
        return 2
    build, source = os.path.abspath(argv[2]), os.path.abspath(argv[3])
    sys.path.insert(0, os.path.join(build, "python"))
    import couplet
    print(f"couplet module: {couplet.__file__}")
    tmp = tempfile.mkdtemp(prefix="couplet_module_test_")
    try:
        CASES[argv[1]](couplet, build, source, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for failure in failures:
        print(f"FAIL: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
