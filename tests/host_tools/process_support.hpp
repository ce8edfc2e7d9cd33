#pragma once
// Child processes for the link tests: couplet-target, couplet-netem and couplet
// itself, each started with fork/exec. The first stdout line of the two link
// programs says where they listen ("... ready 127.0.0.1:PORT").
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "host_tools/runlog/run_log.hpp"

namespace couplet::testing {

/// couplet-target and couplet-netem are built beside couplet.
inline std::string binary_beside_couplet(const std::string& name) {
  return std::filesystem::path(COUPLET_BINARY).parent_path() / name;
}

class ChildProcess {
 public:
  /// Starts `argv`; stdout is a pipe read by ready_line(); stderr goes to
  /// `stderr_path` when given, else to /dev/null.
  explicit ChildProcess(std::vector<std::string> argv, const std::string& stderr_path = {}) {
    int pipe_ends[2];
    if (::pipe2(pipe_ends, O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
    std::vector<char*> words;
    for (std::string& word : argv) words.push_back(word.data());
    words.push_back(nullptr);
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0) {
      // Die with the test: an aborted test must not leave children holding the
      // test runner's pipes open (ctest would wait for them).
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      ::dup2(pipe_ends[1], STDOUT_FILENO);
      const int file = ::open(stderr_path.empty() ? "/dev/null" : stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(file, STDERR_FILENO);
      ::execv(words[0], words.data());
      ::_exit(127);
    }
    ::close(pipe_ends[1]);
    output_ = pipe_ends[0];
  }
  ~ChildProcess() {
    if (running()) {
      ::kill(pid_, SIGKILL);
      wait_exit(std::chrono::seconds(5));
    }
    ::close(output_);
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  /// The first stdout line, waiting up to `timeout`.
  std::string ready_line(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string line;
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd descriptor{output_, POLLIN, 0};
      if (::poll(&descriptor, 1, 20) <= 0) continue;
      char byte = 0;
      if (::read(output_, &byte, 1) != 1) break;
      if (byte == '\n') return line;
      line.push_back(byte);
    }
    throw std::runtime_error("no ready line from the child process");
  }

  /// The last word of the ready line: "127.0.0.1:PORT" or a device path.
  std::string ready_address() {
    std::istringstream words(ready_line());
    std::string word;
    std::string last;
    while (words >> word) last = word;
    return last;
  }

  void signal(int number) const { ::kill(pid_, number); }
  pid_t pid() const { return pid_; }
  bool running() { return !exit_status_ && !reap(); }

  /// Waits for the exit; the exit code (or 128 + signal), nullopt on timeout.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!exit_status_ && !reap()) {
      if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return exit_status_;
  }

 private:
  bool reap() {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) != pid_) return false;
    exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return true;
  }

  pid_t pid_ = -1;
  int output_ = -1;
  std::optional<int> exit_status_;
};

/// The children of `parent` (from /proc/PID/stat: the fourth field is the parent).
inline std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> children;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const std::size_t command_end = line.rfind(')');
    if (command_end == std::string::npos) continue;
    std::istringstream fields(line.substr(command_end + 1));
    char state = 0;
    pid_t parent_pid = 0;
    fields >> state >> parent_pid;
    if (parent_pid == parent) children.push_back(static_cast<pid_t>(std::stoi(name)));
  }
  return children;
}

/// Whether `pid` has ended within `timeout`: gone, or a zombie (its new parent,
/// init, may be slow to reap it; a zombie runs no code and holds no socket).
inline bool ended_within(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    const std::size_t command_end = line.rfind(')');
    if (command_end != std::string::npos && line.substr(command_end + 2, 1) == "Z") return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

/// The command line in /proc/PID/cmdline, or what was read of it before the
/// process ended: reading the file of a process that has just exited fails
/// with ESRCH, which a std::ifstream reports by throwing.
inline std::string command_line_of(const std::filesystem::path& process) {
  const int file = ::open((process / "cmdline").c_str(), O_RDONLY | O_CLOEXEC);
  if (file < 0) return {};
  std::string words;
  char buffer[4096];
  for (ssize_t got; (got = ::read(file, buffer, sizeof buffer)) > 0;)
    words.append(buffer, static_cast<std::size_t>(got));
  ::close(file);
  return words;
}

/// Processes (not zombies) whose command line contains `needle`.
inline std::vector<pid_t> processes_running(const std::string& needle) {
  std::vector<pid_t> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string words = command_line_of(entry.path());
    if (words.find(needle) == std::string::npos) continue;
    const auto pid = static_cast<pid_t>(std::stoi(name));
    if (!ended_within(pid, std::chrono::milliseconds(0))) found.push_back(pid);
  }
  return found;
}

/// Waits until the run writing `log` has flushed at least `plans` plan records
/// (false after `limit`). Before stopping or killing a run mid-way: a fixed
/// sleep is not enough where the run starts slowly (instrumented, on a loaded
/// machine), and a plan in the log also means its slaves behind links answered.
inline bool wait_for_logged_plans(const std::filesystem::path& log, std::size_t plans,
                                  std::chrono::seconds limit) {
  for (const auto until = std::chrono::steady_clock::now() + limit;
       std::chrono::steady_clock::now() < until;) {
    try {
      if (tools::read_run_log(log.string()).plans.size() >= plans) return true;
    } catch (const std::exception&) {
      // Not written yet, or not up to its structure.
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

}  // namespace couplet::testing
