#include "models/fmi/fmu_library.hpp"

#include <dlfcn.h>

#include <cstring>
#include <filesystem>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>

#include "models/fmi/fmu_description.hpp"
#include "couplet/errors.hpp"

namespace couplet::models::fmi {
namespace {

/// "binaries/linux64/X.so": the path inside the FMU, which is what a user can
/// recognise (the unpacked directory's own name is random).
std::string shown_path(const std::string& path) {
  const std::filesystem::path full(path);
  std::filesystem::path shown;
  const auto components = std::distance(full.begin(), full.end());
  auto component = full.begin();
  if (components > 3) std::advance(component, components - 3);
  for (; component != full.end(); ++component) shown /= *component;
  return shown.string();
}

/// Resolves fmi2<name> into `slot`, for one library.
class Resolver {
 public:
  Resolver(void* handle, std::string prefix) : handle_(handle), prefix_(std::move(prefix)) {}

  /// A required function: missing is an error.
  template <typename Function>
  void require(Function*& slot, const char* name) const {
    slot = find<Function>(name);
    if (slot == nullptr) fail("missing function fmi2" + std::string(name));
  }

  /// An optional function: null when the library lacks it.
  template <typename Function>
  void offer(Function*& slot, const char* name) const {
    slot = find<Function>(name);
  }

  /// `slot` is required when `required`, optional otherwise.
  template <typename Function>
  void resolve(Function*& slot, const char* name, bool required) const {
    if (required) {
      require(slot, name);
    } else {
      offer(slot, name);
    }
  }

  [[noreturn]] void fail(const std::string& why) const { throw ConfigurationError(prefix_ + why); }

 private:
  template <typename Function>
  Function* find(const char* name) const {
    const std::string symbol = "fmi2" + std::string(name);
    // POSIX guarantees that dlsym's object pointer converts to a function pointer.
    return reinterpret_cast<Function*>(::dlsym(handle_, symbol.c_str()));
  }

  void* handle_;
  std::string prefix_;  ///< "FMU 'x.fmu': binaries/linux64/x.so: "
};

void resolve_functions(const Resolver& resolver, const Library::Requirements& requirements,
                       Functions& f) {
  // Common to both interfaces (§2.1); the version queries first, as the first
  // thing a non-FMU library lacks.
  resolver.require(f.GetTypesPlatform, "GetTypesPlatform");
  resolver.require(f.GetVersion, "GetVersion");
  resolver.require(f.SetDebugLogging, "SetDebugLogging");
  resolver.require(f.Instantiate, "Instantiate");
  resolver.require(f.FreeInstance, "FreeInstance");
  resolver.require(f.SetupExperiment, "SetupExperiment");
  resolver.require(f.EnterInitializationMode, "EnterInitializationMode");
  resolver.require(f.ExitInitializationMode, "ExitInitializationMode");
  resolver.require(f.Terminate, "Terminate");
  resolver.require(f.Reset, "Reset");
  resolver.require(f.GetReal, "GetReal");
  resolver.require(f.GetInteger, "GetInteger");
  resolver.require(f.GetBoolean, "GetBoolean");
  resolver.require(f.GetString, "GetString");
  resolver.require(f.SetReal, "SetReal");
  resolver.require(f.SetInteger, "SetInteger");
  resolver.require(f.SetBoolean, "SetBoolean");
  resolver.require(f.SetString, "SetString");
  resolver.resolve(f.GetFMUstate, "GetFMUstate", requirements.needs_state);
  resolver.resolve(f.SetFMUstate, "SetFMUstate", requirements.needs_state);
  resolver.resolve(f.FreeFMUstate, "FreeFMUstate", requirements.needs_state);
  resolver.resolve(f.GetDirectionalDerivative, "GetDirectionalDerivative",
                   requirements.needs_directional_derivative);

  switch (requirements.kind) {
    case InterfaceKind::model_exchange:  // §3.2
      resolver.require(f.EnterEventMode, "EnterEventMode");
      resolver.require(f.NewDiscreteStates, "NewDiscreteStates");
      resolver.require(f.EnterContinuousTimeMode, "EnterContinuousTimeMode");
      resolver.require(f.CompletedIntegratorStep, "CompletedIntegratorStep");
      resolver.require(f.SetTime, "SetTime");
      resolver.require(f.SetContinuousStates, "SetContinuousStates");
      resolver.require(f.GetDerivatives, "GetDerivatives");
      resolver.require(f.GetEventIndicators, "GetEventIndicators");
      resolver.require(f.GetContinuousStates, "GetContinuousStates");
      resolver.require(f.GetNominalsOfContinuousStates, "GetNominalsOfContinuousStates");
      break;
    case InterfaceKind::co_simulation:  // §4.2
      resolver.resolve(f.SetRealInputDerivatives, "SetRealInputDerivatives",
                       requirements.needs_input_derivatives);
      resolver.resolve(f.GetRealOutputDerivatives, "GetRealOutputDerivatives",
                       requirements.needs_output_derivatives);
      resolver.require(f.DoStep, "DoStep");
      resolver.require(f.CancelStep, "CancelStep");
      resolver.require(f.GetStatus, "GetStatus");
      resolver.require(f.GetRealStatus, "GetRealStatus");
      resolver.require(f.GetIntegerStatus, "GetIntegerStatus");
      resolver.require(f.GetBooleanStatus, "GetBooleanStatus");
      resolver.require(f.GetStringStatus, "GetStringStatus");
      break;
  }
}

/// A library built for another FMI version or types platform would be called
/// with the wrong argument layouts: refuse it before any other call.
void check_platform(const Resolver& resolver, const Functions& functions) {
  const char* const version = functions.GetVersion();
  if (version == nullptr) resolver.fail("fmi2GetVersion() returned a null pointer");
  if (std::strcmp(version, COUPLET_FMI2_VERSION) != 0) {
    resolver.fail("fmi2GetVersion() returned " + single_quoted(version) +
                  "; couplet supports FMI " COUPLET_FMI2_VERSION " only");
  }
  const char* const platform = functions.GetTypesPlatform();
  if (platform == nullptr) resolver.fail("fmi2GetTypesPlatform() returned a null pointer");
  if (std::strcmp(platform, COUPLET_FMI2_TYPES_PLATFORM) != 0) {
    resolver.fail("fmi2GetTypesPlatform() returned " + single_quoted(platform) +
                  "; couplet supports the '" COUPLET_FMI2_TYPES_PLATFORM "' types platform only");
  }
}

}  // namespace

Library::Library(const std::string& path, const std::string& fmu_path,
                 const Requirements& requirements) {
  const std::string prefix = "FMU " + single_quoted(fmu_path) + ": " + shown_path(path) + ": ";
  // RTLD_LOCAL: two FMUs exporting the same fmi2* names must not see each other's.
  handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* const error = ::dlerror();
    throw ConfigurationError(prefix + "cannot load (" + (error ? error : "unknown dlopen error") +
                             ")");
  }
  try {
    const Resolver resolver(handle_, prefix);
    resolve_functions(resolver, requirements, functions_);
    check_platform(resolver, functions_);
  } catch (...) {
    // The destructor does not run for a constructor that throws.
    ::dlclose(handle_);
    throw;
  }
}

Library::~Library() {
  if (handle_ != nullptr) ::dlclose(handle_);
}

}  // namespace couplet::models::fmi
