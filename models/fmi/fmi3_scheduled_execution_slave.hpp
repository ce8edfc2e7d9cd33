#pragma once
// An FMI 3.0 scheduled-execution FMU as a couplet slave (FMI 3.0 §5): the
// master activates its model partitions, one per input clock, in virtual
// time — so a run is deterministic and replays bit for bit.
//
//   every tick of an input clock (fmi3_clocks.hpp: periodic, changing,
//   countdown, triggered) inside a communication step [start, end)
//   activates the clock's partition (fmi3ActivateModelPartition) at its time,
//   ticks of one time in the order of the clocks' priorities, a triggered
//   clock's rise at a communication point before the periodic ticks there;
//   before an activation the inputs of the partition take their
//   polynomials' values at its time, after it its outputs are read and held;
//   the inputs and outputs of no clock go with every activation; output
//   clocks (told by clockUpdate, then fmi3GetClock) are Boolean ports.
//
// A real-time target steps it from instant to instant on its wall clock
// (models/scheduled_activations.hpp) instead of once per communication step.
#include <memory>

#include "couplet/slave.hpp"
#include "models/fmi/fmi3_package.hpp"
#include "models/fmi/fmu_slaves.hpp"

namespace couplet::models::fmi3 {

/// Instantiates the FMU and sets the start values now. Throws
/// ConfigurationError naming the slave, the FMU file and what it cannot run.
std::unique_ptr<Slave> make_scheduled_execution_slave(std::shared_ptr<Package> package,
                                                      const fmi::FmuSettings& settings);

}  // namespace couplet::models::fmi3
