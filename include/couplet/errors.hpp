#pragma once
// Typed errors. Configuration errors name the scenario element; slave errors name
// the slave and the time; protocol violations are requests outside a slave's
// declared capabilities (a bug of the master or of a peer).
#include <stdexcept>
#include <string>
#include <utility>

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

/// A slave asked to end the simulation (FMI 2.0: fmi2DoStep returned fmi2Discard
/// with the fmi2Terminated status, or terminateSimulation in event mode): not a
/// failure. The master ends the run where every slave has arrived; `time` is the
/// time the slave reached when it asked.
class StopRequest : public std::runtime_error {
 public:
  StopRequest(std::string slave, double time, const std::string& message)
      : std::runtime_error(message), slave_(std::move(slave)), time_(time) {}

  const std::string& slave() const { return slave_; }
  double time() const { return time_; }

 private:
  std::string slave_;
  double time_ = 0.0;
};

}  // namespace couplet
