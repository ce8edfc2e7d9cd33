#pragma once
// The device SDK: put your own hardware — real I/O, a driver, a control board —
// or any code of yours behind a couplet link, as a slave of a co-simulation.
//
// A device is a description (ports with units, parameters, what it can do)
// plus callbacks. couplet::serve() turns the program into a target exactly like
// couplet-target: the same command line (--udp/--serial, --realtime, --once,
// --cpu, --priority, --session-timeout, --param), the same exactly-once sessions
// over lossy links, the same real-time loop (SCHED_FIFO, mlockall, CPU pinning,
// lateness statistics) and the same error reporting. A scenario couples it with
//
//   slaves:
//     motor:
//       device: dc_motor                  # DeviceDescription::name
//       link: {udp: "192.168.1.20:5600"}  # where the program listens
//
// Calling contract (one session after another; callbacks run on the serving
// thread, never concurrently):
//   initialize(start, parameters)  at the start of every session; may allocate
//   outputs(now, inputs, values)   at the current time, any number of times
//   discrete_outputs(now, values)  after initialize, for a device with discrete outputs
//   step(request, result)          from the current time to request.end
// After initialize, outputs and step are on the real-time path: they must not
// allocate, block (except on the device's own I/O) or log. An exception thrown
// by a callback is reported to the master, which ends the run naming the slave.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "couplet/polynomial.hpp"
#include "couplet/slave.hpp"
#include "couplet/time.hpp"

namespace couplet {

struct DeviceInput {
  std::string name;
  std::string unit;            ///< e.g. "V"; may be empty
  double default_value = 0.0;  ///< held while no connection of the scenario drives the input
};

struct DeviceOutput {
  std::string name;
  std::string unit;                 ///< e.g. "rad/s"; may be empty
  bool direct_feedthrough = false;  ///< the output depends on an input at the same instant
};

struct DeviceParameter {
  std::string name;
  double default_value = 0.0;  ///< a scenario's `parameters:` or `--param name=value` override it
  std::string unit;
};

struct DeviceDescription {
  /// Identifies the device; a scenario names it with `device: NAME`.
  std::string name;
  std::vector<DeviceInput> inputs;
  std::vector<DeviceOutput> outputs;
  std::vector<DeviceParameter> parameters;

  /// Highest degree of the input polynomials the step accepts: 0 holds each
  /// input constant over a step (zero-order hold), 1 ramps it, up to 3.
  int input_degree = 0;
  /// Time derivatives of the outputs the step reports (0: values only; up to 3).
  int output_derivative_order = 0;
  /// > 0: the device samples with this period; every step must span a whole
  /// number of periods from the start time, and off-grid requests are refused.
  Time sample_period = 0;
  /// The step reports outputs at requested times inside the step.
  bool intermediate_samples = false;
  /// The device runs on the wall clock (real hardware cannot pause): it is
  /// always served in real-time mode, as with `--realtime`.
  bool realtime = false;
  /// Integer and Boolean ports (a gear, a mode, a switch, a fault flag):
  /// piecewise constant, exchanged at communication points. An input's `start`
  /// is its value while no connection of the scenario drives it; an output's
  /// `start` is not used (the discrete_outputs callback gives its first value).
  std::vector<DiscretePortDescription> discrete_inputs;
  std::vector<DiscretePortDescription> discrete_outputs;
};

/// Parameter values of a session by name: every declared parameter, with the
/// scenario's and the command line's overrides applied.
using DeviceParameters = std::map<std::string, double, std::less<>>;

struct DeviceCallbacks {
  /// Optional. Puts the device in its initial state at `start` (a new session).
  std::function<void(Time start, const DeviceParameters& parameters)> initialize;
  /// Required. The outputs at the current time `now` into `values` (one per
  /// output, then their derivatives row by row as in OutputBuffers::end_outputs).
  /// For outputs with direct feedthrough, `inputs` are the input polynomials
  /// around `now` (inputs[i].value(to_seconds(now))); otherwise they may be ignored.
  std::function<void(Time now, std::span<const Polynomial> inputs, std::span<double> values)> outputs;
  /// Required. Advances from request.start (the current time) to request.end
  /// with the inputs given as polynomials over the step (time in seconds:
  /// inputs[i].value(to_seconds(t))); writes the outputs at request.end into
  /// result.end_outputs and, when asked, one row of outputs per
  /// request.sample_times into result.samples.
  /// Integer and Boolean ports: request.discrete_inputs holds one value per
  /// discrete input over the step; write one value per discrete output at
  /// request.end into result.discrete_outputs (Boolean: 0 or 1).
  std::function<void(const StepRequest& request, const OutputBuffers& result)> step;
  /// Required when the device declares discrete outputs. Their values at `now`
  /// (one per discrete output), after initialize: held until the first step ends.
  std::function<void(Time now, std::span<std::int64_t> values)> discrete_outputs;
};

struct Device {
  DeviceDescription description;
  DeviceCallbacks callbacks;
};

/// Checks `device` (names, counts within the wire protocol's capacities,
/// degrees and orders, callbacks present). Throws ConfigurationError naming
/// the device and what is wrong.
void check_device(const Device& device);

/// The slave a Device makes for one session: what serve() runs, and what a
/// host program or a test steps in-process. Calls initialize from setup().
/// `connected_inputs`: the inputs a scenario drives (nullopt: all); the slave
/// shows only those, and the callbacks see the others at their defaults.
/// `device` must outlive the slave. Throws ConfigurationError (check_device,
/// an override naming no declared parameter, an unknown input).
std::unique_ptr<Slave> make_device_slave(
    const Device& device, const DeviceParameters& overrides = {},
    const std::optional<std::vector<std::string>>& connected_inputs = std::nullopt);

/// Serves `device` until stopped (SIGINT/SIGTERM) or, with --once, until the
/// first session ends. Parses the command line (`PROGRAM --help` lists it);
/// returns the process exit code: 0 done, 1 runtime error, 2 bad configuration.
int serve(const Device& device, int argc, char** argv);

}  // namespace couplet
