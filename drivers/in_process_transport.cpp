#include "drivers/in_process_transport.hpp"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "protocol/codec.hpp"

namespace couplet::drivers {

namespace {

/// One direction of the link.
class Channel {
 public:
  Channel(const FaultSettings& faults, std::size_t capacity) : faults_(faults), slots_(capacity) {
    for (Slot& slot : slots_) slot.bytes.resize(protocol::kMaxFrameBytes);
  }

  void push(std::span<const std::uint8_t> frame) {
    const std::lock_guard lock(mutex_);
    FaultInjector::Copies copies;
    const std::size_t count = faults_.decide(frame.size(), copies);
    const Deadline now = SteadyClock::now();
    for (std::size_t c = 0; c < count; ++c) {
      const auto free_slot = std::find_if(slots_.begin(), slots_.end(), [](const Slot& slot) { return !slot.used; });
      if (free_slot == slots_.end() || frame.size() > free_slot->bytes.size()) continue;  // link full
      std::copy(frame.begin(), frame.end(), free_slot->bytes.begin());
      if (copies[c].corrupt) free_slot->bytes[copies[c].bit / 8] ^= static_cast<std::uint8_t>(1U << (copies[c].bit % 8));
      free_slot->size = frame.size();
      free_slot->due = now + copies[c].delay;
      free_slot->order = next_order_++;
      free_slot->used = true;
    }
    ready_.notify_all();
  }

  std::size_t pop(std::span<std::uint8_t> buffer, Deadline deadline) {
    std::unique_lock lock(mutex_);
    for (;;) {
      Slot* first = nullptr;
      for (Slot& slot : slots_) {
        if (slot.used && (first == nullptr || slot.due < first->due ||
                          (slot.due == first->due && slot.order < first->order))) {
          first = &slot;
        }
      }
      const Deadline now = SteadyClock::now();
      if (first != nullptr && first->due <= now) {
        first->used = false;
        if (first->size > buffer.size()) continue;  // does not fit: dropped
        std::copy_n(first->bytes.begin(), first->size, buffer.begin());
        return first->size;
      }
      if (now >= deadline) return 0;
      ready_.wait_until(lock, first != nullptr ? std::min(first->due, deadline) : deadline);
    }
  }

  FaultCounters counters() const {
    const std::lock_guard lock(mutex_);
    return faults_.counters();
  }

 private:
  struct Slot {
    bool used = false;
    Deadline due{};
    std::uint64_t order = 0;
    std::size_t size = 0;
    std::vector<std::uint8_t> bytes;
  };

  mutable std::mutex mutex_;
  std::condition_variable ready_;
  FaultInjector faults_;
  std::vector<Slot> slots_;
  std::uint64_t next_order_ = 0;
};

class InProcessTransport final : public Transport {
 public:
  InProcessTransport(std::shared_ptr<Channel> outgoing, std::shared_ptr<Channel> incoming, const char* name)
      : outgoing_(std::move(outgoing)), incoming_(std::move(incoming)), name_(name) {}

  void send(std::span<const std::uint8_t> frame) override { outgoing_->push(frame); }
  std::size_t receive(std::span<std::uint8_t> buffer, Deadline deadline) override {
    return incoming_->pop(buffer, deadline);
  }
  std::string describe() const override { return name_; }
  FaultCounters outgoing_counters() const { return outgoing_->counters(); }

 private:
  std::shared_ptr<Channel> outgoing_;
  std::shared_ptr<Channel> incoming_;
  const char* name_;
};

}  // namespace

InProcessLink make_in_process_link(const FaultSettings& to_target, const FaultSettings& to_master,
                                   std::size_t capacity) {
  auto towards_target = std::make_shared<Channel>(to_target, capacity);
  auto towards_master = std::make_shared<Channel>(to_master, capacity);
  return {std::make_unique<InProcessTransport>(towards_target, towards_master, "in-process (master end)"),
          std::make_unique<InProcessTransport>(towards_master, towards_target, "in-process (target end)")};
}

FaultCounters fault_counters(const Transport& sending_end) {
  return dynamic_cast<const InProcessTransport&>(sending_end).outgoing_counters();
}

}  // namespace couplet::drivers
