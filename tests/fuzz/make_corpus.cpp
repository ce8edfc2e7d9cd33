// Writes the seed corpora of the protocol fuzz targets from one real session:
// the remote slave proxy against a couplet target serving translational.mass
// over an in-process link (open, set up, evaluate the outputs, three steps,
// Stop), every frame recorded on the master's side. The linearization messages
// are seeded from it too, whether or not the served model linearizes: the
// session with a Linearize after the evaluation (target_server), and its
// answers with a Describe that says can_linearize and a Linearization of the
// described size (link_answers).
//
//   fuzz_corpus_generator tests/fuzz/corpus
//
// writes corpus/{codec,framing,target_server,link_answers}/session-*. The
// run_log and scenario corpora are a small run log and the shipped scenarios
// (docs/hardening.md "Seed corpora").
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "drivers/in_process_transport.hpp"
#include "drivers/remote_slave.hpp"
#include "fuzz_input.hpp"
#include "protocol/cobs.hpp"
#include "protocol/codec.hpp"
#include "protocol/sequence.hpp"
#include "support/served_target.hpp"
#include "targets/configuration.hpp"

namespace {

using namespace couplet;
using Frame = std::vector<std::uint8_t>;

/// The master's end of a link, keeping a copy of every frame sent and received.
class RecordingTransport final : public drivers::Transport {
 public:
  RecordingTransport(std::unique_ptr<drivers::Transport> inner, std::vector<Frame>& sent,
                     std::vector<Frame>& received)
      : inner_(std::move(inner)), sent_(sent), received_(received) {}
  void send(std::span<const std::uint8_t> frame) override {
    sent_.emplace_back(frame.begin(), frame.end());
    inner_->send(frame);
  }
  std::size_t receive(std::span<std::uint8_t> buffer, drivers::Deadline deadline) override {
    const std::size_t size = inner_->receive(buffer, deadline);
    if (size > 0) received_.emplace_back(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(size));
    return size;
  }
  std::string describe() const override { return inner_->describe(); }

 private:
  std::unique_ptr<drivers::Transport> inner_;
  std::vector<Frame>& sent_;
  std::vector<Frame>& received_;
};

void record_session(std::vector<Frame>& sent, std::vector<Frame>& received) {
  drivers::InProcessLink link = drivers::make_in_process_link();
  testing::ServedTarget target(std::move(link.target));
  drivers::RemoteSlave slave("recorded", std::make_unique<RecordingTransport>(std::move(link.master), sent, received),
                             nullptr, drivers::LinkPolicy{});
  constexpr Time kStep = 10'000'000;
  const SlaveDescription& description = slave.description();
  const std::size_t outputs = description.outputs.size();
  std::vector<double> end_outputs(static_cast<std::size_t>(description.capabilities.output_derivative_order + 1) *
                                  outputs);
  std::vector<double> samples(2 * outputs);
  const std::vector<Polynomial> inputs(description.inputs.size(), Polynomial::constant(0.0, 0.5));
  slave.setup(0);
  slave.evaluate_outputs(inputs, end_outputs);
  for (Time start = 0; start < 3 * kStep; start += kStep) {
    const Time sample_times[2] = {start + kStep / 2, start + kStep};
    slave.step({start, start + kStep, inputs, sample_times}, {end_outputs, samples});
  }
}  // ~RemoteSlave: Stop

std::span<const std::uint8_t> payload_of(const Frame& frame) {
  return std::span(frame).subspan(protocol::kFrameHeaderBytes,
                                  frame.size() - protocol::kFrameHeaderBytes - protocol::kFrameChecksumBytes);
}

void write(const std::filesystem::path& path, const Frame& bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
}

std::unique_ptr<protocol::Envelope> decoded(const Frame& frame) {
  auto message = std::make_unique<protocol::Envelope>();
  if (!protocol::decode_frame(frame, *message)) throw std::runtime_error("a recorded frame does not decode");
  return message;
}

Frame encoded(const protocol::Envelope& message) {
  Frame frame(protocol::kMaxFrameBytes);
  frame.resize(protocol::encode_frame(message, frame).size);
  return frame;
}

/// The recorded requests with a Linearize (the evaluation's inputs) right after
/// the EvaluateOutputs, the later sequence numbers moved on by one.
std::vector<Frame> with_linearize(const std::vector<Frame>& sent) {
  std::vector<Frame> frames;
  bool inserted = false;
  for (const Frame& frame : sent) {
    const auto message = decoded(frame);
    if (inserted) message->sequence = protocol::next_sequence(message->sequence);
    frames.push_back(encoded(*message));
    if (inserted || message->which_body != couplet_wire_Envelope_evaluate_outputs_tag) continue;
    const couplet_wire_EvaluateOutputs evaluation = message->body.evaluate_outputs;
    message->which_body = couplet_wire_Envelope_linearize_tag;
    message->sequence = protocol::next_sequence(message->sequence);
    message->body.linearize.inputs_count = evaluation.inputs_count;
    std::copy_n(evaluation.inputs, evaluation.inputs_count, message->body.linearize.inputs);
    frames.push_back(encoded(*message));
    inserted = true;
  }
  return frames;
}

/// translational.mass's states: position and velocity.
constexpr std::uint32_t kMassStates = 2;

/// The recorded Describe (answers[0]) saying that the slave linearizes.
Frame linearizable_describe(const std::vector<Frame>& answers) {
  const auto describe = decoded(answers.at(0));
  describe->body.describe.capabilities.can_linearize = true;
  describe->body.describe.capabilities.state_count = kMassStates;
  return encoded(*describe);
}

/// A Linearization at t = 0 of the size the recorded Describe implies.
Frame linearization_answer(const std::vector<Frame>& answers) {
  const auto describe = decoded(answers.at(0));
  const LinearizationLayout layout{kMassStates, describe->body.describe.inputs_count,
                                   describe->body.describe.outputs_count};
  auto message = std::make_unique<protocol::Envelope>(*describe);
  message->which_body = couplet_wire_Envelope_linearization_tag;
  message->body.linearization = couplet_wire_Linearization{};
  message->body.linearization.values_count = static_cast<pb_size_t>(layout.size());
  for (std::size_t k = 0; k < layout.size(); ++k) {
    message->body.linearization.values[k] = 0.25 * static_cast<double>(k) - 1.0;
  }
  return encoded(*message);
}

couplet_wire_Port discrete_port(const char* name, couplet_wire_PortType type, std::int64_t start) {
  couplet_wire_Port port{};
  std::snprintf(port.name, sizeof port.name, "%s", name);
  port.type = type;
  port.start = start;
  return port;
}

/// The recorded answers as from a slave with discrete ports (an Integer
/// output `count`, a Boolean output `done`, a Boolean input `enable`): the
/// Describe declares them, the Ack of Initialize carries the outputs' start
/// values and each StepResult their values at its end (count = the step's
/// number, done on the last). Empty where an answer is left as it was.
std::vector<Frame> with_discrete_ports(const std::vector<Frame>& answers) {
  std::vector<Frame> changed;
  bool first_ack = true;
  std::int64_t steps = 0;
  for (const Frame& frame : answers) {
    const auto message = decoded(frame);
    switch (message->which_body) {
      case couplet_wire_Envelope_describe_tag: {
        couplet_wire_Describe& describe = message->body.describe;
        describe.discrete_inputs_count = 1;
        describe.discrete_inputs[0] = discrete_port("enable", couplet_wire_PortType_PORT_BOOLEAN, 1);
        describe.discrete_outputs_count = 2;
        describe.discrete_outputs[0] = discrete_port("count", couplet_wire_PortType_PORT_INTEGER, 0);
        describe.discrete_outputs[1] = discrete_port("done", couplet_wire_PortType_PORT_BOOLEAN, 0);
        break;
      }
      case couplet_wire_Envelope_ack_tag:
        if (!first_ack) {
          changed.emplace_back();
          continue;
        }
        first_ack = false;
        message->body.ack.discrete_outputs_count = 2;
        message->body.ack.discrete_outputs[0] = 0;
        message->body.ack.discrete_outputs[1] = 0;
        break;
      case couplet_wire_Envelope_step_result_tag:
        ++steps;
        message->body.step_result.discrete_outputs_count = 2;
        message->body.step_result.discrete_outputs[0] = steps;
        message->body.step_result.discrete_outputs[1] = steps == 3 ? 1 : 0;
        break;
      default:
        changed.emplace_back();
        continue;
    }
    changed.push_back(encoded(*message));
  }
  return changed;
}

/// The recorded Describe (answers[0]) with unit definitions on the first
/// input and output, as a target serving an FMU with UnitDefinitions sends.
Frame describe_with_units(const std::vector<Frame>& answers) {
  const auto message = decoded(answers.at(0));
  couplet_wire_Describe& describe = message->body.describe;
  std::snprintf(describe.inputs[0].unit, sizeof describe.inputs[0].unit, "%s", "kph");
  describe.inputs[0].has_unit_definition = true;
  describe.inputs[0].unit_definition = {.m = 1, .s = -1, .factor = 1 / 3.6};
  std::snprintf(describe.outputs[0].unit, sizeof describe.outputs[0].unit, "%s", "degF");
  describe.outputs[0].has_unit_definition = true;
  describe.outputs[0].unit_definition = {.K = 1, .factor = 5.0 / 9.0, .offset = 255.37222222222223};
  return encoded(*message);
}

/// The recorded requests with one discrete input (enable = 1) in every
/// StepRequest: what a master sends a slave with discrete inputs.
std::vector<Frame> with_discrete_inputs(const std::vector<Frame>& sent) {
  std::vector<Frame> frames;
  for (const Frame& frame : sent) {
    const auto message = decoded(frame);
    if (message->which_body == couplet_wire_Envelope_step_request_tag) {
      message->body.step_request.discrete_inputs_count = 1;
      message->body.step_request.discrete_inputs[0] = 1;
    }
    frames.push_back(encoded(*message));
  }
  return frames;
}

/// The recorded requests with the first one a Configure: a numeric and a
/// String parameter (an FMI 3.0 FMU's; the catalog model refuses it).
std::vector<Frame> with_configure(const std::vector<Frame>& sent) {
  std::vector<Frame> frames;
  for (const Frame& frame : sent) {
    const auto message = decoded(frame);
    if (frames.empty()) {
      targets::SlaveConfiguration configuration;
      configuration.slave_name = "recorded";
      configuration.model = "translational.mass";
      configuration.parameters = {{"m", 2.0}};
      configuration.text_parameters = {{"greeting", "Gr\xC3\xBC\xC3\x9F dich"}};
      message->which_body = couplet_wire_Envelope_configure_tag;
      targets::to_wire(configuration, message->body.configure);
    }
    frames.push_back(encoded(*message));
  }
  return frames;
}

Frame prefixed(std::uint8_t first, std::span<const std::uint8_t> rest) {
  Frame bytes(1 + rest.size());
  bytes[0] = first;
  std::copy(rest.begin(), rest.end(), bytes.begin() + 1);
  return bytes;
}

Frame cobs_line(const std::vector<Frame>& frames) {
  Frame line;
  for (const Frame& frame : frames) {
    Frame encoded(protocol::cobs_encoded_capacity(frame.size()));
    encoded.resize(protocol::cobs_encode(frame, encoded).value());
    line.push_back(0);
    line.insert(line.end(), encoded.begin(), encoded.end());
    line.push_back(0);
  }
  return line;
}

/// Records of `operation` carrying the frames' payloads.
Frame records(const std::vector<Frame>& frames, std::uint8_t operation, std::uint8_t first = 0, bool with_first = false) {
  Frame input;
  if (with_first) input.push_back(first);
  for (const Frame& frame : frames) fuzz::append_record(input, operation, payload_of(frame));
  return input;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: fuzz_corpus_generator CORPUS_DIRECTORY\n";
    return 2;
  }
  const std::filesystem::path root(argv[1]);
  std::vector<Frame> sent;
  std::vector<Frame> received;
  record_session(sent, received);
  std::cout << sent.size() << " requests, " << received.size() << " answers recorded\n";

  std::vector<Frame> all = sent;
  all.insert(all.end(), received.begin(), received.end());
  for (std::size_t k = 0; k < all.size(); ++k) {
    const std::string stem = "session-" + std::to_string(k);
    write(root / "codec" / (stem + "-frame"), prefixed(0, all[k]));
    write(root / "codec" / (stem + "-payload"), prefixed(1, payload_of(all[k])));
    write(root / "framing" / stem, cobs_line({all[k]}));
  }
  write(root / "framing" / "session-line", cobs_line(all));
  // Sealed frames for the codec (first byte: bit 1), under the harness's key:
  // a Hello, a step request and its result, whole and as nonce + payload.
  const protocol::FrameCodec sealing(fuzz::kSealingKey);
  for (const std::size_t k : {std::size_t{0}, sent.size() - 2, sent.size() + received.size() - 2}) {
    auto message = std::make_unique<protocol::Envelope>();
    if (!protocol::decode_frame(all.at(k), *message))
      throw std::runtime_error("a recorded frame does not decode");
    const std::uint64_t nonce = k == 0 ? 0 : 0x0123'4567'89AB'CDEFULL;
    Frame sealed(protocol::kMaxFrameBytes);
    sealed.resize(sealing.encode(*message, nonce, sealed).size);
    const std::string stem = "sealed-" + std::to_string(k);
    write(root / "codec" / (stem + "-frame"), prefixed(2, sealed));
    Frame nonce_and_payload(sizeof nonce);
    std::memcpy(nonce_and_payload.data(), &nonce, sizeof nonce);
    const auto payload =
        std::span(sealed).subspan(protocol::kFrameHeaderBytes + protocol::kFrameNonceBytes,
                                  sealed.size() - protocol::kFrameHeaderBytes -
                                      protocol::kFrameSealBytes - protocol::kFrameChecksumBytes);
    nonce_and_payload.insert(nonce_and_payload.end(), payload.begin(), payload.end());
    write(root / "codec" / (stem + "-payload"), prefixed(3, nonce_and_payload));
  }
  const std::vector<Frame> linearizing = with_linearize(sent);
  const Frame linearize = linearizing.at(3);  // Hello, Initialize, EvaluateOutputs, Linearize
  const Frame linearization = linearization_answer(received);
  for (const auto& [stem, frame] : {std::pair{"linearize", linearize}, std::pair{"linearization", linearization}}) {
    write(root / "codec" / (std::string(stem) + "-frame"), prefixed(0, frame));
    write(root / "codec" / (std::string(stem) + "-payload"), prefixed(1, payload_of(frame)));
    write(root / "framing" / stem, cobs_line({frame}));
  }
  // Byte 0 of a target_server input: bit 0 real-time, bits 1-2 the model
  // (translational.mass is 0). Records: wrapped payloads, 1 ms apart.
  constexpr std::uint8_t kWrappedAfterOneMs = 1 | (1 << 2);
  write(root / "target_server" / "session", records(sent, kWrappedAfterOneMs, 0, true));
  write(root / "target_server" / "session-realtime", records(sent, kWrappedAfterOneMs, 1, true));
  write(root / "target_server" / "session-linearize", records(linearizing, kWrappedAfterOneMs, 0, true));
  // link_answers: every answer replaced by itself (operation 1), or passed (0).
  write(root / "link_answers" / "session-replaced", records(received, 1));
  write(root / "link_answers" / "session-passed", records(received, 0));
  // Describe says can_linearize (replaced), Ack and Outputs pass, the answer to
  // Linearize is replaced by a Linearization; the rest pass.
  Frame linearizing_answers;
  fuzz::append_record(linearizing_answers, 1, payload_of(linearizable_describe(received)));
  fuzz::append_record(linearizing_answers, 0, payload_of(received.at(1)));
  fuzz::append_record(linearizing_answers, 0, payload_of(received.at(2)));
  fuzz::append_record(linearizing_answers, 1, payload_of(linearization));
  write(root / "link_answers" / "session-linearize", linearizing_answers);
  // Discrete ports: the answers of a slave with an Integer and a Boolean output
  // and a Boolean input (replaced where they carry them, passed elsewhere);
  // the target serving translational.mass sent discrete inputs it has none of;
  // the frames themselves for the codec.
  const std::vector<Frame> discrete_answers = with_discrete_ports(received);
  Frame discrete_records;
  for (std::size_t k = 0; k < received.size(); ++k) {
    const bool replaced = !discrete_answers[k].empty();
    fuzz::append_record(discrete_records, replaced ? 1 : 0, payload_of(replaced ? discrete_answers[k] : received[k]));
  }
  write(root / "link_answers" / "session-discrete", discrete_records);
  // Unit definitions in the Describe (replaced); the rest pass.
  const Frame units = describe_with_units(received);
  Frame unit_records;
  fuzz::append_record(unit_records, 1, payload_of(units));
  for (std::size_t k = 1; k < received.size(); ++k)
    fuzz::append_record(unit_records, 0, payload_of(received[k]));
  write(root / "link_answers" / "session-units", unit_records);
  write(root / "codec" / "units-frame", prefixed(0, units));
  write(root / "codec" / "units-payload", prefixed(1, payload_of(units)));
  const std::vector<Frame> discrete_requests = with_discrete_inputs(sent);
  write(root / "target_server" / "session-discrete-inputs", records(discrete_requests, kWrappedAfterOneMs, 0, true));
  write(root / "target_server" / "session-configure-text",
        records(with_configure(sent), kWrappedAfterOneMs, 0, true));
  std::vector<Frame> discrete_frames;
  for (const Frame& frame : discrete_answers) {
    if (!frame.empty()) discrete_frames.push_back(frame);
  }
  for (const Frame& frame : discrete_requests) {
    if (decoded(frame)->which_body != couplet_wire_Envelope_step_request_tag) continue;
    discrete_frames.push_back(frame);  // the first StepRequest
    break;
  }
  for (std::size_t k = 0; k < discrete_frames.size(); ++k) {
    const std::string stem = "discrete-" + std::to_string(k);
    write(root / "codec" / (stem + "-frame"), prefixed(0, discrete_frames[k]));
    write(root / "codec" / (stem + "-payload"), prefixed(1, payload_of(discrete_frames[k])));
    write(root / "framing" / stem, cobs_line({discrete_frames[k]}));
  }
  return 0;
}
