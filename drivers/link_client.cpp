#include "drivers/link_client.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>

#include "couplet/errors.hpp"
#include "protocol/wire_conversions.hpp"

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

LinkClient::LinkClient(std::string slave_name, std::unique_ptr<Transport> transport,
                       const LinkPolicy& policy)
    : slave_name_(std::move(slave_name)),
      transport_(std::move(transport)),
      policy_(policy),
      codec_(policy.key ? protocol::FrameCodec(*policy.key) : protocol::FrameCodec()),
      session_(new_session_id()),
      request_(std::make_unique<protocol::Envelope>()),
      answer_(std::make_unique<protocol::Envelope>()),
      sent_frame_(protocol::kMaxFrameBytes),
      received_frame_(protocol::kMaxFrameBytes),
      pushed_frame_(protocol::kMaxFrameBytes),
      heartbeat_(std::make_unique<protocol::Envelope>()),
      heartbeat_frame_(96),
      heard_baseline_(SteadyClock::now()),
      listening_baseline_(heard_baseline_),
      last_wake_(heard_baseline_),
      stall_threshold_(std::chrono::duration_cast<std::chrono::nanoseconds>(policy.peer_timeout) /
                       10) {
  // Start the sequence at a random point: a target that still remembers an old
  // session must not mistake its numbers for ours (and wraparound gets exercised).
  std::random_device device;
  sequence_ = static_cast<protocol::Sequence>(device());
}

void LinkClient::send() {
  request_->session = session_;
  sequence_ = protocol::next_sequence(sequence_);
  request_->sequence = sequence_;
  const protocol::EncodeResult encoded = codec_.encode(*request_, nonce_, sent_frame_);
  if (!encoded) {
    throw ProtocolViolation("slave '" + slave_name_ + "': request does not fit the wire protocol: " + encoded.reason);
  }
  sent_size_ = encoded.size;
  ++counters_.requests;
  attempts_ = 1;
  stalled_while_waiting_ = std::chrono::nanoseconds(0);
  // Silence counts while an answer is awaited: time spent elsewhere since the
  // last frame (computing, waiting on another slave) is not the peer's.
  listening_baseline_ = request_sent_ = SteadyClock::now();
  transport_->send(std::span(sent_frame_).first(sent_size_));
}

void LinkClient::resend() {
  transport_->send(std::span(sent_frame_).first(sent_size_));
  ++counters_.retransmissions;
  ++attempts_;
}

// A wait that returns later than it asked for (and than the previous wake-up)
// lost that time to this machine: preempted, swapped out, stopped.
void LinkClient::woke(Deadline now, Deadline expected) {
  const std::chrono::nanoseconds lost = std::max(now - std::max(expected, last_wake_), Deadline::duration::zero());
  last_wake_ = now;
  if (lost.count() == 0) return;
  if (lost >= stall_threshold_) {  // shorter ones are scheduling noise: not counted, still not the peer's
    ++counters_.host_stalls;
    counters_.host_stall_longest_ns = std::max(counters_.host_stall_longest_ns, lost.count());
  }
  heard_baseline_ += lost;
  listening_baseline_ += lost;
  stalled_while_waiting_ += lost;
}

const protocol::Envelope* LinkClient::receive_until(Deadline deadline, bool accept_push) {
  if (accept_push && pushed_size_ > 0) {
    const std::size_t size = pushed_size_;
    pushed_size_ = 0;
    std::uint64_t nonce = 0;
    if (codec_.decode(std::span(pushed_frame_).first(size), *answer_, nonce)) return answer_.get();
  }
  for (;;) {
    const std::size_t size = transport_->receive(received_frame_, deadline);
    const Deadline now = SteadyClock::now();
    woke(now, deadline);
    if (size == 0) return nullptr;
    std::uint64_t nonce = 0;
    if (const protocol::DecodeResult decoded =
            codec_.decode(std::span(received_frame_).first(size), *answer_, nonce);
        !decoded) {
      const bool authentic = decoded.error != protocol::FrameError::unauthenticated &&
                             decoded.error != protocol::FrameError::unsealed &&
                             decoded.error != protocol::FrameError::sealed;
      ++(authentic ? counters_.drops : counters_.unauthenticated);
      continue;
    }
    if (answer_->session != session_) {
      ++counters_.foreign;
      continue;
    }
    if (!carries_session_nonce(nonce)) {
      ++counters_.replayed;
      continue;
    }
    heard_baseline_ = listening_baseline_ = now;  // a sign of life, whatever it says
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

const protocol::Envelope* LinkClient::await_until(Deadline give_up, Silence& why) {
  Deadline resend_at = listening_baseline_ + policy_.retransmit_interval;
  for (;;) {
    const Deadline silent_at = listening_baseline_ + policy_.peer_timeout;
    const protocol::Envelope* answer = receive_until(std::min({resend_at, give_up, silent_at}));
    if (answer != nullptr) {
      if (answer->sequence != sequence_) {
        ++counters_.duplicates;  // an answer to an earlier request, or a push
        continue;
      }
      if (answer->which_body == couplet_wire_Envelope_working_tag) {
        ++counters_.working;  // alive and computing: keep asking at the same pace
        if (policy_.max_step_time.count() > 0 &&
            outstanding(SteadyClock::now()) > policy_.max_step_time) {
          why = Silence::hung;
          return nullptr;
        }
        continue;
      }
      why = Silence::none;
      return answer;
    }
    const Deadline now = SteadyClock::now();
    why = abandoned(now);
    if (why != Silence::none) return nullptr;
    if (now >= give_up) {
      why = Silence::deadline;
      return nullptr;
    }
    if (now >= listening_baseline_ + policy_.peer_timeout) {
      why = Silence::peer;
      return nullptr;
    }
    if (now >= resend_at) {
      resend();
      resend_at = now + policy_.retransmit_interval;
    }
  }
}

LinkClient::Silence LinkClient::abandoned(Deadline now) {
  if (policy_.interrupted != nullptr && policy_.interrupted() &&
      outstanding(now) >= kInterruptPatience)
    return Silence::interrupted;
  if (process_ != nullptr && process_->ended()) return Silence::process_ended;
  return Silence::none;
}

std::chrono::nanoseconds LinkClient::outstanding(Deadline now) const {
  return now - request_sent_ - stalled_while_waiting_;
}

const protocol::Envelope& LinkClient::await_answer(const char* activity, double model_time) {
  Silence why = Silence::none;
  const protocol::Envelope* answer = await_until(Deadline::max(), why);
  if (answer == nullptr) fail_waiting(why, activity, model_time);
  if (answer->which_body == couplet_wire_Envelope_error_tag) fail_error(*answer, activity, model_time);
  return *answer;
}

const protocol::Envelope& LinkClient::exchange(const char* activity, double model_time) {
  send();
  return await_answer(activity, model_time);
}

void LinkClient::pause_until(Deadline until) {
  while (SteadyClock::now() < until) receive_until(until);
}

const protocol::Envelope& LinkClient::open(const char* activity) {
  send();
  const Deadline patience_ends = SteadyClock::now() + policy_.busy_patience;
  bool told = false;
  for (;;) {
    Silence why = Silence::none;
    const protocol::Envelope* answer = await_until(Deadline::max(), why);
    if (answer == nullptr) fail_waiting(why, activity, 0.0);
    const bool error = answer->which_body == couplet_wire_Envelope_error_tag;
    if (error && wire::enum_value(answer->body.error.code) != couplet_wire_ErrorCode_ERROR_BUSY) {
      fail_error(*answer, activity, 0.0);
    }
    if (!error) return *answer;
    const double patience = std::chrono::duration<double>(policy_.busy_patience).count();
    if (SteadyClock::now() >= patience_ends) {
      throw SlaveError("slave '" + slave_name_ + "' (" + transport_->describe() +
                       "): the target still serves another session after " + seconds_text(patience) +
                       " s: another master is using it (or a crashed run's session has not expired yet)");
    }
    if (!told) {
      // Start-up, not the stepping path: a person is waiting and should know why.
      std::fprintf(stderr,
                   "couplet: slave '%s' (%s): the target serves another session; asking again until it "
                   "ends (at most %s s)\n",
                   slave_name_.c_str(), transport_->describe().c_str(), seconds_text(patience).c_str());
      told = true;
    }
    pause_until(std::min(SteadyClock::now() + policy_.retransmit_interval, patience_ends));
    listening_baseline_ = SteadyClock::now();
    resend();
  }
}

const protocol::Envelope* LinkClient::exchange_within(std::chrono::microseconds patience) {
  send();
  Silence why = Silence::none;
  return await_until(SteadyClock::now() + patience, why);
}

const protocol::Envelope* LinkClient::await_answer_until(Deadline deadline, const char* activity, double model_time) {
  Silence why = Silence::none;
  const protocol::Envelope* answer = await_until(deadline, why);
  if (why != Silence::none && why != Silence::deadline) fail_waiting(why, activity, model_time);
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
    if (message->sequence != 0 || message->which_body != couplet_wire_Envelope_step_result_tag) {
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
    const protocol::EncodeResult kept = codec_.encode(*message, nonce_, pushed_frame_);
    pushed_size_ = kept.size;
    return nullptr;
  }
}

bool LinkClient::carries_session_nonce(std::uint64_t nonce) {
  if (!codec_.sealed() || nonce == nonce_) return true;
  // The target's first sealed answer with a nonce (its answer to Hello) sets
  // the session's; until then refusals (busy) come without one.
  if (nonce_ != 0 || nonce == 0) return false;
  nonce_ = nonce;
  return true;
}

void LinkClient::send_heartbeat() {
  protocol::Envelope& heartbeat = *heartbeat_;
  heartbeat.session = session_;
  heartbeat.sequence = 0;  // unsequenced: the target answers it at once, outside the exactly-once logic
  heartbeat.which_body = couplet_wire_Envelope_heartbeat_tag;
  heartbeat.body.heartbeat.sender_time_ns = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(SteadyClock::now().time_since_epoch()).count());
  const protocol::EncodeResult encoded = codec_.encode(heartbeat, nonce_, heartbeat_frame_);
  if (encoded) transport_->send(std::span(heartbeat_frame_).first(encoded.size));
}

void LinkClient::check_alive(const char* activity, double model_time) {
  if (SteadyClock::now() - heard_baseline_ > policy_.peer_timeout) fail_dead(activity, model_time, heard_baseline_);
}

void LinkClient::fail_waiting(Silence why, const char* activity, double model_time) {
  const std::string during =
      " during " + std::string(activity) + " at t = " + seconds_text(model_time) + " s";
  const std::string process =
      process_ != nullptr ? "its process (" + process_->command() + ")" : std::string("the target");
  if (why == Silence::process_ended) {
    peer_declared_dead_ = true;
    throw SlaveError("slave '" + slave_name_ + "' (" + transport_->describe() + "): " + process +
                     " " + process_->ended().value_or("ended") + during);
  }
  if (why == Silence::hung) {
    // It cannot stop by itself (it answers Stop with "working" too): end it.
    if (process_ != nullptr) process_->end_now();
    peer_declared_dead_ = process_ != nullptr;
    const double limit = std::chrono::duration<double>(policy_.max_step_time).count();
    throw SlaveError("slave '" + slave_name_ + "' (" + transport_->describe() +
                     "): the target answered 'working' for " + seconds_text(limit) +
                     " s (max_step_time)" + during + ": declared hung" +
                     (process_ != nullptr ? "; " + process + " was killed" : std::string()));
  }
  if (why == Silence::interrupted) {
    if (process_ != nullptr) process_->end_now();  // it may be stuck as long as the step takes
    peer_declared_dead_ = process_ != nullptr;
    throw SlaveError("slave '" + slave_name_ + "' (" + transport_->describe() +
                     "): the run was interrupted" + during +
                     " while the target still computed; the request was abandoned" +
                     (process_ != nullptr ? " and " + process + " was killed" : std::string()));
  }
  fail_dead(activity, model_time, listening_baseline_);
}

void LinkClient::fail_dead(const char* activity, double model_time, Deadline silent_since) {
  const double silent = std::chrono::duration<double>(SteadyClock::now() - silent_since).count();
  const double stalled = std::chrono::duration<double>(stalled_while_waiting_).count();
  std::string text = "slave '" + slave_name_ + "': nothing heard over " + transport_->describe() + " for " +
                     seconds_text(silent) + " s (timeout " +
                     seconds_text(std::chrono::duration<double>(policy_.peer_timeout).count()) + " s, " +
                     std::to_string(attempts_) + " attempts) during " + activity + " at t = " +
                     seconds_text(model_time) + " s: the target is dead or the link is down";
  peer_declared_dead_ = true;
  if (codec_.sealed() && (nonce_ == 0 || counters_.unauthenticated > 0)) {
    // A target without this key drops the sealed frames it cannot check.
    text += ", or the target has no key or another key than this link's key_file (" +
            std::to_string(counters_.unauthenticated) + " frames failed authentication here)";
  }
  if (stalled_while_waiting_ >= policy_.peer_timeout / 10) {
    text += " (this master itself was not scheduled for " + seconds_text(stalled) +
            " s meanwhile; that time is not counted)";
  }
  throw SlaveError(text);
}

void LinkClient::fail_error(const protocol::Envelope& answer, const char* activity, double model_time) const {
  const couplet_wire_Error& error = answer.body.error;
  // nanopb NUL-terminates the text; it is still read no further than its
  // capacity, and control characters become spaces: the message stays one line.
  const char* const end = std::find(std::begin(error.text), std::end(error.text), '\0');
  std::string reason(std::begin(error.text), end);
  for (char& character : reason) {
    if (static_cast<unsigned char>(character) < 0x20 || character == 0x7F) character = ' ';
  }
  if (reason.empty()) reason = "(no reason given)";
  // nanopb decodes an enum as any int32: a code this master does not know is
  // unspecified. Read as an integer, not through the enum's (assumed) range.
  const std::int32_t code = wire::enum_value(error.code);
  if (code < couplet_wire_ErrorCode_ERROR_UNSPECIFIED ||
      code > couplet_wire_ErrorCode_ERROR_STOP_REQUESTED) {
    reason += " (Error.code = " + std::to_string(code) + ", unknown: taken as unspecified)";
  }
  if (code == couplet_wire_ErrorCode_ERROR_STOP_REQUESTED) {
    // Not a failure: the target's slave ended the simulation. Its text already
    // names the slave and the time, as a local slave's request does. Only a
    // step can end it, at a model time.
    const std::string inconsistent = "slave '" + slave_name_ + "' (" + transport_->describe() +
                                     "): the target's answer is inconsistent: ";
    if (request_->which_body != couplet_wire_Envelope_step_request_tag) {
      throw SlaveError(inconsistent + "Error.code = STOP_REQUESTED in answer to " + activity +
                       " (only a step can end the simulation)");
    }
    if (!std::isfinite(error.stop_time) ||
        std::abs(error.stop_time) >= static_cast<double>(wire::kTimeLimitNs) / 1e9) {
      throw SlaveError(inconsistent + "Error.stop_time = " + wire::number_text(error.stop_time) +
                       " is not a model time");
    }
    throw StopRequest(slave_name_, error.stop_time, reason);
  }
  const std::string text = "slave '" + slave_name_ + "' (" + transport_->describe() + "): " + activity +
                           " at t = " + seconds_text(model_time) + " s failed on the target: " + reason;
  if (code == couplet_wire_ErrorCode_ERROR_REFUSED) throw ConfigurationError(text);
  if (code == couplet_wire_ErrorCode_ERROR_BAD_REQUEST) throw ProtocolViolation(text);
  throw SlaveError(text);
}

}  // namespace couplet::drivers
