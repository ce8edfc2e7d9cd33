#pragma once
// An opened FMI 3.0 FMU: its archive unpacked, its description parsed and, when
// a slave is made from it, the shared library of its co-simulation or
// model-exchange interface loaded from binaries/x86_64-linux (FMI 3.0 §2.5.1)
// with every function couplet calls resolved and fmi3GetVersion checked.
#include <memory>
#include <string>

#include "models/fmi/fmi3.h"
#include "models/fmi/fmi3_description.hpp"
#include "models/fmi/fmu_archive.hpp"

namespace couplet::models::fmi3 {

/// The functions couplet calls (§2.3, §3.2, §4.2): those of the interface it
/// loaded, the others null. The state functions are null unless the FMU
/// declares canGetAndSetFMUState, GetOutputDerivatives unless
/// maxOutputDerivativeOrder > 0, the typed accessors but Float64 when absent.
struct Functions {
  fmi3GetVersionTYPE* GetVersion = nullptr;
  fmi3InstantiateCoSimulationTYPE* InstantiateCoSimulation = nullptr;
  fmi3FreeInstanceTYPE* FreeInstance = nullptr;
  fmi3EnterInitializationModeTYPE* EnterInitializationMode = nullptr;
  fmi3ExitInitializationModeTYPE* ExitInitializationMode = nullptr;
  fmi3TerminateTYPE* Terminate = nullptr;
  fmi3EnterConfigurationModeTYPE* EnterConfigurationMode = nullptr;  ///< optional
  fmi3ExitConfigurationModeTYPE* ExitConfigurationMode = nullptr;    ///< optional
  fmi3GetFloat64TYPE* GetFloat64 = nullptr;
  fmi3SetFloat64TYPE* SetFloat64 = nullptr;
  // The other types: resolved when the library has them, required by the
  // ports that need them (fmi3_port_values.hpp).
  fmi3GetFloat32TYPE* GetFloat32 = nullptr;
  fmi3SetFloat32TYPE* SetFloat32 = nullptr;
  fmi3GetInt8TYPE* GetInt8 = nullptr;
  fmi3SetInt8TYPE* SetInt8 = nullptr;
  fmi3GetUInt8TYPE* GetUInt8 = nullptr;
  fmi3SetUInt8TYPE* SetUInt8 = nullptr;
  fmi3GetInt16TYPE* GetInt16 = nullptr;
  fmi3SetInt16TYPE* SetInt16 = nullptr;
  fmi3GetUInt16TYPE* GetUInt16 = nullptr;
  fmi3SetUInt16TYPE* SetUInt16 = nullptr;
  fmi3GetInt32TYPE* GetInt32 = nullptr;
  fmi3SetInt32TYPE* SetInt32 = nullptr;
  fmi3GetUInt32TYPE* GetUInt32 = nullptr;
  fmi3SetUInt32TYPE* SetUInt32 = nullptr;
  fmi3GetInt64TYPE* GetInt64 = nullptr;
  fmi3SetInt64TYPE* SetInt64 = nullptr;
  fmi3GetUInt64TYPE* GetUInt64 = nullptr;
  fmi3SetUInt64TYPE* SetUInt64 = nullptr;
  fmi3GetBooleanTYPE* GetBoolean = nullptr;
  fmi3SetBooleanTYPE* SetBoolean = nullptr;
  fmi3SetStringTYPE* SetString = nullptr;  ///< String parameters (set_start_values)
  fmi3SetBinaryTYPE* SetBinary = nullptr;  ///< Binary parameters (set_start_values)
  fmi3GetFMUStateTYPE* GetFMUState = nullptr;
  fmi3SetFMUStateTYPE* SetFMUState = nullptr;
  fmi3FreeFMUStateTYPE* FreeFMUState = nullptr;
  fmi3GetOutputDerivativesTYPE* GetOutputDerivatives = nullptr;
  fmi3DoStepTYPE* DoStep = nullptr;
  fmi3EnterStepModeTYPE* EnterStepMode = nullptr;  ///< co-simulation with hasEventMode
  // Event Mode: model exchange, and co-simulation with hasEventMode.
  fmi3EnterEventModeTYPE* EnterEventMode = nullptr;
  fmi3UpdateDiscreteStatesTYPE* UpdateDiscreteStates = nullptr;
  // Model exchange.
  fmi3InstantiateModelExchangeTYPE* InstantiateModelExchange = nullptr;
  fmi3EnterContinuousTimeModeTYPE* EnterContinuousTimeMode = nullptr;
  fmi3CompletedIntegratorStepTYPE* CompletedIntegratorStep = nullptr;
  fmi3SetTimeTYPE* SetTime = nullptr;
  fmi3SetContinuousStatesTYPE* SetContinuousStates = nullptr;
  fmi3GetContinuousStateDerivativesTYPE* GetContinuousStateDerivatives = nullptr;
  fmi3GetEventIndicatorsTYPE* GetEventIndicators = nullptr;
  fmi3GetContinuousStatesTYPE* GetContinuousStates = nullptr;
  fmi3GetNumberOfEventIndicatorsTYPE* GetNumberOfEventIndicators = nullptr;
  fmi3GetNumberOfContinuousStatesTYPE* GetNumberOfContinuousStates = nullptr;
  // Scheduled execution.
  fmi3InstantiateScheduledExecutionTYPE* InstantiateScheduledExecution = nullptr;
  fmi3ActivateModelPartitionTYPE* ActivateModelPartition = nullptr;
  // Clocks: scheduled execution, and co-simulation with event mode.
  fmi3GetIntervalDecimalTYPE* GetIntervalDecimal = nullptr;  ///< optional
  fmi3GetClockTYPE* GetClock = nullptr;                      ///< optional
  fmi3SetClockTYPE* SetClock = nullptr;                      ///< optional: co-simulation
};

/// The interface whose library a slave loads.
enum class Interface { co_simulation, model_exchange, scheduled_execution };

/// "co-simulation", "model exchange", "scheduled execution".
const char* to_string(Interface interface);

/// The platform tuple couplet loads (FMI 3.0 §2.5.1.4).
inline constexpr const char* kPlatform = "x86_64-linux";

class Package {
 public:
  Package(fmi::Archive archive, Description description);
  Package(const Package&) = delete;
  Package& operator=(const Package&) = delete;
  ~Package();  ///< dlclose

  /// Loads binaries/x86_64-linux/<modelIdentifier>.so of `interface` (once).
  /// Throws ConfigurationError "FMU 'PATH': why" when the FMU does not offer
  /// it, has no binary for this platform (naming the platforms it has), lacks
  /// a function, says another version, or when the other interface, from
  /// another library, is loaded already.
  const Functions& load(Interface interface);

  /// The functions load() resolved; throws std::logic_error before it.
  const Functions& loaded() const;

  const std::string& path() const { return archive_.fmu_path(); }
  const Description& description() const { return description_; }
  /// The unpacked resources/ directory, with a trailing '/' (§2.3.1: a native
  /// path in FMI 3.0, not a URI).
  std::string resource_path() const;

 private:
  fmi::Archive archive_;
  Description description_;
  void* handle_ = nullptr;
  std::string loaded_identifier_;  ///< the model identifier of the library loaded
  bool co_simulation_loaded_ = false, model_exchange_loaded_ = false,
       scheduled_execution_loaded_ = false;
  Functions functions_;
};

}  // namespace couplet::models::fmi3
