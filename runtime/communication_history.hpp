#pragma once
// The latest communication values of every slave output, for input polynomials
// built from past communication points instead of reported derivatives: the
// extrapolation of the explicit co-simulation scheme in Kraft & Schweizer,
// "Reduction of Computation Time by Parallelization and Incorporating
// Co-Simulation Techniques" (§2.3), and the predictor/corrector polynomials of
// the semi-implicit scheme (§2.4). One fixed-capacity ring (OutputHistory) per
// output, sized in start(): recording and building polynomials never allocate.
#include <span>
#include <string>
#include <vector>

#include "runtime/algorithm.hpp"
#include "runtime/input_coupling.hpp"
#include "runtime/output_history.hpp"

namespace couplet {

/// Values of one output at communication times before the run's start, for a
/// run that continues a history (the local-error procedure of a convergence
/// study: one macro step started from a reference state). `values[j]` is the
/// value at start − (j + 1)·step, newest first.
struct OutputHistorySeed {
  std::string output;          ///< "slave.output"
  std::vector<double> values;  ///< at start − H, start − 2H, ...
};

class CommunicationHistory {
 public:
  /// Highest polynomial order the history can feed (order + 1 points kept).
  static constexpr int kMaxOrder = Polynomial::kMaxDegree;

  /// Sizes one ring per output of every slave and records the seeds (at start −
  /// j·step) followed by the outputs in `slots` at `start`. Throws
  /// ConfigurationError naming an unknown seeded output or a seed too long.
  void start(const System& system, std::span<const StepSlot> slots, Time start, Time step,
             std::span<const OutputHistorySeed> seeds);

  /// Appends the outputs of `slave` at slots[slave].output_time (after a step).
  void record(std::size_t slave, std::span<const StepSlot> slots);
  /// Overwrites the newest values of `slave` with its outputs now (a feedthrough
  /// output re-evaluated at the same communication time).
  void refresh(std::size_t slave, std::span<const StepSlot> slots);

  const OutputHistory& of(PortReference output) const {
    return histories_[output.slave][output.port];
  }

  /// The Lagrange polynomial of order min(order, points − 1) through the newest
  /// points of `output` (the extrapolation of §2.3).
  Polynomial extrapolation(PortReference output, int order) const;

  /// The Lagrange polynomial through the newest min(order, points) points of
  /// `output` and (time, value), time after the newest point: order at most
  /// `order`, the corrector's interpolation of §2.4.
  Polynomial interpolation(PortReference output, int order, Time time, double value) const;

 private:
  std::vector<std::vector<OutputHistory>> histories_;  ///< [slave][output]
};

/// Sets every input of `target` to the extrapolation of order `order` through
/// the newest communication values of its source.
void assign_extrapolated_inputs(std::size_t target, const InputSources& sources,
                                const CommunicationHistory& history, std::span<StepSlot> slots,
                                int order);

}  // namespace couplet
