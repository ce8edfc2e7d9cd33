#pragma once
// SIGINT and SIGTERM during `couplet run` (docs/cli.md "Interrupting a run"):
// the handler only records the signal; the stepping loop polls it once per
// macro step and ends the run there, so the run log gets its end record and
// summary.json and signals.csv are written. The handler is one-shot
// (SA_RESETHAND): a second Ctrl-C ends couplet at once, with the default action.
#include <csignal>

namespace couplet::tools {

class InterruptGuard {
 public:
  /// Installs the handlers for SIGINT and SIGTERM; the destructor restores the
  /// previous ones. One guard at a time (the signal number lives in a global:
  /// a handler can reach nothing else).
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  /// SIGINT or SIGTERM once one arrived, else 0. Neither allocates nor blocks:
  /// the stepping loop may call it every macro step.
  int received() const;

  /// Whether SIGINT or SIGTERM arrived while a guard is installed: what a link
  /// asks while a long step keeps it waiting (drivers::LinkPolicy::interrupted).
  /// Async-signal-safe, allocation-free.
  static bool requested();

  /// Ends the run as SIGINT would (the live view's Stop button, docs/live.md):
  /// records SIGINT as received. Callable from any thread.
  void request_stop() const;

 private:
  struct sigaction previous_interrupt_ {};
  struct sigaction previous_terminate_ {};
};

/// "SIGINT" or "SIGTERM" ("a signal" for any other number).
const char* signal_name(int signal_number);

/// The exit status of a run ended by `signal_number`: 128 + the number, as a
/// shell reports a process killed by it (130 for SIGINT, 143 for SIGTERM).
inline int exit_status_for_signal(int signal_number) {
  return 128 + signal_number;
}

}  // namespace couplet::tools
