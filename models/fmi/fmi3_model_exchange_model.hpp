#pragma once
// An FMI 3.0 model-exchange FMU as a couplet Model (FMI 3.0 §3): couplet's
// solvers (CVODE, Euler) integrate its continuous states, locate its state
// events (event indicators) and stop at its time events; the FMU's event
// iteration (fmi3UpdateDiscreteStates) runs in Event Mode. As a Model it also
// joins the monolithic reference. Ports as for co-simulation (fmi3_instance).
#include <memory>

#include "models/fmi/fmi3_package.hpp"
#include "models/fmi/fmu_slaves.hpp"
#include "models/model.hpp"

namespace couplet::models::fmi3 {

/// Instantiates the FMU and sets the start values now. Throws
/// ConfigurationError naming the slave, the FMU file and the setting, or an
/// FMU whose state or event-indicator count disagrees with its description.
std::unique_ptr<Model> make_model_exchange_model(std::shared_ptr<Package> package,
                                                 const fmi::FmuSettings& settings);

}  // namespace couplet::models::fmi3
