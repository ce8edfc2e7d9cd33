// A hostile target (issue 14): every field a peer sends is checked before the
// master uses it. The target here is a real TargetServer whose answers are
// decoded, damaged and encoded again before they leave: a Describe whose
// output_derivative_order is 0xFFFFFFFF (it made the master crash), counts
// beyond the limits, enums out of range, times anywhere in int64, non-finite
// values. Each variant must end in a SlaveError or ProtocolViolation naming the
// slave and the field: in process against the remote slave proxy (every
// variant), and through the couplet binary over UDP (a few), where the run must
// end with exit code 1 and one line on stderr, never by a signal.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <thread>

#include "couplet/errors.hpp"
#include "drivers/in_process_transport.hpp"
#include "drivers/remote_slave.hpp"
#include "drivers/udp_transport.hpp"
#include "host_tools/process_support.hpp"
#include "host_tools/test_support.hpp"
#include "models/catalog.hpp"
#include "protocol/codec.hpp"
#include "targets/target_server.hpp"

namespace couplet::testing {
namespace {

using namespace std::chrono_literals;
using Envelope = protocol::Envelope;
/// Changes the answer to `request` before it leaves.
using Tamper = std::function<void(const Envelope& request, Envelope& answer)>;

/// Stores any int32 in an enum field, as nanopb does when it decodes one.
template <typename Enum>
void set_raw(Enum& field, std::int32_t value) {
  static_assert(sizeof(Enum) == sizeof value);
  std::memcpy(&field, &value, sizeof value);
}

/// A TargetServer serving `model` on its own thread, its answers passed
/// through `tamper`.
class HostileTarget {
 public:
  HostileTarget(const std::string& model, std::unique_ptr<drivers::Transport> transport,
                Tamper tamper)
      : server_(models::ModelCatalog::builtin(), options(model)),
        transport_(std::move(transport)),
        tamper_(std::move(tamper)) {
    thread_ = std::thread([this] { run(); });
  }
  ~HostileTarget() {
    stop_ = true;
    thread_.join();
  }
  HostileTarget(const HostileTarget&) = delete;
  HostileTarget& operator=(const HostileTarget&) = delete;

 private:
  static targets::TargetOptions options(const std::string& model) {
    targets::TargetOptions target_options;
    target_options.model = model;
    return target_options;
  }

  void run() {
    std::vector<std::uint8_t> incoming(protocol::kMaxFrameBytes);
    std::vector<std::uint8_t> outgoing(protocol::kMaxFrameBytes);
    auto request = std::make_unique<Envelope>();
    auto answer = std::make_unique<Envelope>();
    while (!stop_) {
      const std::size_t size = transport_->receive(incoming, drivers::SteadyClock::now() + 20ms);
      if (size == 0) continue;
      const std::span<const std::uint8_t> frame = std::span(incoming).first(size);
      std::size_t answered = server_.handle(frame, outgoing, drivers::SteadyClock::now());
      if (answered == 0) continue;
      if (protocol::decode_frame(frame, *request) &&
          protocol::decode_frame(std::span(outgoing).first(answered), *answer)) {
        tamper_(*request, *answer);
        answered = protocol::encode_frame(*answer, outgoing).size;
        if (answered == 0) ADD_FAILURE() << "a tampered answer that does not encode";
      }
      transport_->send(std::span(outgoing).first(answered));
    }
  }

  targets::TargetServer server_;
  std::unique_ptr<drivers::Transport> transport_;
  Tamper tamper_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

bool is(const Envelope& message, pb_size_t body) {
  return message.which_body == body;
}

struct Outcome {
  std::string kind;  ///< "none", "SlaveError", "ProtocolViolation", "ConfigurationError", "other"
  std::string message;
};

constexpr Time kStep = 10'000'000;  // 10 ms

/// A short session of the remote slave 'right' against a hostile
/// translational.mass (input f; outputs x, v with 3 derivatives): set up,
/// evaluate the outputs, three steps with two samples each.
Outcome session_against(const Tamper& tamper) {
  drivers::InProcessLink link = drivers::make_in_process_link();
  HostileTarget target("translational.mass", std::move(link.target), tamper);
  drivers::LinkPolicy policy;
  policy.peer_timeout = 2s;
  try {
    drivers::RemoteSlave slave("right", std::move(link.master), nullptr, policy);
    const SlaveDescription& description = slave.description();
    const std::size_t outputs = description.outputs.size();
    const std::size_t rows =
        static_cast<std::size_t>(description.capabilities.output_derivative_order + 1);
    std::vector<double> end_outputs(rows * outputs);
    std::vector<double> samples(2 * outputs);
    const std::vector<Polynomial> inputs(description.inputs.size(), Polynomial::constant(0.0, 0.5));
    slave.setup(0);
    slave.evaluate_outputs(inputs, end_outputs);
    for (Time start = 0; start < 3 * kStep; start += kStep) {
      const Time sample_times[2] = {start + kStep / 2, start + kStep};
      slave.step({start, start + kStep, inputs, sample_times}, {end_outputs, samples});
    }
    return {"none", ""};
  } catch (const SlaveError& error) {
    return {"SlaveError", error.what()};
  } catch (const ProtocolViolation& error) {
    return {"ProtocolViolation", error.what()};
  } catch (const ConfigurationError& error) {
    return {"ConfigurationError", error.what()};
  } catch (const std::exception& error) {
    return {"other", error.what()};
  }
}

struct Variant {
  const char* label;
  Tamper tamper;
  const char* kind;   ///< expected Outcome::kind
  const char* field;  ///< expected in the message ("" for an accepted variant)
};

Tamper on_describe(std::function<void(couplet_wire_Describe&)> change) {
  return [change](const Envelope&, Envelope& answer) {
    if (is(answer, couplet_wire_Envelope_describe_tag)) change(answer.body.describe);
  };
}

Tamper on_outputs(std::function<void(couplet_wire_Outputs&)> change) {
  return [change](const Envelope&, Envelope& answer) {
    if (is(answer, couplet_wire_Envelope_outputs_tag)) change(answer.body.outputs);
  };
}

Tamper on_step(std::function<void(couplet_wire_StepResult&)> change) {
  return [change](const Envelope&, Envelope& answer) {
    if (is(answer, couplet_wire_Envelope_step_result_tag)) change(answer.body.step_result);
  };
}

/// Answers steps with an Error of `code` and a two-line text.
Tamper step_error(std::int32_t code) {
  return [code](const Envelope& request, Envelope& answer) {
    if (!is(request, couplet_wire_Envelope_step_request_tag)) return;
    answer.which_body = couplet_wire_Envelope_error_tag;
    set_raw(answer.body.error.code, code);
    std::strcpy(answer.body.error.text, "first line\nsecond line\r\x1b[31m");
  };
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInfinity = std::numeric_limits<double>::infinity();
constexpr std::int64_t kMinTime = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMaxTime = std::numeric_limits<std::int64_t>::max();

std::vector<Variant> variants() {
  return {
      // Describe: the answer to Hello.
      {"describe_version", on_describe([](auto& d) { d.version = 2; }), "SlaveError",
       "Describe.version"},
      {"describe_order_all_ones",
       on_describe([](auto& d) { d.capabilities.output_derivative_order = 0xFFFFFFFFU; }),
       "SlaveError", "Describe.capabilities.output_derivative_order = 4294967295 exceeds"},
      {"describe_order_int_max",
       on_describe([](auto& d) { d.capabilities.output_derivative_order = 0x7FFFFFFFU; }),
       "SlaveError", "Describe.capabilities.output_derivative_order = 2147483647 exceeds"},
      {"describe_order_just_too_high",
       on_describe([](auto& d) { d.capabilities.output_derivative_order = 32; }), "SlaveError",
       "Describe.capabilities.output_derivative_order = 32 exceeds"},
      {"describe_order_fits_but_lies",
       on_describe([](auto& d) { d.capabilities.output_derivative_order = 31; }), "SlaveError",
       "Outputs.derivative_order = 3, but the target described output_derivative_order 31"},
      {"describe_imposed_step_negative",
       on_describe([](auto& d) { d.capabilities.imposed_step_ns = -1; }), "SlaveError",
       "Describe.capabilities.imposed_step_ns = -1"},
      {"describe_imposed_step_int64_max",
       on_describe([](auto& d) { d.capabilities.imposed_step_ns = kMaxTime; }), "SlaveError",
       "Describe.capabilities.imposed_step_ns = 9223372036854775807"},
      {"describe_imposed_step_int64_min",
       on_describe([](auto& d) { d.capabilities.imposed_step_ns = kMinTime; }), "SlaveError",
       "Describe.capabilities.imposed_step_ns = -9223372036854775808"},
      {"describe_samples_without_capacity",
       on_describe([](auto& d) { d.capabilities.max_sample_times = 0; }), "SlaveError",
       "Describe.capabilities.max_sample_times = 0"},
      {"describe_realtime_with_samples",
       on_describe([](auto& d) { d.capabilities.realtime = true; }), "SlaveError",
       "Describe.capabilities.intermediate_samples"},
      {"describe_empty_output_name", on_describe([](auto& d) { d.outputs[1].name[0] = '\0'; }),
       "SlaveError", "Describe.outputs[1].name is empty"},
      {"describe_duplicate_output_name",
       on_describe([](auto& d) { std::strcpy(d.outputs[1].name, "x"); }), "SlaveError",
       "Describe.outputs[1].name 'x' is also the name of outputs[0]"},
      {"describe_empty_input_name", on_describe([](auto& d) { d.inputs[0].name[0] = '\0'; }),
       "SlaveError", "Describe.inputs[0].name is empty"},
      {"describe_newline_in_name",
       on_describe([](auto& d) { std::strcpy(d.outputs[0].name, "x\nv"); }), "SlaveError",
       "Describe.outputs[0].name contains the control character 10"},
      {"describe_control_in_unit",
       on_describe([](auto& d) { std::strcpy(d.inputs[0].unit, "N\x07"); }), "SlaveError",
       "Describe.inputs[0].unit contains"},
      {"describe_control_in_model", on_describe([](auto& d) { d.model[0] = '\x1b'; }), "SlaveError",
       "Describe.model contains"},
      {"describe_unit_factor_zero", on_describe([](auto& d) {
         std::strcpy(d.inputs[0].unit, "furlong");
         d.inputs[0].has_unit_definition = true;
         d.inputs[0].unit_definition = {.m = 1};  // factor 0
       }),
       "SlaveError",
       "Describe.inputs[0].unit_definition: factor 0, offset 0 (a finite, non-zero factor and a "
       "finite offset)"},
      {"describe_unit_offset_nan", on_describe([](auto& d) {
         std::strcpy(d.outputs[0].unit, "furlong");
         d.outputs[0].has_unit_definition = true;
         d.outputs[0].unit_definition = {.m = 1, .factor = 201.168, .offset = kNaN};
       }),
       "SlaveError", "Describe.outputs[0].unit_definition: factor 201.16800000000001, offset nan"},
      {"describe_unit_exponent_huge", on_describe([](auto& d) {
         std::strcpy(d.outputs[0].unit, "furlong");
         d.outputs[0].has_unit_definition = true;
         d.outputs[0].unit_definition = {.s = -2147483647 - 1, .factor = 1};
       }),
       "SlaveError", "Describe.outputs[0].unit_definition.s = -2147483648: beyond ±1000"},
      {"describe_unit_definition_without_unit", on_describe([](auto& d) {
         d.outputs[1].unit[0] = '\0';
         d.outputs[1].has_unit_definition = true;
         d.outputs[1].unit_definition = {.factor = 1};
       }),
       "SlaveError", "Describe.outputs[1].unit_definition without a unit"},
      {"describe_is_an_ack",
       [](const Envelope& request, Envelope& answer) {
         if (is(request, couplet_wire_Envelope_hello_tag))
           answer.which_body = couplet_wire_Envelope_ack_tag;
       },
       "SlaveError", "expected a description"},
      // Accepted as documented: clamped to what the protocol carries.
      {"describe_input_degree_all_ones",
       on_describe([](auto& d) { d.capabilities.max_input_degree = 0xFFFFFFFFU; }), "none", ""},
      {"describe_sample_capacity_all_ones",
       on_describe([](auto& d) { d.capabilities.max_sample_times = 0xFFFFFFFFU; }), "none", ""},

      // Outputs: the answer to EvaluateOutputs.
      {"outputs_order_all_ones", on_outputs([](auto& o) { o.derivative_order = 0xFFFFFFFFU; }),
       "SlaveError", "Outputs.derivative_order = 4294967295"},
      {"outputs_one_value_short", on_outputs([](auto& o) { --o.values_count; }), "SlaveError",
       "Outputs.values has 7 values, expected 8"},
      {"outputs_too_many_values", on_outputs([](auto& o) { o.values_count = 64; }), "SlaveError",
       "Outputs.values has 64 values"},
      {"outputs_time_int64_min", on_outputs([](auto& o) { o.time_ns = kMinTime; }), "SlaveError",
       "Outputs.time_ns = -9223372036854775808"},
      {"outputs_nan", on_outputs([](auto& o) { o.values[1] = kNaN; }), "SlaveError",
       "non-finite value for output 'v' at t = 0 s (Outputs.values[1] = nan)"},
      {"outputs_infinite_derivative", on_outputs([](auto& o) { o.values[2] = kInfinity; }),
       "SlaveError",
       "non-finite value for derivative 1 of output 'x' at t = 0 s (Outputs.values[2] = inf)"},

      // StepResult: the answer to StepRequest.
      {"step_status_7", on_step([](auto& r) { set_raw(r.status, 7); }), "SlaveError",
       "StepResult.status = 7"},
      {"step_status_negative", on_step([](auto& r) { set_raw(r.status, -5); }), "SlaveError",
       "StepResult.status = -5"},
      {"step_late_in_virtual_time",
       on_step([](auto& r) { r.status = couplet_wire_Status_STATUS_LATE; }), "SlaveError",
       "StepResult.status = STATUS_LATE"},
      {"step_order_all_ones", on_step([](auto& r) { r.derivative_order = 0xFFFFFFFFU; }),
       "SlaveError", "StepResult.derivative_order = 4294967295"},
      {"step_no_end_outputs", on_step([](auto& r) { r.end_outputs_count = 0; }), "SlaveError",
       "StepResult.end_outputs has 0 values, expected 8"},
      {"step_end_outputs_at_capacity", on_step([](auto& r) { r.end_outputs_count = 64; }),
       "SlaveError", "StepResult.end_outputs has 64 values"},
      {"step_one_sample_too_many", on_step([](auto& r) { ++r.samples_count; }), "SlaveError",
       "StepResult.samples has 5 values, expected 4"},
      {"step_samples_at_capacity", on_step([](auto& r) { r.samples_count = 6144; }), "SlaveError",
       "StepResult.samples has 6144 values"},
      {"step_time_one_tick_off", on_step([](auto& r) { ++r.time_ns; }), "SlaveError",
       "StepResult.time_ns = 10000001"},
      {"step_time_int64_min", on_step([](auto& r) { r.time_ns = kMinTime; }), "SlaveError",
       "StepResult.time_ns = -9223372036854775808"},
      {"step_time_int64_max", on_step([](auto& r) { r.time_ns = kMaxTime; }), "SlaveError",
       "StepResult.time_ns = 9223372036854775807"},
      {"step_nan", on_step([](auto& r) { r.end_outputs[0] = kNaN; }), "SlaveError",
       "non-finite value for output 'x' at t = 0.01 s (StepResult.end_outputs[0] = nan)"},
      {"step_infinite_derivative", on_step([](auto& r) { r.end_outputs[3] = -kInfinity; }),
       "SlaveError",
       "non-finite value for derivative 1 of output 'v' at t = 0.01 s (StepResult.end_outputs[3] = "
       "-inf)"},
      {"step_nan_sample", on_step([](auto& r) { r.samples[1] = kNaN; }), "SlaveError",
       "non-finite value for output 'v' at t = 0.005 s (StepResult.samples[1] = nan)"},
      {"step_is_an_ack",
       [](const Envelope& request, Envelope& answer) {
         if (is(request, couplet_wire_Envelope_step_request_tag))
           answer.which_body = couplet_wire_Envelope_ack_tag;
       },
       "SlaveError", "expected a step result"},
      // Integer and Boolean outputs: as many as described, Boolean ones 0 or 1.
      {"ack_discrete_outputs_undescribed",
       [](const Envelope& request, Envelope& answer) {
         if (!is(request, couplet_wire_Envelope_initialize_tag)) return;
         answer.body.ack.discrete_outputs_count = 1;
         answer.body.ack.discrete_outputs[0] = 5;
       },
       "SlaveError", "Ack.discrete_outputs has 1 value(s), expected 0"},
      {"ack_boolean_output_2",
       [](const Envelope& request, Envelope& answer) {
         if (is(answer, couplet_wire_Envelope_describe_tag)) {
           answer.body.describe.discrete_outputs_count = 1;
           std::strcpy(answer.body.describe.discrete_outputs[0].name, "flag");
           answer.body.describe.discrete_outputs[0].type = couplet_wire_PortType_PORT_BOOLEAN;
         }
         if (!is(request, couplet_wire_Envelope_initialize_tag)) return;
         answer.body.ack.discrete_outputs_count = 1;
         answer.body.ack.discrete_outputs[0] = 2;
       },
       "SlaveError", "Ack.discrete_outputs[0] = 2 for Boolean output 'flag' (0 or 1)"},
      {"step_discrete_outputs_undescribed", on_step([](auto& r) { r.discrete_outputs_count = 16; }),
       "SlaveError", "StepResult.discrete_outputs has 16 value(s), expected 0"},
      // Harmless in any int64: only compared and converted to double.
      {"step_lateness_int64_min", on_step([](auto& r) { r.timing.input_lateness_ns = kMinTime; }),
       "none", ""},

      // Error answers.
      {"error_code_99", step_error(99), "SlaveError",
       "Error.code = 99, unknown: taken as unspecified"},
      {"error_code_negative", step_error(-1), "SlaveError", "Error.code = -1, unknown"},
      {"stop_request_at_nan",
       [](const Envelope& request, Envelope& answer) {
         if (!is(request, couplet_wire_Envelope_step_request_tag)) return;
         answer.which_body = couplet_wire_Envelope_error_tag;
         answer.body.error.code = couplet_wire_ErrorCode_ERROR_STOP_REQUESTED;
         answer.body.error.stop_time = kNaN;
       },
       "SlaveError", "Error.stop_time = nan is not a model time"},
      {"stop_request_answering_initialize",
       [](const Envelope& request, Envelope& answer) {
         if (!is(request, couplet_wire_Envelope_initialize_tag)) return;
         answer.which_body = couplet_wire_Envelope_error_tag;
         answer.body.error.code = couplet_wire_ErrorCode_ERROR_STOP_REQUESTED;
         answer.body.error.stop_time = 0.0;
       },
       "SlaveError", "STOP_REQUESTED in answer to initialize (only a step can end the simulation)"},
      {"error_bad_request", step_error(couplet_wire_ErrorCode_ERROR_BAD_REQUEST),
       "ProtocolViolation", "failed on the target: first line second line"},
  };
}

void PrintTo(const Variant& variant, std::ostream* out) {
  *out << variant.label;
}

class HostileTargetInProcess : public ::testing::TestWithParam<Variant> {};

TEST_P(HostileTargetInProcess, IsReportedNamingTheSlaveAndTheField) {
  const Variant& variant = GetParam();
  const Outcome outcome = session_against(variant.tamper);
  RecordProperty("message", outcome.message);
  EXPECT_EQ(outcome.kind, variant.kind) << outcome.message;
  if (std::string(variant.kind) == "none") return;
  EXPECT_NE(outcome.message.find("slave 'right'"), std::string::npos) << outcome.message;
  EXPECT_NE(outcome.message.find(variant.field), std::string::npos)
      << "expected '" << variant.field << "' in: " << outcome.message;
  for (const char character : outcome.message) {
    EXPECT_GE(static_cast<unsigned char>(character), 0x20)
        << "a control character in: " << outcome.message;
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, HostileTargetInProcess, ::testing::ValuesIn(variants()),
                         [](const auto& test) { return std::string(test.param.label); });

TEST(HostileTargetInProcess, AnHonestTargetPasses) {
  const Outcome outcome = session_against([](const Envelope&, Envelope&) {});
  EXPECT_EQ(outcome.kind, "none") << outcome.message;
}

// ---- through the couplet binary over UDP ----

struct RunResult {
  std::optional<int> exit_code;
  std::string errors;
};

/// Runs two_mass_switch.yaml with 'right' behind a hostile UDP target.
RunResult run_against(const std::string& label, const Tamper& tamper) {
  auto transport = drivers::UdpTransport::bind("127.0.0.1:0");
  const std::string address = "127.0.0.1:" + std::to_string(transport->local_port());
  HostileTarget target("translational.coupled_mass", std::move(transport), tamper);
  const auto directory = fresh_directory("hostile-" + label);
  const std::string errors =
      (std::filesystem::temp_directory_path() /
       ("couplet-test-hostile-" + std::to_string(::getpid()) + "-" + label + ".err"))
          .string();
  ChildProcess couplet({COUPLET_BINARY, "run", scenario_path("two_mass_switch.yaml"), "-o",
                        directory.string(), "--set", "time.end=0.2", "--set",
                        "slaves.right.link={udp: \"" + address + "\", timeout: 2}"},
                       errors);
  RunResult result;
  result.exit_code = couplet.wait_exit(30s);
  result.errors = read_file(errors);
  ::testing::Test::RecordProperty("stderr", result.errors);
  std::filesystem::remove(errors);
  return result;
}

void expect_clean_failure(const RunResult& result, const std::string& field) {
  ASSERT_TRUE(result.exit_code.has_value()) << "couplet still running";
  EXPECT_LT(*result.exit_code, 128)
      << "ended by signal " << *result.exit_code - 128 << ": " << result.errors;
  EXPECT_EQ(*result.exit_code, 1) << result.errors;
  EXPECT_EQ(std::count(result.errors.begin(), result.errors.end(), '\n'), 1)
      << "one line: " << result.errors;
  EXPECT_NE(result.errors.find("slave 'right'"), std::string::npos) << result.errors;
  EXPECT_NE(result.errors.find(field), std::string::npos)
      << "expected '" << field << "' in: " << result.errors;
}

TEST(HostileTargetRun, AnHonestTargetCompletesTheRun) {
  const RunResult result = run_against("honest", [](const Envelope&, Envelope&) {});
  ASSERT_TRUE(result.exit_code.has_value());
  EXPECT_EQ(*result.exit_code, 0) << result.errors;
}

// The measured crash: a Describe whose derivative order overflows (order + 1).
TEST(HostileTargetRun, DerivativeOrderAllOnesEndsTheRunCleanly) {
  expect_clean_failure(run_against("order", on_describe([](auto& d) {
                                     d.capabilities.output_derivative_order = 0xFFFFFFFFU;
                                   })),
                       "Describe.capabilities.output_derivative_order = 4294967295 exceeds");
}

TEST(HostileTargetRun, DuplicatePortNamesEndTheRunCleanly) {
  expect_clean_failure(run_against("duplicate", on_describe([](auto& d) {
                                     if (d.inputs_count == 2)
                                       std::strcpy(d.inputs[1].name, d.inputs[0].name);
                                   })),
                       "Describe.inputs[1].name 'x' is also the name of inputs[0]");
}

TEST(HostileTargetRun, StatusOutOfRangeEndsTheRunCleanly) {
  expect_clean_failure(run_against("status", on_step([](auto& r) { set_raw(r.status, 7); })),
                       "StepResult.status = 7");
}

TEST(HostileTargetRun, ANonFiniteOutputEndsTheRunCleanly) {
  expect_clean_failure(run_against("nan", on_step([](auto& r) { r.end_outputs[0] = kNaN; })),
                       "non-finite value for output 'f'");
}

TEST(HostileTargetRun, AWrongResultTimeEndsTheRunCleanly) {
  expect_clean_failure(run_against("time", on_step([](auto& r) { r.time_ns = kMinTime; })),
                       "StepResult.time_ns = -9223372036854775808");
}

TEST(HostileTargetRun, AnUnknownErrorCodeEndsTheRunCleanly) {
  expect_clean_failure(run_against("error", step_error(99)), "Error.code = 99");
}

}  // namespace
}  // namespace couplet::testing
