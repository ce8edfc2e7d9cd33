#pragma once
// The shared library of an FMU (binaries/linux64/<modelIdentifier>.so), opened
// with dlopen, and the fmi2* functions resolved from it (FMI 2.0 §2.1, §3.2,
// §4.2). One Library per opened FMU; instances share it.
#include <string>

#include "models/fmi/fmi2.h"

namespace couplet::models::fmi {

enum class InterfaceKind { co_simulation, model_exchange };

/// Function pointers; those not needed by the interface kind, or optional and
/// absent (state and directional-derivative functions), are null.
struct Functions {
  fmi2GetTypesPlatformTYPE* GetTypesPlatform = nullptr;
  fmi2GetVersionTYPE* GetVersion = nullptr;
  fmi2SetDebugLoggingTYPE* SetDebugLogging = nullptr;
  fmi2InstantiateTYPE* Instantiate = nullptr;
  fmi2FreeInstanceTYPE* FreeInstance = nullptr;
  fmi2SetupExperimentTYPE* SetupExperiment = nullptr;
  fmi2EnterInitializationModeTYPE* EnterInitializationMode = nullptr;
  fmi2ExitInitializationModeTYPE* ExitInitializationMode = nullptr;
  fmi2TerminateTYPE* Terminate = nullptr;
  fmi2ResetTYPE* Reset = nullptr;
  fmi2GetRealTYPE* GetReal = nullptr;
  fmi2GetIntegerTYPE* GetInteger = nullptr;
  fmi2GetBooleanTYPE* GetBoolean = nullptr;
  fmi2GetStringTYPE* GetString = nullptr;
  fmi2SetRealTYPE* SetReal = nullptr;
  fmi2SetIntegerTYPE* SetInteger = nullptr;
  fmi2SetBooleanTYPE* SetBoolean = nullptr;
  fmi2SetStringTYPE* SetString = nullptr;
  fmi2GetFMUstateTYPE* GetFMUstate = nullptr;
  fmi2SetFMUstateTYPE* SetFMUstate = nullptr;
  fmi2FreeFMUstateTYPE* FreeFMUstate = nullptr;
  fmi2GetDirectionalDerivativeTYPE* GetDirectionalDerivative = nullptr;
  // model exchange
  fmi2EnterEventModeTYPE* EnterEventMode = nullptr;
  fmi2NewDiscreteStatesTYPE* NewDiscreteStates = nullptr;
  fmi2EnterContinuousTimeModeTYPE* EnterContinuousTimeMode = nullptr;
  fmi2CompletedIntegratorStepTYPE* CompletedIntegratorStep = nullptr;
  fmi2SetTimeTYPE* SetTime = nullptr;
  fmi2SetContinuousStatesTYPE* SetContinuousStates = nullptr;
  fmi2GetDerivativesTYPE* GetDerivatives = nullptr;
  fmi2GetEventIndicatorsTYPE* GetEventIndicators = nullptr;
  fmi2GetContinuousStatesTYPE* GetContinuousStates = nullptr;
  fmi2GetNominalsOfContinuousStatesTYPE* GetNominalsOfContinuousStates = nullptr;
  // co-simulation
  fmi2SetRealInputDerivativesTYPE* SetRealInputDerivatives = nullptr;
  fmi2GetRealOutputDerivativesTYPE* GetRealOutputDerivatives = nullptr;
  fmi2DoStepTYPE* DoStep = nullptr;
  fmi2CancelStepTYPE* CancelStep = nullptr;
  fmi2GetStatusTYPE* GetStatus = nullptr;
  fmi2GetRealStatusTYPE* GetRealStatus = nullptr;
  fmi2GetIntegerStatusTYPE* GetIntegerStatus = nullptr;
  fmi2GetBooleanStatusTYPE* GetBooleanStatus = nullptr;
  fmi2GetStringStatusTYPE* GetStringStatus = nullptr;
};

class Library {
 public:
  /// dlopen's `path` (RTLD_NOW | RTLD_LOCAL) and resolves the functions of
  /// `kind`. The state functions are required when `needs_state` (the FMU
  /// declares canGetAndSetFMUstate), the directional derivative when
  /// `needs_directional_derivative`, SetRealInputDerivatives when
  /// `needs_input_derivatives`, GetRealOutputDerivatives when
  /// `needs_output_derivatives`. Checks fmi2GetVersion() == "2.0" and
  /// fmi2GetTypesPlatform() == "default". Throws ConfigurationError
  /// "FMU 'FMU_PATH': binaries/linux64/X.so: why" naming the missing symbol, the
  /// dlopen error or the wrong version.
  struct Requirements {
    InterfaceKind kind = InterfaceKind::co_simulation;
    bool needs_state = false;
    bool needs_directional_derivative = false;
    bool needs_input_derivatives = false;
    bool needs_output_derivatives = false;
  };
  Library(const std::string& path, const std::string& fmu_path, const Requirements& requirements);
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  ~Library();  ///< dlclose

  const Functions& functions() const { return functions_; }

 private:
  void* handle_ = nullptr;
  Functions functions_;
};

}  // namespace couplet::models::fmi
