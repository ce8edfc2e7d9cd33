#include "host_tools/process/interrupt.hpp"

#include <atomic>
#include <stdexcept>

namespace couplet::tools {

namespace {

// The only state a signal handler may reach is static; lock-free so that both
// the handler's store and the stepping loop's load are async-signal-safe.
std::atomic<int> received_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void record_signal(int signal_number) {
  received_signal.store(signal_number, std::memory_order_relaxed);
}

struct sigaction install(int signal_number) {
  struct sigaction action {};
  action.sa_handler = record_signal;
  sigemptyset(&action.sa_mask);
  // SA_RESTART: system calls of links and the recorder carry on rather than
  // fail with EINTR; SA_RESETHAND: the second signal acts as if none were caught.
  action.sa_flags = SA_RESTART | SA_RESETHAND;
  struct sigaction previous {};
  if (::sigaction(signal_number, &action, &previous) != 0)
    throw std::runtime_error("cannot install a handler for " +
                             std::string(signal_name(signal_number)));
  return previous;
}

}  // namespace

InterruptGuard::InterruptGuard() {
  received_signal.store(0, std::memory_order_relaxed);
  previous_interrupt_ = install(SIGINT);
  previous_terminate_ = install(SIGTERM);
}

InterruptGuard::~InterruptGuard() {
  ::sigaction(SIGINT, &previous_interrupt_, nullptr);
  ::sigaction(SIGTERM, &previous_terminate_, nullptr);
  received_signal.store(0, std::memory_order_relaxed);  // requested() speaks of a guard's life only
}

int InterruptGuard::received() const {
  return received_signal.load(std::memory_order_relaxed);
}

bool InterruptGuard::requested() {
  return received_signal.load(std::memory_order_relaxed) != 0;
}

void InterruptGuard::request_stop() const {
  received_signal.store(SIGINT, std::memory_order_relaxed);
}

const char* signal_name(int signal_number) {
  switch (signal_number) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "a signal";
  }
}

}  // namespace couplet::tools
