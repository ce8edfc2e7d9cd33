#pragma once
// Typed errors. Configuration errors name the scenario element; slave errors name
// the slave and the time; protocol violations are requests outside a slave's
// declared capabilities (a bug of the master or of a peer).
#include <stdexcept>
#include <string>

namespace couplet {

/// A scenario or set-up error: the message names the element and what to do.
class ConfigurationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A slave failed during a run (solver failure, link timeout beyond policy).
class SlaveError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The master asked a slave for something it cannot honour (degree too high, step
/// off its grid, a rollback it lacks): a programming error, never accepted silently.
class ProtocolViolation : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

}  // namespace couplet
