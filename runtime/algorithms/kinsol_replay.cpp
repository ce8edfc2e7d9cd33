#include "runtime/algorithms/kinsol_replay.hpp"

#include <kinsol/kinsol.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_spgmr.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>

namespace couplet {

// The C callbacks KINSOL calls, forwarding to the replay that owns the memory.
struct KinsolCallbacks {
  static int system(N_Vector u, N_Vector f, void* user_data) {
    return static_cast<KinsolReplay*>(user_data)->answer(N_VGetArrayPointer(u), N_VGetArrayPointer(f));
  }
  static void error(int code, const char*, const char* function, char* message, void* user_data) {
    static_cast<KinsolReplay*>(user_data)->record_error(code, function, message);
  }
};

namespace {

void check(int flag, const char* call) {
  if (flag < 0) throw std::runtime_error(std::string("KINSOL set-up: ") + call + " failed with flag " + std::to_string(flag));
}

template <typename Pointer>
Pointer require(Pointer pointer, const char* call) {
  if (pointer == nullptr) throw std::bad_alloc();
  (void)call;
  return pointer;
}

N_Vector vector(void* pointer) { return static_cast<N_Vector>(pointer); }

std::string flag_name(int flag) {
  char* name = KINGetReturnFlagName(flag);
  std::string text = name ? name : ("flag " + std::to_string(flag));
  std::free(name);
  return text;
}

}  // namespace

KinsolReplay::KinsolReplay(std::size_t unknowns, const KinsolSettings& settings, std::size_t max_evaluations)
    : unknowns_(unknowns), settings_(settings), max_evaluations_(max_evaluations) {
  if (unknowns == 0) throw std::invalid_argument("KinsolReplay: no unknowns");
  try {
    create();
  } catch (...) {
    release();  // the destructor does not run for a constructor that throws
    throw;
  }
  first_iterate_.assign(unknowns, 0.0);
  points_.assign(max_evaluations * unknowns, 0.0);
  values_.assign(max_evaluations * unknowns, 0.0);
  requested_point_.assign(unknowns, 0.0);
}

void KinsolReplay::create() {
  const std::size_t unknowns = unknowns_;
  const KinsolSettings& settings = settings_;
  SUNContext context = nullptr;
  check(SUNContext_Create(nullptr, &context), "SUNContext_Create");
  context_ = context;
  const auto length = static_cast<sunindextype>(unknowns);
  template_vector_ = require(N_VNew_Serial(length, context), "N_VNew_Serial");
  iterate_ = require(N_VNew_Serial(length, context), "N_VNew_Serial");
  scale_ = require(N_VNew_Serial(length, context), "N_VNew_Serial");
  N_VConst(1.0, vector(scale_));  // unscaled: eq. 27 is on the plain Euclidean norms
  memory_ = require(KINCreate(context), "KINCreate");

  const bool newton = settings.method == KinsolMethod::newton;
  if (settings.method == KinsolMethod::anderson) {
    // Must precede KINInit, which sizes the acceleration space (KINSOL documents this order).
    const long depth = std::clamp<long>(settings.anderson_depth, 1, static_cast<long>(unknowns));
    check(KINSetMAA(memory_, depth), "KINSetMAA");
  }
  check(KINInit(memory_, KinsolCallbacks::system, vector(template_vector_)), "KINInit");
  check(KINSetUserData(memory_, this), "KINSetUserData");
  check(KINSetErrHandlerFn(memory_, KinsolCallbacks::error, this), "KINSetErrHandlerFn");
  check(KINSetPrintLevel(memory_, 0), "KINSetPrintLevel");
  // The fixed-point loop evaluates G once per iteration, the first at x⁰: one more
  // iteration lets max_iterations updates be evaluated.
  check(KINSetNumMaxIters(memory_, settings.max_iterations + (newton ? 0 : 1)), "KINSetNumMaxIters");
  check(KINSetFuncNormTol(memory_, std::numeric_limits<double>::min()), "KINSetFuncNormTol");
  if (newton) {
    const int dimension = settings.krylov_dimension > 0 ? settings.krylov_dimension : static_cast<int>(unknowns);
    linear_solver_ = require(SUNLinSol_SPGMR(vector(template_vector_), SUN_PREC_NONE, dimension, context),
                             "SUNLinSol_SPGMR");
    check(KINSetLinearSolver(memory_, static_cast<SUNLinearSolver>(linear_solver_), nullptr), "KINSetLinearSolver");
    check(KINSetEtaForm(memory_, KIN_ETACONSTANT), "KINSetEtaForm");
    check(KINSetEtaConstValue(memory_, settings.krylov_tolerance), "KINSetEtaConstValue");
    check(KINSetRelErrFunc(memory_, settings.residual_relative_error), "KINSetRelErrFunc");
    check(KINSetMaxNewtonStep(memory_, settings.max_newton_step), "KINSetMaxNewtonStep");
  }
}

KinsolReplay::~KinsolReplay() { release(); }

void KinsolReplay::release() {
  if (memory_) KINFree(&memory_);
  if (linear_solver_) SUNLinSolFree(static_cast<SUNLinearSolver>(linear_solver_));
  for (void* pointer : {template_vector_, iterate_, scale_}) {
    if (pointer) N_VDestroy(vector(pointer));
  }
  if (context_) {
    SUNContext context = static_cast<SUNContext>(context_);
    SUNContext_Free(&context);
  }
  memory_ = linear_solver_ = template_vector_ = iterate_ = scale_ = context_ = nullptr;
}

void KinsolReplay::begin(std::span<const double> first_iterate) {
  std::copy(first_iterate.begin(), first_iterate.end(), first_iterate_.begin());
  std::copy(first_iterate.begin(), first_iterate.end(), requested_point_.begin());
  recorded_ = 0;
  latest_iterations_ = 0;
  requested_iterations_ = 0;
}

KinsolReplay::Outcome KinsolReplay::next(std::span<const double> x, std::span<const double> gamma,
                                         std::span<double> next_x) {
  if (!std::equal(x.begin(), x.end(), requested_point_.begin())) {
    throw std::logic_error("KinsolReplay: evaluated a point KINSOL did not ask for");
  }
  if (recorded_ == max_evaluations_) {
    stop_reason_ = std::to_string(max_evaluations_) + " evaluations of the residual without convergence";
    return Outcome::stopped;
  }
  double* point = points_.data() + recorded_ * unknowns_;
  double* value = values_.data() + recorded_ * unknowns_;
  for (std::size_t k = 0; k < unknowns_; ++k) {
    point[k] = x[k];
    // Newton solves γ = 0; the fixed-point solvers iterate G = Ψ = x − γ.
    value[k] = settings_.method == KinsolMethod::newton ? gamma[k] : x[k] - gamma[k];
  }
  ++recorded_;

  std::copy(first_iterate_.begin(), first_iterate_.end(), N_VGetArrayPointer(vector(iterate_)));
  calls_ = 0;
  requested_ = false;
  mismatch_ = false;
  last_error_[0] = '\0';
  const int strategy = settings_.method == KinsolMethod::newton ? KIN_LINESEARCH : KIN_FP;
  const int flag = KINSol(memory_, vector(iterate_), strategy, vector(scale_), vector(scale_));
  if (mismatch_) {
    throw std::logic_error("KinsolReplay: KINSOL asked for a different point on replay (not deterministic)");
  }
  if (requested_) {
    std::copy(requested_point_.begin(), requested_point_.end(), next_x.begin());
    latest_iterations_ = requested_iterations_;
    return Outcome::evaluate;
  }
  stop_reason_ = "KINSOL stopped: " + flag_name(flag) + (last_error_[0] ? std::string(" (") + last_error_ + ")" : "");
  return Outcome::stopped;
}

int KinsolReplay::answer(const double* u, double* f) {
  if (calls_ < recorded_) {
    const double* point = points_.data() + calls_ * unknowns_;
    if (std::memcmp(point, u, unknowns_ * sizeof(double)) != 0) {
      mismatch_ = true;
      return -1;
    }
    std::copy_n(values_.data() + calls_ * unknowns_, unknowns_, f);
    ++calls_;
    return 0;
  }
  // A new point: hand it out and stop this replay.
  std::copy_n(u, unknowns_, requested_point_.begin());
  long iterations = 0;
  KINGetNumNonlinSolvIters(memory_, &iterations);
  // The fixed-point loop evaluates G(u_k) at the start of iteration k + 1.
  if (settings_.method != KinsolMethod::newton) iterations = std::max(0L, iterations - 1);
  requested_iterations_ = static_cast<int>(iterations);
  requested_ = true;
  return -1;
}

void KinsolReplay::record_error(int code, const char* function, const char* message) {
  if (requested_ || mismatch_) return;  // our own stop, not a KINSOL failure
  std::snprintf(last_error_, sizeof last_error_, "%s, %s: %s", function ? function : "KINSOL",
                flag_name(code).c_str(), message ? message : "");
}

}  // namespace couplet
