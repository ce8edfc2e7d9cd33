#include "protocol/frame_key.hpp"

#include <fcntl.h>
#include <sodium.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "couplet/errors.hpp"

namespace couplet::protocol {

namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw ConfigurationError("key file '" + path + "': " + why);
}

constexpr std::size_t kKeyDigits = 2 * kFrameKeyBytes;

}  // namespace

FrameKey read_frame_key(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error) refuse(path, error.message());
  if (!fs::is_regular_file(status)) refuse(path, "not a regular file");
  const auto mode = static_cast<unsigned>(status.permissions());
  if ((mode & 077) != 0) {
    char text[16];
    std::snprintf(text, sizeof text, "%04o", mode & 07777u);
    refuse(path,
           std::string("group or others may read or change it (mode ") + text + "): chmod 600 it");
  }
  std::ifstream file(path, std::ios::binary);
  if (!file.is_open()) refuse(path, std::strerror(errno));
  char text[kKeyDigits + 2] = {};
  file.read(text, sizeof text);
  if (file.bad()) refuse(path, "cannot be read");
  const auto size = static_cast<std::size_t>(file.gcount());
  const bool newline_only = size == kKeyDigits + 1 && text[kKeyDigits] == '\n';
  FrameKey key{};
  std::size_t bytes = 0;
  if ((size != kKeyDigits && !newline_only) ||
      sodium_hex2bin(key.data(), key.size(), text, kKeyDigits, nullptr, &bytes, nullptr) != 0 ||
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
  const int file = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (file < 0) refuse(path, std::strerror(errno));
  const bool written =
      ::write(file, text, kKeyDigits + 1) == static_cast<ssize_t>(kKeyDigits + 1) &&
      ::fsync(file) == 0;
  const std::string why = std::strerror(errno);
  if (::close(file) != 0 || !written) {
    ::unlink(path.c_str());
    refuse(path, written ? std::strerror(errno) : why);
  }
  sodium_memzero(key.data(), key.size());
}

}  // namespace couplet::protocol
