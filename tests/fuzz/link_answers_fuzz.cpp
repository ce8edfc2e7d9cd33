// Fuzz target: the master's handling of a target's answers — the remote slave
// proxy (drivers/remote_slave.hpp) and its link client, fed by a scripted
// transport. Behind the transport an honest TargetServer (translational.mass)
// answers every request; the input, a sequence of records (fuzz_input.hpp),
// tampers with those answers one by one, in order. Operation of a record
// (its low two bits):
//   0  the honest answer passes;
//   1  the record is an Envelope payload that replaces the answer's body; its
//      session and sequence are those of the honest answer (bit 3 set: as the
//      record has them), so that the master takes it as the answer;
//   2  the record is a whole frame, delivered before the honest answer;
//   3  the record is a payload, wrapped in a valid frame but not patched,
//      delivered before the honest answer (a push, a straggler, a stranger).
// With 1, bit 2 set also delivers the honest answer after the replacement.
// When the records run out the honest answers pass, so every session can end.
//
// The session: open (Hello, Describe), set up, evaluate the outputs, linearize
// when the description says the slave can (a tampered Describe may), three
// steps with two samples each, Stop; as tests/host_tools/assembly/hostile_target_test.cpp.
// The contract: a bad answer ends the session with a SlaveError or a
// ProtocolViolation naming the slave; anything else (another exception, a
// crash, undefined behaviour, a hang caught by libFuzzer's -timeout) is a finding.
#include <boost/endian/conversion.hpp>
#include <chrono>
#include <cmath>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "couplet/errors.hpp"
#include "drivers/remote_slave.hpp"
#include "fuzz_input.hpp"
#include "models/catalog.hpp"
#include "protocol/codec.hpp"
#include "protocol/crc32.hpp"
#include "targets/target_server.hpp"

namespace {

using namespace couplet;
using namespace std::chrono_literals;
using Frame = std::vector<std::uint8_t>;

Frame wrap_payload(std::span<const std::uint8_t> bytes) {
  const std::size_t payload = std::min<std::size_t>(bytes.size(), protocol::kMaxPayloadBytes);
  Frame frame(protocol::kFrameHeaderBytes + payload + protocol::kFrameChecksumBytes);
  frame[0] = protocol::kFrameMagic;
  frame[1] = protocol::kFrameVersion;
  boost::endian::store_little_u16(&frame[2], static_cast<std::uint16_t>(payload));
  if (payload > 0) std::memcpy(&frame[protocol::kFrameHeaderBytes], bytes.data(), payload);
  const std::size_t checked = protocol::kFrameHeaderBytes + payload;
  boost::endian::store_little_u32(&frame[checked], protocol::crc32(std::span(frame).first(checked)));
  return frame;
}

/// The target side, in the calling thread: send() hands the request to the
/// honest server and queues the (tampered) answers that receive() returns.
class ScriptedTransport final : public drivers::Transport {
 public:
  ScriptedTransport(std::span<const std::uint8_t> script, const models::ModelCatalog& catalog)
      : server_(catalog, options()), records_(script) {}

  void send(std::span<const std::uint8_t> frame) override {
    now_ += 1ms;
    Frame honest(protocol::kMaxFrameBytes);
    honest.resize(server_.handle(frame, honest, now_));
    const auto record = records_.next();
    if (!record || (record->operation & 3) == 0) return deliver(std::move(honest));
    switch (record->operation & 3) {
      case 1:
        if (replace(honest, *record)) {
          if ((record->operation & 4) != 0) deliver(std::move(honest));
          return;
        }
        break;
      case 2:
        deliver(Frame(record->bytes.begin(), record->bytes.end()));
        break;
      default:
        deliver(wrap_payload(record->bytes));
        break;
    }
    deliver(std::move(honest));
  }

  std::size_t receive(std::span<std::uint8_t> buffer, drivers::Deadline) override {
    // Nothing queued: as if the deadline had passed (the master retransmits,
    // and the honest server answers the repeat from its cache).
    if (queue_.empty()) return 0;
    const Frame frame = std::move(queue_.front());
    queue_.pop_front();
    if (frame.size() > buffer.size()) return 0;  // a datagram that does not fit is dropped
    std::copy(frame.begin(), frame.end(), buffer.begin());
    return frame.size();
  }

  std::string describe() const override { return "scripted"; }

 private:
  static targets::TargetOptions options() {
    targets::TargetOptions target_options;
    target_options.model = "translational.mass";
    return target_options;
  }

  void deliver(Frame frame) {
    if (!frame.empty()) queue_.push_back(std::move(frame));
  }

  /// Queues the record's envelope in place of `honest`; false when the record
  /// is not an envelope.
  bool replace(const Frame& honest, const fuzz::Record& record) {
    const Frame wrapped = wrap_payload(record.bytes);
    if (!protocol::decode_frame(wrapped, *envelope_)) return false;
    if ((record.operation & 8) == 0 && protocol::decode_frame(honest, *honest_envelope_)) {
      envelope_->session = honest_envelope_->session;
      envelope_->sequence = honest_envelope_->sequence;
    }
    Frame frame(protocol::kMaxFrameBytes);
    frame.resize(protocol::encode_frame(*envelope_, frame).size);
    deliver(std::move(frame));
    return true;
  }

  targets::TargetServer server_;
  fuzz::RecordReader records_;
  drivers::Deadline now_ = drivers::SteadyClock::time_point(std::chrono::hours(1000));
  std::deque<Frame> queue_;
  std::unique_ptr<protocol::Envelope> envelope_ = std::make_unique<protocol::Envelope>();
  std::unique_ptr<protocol::Envelope> honest_envelope_ = std::make_unique<protocol::Envelope>();
};

/// Short intervals: a dropped or ignored answer costs a millisecond of
/// retransmission, a silent target 20 ms, not seconds.
drivers::LinkPolicy fast_policy() {
  drivers::LinkPolicy policy;
  policy.retransmit_interval = 1ms;
  policy.peer_timeout = 20ms;
  policy.busy_patience = 5ms;
  return policy;
}

void run_session(drivers::RemoteSlave& slave) {
  constexpr Time kStep = 10'000'000;  // 10 ms
  const SlaveDescription& description = slave.description();
  const std::size_t outputs = description.outputs.size();
  const std::size_t rows = static_cast<std::size_t>(description.capabilities.output_derivative_order + 1);
  std::vector<double> end_outputs(rows * outputs);
  std::vector<double> samples(2 * outputs);
  const std::vector<Polynomial> inputs(description.inputs.size(), Polynomial::constant(0.0, 0.5));
  slave.setup(0);
  slave.evaluate_outputs(inputs, end_outputs);
  if (description.capabilities.can_linearize) {
    std::vector<double> linearization(LinearizationLayout::of(description).size());
    slave.linearize(inputs, linearization);
  }
  for (Time start = 0; start < 3 * kStep; start += kStep) {
    const Time sample_times[2] = {start + kStep / 2, start + kStep};
    slave.step({start, start + kStep, inputs, sample_times}, {end_outputs, samples});
  }
}

void require_names_slave(const std::exception& error) {
  fuzz::require(std::string(error.what()).find("fuzzed") != std::string::npos,
                "a link error that does not name the slave");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const models::ModelCatalog catalog = models::ModelCatalog::builtin();
  try {
    drivers::RemoteSlave slave("fuzzed", std::make_unique<ScriptedTransport>(std::span(data, size), catalog),
                               nullptr, fast_policy());
    run_session(slave);
  } catch (const SlaveError& error) {
    require_names_slave(error);
  } catch (const ProtocolViolation& error) {
    require_names_slave(error);
  } catch (const StopRequest& request) {
    // The target's slave ended the simulation, in its own words: a normal end.
    fuzz::require(std::isfinite(request.time()), "a stop request at a time that is no number");
  }
  return 0;
}
