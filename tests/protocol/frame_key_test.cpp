// Key files of authenticated links (protocol/frame_key.hpp): what is written
// reads back, and a key file that others may read, or that is not 32 hex
// digits, is refused naming the file and the reason.
#include "protocol/frame_key.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "couplet/errors.hpp"

namespace couplet::protocol {
namespace {

namespace fs = std::filesystem;

fs::path fresh_directory() {
  const fs::path directory =
      fs::temp_directory_path() / ("couplet_frame_key_" + std::to_string(::getpid()));
  fs::remove_all(directory);
  fs::create_directories(directory);
  return directory;
}

fs::path write_key_file(const fs::path& path, const std::string& text, mode_t mode) {
  std::ofstream(path) << text;
  ::chmod(path.c_str(), mode);
  return path;
}

std::string refusal(const fs::path& path) {
  try {
    read_frame_key(path);
  } catch (const ConfigurationError& error) {
    return error.what();
  }
  return "(read)";
}

TEST(FrameKey, AWrittenKeyIsPrivateFreshAndReadsBack) {
  const fs::path directory = fresh_directory();
  write_new_frame_key(directory / "a.key");
  write_new_frame_key(directory / "b.key");
  struct stat status {};
  ASSERT_EQ(::stat((directory / "a.key").c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777, 0600U);
  EXPECT_EQ(fs::file_size(directory / "a.key"), 33U) << "32 hex digits and a newline";
  EXPECT_NE(read_frame_key(directory / "a.key"), read_frame_key(directory / "b.key"));
  EXPECT_THROW(write_new_frame_key(directory / "a.key"), ConfigurationError)
      << "never overwrites a key";
  fs::remove_all(directory);
}

TEST(FrameKey, ReadsTheDigitsFirstByteFirst) {
  const fs::path directory = fresh_directory();
  const FrameKey key =
      read_frame_key(write_key_file(directory / "k", "000102030405060708090a0B0c0D0e0F\n", 0600));
  for (std::size_t k = 0; k < key.size(); ++k) EXPECT_EQ(key[k], k);
  EXPECT_EQ(
      read_frame_key(write_key_file(directory / "n", "000102030405060708090a0b0c0d0e0f", 0400)),
      key)
      << "no newline, read-only";
  fs::remove_all(directory);
}

TEST(FrameKey, RefusesByNameAKeyOthersMayReadOrThatIsNotOne) {
  const fs::path directory = fresh_directory();
  const std::string digits = "000102030405060708090a0b0c0d0e0f";
  const fs::path shared = write_key_file(directory / "shared", digits, 0640);
  EXPECT_EQ(refusal(shared),
            "key file '" + shared.string() +
                "': group or others may read or change it (mode 0640): chmod 600 it");
  const std::string format =
      "must hold exactly 32 hexadecimal digits (a 128-bit key), optionally followed by a newline";
  for (const std::string& text : {digits.substr(0, 30), digits + "00", digits + "\n\n",
                                  "x" + digits.substr(1), " " + digits.substr(1), std::string()}) {
    const fs::path path = write_key_file(directory / "bad", text, 0600);
    EXPECT_EQ(refusal(path), "key file '" + path.string() + "': " + format) << '"' << text << '"';
  }
  EXPECT_EQ(refusal(directory / "missing"),
            "key file '" + (directory / "missing").string() + "': No such file or directory");
  EXPECT_EQ(refusal(directory), "key file '" + directory.string() + "': not a regular file");
  fs::remove_all(directory);
}

}  // namespace
}  // namespace couplet::protocol
