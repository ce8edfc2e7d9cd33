// The device SDK (couplet/device.hpp): the example device spawned as a remote
// slave decides exactly as in-process; off-grid steps and failing callbacks
// give errors naming the slave; the description is checked.
#include "couplet/device.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>

#include "dc_motor.hpp"
#include "drivers/udp_transport.hpp"
#include "host_tools/assembly/algorithm_factory.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/test_support.hpp"
#include "models/slave_source.hpp"
#include "runtime/decision_hash.hpp"
#include "runtime/executor.hpp"
#include "support/allocation_counter.hpp"
#include "support/served_target.hpp"
#include "targets/device_source.hpp"
#include "test_fmus.hpp"

namespace couplet::testing {
namespace {

const std::string kMotorScenario =
    std::string(COUPLET_SOURCE_DIR) + "/examples/dc_motor/dc_motor.yaml";

tools::Scenario motor_scenario(const std::vector<std::string>& assignments) {
  std::vector<std::pair<std::string, std::string>> overrides = {
      tools::parse_override(std::string("slaves.motor.link.program=") + COUPLET_DC_MOTOR_DEVICE)};
  for (const std::string& assignment : assignments)
    overrides.push_back(tools::parse_override(assignment));
  return tools::load_scenario(kMotorScenario, overrides);
}

/// The example scenario with the motor stepped in this process, through the
/// slave the SDK makes, instead of behind a link: the decision hash of the run.
std::string in_process_hash(const tools::Scenario& scenario, Time* end_time, double* end_speed) {
  dc_motor::SimulatedDrive drive;
  const Device device = dc_motor::make_device(drive);
  const models::ModelCatalog catalog = models::ModelCatalog::builtin();
  System system;
  for (const tools::SlaveSpec& spec : scenario.slaves) {
    if (spec.name == "motor") {
      system.add_slave("motor",
                       make_device_slave(device, spec.parameters,
                                         tools::slave_settings(scenario, spec).coupled_inputs));
    } else {
      system.add_slave(
          spec.name,
          tools::open_source(spec, catalog)->make_slave(tools::slave_settings(scenario, spec)));
    }
  }
  for (const tools::ConnectionSpec& connection : scenario.connections)
    system.connect(connection.from, connection.to);
  const std::unique_ptr<Algorithm> algorithm = tools::make_algorithm(scenario.algorithm);
  Executor executor(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end),
                    tools::evaluation_grid(scenario));
  executor.initialize();
  while (executor.advance()) {
  }
  *end_time = executor.frontier();
  std::vector<double> outputs(2);
  system.slave(0).evaluate_outputs({}, outputs);
  *end_speed = outputs[1];
  return hash_text(executor.decision_hash());
}

TEST(DeviceSdk, SpawnedDeviceDecidesAsInProcess) {
  const tools::Scenario scenario = motor_scenario({});
  const nlohmann::json remote =
      tools::run_scenario(scenario, {fresh_directory("device-remote").string(), false});
  Time end = 0;
  double speed = 0.0;
  const std::string local = in_process_hash(scenario, &end, &speed);
  EXPECT_EQ(remote.at("decision_hash").get<std::string>(), local);
  EXPECT_EQ(end, to_ticks(2.0));
  // The duty input is left unconnected: its default 0.5 of 24 V drives the
  // motor towards V d / k = 240 rad/s, less what friction and the load take.
  EXPECT_GT(speed, 200.0);
  EXPECT_LT(speed, 240.0);
}

TEST(DeviceSdk, SpawnedDeviceTakesScenarioParameters) {
  const nlohmann::json half = tools::run_scenario(motor_scenario({"slaves.motor.parameters.V=12"}),
                                                  {fresh_directory("device-12v").string(), false});
  const nlohmann::json full =
      tools::run_scenario(motor_scenario({}), {fresh_directory("device-24v").string(), false});
  EXPECT_NE(half.at("decision_hash"), full.at("decision_hash"));
}

// On the wall clock a sampling device takes a new input at its next sample
// instant, so every step it makes stays on its grid.
TEST(DeviceSdk, SampledDeviceRunsInRealTime) {
  const nlohmann::json summary = tools::run_scenario(
      motor_scenario({"time.end=0.3", "slaves.motor.link.realtime=true",
                      "clock={type: wall, realtime_factor: 1.0, tolerance: 0.005, on_late: hold, "
                      "max_misses: 300}"}),
      {fresh_directory("device-realtime").string(), false});
  EXPECT_EQ(summary.at("macro_steps").get<std::uint64_t>(), 300U);
  EXPECT_DOUBLE_EQ(summary.at("end_time").get<double>(), 0.3);
}

TEST(DeviceSdk, SpawningADeviceNeedsItsProgram) {
  try {
    tools::load_scenario(kMotorScenario,
                         {{"slaves.motor.link", "{spawn: true, udp: \"127.0.0.1:0\"}"}});
    FAIL() << "a device to spawn without its program was accepted";
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what()).find("program"), std::string::npos) << error.what();
  }
}

TEST(DeviceSdk, UnknownParameterIsRefusedNamingIt) {
  try {
    tools::run_scenario(motor_scenario({"slaves.motor.parameters.gain=3"}),
                        {fresh_directory("device-badparam").string(), false});
    FAIL() << "an unknown device parameter was accepted";
  } catch (const std::exception& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("motor"), std::string::npos) << message;
    EXPECT_NE(message.find("gain"), std::string::npos) << message;
  }
}

TEST(DeviceSdk, OffGridStepIsRefusedWithAClearError) {
  dc_motor::SimulatedDrive drive;
  const Device device = dc_motor::make_device(drive);
  const std::unique_ptr<Slave> slave = make_device_slave(device);
  slave->setup(0);
  std::vector<Polynomial> inputs(2, Polynomial::constant(0.0, 0.0));
  std::vector<double> outputs(2);
  const StepRequest off_grid{0, 1'500'000, inputs, {}};
  try {
    slave->step(off_grid, {outputs, {}});
    FAIL() << "a 1.5 ms step was accepted by a device sampling every 1 ms";
  } catch (const ProtocolViolation& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("dc_motor"), std::string::npos) << message;
    EXPECT_NE(message.find("multiple"), std::string::npos) << message;
  }
  // The same request from a scenario: the run stops before it, naming the slave.
  try {
    tools::run_scenario(motor_scenario({"algorithm.step=0.0015"}),
                        {fresh_directory("device-offgrid").string(), false});
    FAIL() << "a scenario stepping off the device's grid ran";
  } catch (const std::exception& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("motor"), std::string::npos) << message;
  }
}

/// A device served as couplet::serve() serves it, on a thread over UDP
/// loopback; `endpoint` says where.
struct ServedDevice {
  explicit ServedDevice(const Device& device)
      : ServedDevice(device, drivers::UdpTransport::bind("127.0.0.1:0")) {}
  ServedDevice(const Device& device, std::unique_ptr<drivers::UdpTransport> transport)
      : endpoint(transport->local_endpoint()),
        target(targets::device_source(device), std::move(transport)) {}
  std::string endpoint;
  ServedTarget target;
};

/// A scenario of 1 s in which the served device `name` (input u, output y),
/// slave 'sensor' with the extra `sensor_keys` lines and `link_keys`, drives a
/// translational mass and reads its position back.
tools::Scenario sensor_and_mass(const ServedDevice& target, const std::string& name,
                                const std::string& sensor_keys, const std::string& link_keys) {
  const std::string text = "name: " + name +
                           "\n"
                           "time: {start: 0, end: 1}\n"
                           "slaves:\n"
                           "  sensor:\n"
                           "    device: " +
                           name + "\n" + sensor_keys + "    link: {udp: \"" + target.endpoint +
                           "\"" + link_keys +
                           "}\n"
                           "  mass:\n"
                           "    model: translational.mass\n"
                           "connections:\n"
                           "  - {from: sensor.y, to: mass.f}\n"
                           "  - {from: mass.x, to: sensor.u}\n"
                           "algorithm: {type: jacobi, step: 0.1}\n";
  return tools::parse_scenario(text, name + ".yaml");
}

TEST(DeviceSdk, ThrowingStepEndsTheRunNamingSlaveAndCause) {
  // A device whose step fails once t passes 0.5 s.
  Device device;
  device.description = {.name = "flaky", .inputs = {{.name = "u"}}, .outputs = {{.name = "y"}}};
  device.callbacks.outputs = [](Time, std::span<const Polynomial>, std::span<double> values) {
    values[0] = 1.0;
  };
  device.callbacks.step = [](const StepRequest& request, const OutputBuffers& result) {
    if (request.end > to_ticks(0.5)) throw std::runtime_error("encoder signal lost");
    result.end_outputs[0] = 1.0;
  };
  const ServedDevice target(device);
  const tools::Scenario scenario = sensor_and_mass(target, "flaky", "", "");
  try {
    tools::run_scenario(scenario, {fresh_directory("device-throws").string(), false});
    FAIL() << "the run went on after the device failed";
  } catch (const SlaveError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("sensor"), std::string::npos) << message;
    EXPECT_NE(message.find("encoder signal lost"), std::string::npos) << message;
    EXPECT_NE(message.find("step"), std::string::npos) << message;
  }
}

TEST(DeviceSdk, AHungStepIsDeclaredHungNamingTheSlaveWithinMaxStepTime) {
  // A device whose step deadlocks once t passes 0.5 s; its responder thread
  // still answers 'working', so only max_step_time can end the wait.
  std::atomic<bool> release{false};
  Device device;
  device.description = {.name = "stuck", .inputs = {{.name = "u"}}, .outputs = {{.name = "y"}}};
  device.callbacks.outputs = [](Time, std::span<const Polynomial>, std::span<double> values) {
    values[0] = 1.0;
  };
  device.callbacks.step = [&release](const StepRequest& request, const OutputBuffers& result) {
    while (request.end > to_ticks(0.5) && !release.load())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    result.end_outputs[0] = 1.0;
  };
  const ServedDevice target(device);
  const tools::Scenario scenario =
      sensor_and_mass(target, "stuck", "    max_step_time: 0.3\n", ", timeout: 1");
  const auto began = std::chrono::steady_clock::now();
  std::string message;
  try {
    tools::run_scenario(scenario, {fresh_directory("device-hangs").string(), false});
  } catch (const SlaveError& error) {
    message = error.what();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  release = true;  // the serving thread can end now
  EXPECT_NE(message.find("slave 'sensor'"), std::string::npos) << message;
  EXPECT_NE(message.find("the target answered 'working' for 0.3 s (max_step_time) during step"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("declared hung"), std::string::npos) << message;
  // max_step_time, then a Stop the target cannot answer (its patience), well within max_step_time +
  // timeout.
  EXPECT_LT(seconds, 0.3 + 1.0 + 1.0) << message;
}

/// A latch with Integer and Boolean ports: over each step it holds its
/// discrete input `count`; at the step end its outputs are `twice` = 2 × count
/// (Integer), `big` = count ≥ 5 (Boolean) and the Real `level` = count.
Device latch_device() {
  Device device;
  device.description = {.name = "latch", .outputs = {{.name = "level"}}};
  device.description.discrete_inputs = {
      {.name = "count", .type = DiscreteType::integer, .start = 0}};
  device.description.discrete_outputs = {{.name = "twice", .type = DiscreteType::integer},
                                         {.name = "big", .type = DiscreteType::boolean}};
  auto held = std::make_shared<std::int64_t>(0);
  device.callbacks.initialize = [held](Time, const DeviceParameters&) { *held = 0; };
  device.callbacks.outputs = [held](Time, std::span<const Polynomial>, std::span<double> values) {
    values[0] = static_cast<double>(*held);
  };
  device.callbacks.discrete_outputs = [](Time, std::span<std::int64_t> values) {
    values[0] = 0;
    values[1] = 0;
  };
  device.callbacks.step = [held](const StepRequest& request, const OutputBuffers& result) {
    *held = request.discrete_inputs[0];
    result.end_outputs[0] = static_cast<double>(*held);
    result.discrete_outputs[0] = 2 * *held;
    result.discrete_outputs[1] = *held >= 5 ? 1 : 0;
  };
  return device;
}

// A device's Integer and Boolean ports over UDP, between two tally FMUs:
// a.count (k at t = k) → latch.count; latch.twice → b.increment and
// latch.big → b.enable. In the step [k, k + 1] b holds what the latch gave at
// t = k, 2(k − 1) and (k − 1 ≥ 5), so at t = 10 b has counted
// 2 × (5 + 6 + 7 + 8) = 52.
TEST(DeviceSdk, IntegerAndBooleanPortsTravelToAndFromTheDevice) {
  const ServedDevice target(latch_device());
  const std::string tally = COUPLET_TEST_FMU("tally");
  const std::string text =
      "name: latch\n"
      "time: {start: 0, end: 10}\n"
      "slaves:\n"
      "  a: {fmu: " +
      tally +
      "}\n"
      "  latch:\n"
      "    device: latch\n"
      "    link: {udp: \"" +
      target.endpoint +
      "\"}\n"
      "  b: {fmu: " +
      tally +
      "}\n"
      "connections:\n"
      "  - {from: a.count, to: latch.count}\n"
      "  - {from: latch.twice, to: b.increment}\n"
      "  - {from: latch.big, to: b.enable}\n"
      "algorithm: {type: jacobi, step: 1}\n"
      "reference: none\n";
  const auto out = fresh_directory("device-discrete");
  tools::run_scenario(tools::parse_scenario(text, "latch.yaml"), {out.string(), false});
  const std::string signals = read_file(out / "signals.csv");
  EXPECT_EQ(signals.substr(0, signals.find('\n')),
            "time,a.level,latch.level,b.level,a.count,a.phase,a.odd,latch.twice,latch.big,b.count,"
            "b.phase,b.odd");
  EXPECT_NE(signals.find("\n6,3,5,0,6,1,0,10,1,0,1,0\n"), std::string::npos) << signals;
  EXPECT_NE(signals.find("\n10,5,9,26,10,2,0,18,1,52,2,0\n"), std::string::npos) << signals;
  EXPECT_NE(targets::describe_device(latch_device().description)
                .find("discrete inputs: count (Integer, default 0)\n  discrete outputs: twice "
                      "(Integer), big (Boolean)"),
            std::string::npos);
}

// A device ends the simulation by throwing couplet::StopRequest from a
// callback: over the link it is a normal end (status stopped), not a failure.
TEST(DeviceSdk, AStopRequestEndsTheRunAsStopped) {
  Device device;
  device.description = {.name = "battery", .outputs = {{.name = "charge"}}};
  device.callbacks.outputs = [](Time, std::span<const Polynomial>, std::span<double> values) {
    values[0] = 1.0;
  };
  device.callbacks.step = [](const StepRequest& request, const OutputBuffers& result) {
    if (request.end > to_ticks(0.5))
      throw StopRequest("battery", to_seconds(request.start), "battery empty");
    result.end_outputs[0] = 1.0 - to_seconds(request.end);
  };
  const ServedDevice target(device);
  const std::string text =
      "name: battery\ntime: {start: 0, end: 1}\nslaves:\n"
      "  cell:\n    device: battery\n    link: {udp: \"" +
      target.endpoint +
      "\"}\n"
      "  mass:\n    model: translational.mass\n"
      "connections:\n  - {from: cell.charge, to: mass.f}\n"
      "algorithm: {type: jacobi, step: 0.1}\n";
  const nlohmann::json summary =
      tools::run_scenario(tools::parse_scenario(text, "battery.yaml"),
                          {fresh_directory("device-stop").string(), false});
  EXPECT_EQ(summary.at("status"), "stopped") << summary.dump(2);
  EXPECT_EQ(summary.at("stopped_by"), "slave 'cell' at t = 0.5 s");
  EXPECT_EQ(summary.at("end_time"), 0.5);
}

TEST(DeviceSdk, CountingHookSeesAllocationsInTheDeviceLibrary) {
  const long before = allocations();
  const std::string text = targets::describe_device({.name = "counted", .inputs = {{.name = "u"}}});
  EXPECT_GT(allocations() - before, 0) << text;
}

// The real-time path through the SDK: master, link and the served example
// device (the server on a thread of this process, so one hook sees both).
TEST(DeviceSdk, ServedDeviceAllocatesNothingAfterTheFirstStep) {
  dc_motor::SimulatedDrive drive;
  const ServedDevice target(dc_motor::make_device(drive));
  const std::string text =
      "name: motor_allocations\n"
      "time: {start: 0, end: 0.5}\n"
      "slaves:\n"
      "  motor:\n"
      "    device: dc_motor\n"
      "    link: {udp: \"" +
      target.endpoint +
      "\"}\n"
      "  load:\n"
      "    model: rotational.omega2tau\n"
      "    parameters: {J: 1.0e-3, c: 0, d: 1.0e-4, ck: 1, dk: 5.0e-3, phi0: 0, omega0: 0, "
      "phi_in0: 0}\n"
      "    solver: {type: cvode, rtol: 1.0e-8, atol: 1.0e-10}\n"
      "connections:\n"
      "  - {from: motor.speed, to: load.omega}\n"
      "  - {from: load.tau, to: motor.load_torque}\n"
      "algorithm: {type: jacobi, step: 0.001}\n";
  const tools::Scenario scenario = tools::parse_scenario(text, "motor_allocations.yaml");
  System system = tools::build_system(scenario, models::ModelCatalog::builtin());
  const auto algorithm = tools::make_algorithm(scenario.algorithm);
  Executor executor(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end),
                    tools::evaluation_grid(scenario));
  executor.initialize();
  while (executor.counters().macro_steps < 2) ASSERT_TRUE(executor.advance());
  const long before = allocations();
  while (executor.advance()) {
  }
  EXPECT_EQ(allocations() - before, 0);
  EXPECT_GE(target.target.counters().steps, 499U);
}

TEST(DeviceSdk, ReferenceIsRefusedForADevice) {
  try {
    tools::validate_scenario(motor_scenario({"reference=monolithic"}));
    FAIL() << "a reference was accepted for a device";
  } catch (const ConfigurationError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("slaves.motor"), std::string::npos) << message;
    EXPECT_NE(message.find("reference"), std::string::npos) << message;
  }
}

TEST(DeviceSdk, DescriptionIsChecked) {
  const auto refused = [](Device device, const std::string& expected) {
    try {
      check_device(device);
      ADD_FAILURE() << "accepted; expected an error with '" << expected << "'";
    } catch (const ConfigurationError& error) {
      EXPECT_NE(std::string(error.what()).find(expected), std::string::npos) << error.what();
    }
  };
  Device valid;
  valid.description = {.name = "d", .inputs = {{.name = "u"}}, .outputs = {{.name = "y"}}};
  valid.callbacks.outputs = [](Time, std::span<const Polynomial>, std::span<double>) {};
  valid.callbacks.step = [](const StepRequest&, const OutputBuffers&) {};
  EXPECT_NO_THROW(check_device(valid));

  Device twice = valid;
  twice.description.outputs.push_back({.name = "u"});
  refused(twice, "two ports named 'u'");
  Device no_step = valid;
  no_step.callbacks.step = nullptr;
  refused(no_step, "'step'");
  Device degree = valid;
  degree.description.input_degree = 5;
  refused(degree, "input_degree");
  Device many = valid;
  for (int i = 0; i < 17; ++i)
    many.description.inputs.push_back({.name = std::string("i").append(std::to_string(i))});
  refused(many, "at most 16 inputs");
  Device discrete = valid;
  discrete.description.discrete_outputs = {{.name = "flag", .type = DiscreteType::boolean}};
  refused(discrete, "the callback 'discrete_outputs' is required");
  discrete.description.discrete_outputs.clear();
  discrete.description.discrete_inputs = {{.name = "y", .type = DiscreteType::boolean}};
  refused(discrete, "two ports named 'y'");
  discrete.description.discrete_inputs = {
      {.name = "on", .type = DiscreteType::boolean, .start = 2}};
  refused(discrete, "Boolean input 'on' starts at 2 (0 or 1)");
  Device dotted = valid;
  dotted.description.outputs[0].name = "a.b";
  refused(dotted, "'a.b'");

  try {
    make_device_slave(valid, {{"gain", 1.0}});
    ADD_FAILURE() << "an undeclared parameter was accepted";
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what()).find("no parameter 'gain'"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace couplet::testing
