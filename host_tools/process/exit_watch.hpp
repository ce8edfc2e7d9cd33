#pragma once
// A run that ends through exit() — called by an FMU inside fmi2DoStep, say —
// would otherwise end the process with the FMU's status (0: success) and a
// summary.json that is missing or belongs to no one. While an ExitWatch is armed,
// such an exit writes a failed summary.json naming the cause and ends the
// process with status 1 instead (glibc's on_exit, which sees the status).
#include <filesystem>
#include <string>

namespace couplet::tools {

class ExitWatch {
 public:
  /// Prepared, not armed: an exit() while armed writes summary.json into
  /// `directory` (scenario, algorithm, status "failed", error) and _exit(1)s.
  ExitWatch(std::filesystem::path directory, std::string scenario, std::string algorithm);
  ~ExitWatch() { disarm(); }
  ExitWatch(const ExitWatch&) = delete;
  ExitWatch& operator=(const ExitWatch&) = delete;

  /// Armed only while the run steps (FMU code runs), so that a program that
  /// embeds couplet::Simulation may still exit() between steps. Neither
  /// allocates: the stepping thread may call them.
  void arm();
  void disarm();

  /// arm() for a scope.
  class Armed {
   public:
    explicit Armed(ExitWatch* watch) : watch_(watch) {
      if (watch_ != nullptr) watch_->arm();
    }
    ~Armed() {
      if (watch_ != nullptr) watch_->disarm();
    }
    Armed(const Armed&) = delete;
    Armed& operator=(const Armed&) = delete;

   private:
    ExitWatch* watch_;
  };

  /// What the summary says: "the FMU 'PATH' of slave 'NAME' called exit(S)
  /// during a step at t = T s (fmi2DoStep)", or "... called exit(S) during the
  /// run" when no FMU code was running on the exiting thread.
  static std::string cause(int status);

 private:
  static void on_process_exit(int status, void* unused);

  std::filesystem::path directory_;
  std::string scenario_;
  std::string algorithm_;
};

}  // namespace couplet::tools
