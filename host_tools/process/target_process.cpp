#include "host_tools/process/target_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <string.h>  // sigabbrev_np (glibc)
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string_view>
#include <thread>

#include "couplet/errors.hpp"

namespace couplet::tools {

namespace {

constexpr auto kExitPatience = std::chrono::seconds(2);

bool is_executable(const std::filesystem::path& path) {
  return ::access(path.c_str(), X_OK) == 0;
}

/// A program named without a slash, searched on PATH as a shell does; empty
/// when no directory of PATH has it.
std::string find_on_path(const std::string& name) {
  const char* search = std::getenv("PATH");
  const std::string directories = search != nullptr ? search : "";
  for (std::size_t begin = 0; begin <= directories.size();) {
    const std::size_t end = std::min(directories.find(':', begin), directories.size());
    const std::filesystem::path directory =
        end == begin ? "." : directories.substr(begin, end - begin);
    if (is_executable(directory / name)) return (directory / name).string();
    begin = end + 1;
  }
  return {};
}

/// Reads one line from `descriptor` within `timeout`; empty on EOF or timeout.
std::string read_line(int descriptor, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string line;
  for (;;) {
    const auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(
                               deadline - std::chrono::steady_clock::now())
                               .count();
    if (remaining <= 0) return {};
    pollfd descriptor_poll{descriptor, POLLIN, 0};
    if (::poll(&descriptor_poll, 1, static_cast<int>(remaining)) <= 0) continue;
    char byte = 0;
    const ssize_t read = ::read(descriptor, &byte, 1);
    if (read <= 0) return {};
    if (byte == '\n') return line;
    line.push_back(byte);
  }
}

/// Where a spawned program listens, from one of its stdout lines: a couplet
/// program's "NAME ready serial /dev/pts/7" (or "... ready udp HOST:PORT"), or
/// QEMU's "char device redirected to /dev/pts/7 (label serial0)" for a board's
/// first UART on a pseudo-terminal. False for any other line.
bool parse_announcement(const std::string& line, std::string& kind, std::string& address) {
  static constexpr std::string_view kQemuPty = "char device redirected to ";
  std::istringstream words(line);
  if (line.starts_with(kQemuPty)) {
    words.seekg(static_cast<std::streamoff>(kQemuPty.size()));
    words >> address;
    kind = "serial";
    return !address.empty();
  }
  std::string announced;  // the program's name for itself
  std::string ready;
  words >> announced >> ready >> kind >> address;
  if (announced.empty() || ready != "ready" || address.empty()) {
    kind.clear();
    address.clear();
    return false;
  }
  return true;
}

/// "exited with status 3", "was killed by signal 11 (SIGSEGV)".
std::string status_text(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int signal_number = WTERMSIG(status);
    const char* abbreviation = ::sigabbrev_np(signal_number);
    return "was killed by signal " + std::to_string(signal_number) +
           (abbreviation != nullptr ? std::string(" (SIG") + abbreviation + ")" : std::string());
  }
  return "stopped";
}

}  // namespace

std::string TargetProcess::locate_executable() {
  if (const char* configured = std::getenv("COUPLET_TARGET");
      configured != nullptr && *configured != '\0') {
    if (is_executable(configured)) return configured;
    throw ConfigurationError(std::string("COUPLET_TARGET='") + configured +
                             "' is not an executable");
  }
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    for (const auto& candidate : {self.parent_path() / "couplet-target",
                                  self.parent_path().parent_path() / "couplet-target"}) {
      if (is_executable(candidate)) return candidate.string();
    }
  }
  throw ConfigurationError("cannot find couplet-target beside " + self.parent_path().string() +
                           " (install it next to couplet, or set COUPLET_TARGET)");
}

std::unique_ptr<TargetProcess> TargetProcess::spawn(const std::string& program,
                                                    const std::vector<std::string>& arguments,
                                                    const std::string& slave_name,
                                                    std::chrono::milliseconds timeout) {
  std::string executable = program.empty() ? locate_executable() : program;
  if (!program.empty() && program.find('/') == std::string::npos) {
    executable = find_on_path(program);
    if (executable.empty()) {
      throw ConfigurationError("slave '" + slave_name + "': no program '" + program +
                               "' to spawn on PATH (write ./" + program +
                               " for one beside the scenario)");
    }
  }
  if (!is_executable(executable)) {
    throw ConfigurationError("slave '" + slave_name + "': the program '" + executable +
                             "' to spawn is not an executable file");
  }
  const std::string shown = std::filesystem::path(executable).filename().string();
  std::string command = shown;
  if (arguments.size() >= 2 && (arguments[0] == "--fmu" || arguments[0] == "--model"))
    command += " " + arguments[0] + " " + arguments[1];
  std::vector<std::string> words = {executable};
  words.insert(words.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);

  int pipe_ends[2];
  if (::pipe2(pipe_ends, O_CLOEXEC) != 0)
    throw ConfigurationError("slave '" + slave_name + "': cannot create a pipe");
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(pipe_ends[0]);
    ::close(pipe_ends[1]);
    throw ConfigurationError("slave '" + slave_name + "': cannot fork " + shown);
  }
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    // A process group of its own: Ctrl-C on the terminal reaches the master
    // only, which ends the run at the next macro step (the target still
    // answering) and then stops the target.
    ::setpgid(0, 0);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(pipe_ends[1], STDOUT_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(pipe_ends[1]);
  std::unique_ptr<TargetProcess> process(new TargetProcess(pid, pipe_ends[0], std::move(command)));

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    const std::string line = left.count() > 0 ? read_line(pipe_ends[0], left) : std::string();
    if (line.empty() || parse_announcement(line, process->kind_, process->address_)) break;
  }
  if (process->address_.empty()) {
    const std::string why =
        process->has_exited()
            ? "it " + status_text(*process->wait_status_) +
                  (WIFEXITED(*process->wait_status_) ? " (see its message above)" : "")
            : "it did not report within the time allowed";
    throw ConfigurationError("slave '" + slave_name + "': the spawned " + shown +
                             " did not start: " + why);
  }
  return process;
}

bool TargetProcess::has_exited() {
  if (wait_status_) return true;
  int status = 0;
  const pid_t result = ::waitpid(pid_, &status, WNOHANG);
  if (result == pid_) wait_status_ = status;
  return result == pid_ || result < 0;  // < 0: no such child any more
}

bool TargetProcess::wait_for_exit(std::chrono::milliseconds patience) {
  const auto deadline = std::chrono::steady_clock::now() + patience;
  while (!has_exited()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

std::optional<std::string> TargetProcess::ended() {
  if (!has_exited()) return std::nullopt;
  return wait_status_ ? status_text(*wait_status_) : std::string("ended");
}

void TargetProcess::end_now() {
  if (has_exited()) return;
  ::kill(pid_, SIGKILL);
  wait_for_exit(kExitPatience);
}

void TargetProcess::terminate() {
  if (!has_exited()) {
    ::kill(pid_, SIGTERM);
    if (!wait_for_exit(kExitPatience)) end_now();
  }
}

TargetProcess::~TargetProcess() {
  terminate();
  if (output_ >= 0) ::close(output_);
}

}  // namespace couplet::tools
