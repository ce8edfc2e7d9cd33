#pragma once
// One FMU instance (fmi2Component) with its callbacks, and the checking of
// every call's status (FMI 2.0 §2.1.3, §2.1.5).
//
// The FMU's logger callback runs on whatever thread called into the FMU — the
// stepping thread during a run — so it only formats into a fixed ring of recent
// lines (no allocation, no I/O). Those lines go into the message when a call
// fails; recent_log() hands them to whoever reports off the hot path.
#include <array>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/fmi/fmi2.h"
#include "models/fmi/fmu_package.hpp"

namespace couplet::models::fmi {

class Instance {
 public:
  /// fmi2Instantiate for `kind` (logging on). Throws ConfigurationError naming the
  /// slave and the FMU when it returns NULL, with the FMU's log lines.
  Instance(std::shared_ptr<Package> package, InterfaceKind kind, std::string slave_name);
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;
  ~Instance();  ///< fmi2FreeInstance

  fmi2Component component() const { return component_; }
  const Functions& functions() const { return *functions_; }
  const Package& package() const { return *package_; }
  const std::string& slave_name() const { return slave_name_; }

  /// Throws SlaveError for fmi2Discard, fmi2Error, fmi2Fatal, fmi2Pending: the
  /// message names the slave, the FMU file, the call, the time, the status and the
  /// FMU's last log lines. fmi2OK and fmi2Warning pass.
  void check(fmi2Status status, const char* call, double time) const;

  /// The FMU asked to end the simulation at `time` (`how`: the call and status
  /// that said so): a StopRequest naming the slave, the FMU file and the time.
  [[noreturn]] void request_stop(double time, const std::string& how) const;

  /// As check, but a ConfigurationError (start-up calls: set-up, initialization).
  void check_setup(fmi2Status status, const char* call) const;

  /// Sets the start values of `parameters` (by variable name) before
  /// initialization. Throws ConfigurationError naming an unknown variable or one
  /// that cannot be set (calculated, output, constant), listing what can.
  void set_start_values(const std::map<std::string, double, std::less<>>& parameters) const;

  /// The FMU's recent log lines, oldest first.
  std::vector<std::string> recent_log() const;

 private:
  static void log(fmi2ComponentEnvironment environment, fmi2String instance_name, fmi2Status status,
                  fmi2String category, fmi2String message, ...);
  std::string failure_text(fmi2Status status, const char* call) const;

  static constexpr std::size_t kLogLines = 8;
  static constexpr std::size_t kLogLineLength = 240;
  struct LogRing {
    std::array<std::array<char, kLogLineLength>, kLogLines> lines{};
    std::size_t written = 0;  ///< lines ever written
  };

  std::shared_ptr<Package> package_;
  const Functions* functions_ = nullptr;
  std::string slave_name_;
  std::unique_ptr<LogRing> log_ring_;  ///< stable address for the callback
  fmi2CallbackFunctions callbacks_{};
  fmi2Component component_ = nullptr;
};

const char* to_string(fmi2Status status);

}  // namespace couplet::models::fmi
