#include "models/cvode_solver.hpp"

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/exact_text.hpp"

namespace couplet::models {
namespace {

// CVODE's default of 500 internal steps per call is easily exceeded by one long
// macro step of a stiff or oscillating model; this still bounds a runaway.
constexpr long kMaxInternalStepsPerCall = 100'000;

// More state events than this within one integration call is chattering.
constexpr int kMaxStateEventsPerCall = 10'000;

// Owners of the SUNDIALS objects, so that a failing setup leaks nothing.
struct ContextDeleter {
  void operator()(SUNContext context) const { SUNContext_Free(&context); }
};
struct VectorDeleter {
  void operator()(N_Vector vector) const { N_VDestroy(vector); }
};
struct MatrixDeleter {
  void operator()(SUNMatrix matrix) const { SUNMatDestroy(matrix); }
};
struct LinearSolverDeleter {
  void operator()(SUNLinearSolver solver) const { SUNLinSolFree(solver); }
};
struct MemoryDeleter {
  void operator()(void* memory) const { CVodeFree(&memory); }
};
using ContextOwner = std::unique_ptr<std::remove_pointer_t<SUNContext>, ContextDeleter>;
using VectorOwner = std::unique_ptr<std::remove_pointer_t<N_Vector>, VectorDeleter>;
using MatrixOwner = std::unique_ptr<std::remove_pointer_t<SUNMatrix>, MatrixDeleter>;
using LinearSolverOwner =
    std::unique_ptr<std::remove_pointer_t<SUNLinearSolver>, LinearSolverDeleter>;
using MemoryOwner = std::unique_ptr<void, MemoryDeleter>;

std::string flag_name(int flag) {
  char* name = CVodeGetReturnFlagName(flag);  // malloc'ed by SUNDIALS
  std::string result = name != nullptr ? name : "flag " + std::to_string(flag);
  std::free(name);
  return result;
}

class CvodeSolver final : public Solver {
 public:
  CvodeSolver(const Model& model, const SolverSettings& settings)
      : model_(model), settings_(settings) {}

  void setup(double start, std::span<const double> state) override {
    // Release in reverse order of creation before building anew.
    memory_.reset();
    linear_solver_.reset();
    matrix_.reset();
    vector_.reset();
    context_.reset();
    inputs_.assign(input_jet_size(model_), 0.0);
    state_count_ = state.size();
    const auto length = static_cast<sunindextype>(state.size());

    SUNContext context = nullptr;
    check_setup(SUNContext_Create(nullptr, &context), "SUNContext_Create", start);
    context_.reset(context);
    vector_.reset(N_VNew_Serial(length, context));
    matrix_.reset(SUNDenseMatrix(length, length, context));
    if (!vector_ || !matrix_) throw SolverFailure(start, "CVODE: cannot allocate vectors");
    linear_solver_.reset(SUNLinSol_Dense(vector_.get(), matrix_.get(), context));
    memory_.reset(CVodeCreate(settings_.method == CvodeMethod::bdf ? CV_BDF : CV_ADAMS, context));
    if (!linear_solver_ || !memory_) {
      throw SolverFailure(start, "CVODE: cannot allocate the solver");
    }
    void* memory = memory_.get();

    std::copy(state.begin(), state.end(), state_data());
    check_setup(CVodeSetErrHandlerFn(memory, &CvodeSolver::record_error, this),
                "CVodeSetErrHandlerFn", start);
    check_setup(CVodeInit(memory, &CvodeSolver::right_hand_side, start, vector_.get()), "CVodeInit",
                start);
    check_setup(CVodeSetUserData(memory, this), "CVodeSetUserData", start);
    check_setup(
        CVodeSStolerances(memory, settings_.relative_tolerance, settings_.absolute_tolerance),
        "CVodeSStolerances", start);
    check_setup(CVodeSetLinearSolver(memory, linear_solver_.get(), matrix_.get()),
                "CVodeSetLinearSolver", start);
    check_setup(CVodeSetMaxNumSteps(memory, kMaxInternalStepsPerCall), "CVodeSetMaxNumSteps",
                start);
    if (settings_.max_internal_step > 0.0) {
      check_setup(CVodeSetMaxStep(memory, settings_.max_internal_step), "CVodeSetMaxStep", start);
    }
    // State events (Model::event_indicators): CVODE's root finding locates the
    // zero crossings; advance_to hands each to the model and restarts.
    const std::size_t indicators = model_.event_indicator_count();
    if (indicators > 0) {
      check_setup(
          CVodeRootInit(memory, static_cast<int>(indicators), &CvodeSolver::event_indicators),
          "CVodeRootInit", start);
    }
    warm_up(start);
  }

  /// The inputs change at every communication time and the equations at every
  /// event, and a BDF/Adams history across either would be wrong: re-initialize at
  /// the segment start, stop exactly at its end (CVodeSetStopTime), and reach the
  /// samples with CV_NORMAL (CVODE interpolates when it has stepped past them).
  void integrate(const Segment& segment, std::span<double> state, SampleSink& sink) override {
    void* memory = memory_.get();
    segment_ = &segment;
    pending_exception_ = nullptr;
    non_finite_time_ = std::numeric_limits<double>::quiet_NaN();
    error_message_[0] = '\0';
    select_jacobian(segment);
    std::copy(state.begin(), state.end(), state_data());
    check(CVodeReInit(memory, segment.start, vector_.get()), "CVodeReInit", segment.start);
    check(CVodeSetStopTime(memory, segment.end), "CVodeSetStopTime", segment.start);

    double reached = segment.start;
    for (std::size_t k = 0; k < segment.sample_times.size(); ++k) {
      const double sample_time = to_seconds(segment.sample_times[k]);
      reached = advance_to(std::min(sample_time, segment.end), reached);
      sink.sample(k, sample_time, {state_data(), state_count_});
    }
    if (reached < segment.end) advance_to(segment.end, reached);
    std::copy(state_data(), state_data() + state_count_, state.begin());
    segment_ = nullptr;
  }

 private:
  double* state_data() { return N_VGetArrayPointer(vector_.get()); }

  /// CVODE's linear solver interface allocates its saved Jacobian on the first
  /// CVode call (cvLsInitialize clones the matrix), not in CVodeSetLinearSolver.
  /// Take that first call here, on ẋ = 0 without touching the model (no inputs
  /// exist yet), so that integrate() never allocates. integrate() re-initializes.
  void warm_up(double start) {
    warming_up_ = true;
    double reached = start;
    const int flag = CVode(memory_.get(), start + 1.0, vector_.get(), &reached, CV_ONE_STEP);
    warming_up_ = false;
    check_setup(flag, "CVode (warm-up)", start);
  }

  /// CVode in normal mode to `target`; returns the time reached (== target).
  /// At a state event on the way the model handles it and CVODE restarts there.
  double advance_to(double target, double reached) {
    double returned_time = reached;
    for (int events = 0;; ++events) {
      const int flag = CVode(memory_.get(), target, vector_.get(), &returned_time, CV_NORMAL);
      check(flag, "CVode", returned_time);
      if (flag != CV_ROOT_RETURN) return returned_time;
      if (events == kMaxStateEventsPerCall) {
        throw SolverFailure(returned_time,
                            "more than " + std::to_string(kMaxStateEventsPerCall) +
                                " state events in one step (chattering or a Zeno point)");
      }
      handle_state_event(returned_time);
      if (returned_time >= target) return returned_time;
    }
  }

  void handle_state_event(double time) {
    evaluate_input_jet(segment_->inputs, time, model_.input_derivative_order(), inputs_);
    model_.handle_event(time, {state_data(), state_count_}, inputs_);
    check(CVodeReInit(memory_.get(), time, vector_.get()), "CVodeReInit", time);
  }

  // CVRootFn: the model's event indicators at (t, x, u(t)). Not during the
  // warm-up, which must not touch the model: constant, so no crossing.
  static int event_indicators(double time, N_Vector state, double* indicators, void* user_data) {
    auto& self = *static_cast<CvodeSolver*>(user_data);
    const std::span<double> values{indicators, self.model_.event_indicator_count()};
    if (self.warming_up_) {
      std::fill(values.begin(), values.end(), 1.0);
      return 0;
    }
    try {
      const Segment& segment = *self.segment_;
      evaluate_input_jet(segment.inputs, time, self.model_.input_derivative_order(), self.inputs_);
      self.model_.event_indicators(model_time_in_segment(time, segment),
                                   {N_VGetArrayPointer(state), self.state_count_}, self.inputs_,
                                   values);
      return 0;
    } catch (...) {
      self.pending_exception_ = std::current_exception();
      return -1;
    }
  }

  /// The analytic Jacobian A when the segment is linear, else CVODE's difference
  /// quotients (a null function restores them).
  void select_jacobian(const Segment& segment) {
    segment_form_ = model_.linear_form(segment.start);
    const auto size = static_cast<Eigen::Index>(state_count_);
    if (segment_form_ != nullptr &&
        (segment_form_->A.rows() != size || segment_form_->A.cols() != size)) {
      throw SolverFailure(segment.start, "CVODE: the model's linear form has a wrongly sized A");
    }
    check(CVodeSetJacFn(memory_.get(), segment_form_ != nullptr ? &CvodeSolver::jacobian : nullptr),
          "CVodeSetJacFn", segment.start);
  }

  static void check_setup(int flag, const char* call, double time) {
    if (flag < 0) {
      throw SolverFailure(
          time, std::string("CVODE: ") + call + " failed with flag " + std::to_string(flag));
    }
  }

  void check(int flag, const char* call, double time) {
    if (flag >= 0) return;
    segment_ = nullptr;
    if (pending_exception_) std::rethrow_exception(std::exchange(pending_exception_, nullptr));
    std::string reason = std::string("CVODE: ") + call + " returned " + flag_name(flag);
    if (!std::isnan(non_finite_time_)) {
      reason += ": the model's derivatives are not finite (NaN or Inf) at t = " +
                exact_text(non_finite_time_) + " s";
    } else if (error_message_[0] != '\0') {
      reason += " (" + std::string(error_message_.data()) + ")";
    }
    throw SolverFailure(time, reason);
  }

  // CVRhsFn: ẋ = f(t, x, u(t)). Exceptions must not cross the C code: keep the
  // first one and make CVODE stop (negative = unrecoverable). Non-finite
  // derivatives stop it too: as a recoverable failure CVODE would creep towards
  // the bad time with ever smaller steps until mxstep, slowly and less clearly.
  static int right_hand_side(double time, N_Vector state, N_Vector derivatives, void* user_data) {
    auto& self = *static_cast<CvodeSolver*>(user_data);
    if (self.warming_up_) {
      N_VConst(0.0, derivatives);
      return 0;
    }
    try {
      const Segment& segment = *self.segment_;
      evaluate_input_jet(segment.inputs, time, self.model_.input_derivative_order(), self.inputs_);
      const std::span<double> slope{N_VGetArrayPointer(derivatives), self.state_count_};
      self.model_.derivatives(model_time_in_segment(time, segment),
                              {N_VGetArrayPointer(state), self.state_count_}, self.inputs_, slope);
      const bool finite = std::all_of(slope.begin(), slope.end(),
                                      [](double value) { return std::isfinite(value); });
      if (finite) return 0;
      self.non_finite_time_ = time;
      return -1;
    } catch (...) {
      self.pending_exception_ = std::current_exception();
      return -1;
    }
  }

  // CVLsJacFn: J = ∂f/∂x = A of the segment's linear form (column-major, as Eigen's).
  static int jacobian(double, N_Vector, N_Vector, SUNMatrix jacobian_matrix, void* user_data,
                      N_Vector, N_Vector, N_Vector) {
    const auto& self = *static_cast<const CvodeSolver*>(user_data);
    const Eigen::MatrixXd& a = self.segment_form_->A;
    std::copy(a.data(), a.data() + a.size(), SUNDenseMatrix_Data(jacobian_matrix));
    return 0;
  }

  // CVErrHandlerFn: keep the last message for the SlaveError instead of printing
  // it; a fixed buffer, so that a warning on the real-time path does not allocate.
  static void record_error(int, const char* module, const char* function, char* message,
                           void* user_data) {
    auto& self = *static_cast<CvodeSolver*>(user_data);
    std::snprintf(self.error_message_.data(), self.error_message_.size(), "%s/%s: %s", module,
                  function, message);
  }

  const Model& model_;
  const SolverSettings settings_;
  std::size_t state_count_ = 0;
  // Destroyed in reverse order: the CVODE memory first, the context last.
  ContextOwner context_;
  VectorOwner vector_;
  MatrixOwner matrix_;
  LinearSolverOwner linear_solver_;
  MemoryOwner memory_;
  std::vector<double> inputs_;  ///< u(t) (the input jet), sized in setup

  // Per-segment, for the callbacks.
  const Segment* segment_ = nullptr;
  bool warming_up_ = false;
  const LinearForm* segment_form_ = nullptr;
  std::exception_ptr pending_exception_;
  double non_finite_time_ = std::numeric_limits<double>::quiet_NaN();  ///< where f was NaN/Inf
  std::array<char, 512> error_message_{};
};

}  // namespace

std::unique_ptr<Solver> make_cvode_solver(const Model& model, const SolverSettings& settings) {
  return std::make_unique<CvodeSolver>(model, settings);
}

}  // namespace couplet::models
