#include "models/fmi/fmu_archive.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "couplet/errors.hpp"
#include "models/fmi/abandoned_archives.hpp"
#include "models/fmi/xml_reader.hpp"

namespace couplet::models::fmi {
namespace {

// Far above any real FMU, far below what would fill a disk or exhaust inodes.
constexpr zip_int64_t kMaxEntries = 100'000;
constexpr std::uint64_t kMaxUnpackedBytes = std::uint64_t{1} << 30;  // 1 GiB
// modelDescription.xml is small; a bigger one is not an FMU we can trust.
constexpr std::uintmax_t kMaxDescriptionBytes = 64u << 20;

[[noreturn]] void fail(const std::string& label, const std::string& why) {
  throw ConfigurationError(label + ": " + why);
}

[[noreturn]] void fail_entry(const std::string& label, std::string_view entry,
                             const std::string& why) {
  fail(label, "entry " + single_quoted(entry) + ": " + why);
}

struct ZipCloser {
  // Read-only: discarding never writes the archive back.
  void operator()(zip_t* archive) const { zip_discard(archive); }
};
using ZipHandle = std::unique_ptr<zip_t, ZipCloser>;

struct ZipFileCloser {
  void operator()(zip_file_t* file) const { zip_fclose(file); }
};
using ZipFileHandle = std::unique_ptr<zip_file_t, ZipFileCloser>;

class FileDescriptor {
 public:
  explicit FileDescriptor(int descriptor) : descriptor_(descriptor) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (descriptor_ >= 0) ::close(descriptor_);
  }
  int get() const { return descriptor_; }
  /// Closes now, reporting the error a deferred write may only report here.
  int close() { return ::close(std::exchange(descriptor_, -1)); }

 private:
  int descriptor_;
};

std::string libzip_message(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string message = zip_error_strerror(&error);
  zip_error_fini(&error);
  return message;
}

/// What to do with one entry, decided before anything is written.
struct Entry {
  zip_uint64_t index = 0;
  std::string name;
  bool directory = false;
  bool executable = false;
  std::uint64_t size = 0;  ///< as the archive declares it
};

/// Why `name` must not be unpacked, or empty when it may.
std::string unsafe_name_reason(std::string_view name) {
  if (name.empty()) return "empty name";
  if (name.front() == '/') return "absolute path";
  for (const char c : name) {
    if (c == '\\') return "backslash in the name (a Windows path separator)";
    // libzip already turns NUL into a space; control characters have no business
    // in an FMU either.
    if (static_cast<unsigned char>(c) < 0x20) return "control character in the name";
  }
  std::size_t begin = 0;
  while (begin <= name.size()) {
    const std::size_t end = std::min(name.find('/', begin), name.size());
    if (name.substr(begin, end - begin) == "..") return "'..' path component";
    begin = end + 1;
  }
  return {};
}

/// Every entry, checked: names, types, counts and declared sizes. Refusing here
/// means a hostile archive gets no directory at all.
std::vector<Entry> checked_entries(zip_t* archive, const std::string& label) {
  const zip_int64_t count = zip_get_num_entries(archive, 0);
  if (count < 0) {
    fail(label, "cannot count the entries (" + std::string(zip_strerror(archive)) + ")");
  }
  if (count > kMaxEntries) {
    fail(label, std::to_string(count) + " entries; couplet unpacks at most " +
                       std::to_string(kMaxEntries));
  }
  std::vector<Entry> entries;
  entries.reserve(static_cast<std::size_t>(count));
  std::uint64_t total_size = 0;
  for (zip_uint64_t index = 0; index < static_cast<zip_uint64_t>(count); ++index) {
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_stat_index(archive, index, 0, &stat) != 0 || !(stat.valid & ZIP_STAT_NAME)) {
      fail(label, "entry #" + std::to_string(index) + ": unreadable (" +
                         std::string(zip_strerror(archive)) + ")");
    }
    Entry entry;
    entry.index = index;
    entry.name = stat.name;
    if (const std::string reason = unsafe_name_reason(entry.name); !reason.empty()) {
      fail_entry(label, entry.name,
                 "refused: " + reason + " could write outside the FMU's directory");
    }
    entry.directory = entry.name.back() == '/';

    zip_uint8_t system = 0;
    zip_uint32_t attributes = 0;
    if (zip_file_get_external_attributes(archive, index, 0, &system, &attributes) != 0) {
      fail_entry(label, entry.name,
                 "unreadable attributes (" + std::string(zip_strerror(archive)) + ")");
    }
    // Only Unix archives carry a file type (in the high 16 bits); elsewhere the
    // name alone says file or directory.
    if (system == ZIP_OPSYS_UNIX) {
      const mode_t mode = static_cast<mode_t>(attributes >> 16);
      const mode_t type = mode & S_IFMT;
      if (type == S_IFLNK) fail_entry(label, entry.name, "refused: a symbolic link");
      if (type != 0 && type != S_IFREG && type != S_IFDIR) {
        fail_entry(label, entry.name, "refused: neither a regular file nor a directory");
      }
      entry.directory = entry.directory || type == S_IFDIR;
      entry.executable = (mode & (S_IXUSR | S_IXGRP | S_IXOTH)) != 0;
    }

    if (!entry.directory) {
      if (!(stat.valid & ZIP_STAT_SIZE)) fail_entry(label, entry.name, "no declared size");
      entry.size = stat.size;
      total_size += std::min<std::uint64_t>(entry.size, kMaxUnpackedBytes + 1);
      if (total_size > kMaxUnpackedBytes) {
        fail(label, "more than 1 GiB unpacked (at entry " + single_quoted(entry.name) +
                           "); couplet refuses archives that large");
      }
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

void write_all(int descriptor, const char* data, std::size_t size, const std::string& label,
               const std::string& entry) {
  while (size > 0) {
    const ssize_t written = ::write(descriptor, data, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      fail_entry(label, entry, std::string("cannot write (") + std::strerror(errno) + ")");
    }
    data += written;
    size -= static_cast<std::size_t>(written);
  }
}

/// Copies one file entry; `unpacked_bytes` counts what was written so far, so
/// that an entry larger than its header says cannot pass the 1 GiB limit.
void extract_file(zip_t* archive, const Entry& entry, const std::filesystem::path& target,
                  std::uint64_t& unpacked_bytes, const std::string& label) {
  ZipFileHandle source(zip_fopen_index(archive, entry.index, 0));
  if (!source) {
    fail_entry(label, entry.name, "cannot open (" + std::string(zip_strerror(archive)) + ")");
  }
  // O_EXCL: a second entry of the same name must not overwrite the first;
  // O_NOFOLLOW: never write through a link (none is ever made, but cheap).
  const mode_t mode = entry.executable ? 0755 : 0644;
  FileDescriptor output(
      ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
  if (output.get() < 0 && errno == EEXIST) {
    fail_entry(label, entry.name, "refused: a second entry of that name");
  }
  if (output.get() < 0) {
    fail_entry(label, entry.name, std::string("cannot create (") + std::strerror(errno) + ")");
  }
  std::array<char, 64 * 1024> buffer;
  std::uint64_t entry_bytes = 0;
  for (;;) {
    const zip_int64_t read = zip_fread(source.get(), buffer.data(), buffer.size());
    if (read < 0) {
      fail_entry(label, entry.name,
                 "damaged (" + std::string(zip_file_strerror(source.get())) + ")");
    }
    if (read == 0) break;
    entry_bytes += static_cast<std::uint64_t>(read);
    unpacked_bytes += static_cast<std::uint64_t>(read);
    if (entry_bytes > entry.size || unpacked_bytes > kMaxUnpackedBytes) {
      fail_entry(
          label, entry.name,
          "refused: more data than its header declares (" + std::to_string(entry.size) + " bytes)");
    }
    write_all(output.get(), buffer.data(), static_cast<std::size_t>(read), label, entry.name);
  }
  if (entry_bytes != entry.size) {
    fail_entry(label, entry.name,
               "damaged: " + std::to_string(entry_bytes) + " bytes where its header declares " +
                   std::to_string(entry.size));
  }
  if (output.close() != 0) {
    fail_entry(label, entry.name, std::string("cannot write (") + std::strerror(errno) + ")");
  }
}

std::filesystem::path make_private_directory(const std::string& label) {
  std::filesystem::path parent;
  try {
    parent = std::filesystem::temp_directory_path();
  } catch (const std::filesystem::filesystem_error& error) {
    fail(label, std::string("no temporary directory to unpack into (") + error.what() + ")");
  }
  // Before adding a directory, those of dead processes go (one listing of the
  // temporary directory: little beside unpacking an archive).
  remove_abandoned_unpacked_archives(parent);
  // The process id in the name tells a later run whether its owner still lives.
  std::string pattern = (parent / (unpacked_directory_prefix(::getpid()) + "XXXXXX")).string();
  // mkdtemp: a fresh name, mode 0700, so no other user can read or plant files.
  if (::mkdtemp(pattern.data()) == nullptr) {
    fail(label, "cannot create a directory under " + single_quoted(parent.string()) + " (" +
                       std::strerror(errno) + ")");
  }
  return pattern;
}

/// Never throws: it runs in destructors, and a leftover temporary directory is
/// better than a crash.
void remove_quietly(const std::filesystem::path& directory) noexcept {
  if (directory.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(directory, ignored);
}

}  // namespace

Archive Archive::unpack(const std::string& fmu_path, std::string_view kind) {
  const std::string label = std::string(kind) + " " + single_quoted(fmu_path);
  std::error_code error;
  const auto status = std::filesystem::status(fmu_path, error);
  if (!std::filesystem::exists(status)) {
    if (error && error != std::errc::no_such_file_or_directory) {
      fail(label, "cannot access (" + error.message() + ")");
    }
    fail(label, "no such file");
  }
  if (std::filesystem::is_directory(status)) fail(label, "a directory, not an " + std::string(kind) + " file");
  // libzip opens an empty file as an empty archive; it is no FMU.
  if (std::filesystem::is_regular_file(status) &&
      std::filesystem::file_size(fmu_path, error) == 0) {
    fail(label, "not a zip archive (an empty file)");
  }

  int open_error = 0;
  const ZipHandle archive(zip_open(fmu_path.c_str(), ZIP_RDONLY, &open_error));
  if (!archive) {
    if (open_error == ZIP_ER_NOZIP)
      fail(label, "not a zip archive (" + libzip_message(open_error) + ")");
    fail(label, "cannot open as a zip archive (" + libzip_message(open_error) + ")");
  }
  const std::vector<Entry> entries = checked_entries(archive.get(), label);

  // From here on the Archive owns the directory: an exception removes it.
  Archive unpacked(fmu_path, make_private_directory(label));
  std::uint64_t unpacked_bytes = 0;
  for (const Entry& entry : entries) {
    const std::filesystem::path target = unpacked.directory_ / entry.name;
    std::error_code directory_error;
    std::filesystem::create_directories(entry.directory ? target : target.parent_path(),
                                        directory_error);
    if (directory_error) {
      fail_entry(label, entry.name,
                 "cannot create its directory (" + directory_error.message() + ")");
    }
    if (!entry.directory) extract_file(archive.get(), entry, target, unpacked_bytes, label);
  }
  return unpacked;
}

Archive::Archive(std::string fmu_path, std::filesystem::path directory)
    : fmu_path_(std::move(fmu_path)), directory_(std::move(directory)) {}

Archive::Archive(Archive&& other) noexcept
    : fmu_path_(std::move(other.fmu_path_)), directory_(std::exchange(other.directory_, {})) {}

Archive& Archive::operator=(Archive&& other) noexcept {
  if (this != &other) {
    remove_quietly(directory_);
    fmu_path_ = std::move(other.fmu_path_);
    directory_ = std::exchange(other.directory_, {});
  }
  return *this;
}

Archive::~Archive() {
  remove_quietly(directory_);
}

std::string Archive::model_description() const {
  const std::filesystem::path file = directory_ / "modelDescription.xml";
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(file, error);
  if (error || !std::filesystem::is_regular_file(file)) {
    throw ConfigurationError("FMU '" + fmu_path_ +
                             "': no modelDescription.xml at the archive's root");
  }
  if (size > kMaxDescriptionBytes) {
    throw ConfigurationError("FMU '" + fmu_path_ + "': modelDescription.xml is larger than 64 MiB");
  }
  std::ifstream stream(file, std::ios::binary);
  std::ostringstream text;
  text << stream.rdbuf();
  return text.str();
}

std::string Archive::model_description_name() const {
  return "FMU '" + fmu_path_ + "' modelDescription.xml";
}

}  // namespace couplet::models::fmi
