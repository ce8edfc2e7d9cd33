#include "drivers/link_client.hpp"

#include <algorithm>
#include <random>
#include <sstream>

#include "couplet/errors.hpp"

namespace couplet::drivers {

namespace {

// A session id nobody else uses: 64 random bits (never 0, which means "none").
std::uint64_t new_session_id() {
  std::random_device device;
  std::uint64_t id = 0;
  while (id == 0) id = (static_cast<std::uint64_t>(device()) << 32) ^ device();
  return id;
}

std::string seconds_text(double seconds) {
  std::ostringstream text;
  text.precision(6);
  text << seconds;
  return text.str();
}

}  // namespace

LinkClient::LinkClient(std::string slave_name, std::unique_ptr<Transport> transport, const LinkPolicy& policy)
    : slave_name_(std::move(slave_name)),
      transport_(std::move(transport)),
      policy_(policy),
      session_(new_session_id()),
      request_(std::make_unique<protocol::Envelope>()),
      answer_(std::make_unique<protocol::Envelope>()),
      sent_frame_(protocol::kMaxFrameBytes),
      received_frame_(protocol::kMaxFrameBytes),
      pushed_frame_(protocol::kMaxFrameBytes),
      heartbeat_(std::make_unique<protocol::Envelope>()),
      heartbeat_frame_(64),
      last_heard_(SteadyClock::now()) {
  // Start the sequence at a random point: a target that still remembers an old
  // session must not mistake its numbers for ours (and wraparound gets exercised).
  std::random_device device;
  sequence_ = static_cast<protocol::Sequence>(device());
}

void LinkClient::send() {
  request_->session = session_;
  sequence_ = protocol::next_sequence(sequence_);
  request_->sequence = sequence_;
  const protocol::EncodeResult encoded = protocol::encode_frame(*request_, sent_frame_);
  if (!encoded) {
    throw ProtocolViolation("slave '" + slave_name_ + "': request does not fit the wire protocol: " + encoded.reason);
  }
  sent_size_ = encoded.size;
  ++counters_.requests;
  transport_->send(std::span(sent_frame_).first(sent_size_));
}

const protocol::Envelope* LinkClient::receive_until(Deadline deadline, bool accept_push) {
  if (accept_push && pushed_size_ > 0) {
    const std::size_t size = pushed_size_;
    pushed_size_ = 0;
    if (protocol::decode_frame(std::span(pushed_frame_).first(size), *answer_)) return answer_.get();
  }
  for (;;) {
    const std::size_t size = transport_->receive(received_frame_, deadline);
    if (size == 0) return nullptr;
    if (!protocol::decode_frame(std::span(received_frame_).first(size), *answer_)) {
      ++counters_.drops;
      continue;
    }
    if (answer_->session != session_) {
      ++counters_.foreign;
      continue;
    }
    last_heard_ = SteadyClock::now();
    if (answer_->which_body == couplet_wire_Envelope_heartbeat_tag) continue;
    const bool push = answer_->sequence == 0 && answer_->which_body == couplet_wire_Envelope_step_result_tag;
    if (push && !accept_push) {
      std::copy_n(received_frame_.begin(), size, pushed_frame_.begin());  // the newest push wins
      pushed_size_ = size;
      continue;
    }
    return answer_.get();
  }
}

const protocol::Envelope* LinkClient::await_until(Deadline give_up, int& attempts) {
  auto interval = policy_.retransmit_timeout;
  Deadline resend_at = SteadyClock::now() + interval;
  attempts = 1;
  for (;;) {
    const protocol::Envelope* answer = receive_until(std::min(resend_at, give_up));
    if (answer == nullptr) {
      const Deadline now = SteadyClock::now();
      if (now >= give_up) return nullptr;
      if (now < resend_at) continue;
      transport_->send(std::span(sent_frame_).first(sent_size_));
      ++counters_.retransmissions;
      ++attempts;
      interval = std::min(2 * interval, policy_.max_retransmit_interval);
      resend_at = now + interval;
      continue;
    }
    if (answer->sequence != sequence_) {
      ++counters_.duplicates;  // an answer to an earlier request, or a push
      continue;
    }
    return answer;
  }
}

const protocol::Envelope& LinkClient::await_answer(const char* activity, double model_time) {
  int attempts = 0;
  const protocol::Envelope* answer = await_until(SteadyClock::now() + policy_.peer_timeout, attempts);
  if (answer == nullptr) fail_dead(activity, model_time, attempts);
  if (answer->which_body == couplet_wire_Envelope_error_tag) fail_error(*answer, activity, model_time);
  return *answer;
}

const protocol::Envelope& LinkClient::exchange(const char* activity, double model_time) {
  send();
  return await_answer(activity, model_time);
}

const protocol::Envelope* LinkClient::exchange_within(std::chrono::microseconds patience) {
  send();
  int attempts = 0;
  return await_until(SteadyClock::now() + patience, attempts);
}

const protocol::Envelope* LinkClient::await_answer_until(Deadline deadline, const char* activity, double model_time) {
  int attempts = 0;
  const protocol::Envelope* answer = await_until(deadline, attempts);
  if (answer != nullptr && answer->which_body == couplet_wire_Envelope_error_tag) fail_error(*answer, activity, model_time);
  return answer;
}

const protocol::Envelope* LinkClient::await_push(std::int64_t time, Deadline deadline) {
  for (;;) {
    const protocol::Envelope* message = receive_until(deadline, true);
    if (message == nullptr) return nullptr;
    if (message->which_body == couplet_wire_Envelope_error_tag) {
      fail_error(*message, "real-time step", static_cast<double>(time) * 1e-9);
    }
    if (message->sequence != 0) {
      ++counters_.duplicates;  // a late answer to an earlier request
      continue;
    }
    const std::int64_t pushed = message->body.step_result.time_ns;
    if (pushed == time) return message;
    if (pushed < time) {
      ++counters_.late_results;  // for a communication time already handled
      continue;
    }
    // Ahead of the time awaited (whose push was lost): keep it for the next step.
    const protocol::EncodeResult kept = protocol::encode_frame(*message, pushed_frame_);
    pushed_size_ = kept.size;
    return nullptr;
  }
}

void LinkClient::send_heartbeat() {
  protocol::Envelope& heartbeat = *heartbeat_;
  heartbeat.session = session_;
  heartbeat.sequence = 0;  // unsequenced: the target answers it at once, outside the exactly-once logic
  heartbeat.which_body = couplet_wire_Envelope_heartbeat_tag;
  heartbeat.body.heartbeat.sender_time_ns = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(SteadyClock::now().time_since_epoch()).count());
  const protocol::EncodeResult encoded = protocol::encode_frame(heartbeat, heartbeat_frame_);
  if (encoded) transport_->send(std::span(heartbeat_frame_).first(encoded.size));
}

void LinkClient::check_alive(const char* activity, double model_time) const {
  if (SteadyClock::now() - last_heard_ > policy_.peer_timeout) fail_dead(activity, model_time, 0);
}

void LinkClient::fail_dead(const char* activity, double model_time, int attempts) const {
  const double waited = std::chrono::duration<double>(policy_.peer_timeout).count();
  const std::string tries = attempts > 0 ? std::to_string(attempts) + " attempts" : std::string("silent");
  throw SlaveError("slave '" + slave_name_ + "': no answer over " + transport_->describe() + " for " +
                   seconds_text(waited) + " s (" + tries + ") during " + activity + " at t = " +
                   seconds_text(model_time) + " s: the target is dead or the link is down");
}

void LinkClient::fail_error(const protocol::Envelope& answer, const char* activity, double model_time) const {
  const couplet_wire_Error& error = answer.body.error;
  const std::string text = "slave '" + slave_name_ + "' (" + transport_->describe() + "): " + activity +
                           " at t = " + seconds_text(model_time) + " s failed on the target: " + error.text;
  if (error.code == couplet_wire_ErrorCode_ERROR_REFUSED) throw ConfigurationError(text);
  if (error.code == couplet_wire_ErrorCode_ERROR_BAD_REQUEST) throw ProtocolViolation(text);
  throw SlaveError(text);
}

}  // namespace couplet::drivers
