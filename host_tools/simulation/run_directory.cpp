#include "host_tools/simulation/run_directory.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "couplet/errors.hpp"

namespace couplet::tools {

namespace {

// ".summary.json.partial": hidden, and recognisably couplet's own.
std::filesystem::path partial_path(const std::filesystem::path& path) {
  // Appended piecewise: g++ 12 -O3 warns (-Wrestrict) on "." + std::string.
  std::string name = ".";
  name.append(path.filename().string()).append(".partial");
  return path.parent_path() / name;
}

void remove_output(const std::filesystem::path& path, const std::string& directory) {
  std::error_code error;
  std::filesystem::remove(path, error);
  if (error) {
    throw ConfigurationError("cannot delete '" + path.string() + "' left in output directory '" +
                             directory + "' by an earlier run: " + error.message());
  }
}

// The process id written in the lock file by the run that holds it.
std::string lock_holder(int descriptor) {
  char text[32] = {};
  const ssize_t length = ::pread(descriptor, text, sizeof text - 1, 0);
  std::string pid(text, length > 0 ? static_cast<std::size_t>(length) : 0);
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid.empty() ? "unknown" : pid;
}

// Takes the directory's lock without waiting and writes this process's id into
// the lock file. Close-on-exec: a spawned target must not keep the directory.
int lock_run_directory(const std::string& directory) {
  const std::filesystem::path path = std::filesystem::path(directory) / kRunLockFile;
  const int descriptor = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (descriptor < 0) {
    throw ConfigurationError("cannot lock output directory '" + directory + "': cannot open '" +
                             path.string() + "': " + std::strerror(errno));
  }
  if (::flock(descriptor, LOCK_EX | LOCK_NB) != 0) {
    const int cause = errno;
    const std::string holder = cause == EWOULDBLOCK ? lock_holder(descriptor) : "";
    ::close(descriptor);
    if (cause == EWOULDBLOCK) {
      throw ConfigurationError("output directory " + directory +
                               " is in use by another couplet run (pid " + holder + ")");
    }
    throw ConfigurationError("cannot lock output directory '" + directory +
                             "': " + std::strerror(cause));
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(descriptor, 0) != 0 ||
      ::pwrite(descriptor, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    const int cause = errno;
    ::close(descriptor);
    throw ConfigurationError("cannot write '" + path.string() + "': " + std::strerror(cause));
  }
  return descriptor;
}

}  // namespace

RunDirectory::RunDirectory(const std::string& directory) : path_(directory) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error || !std::filesystem::is_directory(directory, error)) {
    throw ConfigurationError("cannot create output directory '" + directory +
                             "': " + (error ? error.message() : "a file of that name exists"));
  }
  lock_descriptor_ = lock_run_directory(directory);
  try {
    for (const char* name : kRunOutputFiles) {
      remove_output(path_ / name, directory);
      remove_output(partial_path(path_ / name), directory);
    }
  } catch (...) {
    ::close(lock_descriptor_);
    throw;
  }
}

// Closing the descriptor releases the lock; the file stays (deleting it would
// let a third run lock a new file while a second still holds the old one).
RunDirectory::~RunDirectory() {
  ::close(lock_descriptor_);
}

void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write) {
  const std::filesystem::path partial = partial_path(path);
  {
    errno = 0;
    std::ofstream file(partial, std::ios::binary | std::ios::trunc);
    const auto remove_partial = [&] {
      std::error_code ignored;
      std::filesystem::remove(partial, ignored);
    };
    // The stream keeps no cause; the failed write(2) or open(2) left it in errno.
    const auto fail = [&] {
      const int cause = errno;
      remove_partial();
      throw std::runtime_error(
          "cannot write '" + path.string() + "'" +
          (cause != 0 ? std::string(": ") + std::strerror(cause) : std::string()));
    };
    if (!file) fail();  // before `write` does any work
    try {
      write(file);
    } catch (...) {
      // A writer that gives up (a streamed source refused half-way) leaves nothing.
      remove_partial();
      throw;
    }
    file.flush();
    if (!file) fail();
  }
  std::error_code error;
  std::filesystem::rename(partial, path, error);
  if (error) throw std::runtime_error("cannot write '" + path.string() + "': " + error.message());
}

}  // namespace couplet::tools
