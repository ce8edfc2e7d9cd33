#include "targets/busy_responder.hpp"

#include <algorithm>

namespace couplet::targets {

namespace {

// How long the responder listens before it looks whether the request is done:
// the longest end() waits for it.
constexpr auto kListenSlice = std::chrono::milliseconds(5);

std::int64_t steady_ns(drivers::Deadline time) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
}

}  // namespace

BusyResponder::BusyResponder(drivers::Transport& transport, std::chrono::milliseconds after,
                             const protocol::FrameCodec& codec)
    : transport_(transport),
      after_(after),
      codec_(codec),
      in_progress_(protocol::kMaxFrameBytes),
      incoming_(protocol::kMaxFrameBytes),
      outgoing_(protocol::kMaxFrameBytes),
      request_(std::make_unique<protocol::Envelope>()),
      received_(std::make_unique<protocol::Envelope>()),
      answer_(std::make_unique<protocol::Envelope>()),
      thread_([this] { run(); }) {}

BusyResponder::~BusyResponder() {
  quit_.store(true);
  thread_.join();
}

void BusyResponder::begin(std::span<const std::uint8_t> frame) {
  in_progress_size_ = std::min(frame.size(), in_progress_.size());
  std::copy_n(frame.begin(), in_progress_size_, in_progress_.begin());
  busy_since_ns_.store(steady_ns(drivers::SteadyClock::now()), std::memory_order_relaxed);
  busy_.store(true, std::memory_order_release);
}

void BusyResponder::end() {
  busy_.store(false, std::memory_order_release);
  const std::lock_guard<std::mutex> wait_for_release(transport_mutex_);
}

void BusyResponder::run() {
  while (!quit_.load()) {
    std::this_thread::sleep_for(after_ / 4 + std::chrono::milliseconds(1));
    if (!busy_.load(std::memory_order_acquire)) continue;
    const std::int64_t since = busy_since_ns_.load(std::memory_order_relaxed);
    if (steady_ns(drivers::SteadyClock::now()) - since < std::chrono::nanoseconds(after_).count()) continue;
    const std::lock_guard<std::mutex> hold(transport_mutex_);
    if (busy_.load(std::memory_order_acquire)) answer_repeats();
  }
}

void BusyResponder::answer_repeats() {
  std::uint64_t nonce = 0;
  if (!codec_.decode(std::span(in_progress_).first(in_progress_size_), *request_, nonce)) return;
  const std::uint64_t session = request_->session;
  const std::uint32_t sequence = request_->sequence;
  while (busy_.load(std::memory_order_acquire) && !quit_.load()) {
    const std::size_t size = transport_.receive(incoming_, drivers::SteadyClock::now() + kListenSlice);
    std::uint64_t received_nonce = 0;
    if (size == 0 || !codec_.decode(std::span(incoming_).first(size), *received_, received_nonce))
      continue;
    // The master retransmits what matters; with a key, only the session's own frames are answered.
    if (received_->session != session || received_nonce != nonce) continue;
    if (received_->which_body == couplet_wire_Envelope_heartbeat_tag) {
      answer_->which_body = couplet_wire_Envelope_heartbeat_tag;
      answer_->body.heartbeat.sender_time_ns = static_cast<std::uint64_t>(steady_ns(drivers::SteadyClock::now()));
      reply(*answer_, session, received_->sequence, nonce);
    } else if (received_->sequence == sequence) {
      answer_->which_body = couplet_wire_Envelope_working_tag;
      reply(*answer_, session, sequence, nonce);
      working_replies_.fetch_add(1, std::memory_order_relaxed);
    }
  }
}

void BusyResponder::reply(protocol::Envelope& message, std::uint64_t session,
                          std::uint32_t sequence, std::uint64_t nonce) {
  message.session = session;
  message.sequence = sequence;
  const protocol::EncodeResult encoded = codec_.encode(message, nonce, outgoing_);
  if (encoded) transport_.send(std::span(outgoing_).first(encoded.size));
}

}  // namespace couplet::targets
