#pragma once
// An FMI 3.0 co-simulation FMU as a couplet slave (FMI 3.0 §4): its numeric
// inputs and outputs are its ports, arrays as their elements (Floats Real
// ports, the integer types, Enumeration and Boolean discrete ones:
// fmi3_port_values.hpp, fmi3_elements.hpp); fmi3DoStep advances it.
//
// Capability mapping (docs/fmi.md, FMI 3.0):
//   inputs                      → FMI 3.0 has no input-derivative call, so an
//                                 input is the value of its polynomial at the
//                                 communication point, held over the step
//                                 (degree 0), and with providesIntermediateUpdate
//                                 also at the points inside the step where the
//                                 FMU asks (degree up to 3)
//   hasEventMode, mightReturnEarlyFromDoStep → events inside the step, handled
//                                 where they happen
//   clocks (with hasEventMode)  → each tick of an input clock an event at its
//                                 time inside the step (fmi3SetClock), output
//                                 clocks Boolean ports (fmi3_clocks.hpp)
//   maxOutputDerivativeOrder    → output derivatives (fmi3GetOutputDerivatives)
//   canGetAndSetFMUState        → rollback
//   !canHandleVariableCommunicationStepSize → an imposed step (scenario, else
//                                 DefaultExperiment/stepSize)
#include <memory>

#include "couplet/slave.hpp"
#include "models/fmi/fmi3_package.hpp"
#include "models/fmi/fmu_slaves.hpp"

namespace couplet::models::fmi3 {

/// Instantiates the FMU and sets the start values now, so configuration
/// errors surface before a run. Throws ConfigurationError naming the slave, the
/// FMU file and the setting (an unknown or unsettable variable, an input
/// degree above 0, rollback it lacks, no step for a fixed-step FMU, a coupled
/// input that is no numeric input or element, a start value its type cannot hold).
std::unique_ptr<Slave> make_co_simulation_slave(std::shared_ptr<Package> package,
                                                const fmi::FmuSettings& settings);

}  // namespace couplet::models::fmi3
