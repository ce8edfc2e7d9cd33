#include "models/fmi/fmi3_package.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <stdexcept>
#include <string_view>

#include "couplet/errors.hpp"
#include "models/fmi/xml_reader.hpp"

namespace couplet::models::fmi3 {
namespace {

/// The platform directories an FMU has, for a message: "aarch64-darwin, x86_64-windows".
std::string platforms_in(const std::filesystem::path& binaries) {
  std::string names;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(binaries, error)) {
    if (entry.is_directory())
      names += (names.empty() ? "" : ", ") + entry.path().filename().string();
  }
  return names.empty() ? "none" : names;
}

}  // namespace

const char* to_string(Interface interface) {
  switch (interface) {
    case Interface::co_simulation:
      return "co-simulation";
    case Interface::model_exchange:
      return "model exchange";
    case Interface::scheduled_execution:
      return "scheduled execution";
  }
  return "an unknown interface";
}

Package::Package(fmi::Archive archive, Description description)
    : archive_(std::move(archive)), description_(std::move(description)) {}

Package::~Package() {
  if (handle_ != nullptr) ::dlclose(handle_);
}

std::string Package::resource_path() const {
  return (archive_.directory() / "resources").string() + "/";
}

const Functions& Package::loaded() const {
  if (handle_ == nullptr) throw std::logic_error("fmi3::Package: no interface loaded");
  return functions_;
}

const Functions& Package::load(Interface interface) {
  bool& loaded = interface == Interface::co_simulation    ? co_simulation_loaded_
                 : interface == Interface::model_exchange ? model_exchange_loaded_
                                                          : scheduled_execution_loaded_;
  if (loaded) return functions_;
  const std::string prefix = "FMU '" + path() + "': ";
  const InterfaceCapabilities* offered =
      interface == Interface::co_simulation
          ? (description_.co_simulation ? &description_.co_simulation->capabilities : nullptr)
      : interface == Interface::model_exchange
          ? (description_.model_exchange ? &description_.model_exchange->capabilities : nullptr)
          : (description_.scheduled_execution ? &description_.scheduled_execution->capabilities
                                              : nullptr);
  if (offered == nullptr) {
    throw ConfigurationError(prefix + "does not offer " +
                             (interface == Interface::co_simulation    ? "co-simulation"
                              : interface == Interface::model_exchange ? "model exchange"
                                                                       : "scheduled execution"));
  }
  const InterfaceCapabilities& capabilities = *offered;
  const std::string& identifier = capabilities.model_identifier;
  const std::filesystem::path binaries = archive_.directory() / "binaries";
  const std::string inside = "binaries/" + std::string(kPlatform) + "/" + identifier + ".so";
  const std::string shown = prefix + inside + ": ";
  if (handle_ != nullptr && identifier != loaded_identifier_) {
    throw ConfigurationError(shown + "one FMU is run through one library; " + loaded_identifier_ +
                             ".so, of the other interface, is loaded");
  }
  void* handle = handle_;
  if (handle == nullptr) {
    if (!std::filesystem::is_regular_file(binaries / kPlatform / (identifier + ".so"))) {
      throw ConfigurationError(prefix + inside + " is missing: couplet runs FMUs built for " +
                               kPlatform +
                               " (this FMU has binaries for: " + platforms_in(binaries) + ")");
    }
    handle = ::dlopen((binaries / kPlatform / (identifier + ".so")).c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* error = ::dlerror();
      throw ConfigurationError(shown + "cannot be loaded: " + (error ? error : "unknown error"));
    }
  }
  Functions f = functions_;
  const auto find = [&](auto*& slot, const char* name, bool required) {
    // POSIX guarantees that dlsym's object pointer converts to a function pointer.
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(::dlsym(handle, name));
    if (slot == nullptr && required) {
      if (handle_ == nullptr) ::dlclose(handle);
      throw ConfigurationError(shown + "missing function " + name);
    }
  };
  find(f.GetVersion, "fmi3GetVersion", true);
  find(f.FreeInstance, "fmi3FreeInstance", true);
  find(f.EnterInitializationMode, "fmi3EnterInitializationMode", true);
  find(f.ExitInitializationMode, "fmi3ExitInitializationMode", true);
  find(f.Terminate, "fmi3Terminate", true);
  find(f.GetFloat64, "fmi3GetFloat64", true);
  find(f.SetFloat64, "fmi3SetFloat64", true);
  find(f.EnterConfigurationMode, "fmi3EnterConfigurationMode", false);
  find(f.ExitConfigurationMode, "fmi3ExitConfigurationMode", false);
  find(f.GetFloat32, "fmi3GetFloat32", false);
  find(f.SetFloat32, "fmi3SetFloat32", false);
  find(f.GetInt8, "fmi3GetInt8", false);
  find(f.SetInt8, "fmi3SetInt8", false);
  find(f.GetUInt8, "fmi3GetUInt8", false);
  find(f.SetUInt8, "fmi3SetUInt8", false);
  find(f.GetInt16, "fmi3GetInt16", false);
  find(f.SetInt16, "fmi3SetInt16", false);
  find(f.GetUInt16, "fmi3GetUInt16", false);
  find(f.SetUInt16, "fmi3SetUInt16", false);
  find(f.GetInt32, "fmi3GetInt32", false);
  find(f.SetInt32, "fmi3SetInt32", false);
  find(f.GetUInt32, "fmi3GetUInt32", false);
  find(f.SetUInt32, "fmi3SetUInt32", false);
  find(f.GetInt64, "fmi3GetInt64", false);
  find(f.SetInt64, "fmi3SetInt64", false);
  find(f.GetUInt64, "fmi3GetUInt64", false);
  find(f.SetUInt64, "fmi3SetUInt64", false);
  find(f.GetBoolean, "fmi3GetBoolean", false);
  find(f.SetBoolean, "fmi3SetBoolean", false);
  find(f.SetString, "fmi3SetString", false);
  find(f.SetBinary, "fmi3SetBinary", false);
  const bool state = capabilities.can_get_and_set_fmu_state;
  find(f.GetFMUState, "fmi3GetFMUState", state);
  find(f.SetFMUState, "fmi3SetFMUState", state);
  find(f.FreeFMUState, "fmi3FreeFMUState", state);
  if (interface == Interface::co_simulation) {
    find(f.InstantiateCoSimulation, "fmi3InstantiateCoSimulation", true);
    find(f.DoStep, "fmi3DoStep", true);
    find(f.GetOutputDerivatives, "fmi3GetOutputDerivatives",
         description_.co_simulation->max_output_derivative_order > 0);
    const bool event_mode = description_.co_simulation->has_event_mode;  // §4.2.5
    find(f.EnterEventMode, "fmi3EnterEventMode", event_mode);
    find(f.UpdateDiscreteStates, "fmi3UpdateDiscreteStates", event_mode);
    find(f.EnterStepMode, "fmi3EnterStepMode", event_mode);
    find(f.GetIntervalDecimal, "fmi3GetIntervalDecimal", false);  // clocks (§4.2.5)
    find(f.GetClock, "fmi3GetClock", false);
    find(f.SetClock, "fmi3SetClock", false);
  } else if (interface == Interface::scheduled_execution) {  // §5.2
    find(f.InstantiateScheduledExecution, "fmi3InstantiateScheduledExecution", true);
    find(f.ActivateModelPartition, "fmi3ActivateModelPartition", true);
    find(f.GetIntervalDecimal, "fmi3GetIntervalDecimal", false);
    find(f.GetClock, "fmi3GetClock", false);
  } else {  // §3.2
    find(f.InstantiateModelExchange, "fmi3InstantiateModelExchange", true);
    find(f.EnterEventMode, "fmi3EnterEventMode", true);
    find(f.UpdateDiscreteStates, "fmi3UpdateDiscreteStates", true);
    find(f.EnterContinuousTimeMode, "fmi3EnterContinuousTimeMode", true);
    find(f.CompletedIntegratorStep, "fmi3CompletedIntegratorStep", true);
    find(f.SetTime, "fmi3SetTime", true);
    find(f.SetContinuousStates, "fmi3SetContinuousStates", true);
    find(f.GetContinuousStateDerivatives, "fmi3GetContinuousStateDerivatives", true);
    find(f.GetEventIndicators, "fmi3GetEventIndicators", true);
    find(f.GetContinuousStates, "fmi3GetContinuousStates", true);
    find(f.GetNumberOfEventIndicators, "fmi3GetNumberOfEventIndicators", true);
    find(f.GetNumberOfContinuousStates, "fmi3GetNumberOfContinuousStates", true);
    find(f.GetIntervalDecimal, "fmi3GetIntervalDecimal", false);  // clocks
    find(f.GetClock, "fmi3GetClock", false);
    find(f.SetClock, "fmi3SetClock", false);
  }
  const char* version = f.GetVersion();
  // "3.0", or a later 3.x: the major version decides compatibility (§2.3.2).
  if (version == nullptr || std::string_view(version).substr(0, 2) != "3.") {
    if (handle_ == nullptr) ::dlclose(handle);
    throw ConfigurationError(shown + "fmi3GetVersion() says " +
                             (version ? fmi::single_quoted(version) : std::string("nothing")) +
                             ", not 3.x");
  }
  functions_ = f;
  handle_ = handle;
  loaded_identifier_ = identifier;
  loaded = true;
  return functions_;
}

}  // namespace couplet::models::fmi3
