#pragma once
// Zip archives made by tests with libzip: packages and FMUs of their own.
#include <gtest/gtest.h>
#include <zip.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

namespace couplet::testing {

/// Writes a zip of `files` (name inside → content, or "@path" for a file's bytes).
inline void write_zip(const std::filesystem::path& path,
                      const std::map<std::string, std::string>& files) {
  std::filesystem::remove(path);
  int error = 0;
  zip_t* archive = zip_open(path.c_str(), ZIP_CREATE | ZIP_EXCL, &error);
  ASSERT_NE(archive, nullptr) << "zip_open " << error;
  for (const auto& [name, content] : files) {
    zip_source_t* source = nullptr;
    if (!content.empty() && content.front() == '@') {
      source = zip_source_file(archive, content.substr(1).c_str(), 0, -1);
    } else {
      // libzip reads the buffer at zip_close: copy it into memory it frees itself.
      void* data = std::malloc(content.size() + 1);
      std::copy(content.begin(), content.end(), static_cast<char*>(data));
      source = zip_source_buffer(archive, data, content.size(), 1);
    }
    ASSERT_NE(source, nullptr) << name;
    ASSERT_GE(zip_file_add(archive, name.c_str(), source, ZIP_FL_ENC_UTF_8), 0) << name;
  }
  ASSERT_EQ(zip_close(archive), 0);
}

}  // namespace couplet::testing
