#include "host_tools/process/exit_watch.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "host_tools/simulation/run_directory.hpp"
#include "models/fmi/fmu_call_in_progress.hpp"

namespace couplet::tools {

namespace {

// The watch that is armed, if any; one run at a time per process.
std::atomic<const ExitWatch*> armed{nullptr};

constexpr int kExitRunFailed = 1;

}  // namespace

ExitWatch::ExitWatch(std::filesystem::path directory, std::string scenario, std::string algorithm)
    : directory_(std::move(directory)),
      scenario_(std::move(scenario)),
      algorithm_(std::move(algorithm)) {
  // on_exit handlers cannot be removed: register once, and disarm instead.
  static std::once_flag registered;
  std::call_once(registered, [] { ::on_exit(&ExitWatch::on_process_exit, nullptr); });
}

void ExitWatch::arm() {
  armed.store(this);
}

void ExitWatch::disarm() {
  const ExitWatch* self = this;
  armed.compare_exchange_strong(self, nullptr);
}

std::string ExitWatch::cause(int status) {
  std::ostringstream text;
  if (const models::fmi::FmuCall* call = models::fmi::fmu_call_in_progress()) {
    text << "the FMU '" << call->fmu_path << "' of slave '" << call->slave_name << "' called exit("
         << status << ") during a step at t = " << call->time << " s (" << call->function
         << "): an FMU must return an error status, not end its importer";
  } else {
    text << "the process called exit(" << status << ") during the run (not from couplet)";
  }
  return text.str();
}

// Runs inside exit(), on the thread that called it, while the run's objects are
// still alive and possibly mid-step: it writes the summary and leaves with
// _exit, so no other exit handler and no static destructor runs afterwards.
void ExitWatch::on_process_exit(int status, void*) {
  const ExitWatch* watch = armed.exchange(nullptr);
  if (watch == nullptr) return;
  const std::string error = cause(status);
  try {
    nlohmann::json summary;
    summary["scenario"] = watch->scenario_;
    summary["algorithm"] = watch->algorithm_;
    summary["status"] = "failed";
    summary["error"] = error;
    write_file_atomically(watch->directory_ / "summary.json",
                          [&](std::ostream& out) { out << summary.dump(2) << "\n"; });
  } catch (const std::exception&) {
  }
  std::fprintf(stderr, "couplet: run failed: %s\n", error.c_str());
  std::fflush(stderr);
  ::_exit(kExitRunFailed);
}

}  // namespace couplet::tools
