#include "host_tools/run_directory.hpp"

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

}  // namespace

std::filesystem::path prepare_run_directory(const std::string& directory) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error || !std::filesystem::is_directory(directory, error)) {
    throw ConfigurationError("cannot create output directory '" + directory +
                             "': " + (error ? error.message() : "a file of that name exists"));
  }
  const std::filesystem::path path(directory);
  for (const char* name : kRunOutputFiles) {
    remove_output(path / name, directory);
    remove_output(partial_path(path / name), directory);
  }
  return path;
}

void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write) {
  const std::filesystem::path partial = partial_path(path);
  {
    std::ofstream file(partial, std::ios::binary | std::ios::trunc);
    write(file);
    file.flush();
    if (!file) {
      std::error_code ignored;
      std::filesystem::remove(partial, ignored);
      throw std::runtime_error("cannot write '" + path.string() + "'");
    }
  }
  std::error_code error;
  std::filesystem::rename(partial, path, error);
  if (error) throw std::runtime_error("cannot write '" + path.string() + "': " + error.message());
}

}  // namespace couplet::tools
