#include "models/cvode_solver.hpp"

#include <cvode/cvode.h>
#include <cvode/cvode_ls.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/exact_text.hpp"
#include "models/cvode_instance.hpp"

namespace couplet::models {
namespace {

// CVODE's default of 500 internal steps per call is easily exceeded by one long
// macro step of a stiff or oscillating model; this still bounds a runaway.
constexpr long kMaxInternalStepsPerCall = 100'000;

// More state events than this within one integration call is chattering.
constexpr int kMaxStateEventsPerCall = 10'000;

using VectorOwner = std::unique_ptr<std::remove_pointer_t<N_Vector>, decltype(&N_VDestroy)>;

class CvodeSolver final : public Solver {
 public:
  CvodeSolver(const Model& model, const SolverSettings& settings, CvodeCarry& carry)
      : model_(model), settings_(settings), carry_(carry) {}

  void setup(double start, std::span<const double> state) override {
    // Release before building anew (a work vector lives in its lane's context).
    lane_ = nullptr;
    cvode_ = nullptr;
    work_ = nullptr;
    lanes_.clear();
    inputs_.assign(input_jet_size(model_), 0.0);
    state_count_ = state.size();
    choose_band();
    carry_ = CvodeCarry{};
    carry_.jacobian.assign(state_count_ * (banded_ ? band_width() : state_count_), 0.0);
    band_saved_state_.assign(banded_ ? state_count_ : 0, 0.0);
    const std::size_t lanes = settings_.history == CvodeHistory::keep ? kKeptLanes : 1;
    lanes_.resize(lanes);
    for (std::size_t k = 0; k < lanes; ++k) set_up_lane(k, start, state);
    use_lane(0);
  }

  /// The inputs change at every communication time and the equations at every
  /// event, and a BDF/Adams history across either would be wrong: re-initialize at
  /// the segment start, stop exactly at its end (CVodeSetStopTime), and reach the
  /// samples with CV_NORMAL (CVODE interpolates when it has stepped past them).
  /// The restart starts from the carry (CvodeCarry): the first step and the
  /// Jacobian of the previous segment, instead of CVODE estimating both anew.
  /// With CvodeHistory::keep a segment that continues a smooth solution
  /// (Segment::continues) does not restart: the lane of its attempt
  /// (Segment::attempt) steps on from its Nordsieck history with the new inputs
  /// and the given state (continue_history), and its local error test shrinks
  /// the step and order as far as the jump at the communication time requires.
  void integrate(const Segment& segment, std::span<double> state, SampleSink& sink) override {
    use_lane(segment.attempt);
    void* memory = cvode_->memory();
    const bool keep_history = keeps_history(segment);
    lane_->history_end = std::numeric_limits<double>::quiet_NaN();  // until this one succeeds
    segment_ = &segment;
    pending_exception_ = nullptr;
    non_finite_time_ = std::numeric_limits<double>::quiet_NaN();
    cvode_->clear_message();
    select_jacobian(segment);
    if (!keep_history) {
      std::copy(state.begin(), state.end(), state_data());
      check(CVodeReInit(memory, segment.start, cvode_->vector()), "CVodeReInit", segment.start);
      check(CVodeSetInitStep(memory, restart_step(segment)), "CVodeSetInitStep", segment.start);
      keep_jacobian_ = segment_form_ == nullptr && carry_.jacobian_valid;
    } else {
      continue_history(segment.start, state);
    }
    check(CVodeSetStopTime(memory, segment.end), "CVodeSetStopTime", segment.start);

    double reached = segment.start;
    for (std::size_t k = 0; k < segment.sample_times.size(); ++k) {
      const double sample_time = to_seconds(segment.sample_times[k]);
      reached = advance_to(std::min(sample_time, segment.end), reached);
      sink.sample(k, sample_time, {state_data(), state_count_});
    }
    if (reached < segment.end) advance_to(segment.end, reached);
    carry_.initial_step = next_initial_step(segment.end);
    std::copy(state_data(), state_data() + state_count_, state.begin());
    std::copy(state_data(), state_data() + state_count_, lane_->end_state.begin());
    segment_ = nullptr;
    lane_->history_end = segment.end;
  }

 private:
  double* state_data() { return cvode_->values().data(); }

  /// Lanes kept with CvodeHistory::keep: one per integration a master makes from
  /// one saved state before it saves again (the semi-implicit scheme: predictor,
  /// perturbed predictor, corrector). Further re-runs share the last lane.
  static constexpr std::size_t kKeptLanes = 3;

  /// One CVODE integrator and what continuing its history needs.
  struct Lane {
    std::unique_ptr<CvodeInstance> cvode;
    VectorOwner work{nullptr, &N_VDestroy};  ///< ẍ, ẋ at a segment end (next_initial_step)
    /// Where this lane's last successful integrate() ended (NaN: none since
    /// setup, or it failed), and the state it returned there: CVODE's history
    /// is valid there (keeps_history).
    double history_end = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> end_state;
  };

  /// Creates lane `index`'s integrator and takes its first CVode call.
  void set_up_lane(std::size_t index, double start, std::span<const double> state) {
    Lane& lane = lanes_[index];
    try {
      lane.cvode = std::make_unique<CvodeInstance>(
          CvodeSetup{.method = settings_.method == CvodeMethod::bdf ? CV_BDF : CV_ADAMS,
                     .band = banded_ ? std::optional(CvodeBand{.lower = lower_, .upper = upper_})
                                     : std::nullopt,
                     .start = start,
                     .right_hand_side = &CvodeSolver::right_hand_side,
                     .user_data = this,
                     .relative_tolerance = settings_.relative_tolerance,
                     .absolute_tolerance = settings_.absolute_tolerance,
                     .max_steps_per_call = kMaxInternalStepsPerCall},
          state);
      lane.work.reset(lane.cvode->new_vector());
    } catch (const CvodeSetupFailure& failure) {
      throw SolverFailure(start, failure.what());
    }
    lane.end_state.assign(state_count_, 0.0);
    void* memory = lane.cvode->memory();
    check_setup(CVodeSetLinSysFn(memory, &CvodeSolver::linear_system), "CVodeSetLinSysFn", start);
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
    use_lane(index);  // the warm-up's callbacks work on the current lane
    warm_up(start);
  }

  void use_lane(std::size_t index) {
    lane_ = &lanes_[std::min(index, lanes_.size() - 1)];
    cvode_ = lane_->cvode.get();
    work_ = lane_->work.get();
  }

  /// Whether to continue CVODE's history into `segment` (CvodeHistory::keep):
  /// only where the previous integrate() ended, with nothing in between
  /// (Segment::continues), and not for a model with state events, whose
  /// indicators read the inputs: their jump at the communication time would
  /// look to CVODE's root finding like a crossing inside the step.
  bool keeps_history(const Segment& segment) const {
    return settings_.history == CvodeHistory::keep && segment.continues &&
           segment.start == lane_->history_end && model_.event_indicator_count() == 0;
  }

  /// The band solver when the model declares a banded ∂f/∂x (Model::jacobian_band)
  /// and the band holds at most a quarter of the columns: the difference-quotient
  /// Jacobian then takes lower + upper + 1 right-hand sides instead of n, and the
  /// factorization O(n (lower + upper) lower) instead of O(n³) (docs/chain.md has
  /// the measurement).
  void choose_band() {
    const std::optional<Model::JacobianBand> band = model_.jacobian_band();
    banded_ =
        settings_.band_when_declared && band && 4 * (band->lower + band->upper + 1) <= state_count_;
    lower_ = banded_ ? band->lower : 0;
    upper_ = banded_ ? band->upper : 0;
  }

  /// Entries per column of the carried band Jacobian: rows j − upper .. j + lower.
  std::size_t band_width() const { return lower_ + upper_ + 1; }

  /// CVODE finishes some of its set-up in the first CVode call rather than in the
  /// Set calls (cvLsInitialize, which with CVODE's own linear-system function also
  /// clones the matrix there). Take that first call here, on ẋ = 0 without
  /// touching the model (no inputs exist yet), so that integrate() never
  /// allocates. integrate() re-initializes; the warm-up leaves nothing in the
  /// carry (its J is that of ẋ = 0).
  void warm_up(double start) {
    warming_up_ = true;
    double reached = start;
    const int flag = CVode(cvode_->memory(), start + 1.0, cvode_->vector(), &reached, CV_ONE_STEP);
    warming_up_ = false;
    check_setup(flag, "CVode (warm-up)", start);
  }

  /// The first internal step after the restart at segment.start: the carried one
  /// within the bounds cvHin puts on its own estimate, [100 u max(|t₀|, |t₁|),
  /// 0.1 (t₁ − t₀)] (u the unit roundoff); 0 (CVODE estimates it) when none is carried.
  double restart_step(const Segment& segment) const {
    if (!(carry_.initial_step > 0.0)) return 0.0;
    const double lower = 100.0 * std::numeric_limits<double>::epsilon() *
                         std::max(std::abs(segment.start), std::abs(segment.end));
    return std::max(std::min(carry_.initial_step, 0.1 * (segment.end - segment.start)), lower);
  }

  /// The first step for the restart at the next segment start, from ẍ and ẋ at
  /// the end of this one as CVODE's Nordsieck history holds them (CVodeGetDky).
  /// It is cvHin's own choice, h₀ = ½ √(2 / ‖ẍ‖) (the order-1 step whose local
  /// error h₀² ‖ẍ‖ / 2 meets the tolerance in CVODE's weighted RMS norm, with
  /// cvHin's bias ½), within its bound |h₀ ẋᵢ| ≤ 0.1 |xᵢ| + tolᵢ, but without the
  /// right-hand-side evaluations cvHin spends estimating ẍ by differences. The
  /// inputs jump at the next start, so ẍ there differs somewhat: the error test
  /// of the first step corrects a wrong guess as it corrects cvHin's. Carrying the
  /// last internal step instead is worse: that step is of order 2 to 5, far too
  /// long for the order-1 restart, and fails the error test (docs/results.md).
  /// 0 (CVODE estimates) when the history is of order 1 or ẍ vanishes.
  double next_initial_step(double time) {
    void* memory = cvode_->memory();
    int order = 0;
    if (CVodeGetLastOrder(memory, &order) < 0 || order < 2) return 0.0;
    if (CVodeGetDky(memory, time, 2, work_) < 0) return 0.0;
    const double* x = state_data();
    const double* derivative = N_VGetArrayPointer(work_);
    double sum = 0.0;
    for (std::size_t i = 0; i < state_count_; ++i) {
      const double weighted = derivative[i] / tolerance(x[i]);
      sum += weighted * weighted;
    }
    const double norm = std::sqrt(sum / static_cast<double>(state_count_));
    if (!(norm > 0.0) || !std::isfinite(norm)) return 0.0;
    double step = 0.5 * std::sqrt(2.0 / norm);
    if (CVodeGetDky(memory, time, 1, work_) < 0) return 0.0;
    double rate = 0.0;  // max |ẋᵢ| / (0.1 |xᵢ| + tolᵢ)
    for (std::size_t i = 0; i < state_count_; ++i) {
      rate = std::max(rate, std::abs(derivative[i]) / (0.1 * std::abs(x[i]) + tolerance(x[i])));
    }
    if (rate * step > 1.0) step = 1.0 / rate;
    return step;
  }

  /// The new inputs make ẋ jump at the communication time while x is continuous.
  /// The Nordsieck history's first column is h ẋ of the old inputs: with it, the
  /// predictor misses by h Δẋ, which at order q > 1 no step size the error test
  /// can reach in its seven tries fixes (CVODE reloads h f only after falling to
  /// order 1). Reload that column with the new inputs, z₁ = h f(tₙ, z₀, u(tₙ)) —
  /// what CVODE itself does after repeated error-test failures — and keep the
  /// higher ones: the error test corrects what remains of the jump in ẍ, ...
  ///
  /// A lane that a restore_state took back to the saved state (Segment::attempt)
  /// ended its last run elsewhere: at the same time, but on a trajectory of other
  /// inputs (the predictor's, say, where the corrector's is accepted). Its value
  /// column z₀ is then replaced by the given state as well; the higher columns,
  /// the curvature of a neighbouring trajectory, are the same kind of guess as
  /// after an input jump, and the error test judges them the same way.
  void continue_history(double time, std::span<const double> state) {
    void* memory = cvode_->memory();
    double current = 0.0, gamma = 0.0, rl1 = 0.0, last_step = 0.0;
    N_Vector predicted = nullptr, corrected = nullptr, slope = nullptr, history_1 = nullptr;
    void* user_data = nullptr;
    check(CVodeGetNonlinearSystemData(memory, &current, &predicted, &corrected, &slope, &gamma,
                                      &rl1, &history_1, &user_data),
          "CVodeGetNonlinearSystemData", time);
    check(CVodeGetLastStep(memory, &last_step), "CVodeGetLastStep", time);
    // z₀ = x(tₙ) between steps (tₙ within CVODE's round-off of the segment start);
    // only a state this lane did not return itself replaces it, so that a lane
    // continuing its own solution keeps its bits.
    if (!std::equal(state.begin(), state.end(), lane_->end_state.begin())) {
      std::copy(state.begin(), state.end(), N_VGetArrayPointer(predicted));
    }
    if (right_hand_side(current, predicted, work_, this) != 0) {
      check(-1, "the right-hand side at the continued start", time);
    }
    N_VScale(last_step, work_, history_1);
  }

  /// 1 / wᵢ of CVODE's error weights (scalar tolerances).
  double tolerance(double x) const {
    return settings_.relative_tolerance * std::abs(x) + settings_.absolute_tolerance;
  }

  /// CVode in normal mode to `target`; returns the time reached (== target).
  /// At a state event on the way the model handles it and CVODE restarts there.
  double advance_to(double target, double reached) {
    double returned_time = reached;
    for (int events = 0;; ++events) {
      const int flag = CVode(cvode_->memory(), target, cvode_->vector(), &returned_time, CV_NORMAL);
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

  /// The model may change x and its equations at the event: CVODE estimates the
  /// first step and evaluates J afresh (the carry is of the solution before it).
  void handle_state_event(double time) {
    evaluate_input_jet(segment_->inputs, time, model_.input_derivative_order(), inputs_);
    model_.handle_event(time, {state_data(), state_count_}, inputs_);
    check(CVodeReInit(cvode_->memory(), time, cvode_->vector()), "CVodeReInit", time);
    check(CVodeSetInitStep(cvode_->memory(), 0.0), "CVodeSetInitStep", time);
    keep_jacobian_ = false;
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

  /// The analytic Jacobian A when the segment is linear, else difference
  /// quotients (linear_system).
  void select_jacobian(const Segment& segment) {
    segment_form_ = model_.linear_form(segment.start);
    const auto size = static_cast<Eigen::Index>(state_count_);
    if (segment_form_ != nullptr &&
        (segment_form_->A.rows() != size || segment_form_->A.cols() != size)) {
      throw SolverFailure(segment.start, "CVODE: the model's linear form has a wrongly sized A");
    }
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
    std::string reason = std::string("CVODE: ") + call + " returned " + CvodeInstance::flag_name(flag);
    if (!std::isnan(non_finite_time_)) {
      reason += ": the model's derivatives are not finite (NaN or Inf) at t = " +
                exact_text(non_finite_time_) + " s";
    } else if (cvode_->message()[0] != '\0') {
      reason += " (" + std::string(cvode_->message()) + ")";
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

  // CVLsLinSysFn: M = I − γ J for the Newton iterations, J = ∂f/∂x kept in the
  // carry. It replaces CVODE's own (cvLsLinSys) for two reasons. CVodeReInit
  // restarts the step count, and CVODE then evaluates J at the first step of every
  // restart; a difference-quotient J costs n right-hand-side evaluations, so the
  // first setup after a restart takes the J of the previous segment instead and
  // reports it as not current (*jacobian_current = false): should Newton then fail
  // to converge, CVODE asks again with jacobian_ok = false and gets a fresh one. J
  // only steers the Newton iterations; the corrector's convergence test and the
  // error test decide the solution. And CVODE's difference quotients
  // (cvLsDenseDQJac) allocate a vector at every evaluation. With a linear form J is
  // its A, exact and free, evaluated whenever CVODE asks.
  static int linear_system(double time, N_Vector state, N_Vector slope, SUNMatrix system,
                           sunbooleantype jacobian_ok, sunbooleantype* jacobian_current,
                           double gamma, void* user_data, N_Vector work1, N_Vector work2,
                           N_Vector) {
    auto& self = *static_cast<CvodeSolver*>(user_data);
    const bool keep = std::exchange(self.keep_jacobian_, false);
    std::vector<double>& jacobian = self.carry_.jacobian;
    if (jacobian_ok || keep) {
      *jacobian_current = SUNFALSE;
    } else {
      if (self.segment_form_ != nullptr) {
        self.copy_linear_form_jacobian();
      } else {
        const int flag = self.banded_
                             ? self.band_difference_quotients(time, state, slope, work1, work2)
                             : self.difference_quotients(time, state, slope, work1, work2);
        if (flag != 0) return flag;
      }
      self.carry_.jacobian_valid = !self.warming_up_;
      *jacobian_current = SUNTRUE;
    }
    if (self.banded_) {
      self.copy_band_jacobian(system);
    } else {
      std::copy(jacobian.begin(), jacobian.end(), SUNDenseMatrix_Data(system));
    }
    return SUNMatScaleAddI(-gamma, system) == SUNMAT_SUCCESS ? 0 : -1;
  }

  /// Rows of column j inside the band and the matrix: [first, last].
  std::size_t band_first_row(std::size_t j) const { return j > upper_ ? j - upper_ : 0; }
  std::size_t band_last_row(std::size_t j) const { return std::min(state_count_ - 1, j + lower_); }
  /// Index of J(i, j) in the carried band Jacobian (column-major, band_width() per column).
  std::size_t band_index(std::size_t i, std::size_t j) const {
    return j * band_width() + (i + upper_ - j);
  }

  /// The segment's A into the carry: whole (dense) or its band.
  void copy_linear_form_jacobian() {
    const Eigen::MatrixXd& a = segment_form_->A;  // column-major, as SUNDenseMatrix
    if (!banded_) {
      std::copy(a.data(), a.data() + a.size(), carry_.jacobian.begin());
      return;
    }
    for (std::size_t j = 0; j < state_count_; ++j) {
      for (std::size_t i = band_first_row(j); i <= band_last_row(j); ++i) {
        carry_.jacobian[band_index(i, j)] =
            a(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j));
      }
    }
  }

  /// The carried band Jacobian into CVODE's band matrix (its extra upper
  /// diagonals for the LU fill are cleared by the band factorization itself).
  void copy_band_jacobian(SUNMatrix system) const {
    for (std::size_t j = 0; j < state_count_; ++j) {
      double* column = SUNBandMatrix_Column(system, static_cast<sunindextype>(j));  // at (j, j)
      for (std::size_t i = band_first_row(j); i <= band_last_row(j); ++i) {
        column[static_cast<std::ptrdiff_t>(i) - static_cast<std::ptrdiff_t>(j)] =
            carry_.jacobian[band_index(i, j)];
      }
    }
  }

  /// ∂f/∂x of a banded model by forward differences in groups of columns
  /// band_width() apart, which no row reads together (CVODE's cvLsBandDQJac): one
  /// right-hand side per group. Increments as in difference_quotients.
  int band_difference_quotients(double time, N_Vector state, N_Vector slope, N_Vector weights,
                                N_Vector shifted_slope) {
    double minimum_increment = 0.0;
    if (const int flag = difference_setup(slope, weights, minimum_increment); flag != 0) {
      return flag;
    }
    double* x = N_VGetArrayPointer(state);
    const double* weight = N_VGetArrayPointer(weights);
    const double* f = N_VGetArrayPointer(slope);
    const double* shifted = N_VGetArrayPointer(shifted_slope);
    std::copy(x, x + state_count_, band_saved_state_.begin());
    const double roundoff_root = std::sqrt(std::numeric_limits<double>::epsilon());
    const auto increment_of = [&](std::size_t j) {
      return std::max(roundoff_root * std::abs(band_saved_state_[j]),
                      minimum_increment / weight[j]);
    };
    const std::size_t width = band_width();
    for (std::size_t group = 0; group < std::min(width, state_count_); ++group) {
      for (std::size_t j = group; j < state_count_; j += width) {
        x[j] = band_saved_state_[j] + increment_of(j);
      }
      const int flag = right_hand_side(time, state, shifted_slope, this);
      for (std::size_t j = group; j < state_count_; j += width) x[j] = band_saved_state_[j];
      if (flag != 0) return flag;
      for (std::size_t j = group; j < state_count_; j += width) {
        const double inverse = 1.0 / increment_of(j);
        for (std::size_t i = band_first_row(j); i <= band_last_row(j); ++i) {
          carry_.jacobian[band_index(i, j)] = inverse * (shifted[i] - f[i]);
        }
      }
    }
    return 0;
  }

  /// CVODE's error weights into `weights` and its smallest increment δ_min =
  /// 1000 |h| u n ‖f‖ (1 when f = 0), as cvLsDenseDQJac and cvLsBandDQJac take them.
  int difference_setup(N_Vector slope, N_Vector weights, double& minimum_increment) {
    void* memory = cvode_->memory();
    double step = 0.0;  // h of the step being attempted (0 before the first: then h₀)
    if (CVodeGetErrWeights(memory, weights) < 0 || CVodeGetCurrentStep(memory, &step) < 0) {
      return -1;
    }
    if (step == 0.0 && CVodeGetActualInitStep(memory, &step) < 0) return -1;
    const double roundoff = std::numeric_limits<double>::epsilon();
    const double slope_norm = N_VWrmsNorm(slope, weights);
    minimum_increment = slope_norm != 0.0 ? 1000.0 * std::abs(step) * roundoff *
                                                static_cast<double>(state_count_) * slope_norm
                                          : 1.0;
    return 0;
  }

  /// ∂f/∂x at (t, x) by forward differences into the carry, column j from
  /// f(t, x + δⱼ eⱼ) with CVODE's increment δⱼ = max(√u |xⱼ|, δ_min / wⱼ),
  /// δ_min = 1000 |h| u n ‖f‖ (cvLsDenseDQJac), so that J is the one CVODE would
  /// compute. `slope` is f(t, x); x is restored after each column.
  int difference_quotients(double time, N_Vector state, N_Vector slope, N_Vector weights,
                           N_Vector shifted_slope) {
    double minimum_increment = 0.0;
    if (const int flag = difference_setup(slope, weights, minimum_increment); flag != 0) {
      return flag;
    }
    const double roundoff = std::numeric_limits<double>::epsilon();
    double* x = N_VGetArrayPointer(state);
    const double* weight = N_VGetArrayPointer(weights);
    const double* f = N_VGetArrayPointer(slope);
    const double* shifted = N_VGetArrayPointer(shifted_slope);
    for (std::size_t j = 0; j < state_count_; ++j) {
      const double saved = x[j];
      const double increment =
          std::max(std::sqrt(roundoff) * std::abs(saved), minimum_increment / weight[j]);
      x[j] = saved + increment;
      const int flag = right_hand_side(time, state, shifted_slope, this);
      x[j] = saved;
      if (flag != 0) return flag;
      double* column = carry_.jacobian.data() + j * state_count_;
      const double inverse = 1.0 / increment;
      for (std::size_t i = 0; i < state_count_; ++i) column[i] = inverse * (shifted[i] - f[i]);
    }
    return 0;
  }

  const Model& model_;
  const SolverSettings settings_;
  CvodeCarry& carry_;  ///< owned by the slave, saved and restored with x
  std::size_t state_count_ = 0;
  std::vector<Lane> lanes_;  ///< made in setup: one, or kKeptLanes with CvodeHistory::keep
  // The lane of the current segment (use_lane) and its integrator and work vector.
  Lane* lane_ = nullptr;
  CvodeInstance* cvode_ = nullptr;
  N_Vector work_ = nullptr;
  std::vector<double> inputs_;  ///< u(t) (the input jet), sized in setup
  // Band linear algebra (choose_band): bandwidths, and x while columns are shifted.
  bool banded_ = false;
  std::size_t lower_ = 0, upper_ = 0;
  std::vector<double> band_saved_state_;

  // Per-segment, for the callbacks.
  const Segment* segment_ = nullptr;
  bool warming_up_ = false;
  bool keep_jacobian_ = false;  ///< the next setup takes the carried J (linear_system)
  const LinearForm* segment_form_ = nullptr;
  std::exception_ptr pending_exception_;
  double non_finite_time_ = std::numeric_limits<double>::quiet_NaN();  ///< where f was NaN/Inf
};

}  // namespace

std::unique_ptr<Solver> make_cvode_solver(const Model& model, const SolverSettings& settings,
                                          CvodeCarry& carry) {
  return std::make_unique<CvodeSolver>(model, settings, carry);
}

}  // namespace couplet::models
