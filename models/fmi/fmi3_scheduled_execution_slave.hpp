#pragma once
// An FMI 3.0 scheduled-execution FMU as a couplet slave (FMI 3.0 §5): the
// master activates its model partitions, one per input clock, in virtual
// time — so a run is deterministic and replays bit for bit.
//
//   periodic input clocks (intervalVariability constant, fixed or tunable;
//   the interval from intervalDecimal or fmi3GetIntervalDecimal) tick at
//   shift + k·interval; every tick inside a
//   communication step [start, end) activates the clock's partition
//   (fmi3ActivateModelPartition) at its time, ticks of one time in the order
//   of the clocks' priorities (smaller first, then value reference);
//   triggered input clocks are Boolean input ports of the clock's name: a
//   rise to true at a communication point activates the partition there,
//   before the periodic ticks of that time;
//   changing input clocks tick at their shift, then each time the interval
//   later that fmi3GetIntervalDecimal tells after the tick (or the last one);
//   countdown input clocks tick where the FMU sets their interval, asked
//   with fmi3GetIntervalDecimal after every activation (fmi3IntervalChanged:
//   a tick that much later, possibly at the same instant);
//   before an activation the inputs of the partition (the variables whose
//   `clocks` names the clock) take their polynomials' values at its time;
//   after it the partition's outputs are read, and held until its next; the
//   inputs and outputs of no clock go with every activation;
//   output clocks are Boolean output ports of the clock's name, true for a
//   step in which the FMU reported a tick (clockUpdate, then fmi3GetClock).
//
// A real-time target steps it from instant to instant on its wall clock
// (models/scheduled_activations.hpp) instead of once per communication step.
//
// Local clocks are refused by name.
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
