#pragma once
// The small internal interface between the OdeSlave and its solvers.
//
// The OdeSlave cuts every macro step into segments at the model's time events
// (Model::time_events), so a solver integrates one smooth segment at a time and
// restarts at each segment start: CVODE is re-initialized there. A solver may
// carry a little across the restart to start faster (CVODE: the first step size
// from the held second derivative and the kept Jacobian, CvodeCarry); whatever it
// carries is part of the slave's saved state, so that a re-run after
// restore_state is bit-identical — unless the solver keeps its history across
// macro steps (CVODE with CvodeHistory::keep, Segment::attempt). Not part of the
// public API: use make_ode_slave.
#include <cmath>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>

#include "models/model.hpp"
#include "couplet/polynomial.hpp"
#include "couplet/time.hpp"

namespace couplet::models {

/// Receives the state at each requested sample time; the OdeSlave turns it into
/// outputs. An interface (not std::function) so that stepping never allocates.
class SampleSink {
 public:
  virtual void sample(std::size_t index, double time, std::span<const double> state) = 0;

 protected:
  ~SampleSink() = default;
};

/// One smooth piece of a macro step: no time event lies strictly inside
/// (start, end); an event may sit at `start` (its new equations hold there).
struct Segment {
  double start = 0.0;       ///< seconds
  double end = 0.0;         ///< seconds, > start
  double macro_step = 0.0;  ///< length of the whole macro step (Euler's substeps divide it)
  std::span<const Polynomial> inputs;  ///< one per model input, valid on the macro step
  std::span<const Time> sample_times;  ///< increasing, inside (start, end]; indices are local
  /// The state at `start` is exactly what an earlier integrate() returned at its
  /// end == start — the previous one, or, after restore_state, the one before
  /// the save — and no event changed it or the equations since: a solver may
  /// continue a history of its own instead of restarting.
  bool continues = false;
  /// How many times restore_state took the slave back to its saved state since
  /// the last save_state (0 without one): a solver keeping its history may keep
  /// one per attempt, since each attempt from a saved state ends at the same time
  /// on its own trajectory (the semi-implicit scheme's predictor, perturbed
  /// predictor and corrector).
  std::size_t attempt = 0;
};

/// Why a solver failed; the OdeSlave turns it into a SlaveError naming the slave.
class SolverFailure : public std::runtime_error {
 public:
  SolverFailure(double time, const std::string& reason) : std::runtime_error(reason), time_(time) {}
  double time() const { return time_; }

 private:
  double time_;
};

class Solver {
 public:
  virtual ~Solver() = default;

  /// Allocates everything the solver needs for `start` and the model's state size.
  virtual void setup(double start, std::span<const double> state) = 0;

  /// Integrates `state` (in: at segment.start, out: at segment.end), handing the
  /// state at every sample time to `sink`. Throws SolverFailure.
  virtual void integrate(const Segment& segment, std::span<double> state, SampleSink& sink) = 0;
};

/// u(t) for every input: the time is in seconds.
inline void evaluate_inputs(std::span<const Polynomial> inputs, double time, std::span<double> u) {
  for (std::size_t i = 0; i < inputs.size(); ++i) u[i] = inputs[i].value(time);
}

/// The input jet at `time` (Model::input_derivative_order): `order` + 1 rows of
/// inputs.size() values, u, u̇, ..., from the input polynomials. Row 0 is
/// evaluate_inputs itself, so that order 0 changes nothing.
inline void evaluate_input_jet(std::span<const Polynomial> inputs, double time, int order,
                               std::span<double> jet) {
  evaluate_inputs(inputs, time, jet);
  for (int d = 1; d <= order; ++d) {
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      jet[static_cast<std::size_t>(d) * inputs.size() + i] = inputs[i].derivative(time, d);
    }
  }
}

/// Size of the input jet a model's equations take.
inline std::size_t input_jet_size(const Model& model) {
  return static_cast<std::size_t>(model.input_derivative_order() + 1) * model.input_count();
}

/// The time handed to the model's equations inside a segment. For t >= an event
/// time the new equations hold (Model::time_events), so an evaluation exactly at
/// the segment end would already use the next segment's equations; the last
/// representable time before the end keeps the segment's own.
inline double model_time_in_segment(double time, const Segment& segment) {
  return time < segment.end ? time : std::nextafter(segment.end, segment.start);
}

}  // namespace couplet::models
