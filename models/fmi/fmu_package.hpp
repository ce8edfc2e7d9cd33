#pragma once
// An opened FMU: its archive unpacked, modelDescription.xml parsed and the
// shared library of the chosen interface loaded (FMI 2.0 §2.3). Opened once per
// scenario slave and shared by every instance made from it (the slave, the
// monolithic reference's model), so the archive is unpacked once.
#include <memory>
#include <string>

#include "models/fmi/fmu_archive.hpp"
#include "models/fmi/fmu_description.hpp"
#include "models/fmi/fmu_library.hpp"

namespace couplet::models::fmi {

class Package {
 public:
  /// Unpacks `fmu_path` and parses its model description; the library is loaded
  /// by `load`. Throws ConfigurationError naming the file and element.
  static std::shared_ptr<Package> open(const std::string& fmu_path);
  /// An archive already unpacked, with its parsed description.
  static std::shared_ptr<Package> open(Archive archive, Description description);

  /// The interface couplet uses when the scenario does not choose: model
  /// exchange when offered (couplet's own solver is then in charge), else co-simulation.
  InterfaceKind default_kind() const;
  bool offers(InterfaceKind kind) const;

  /// Loads binaries/linux64/<modelIdentifier>.so of `kind` (once; later calls
  /// return the same library). Throws ConfigurationError when the FMU does not
  /// offer `kind`, has no binary for linux64, or lacks a required function.
  const Library& library(InterfaceKind kind);

  const std::string& path() const { return archive_.fmu_path(); }
  const Description& description() const { return description_; }
  /// file:// URI of the unpacked resources/ directory (fmi2Instantiate's argument).
  std::string resource_uri() const;

 private:
  Package(Archive archive, Description description);
  Archive archive_;
  Description description_;
  std::unique_ptr<Library> co_simulation_library_;
  std::unique_ptr<Library> model_exchange_library_;
};

const char* to_string(InterfaceKind kind);

}  // namespace couplet::models::fmi
