#include "protocol/frame_key.hpp"

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "couplet/errors.hpp"

namespace couplet::protocol {

namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw ConfigurationError("key file '" + path + "': " + why);
}

class FileDescriptor {
 public:
  explicit FileDescriptor(int descriptor) : descriptor_(descriptor) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (descriptor_ >= 0) ::close(descriptor_);
  }
  int get() const { return descriptor_; }

 private:
  int descriptor_;
};

constexpr std::size_t kKeyDigits = 2 * kFrameKeyBytes;

}  // namespace

FrameKey read_frame_key(const std::string& path) {
  const FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (file.get() < 0) refuse(path, std::strerror(errno));
  struct stat status {};
  if (::fstat(file.get(), &status) != 0) refuse(path, std::strerror(errno));
  if (!S_ISREG(status.st_mode)) refuse(path, "not a regular file");
  if ((status.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(status.st_mode & 07777));
    refuse(path, std::string("may be read by others (mode ") + mode + "): chmod 600 it");
  }
  char text[kKeyDigits + 2] = {};
  const ssize_t size = ::read(file.get(), text, sizeof text);
  if (size < 0) refuse(path, std::strerror(errno));
  const bool newline_only =
      size == static_cast<ssize_t>(kKeyDigits) + 1 && text[kKeyDigits] == '\n';
  if (size != static_cast<ssize_t>(kKeyDigits) && !newline_only) {
    refuse(path,
           "must hold exactly 32 hexadecimal digits (a 128-bit key), optionally followed by a "
           "newline");
  }
  FrameKey key{};
  std::size_t bytes = 0;
  if (sodium_hex2bin(key.data(), key.size(), text, kKeyDigits, nullptr, &bytes, nullptr) != 0 ||
      bytes != key.size()) {
    refuse(path,
           "must hold exactly 32 hexadecimal digits (a 128-bit key), optionally followed by a "
           "newline");
  }
  return key;
}

void write_new_frame_key(const std::string& path) {
  if (sodium_init() < 0) refuse(path, "libsodium cannot be initialised");
  FrameKey key{};
  randombytes_buf(key.data(), key.size());
  char text[kKeyDigits + 2] = {};
  sodium_bin2hex(text, kKeyDigits + 1, key.data(), key.size());
  text[kKeyDigits] = '\n';
  const FileDescriptor file(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (file.get() < 0) refuse(path, std::strerror(errno));
  if (::write(file.get(), text, kKeyDigits + 1) != static_cast<ssize_t>(kKeyDigits + 1) ||
      ::fsync(file.get()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(path.c_str());
    refuse(path, why);
  }
  sodium_memzero(key.data(), key.size());
}

}  // namespace couplet::protocol
