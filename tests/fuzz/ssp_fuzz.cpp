// Fuzz target: SSP import (docs/ssp.md) — the input is a package's
// SystemStructure.ssd, read beside a parameter file and placeholder FMU files
// (tools::read_system_structure), and the scenario made from it parsed as
// `couplet validate PACKAGE.ssp` parses it (tools::parse_scenario, with the
// algorithm a settings file would give). The contract: bad input is a
// ConfigurationError with a message; any other exception, a crash, undefined
// behaviour, or memory or time without bound is a finding. (Unpacking the zip
// is the FMU archive's code, fuzzed through its own tests; the FMUs themselves
// are not loaded here.)
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "couplet/errors.hpp"
#include "fuzz_input.hpp"
#include "host_tools/scenario/scenario.hpp"
#include "host_tools/scenario/ssp_import.hpp"

namespace {

namespace fs = std::filesystem;

/// A package directory for this process, with the files an SSD may name;
/// removed at exit.
class PackageDirectory {
 public:
  PackageDirectory()
      : path_(fs::temp_directory_path() / ("couplet-ssp-fuzz-" + std::to_string(::getpid()))) {
    fs::create_directories(path_ / "resources");
    for (const char* name : {"resources/switch_left.fmu", "resources/switch_right.fmu"}) {
      std::ofstream(path_ / name) << "not loaded by this target";
    }
    std::ofstream(path_ / "resources/left.ssv")
        << "<ssv:ParameterSet version=\"1.0\" name=\"left\"><ssv:Parameters><ssv:Parameter "
           "name=\"m\">"
           "<ssv:Real value=\"10\"/></ssv:Parameter></ssv:Parameters></ssv:ParameterSet>";
  }
  ~PackageDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  PackageDirectory(const PackageDirectory&) = delete;
  PackageDirectory& operator=(const PackageDirectory&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const PackageDirectory package;
  const fs::path& directory = package.path();
  {
    std::ofstream ssd(directory / "SystemStructure.ssd", std::ios::binary | std::ios::trunc);
    ssd.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    YAML::Node root = couplet::tools::read_system_structure("fuzz.ssp", directory).root;
    root["algorithm"]["type"] = "jacobi";
    root["algorithm"]["step"] = 0.01;
    static_cast<void>(couplet::tools::parse_scenario(YAML::Dump(root), "fuzz.ssp"));
  } catch (const couplet::ConfigurationError& error) {
    couplet::fuzz::require(*error.what() != '\0', "a configuration error without a message");
  }
  return 0;
}
