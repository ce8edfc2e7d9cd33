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
  return 0;
}
