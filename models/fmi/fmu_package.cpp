#include "models/fmi/fmu_package.hpp"

#include <filesystem>

#include "couplet/errors.hpp"

namespace couplet::models::fmi {

std::shared_ptr<Package> Package::open(const std::string& fmu_path) {
  Archive archive = Archive::unpack(fmu_path);
  Description description =
      parse_description(archive.model_description(), archive.model_description_name());
  return open(std::move(archive), std::move(description));
}

std::shared_ptr<Package> Package::open(Archive archive, Description description) {
  return std::shared_ptr<Package>(new Package(std::move(archive), std::move(description)));
}

Package::Package(Archive archive, Description description)
    : archive_(std::move(archive)), description_(std::move(description)) {}

bool Package::offers(InterfaceKind kind) const {
  return kind == InterfaceKind::co_simulation ? description_.co_simulation.has_value()
                                              : description_.model_exchange.has_value();
}

InterfaceKind Package::default_kind() const {
  return offers(InterfaceKind::model_exchange) ? InterfaceKind::model_exchange
                                               : InterfaceKind::co_simulation;
}

const Library& Package::library(InterfaceKind kind) {
  std::unique_ptr<Library>& slot =
      kind == InterfaceKind::co_simulation ? co_simulation_library_ : model_exchange_library_;
  if (slot) return *slot;
  if (!offers(kind)) {
    throw ConfigurationError("FMU '" + path() + "': does not offer " + to_string(kind) +
                             " (it offers " + to_string(default_kind()) + ")");
  }
  Library::Requirements requirements;
  requirements.kind = kind;
  std::string identifier;
  if (kind == InterfaceKind::co_simulation) {
    const CoSimulationInterface& cs = *description_.co_simulation;
    identifier = cs.model_identifier;
    requirements.needs_state = cs.can_get_and_set_fmu_state;
    requirements.needs_directional_derivative = cs.provides_directional_derivative;
    requirements.needs_input_derivatives = cs.can_interpolate_inputs;
    requirements.needs_output_derivatives = cs.max_output_derivative_order > 0;
  } else {
    const ModelExchangeInterface& me = *description_.model_exchange;
    identifier = me.model_identifier;
    requirements.needs_state = me.can_get_and_set_fmu_state;
    requirements.needs_directional_derivative = me.provides_directional_derivative;
  }
  const std::filesystem::path binaries = archive_.directory() / "binaries" / "linux64";
  const std::filesystem::path binary = binaries / (identifier + ".so");
  if (!std::filesystem::is_directory(binaries)) {
    throw ConfigurationError(
        "FMU '" + path() +
        "': no binaries/linux64 directory (couplet runs FMUs built for 64-bit Linux)");
  }
  if (!std::filesystem::is_regular_file(binary)) {
    throw ConfigurationError("FMU '" + path() + "': binaries/linux64/" + identifier +
                             ".so is missing (the modelIdentifier of " + to_string(kind) + ")");
  }
  slot = std::make_unique<Library>(binary.string(), path(), requirements);
  return *slot;
}

std::string Package::resource_uri() const {
  return "file://" + (archive_.directory() / "resources").string() + "/";
}

const char* to_string(InterfaceKind kind) {
  return kind == InterfaceKind::co_simulation ? "co-simulation (cs)" : "model exchange (me)";
}

}  // namespace couplet::models::fmi
