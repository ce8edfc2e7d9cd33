#pragma once
// KINSOL driven by replay, so that a callback-driven solver fits the Algorithm
// contract (runtime/algorithm.hpp: an algorithm never calls slaves; it returns plans).
//
// KINSOL wants to call F(u) itself, and F here is "restore every slave, step it over
// the macro step, read its outputs" — which only the executor may do. So KINSOL is
// re-run from the first iterate every time a new value of F is known: its callback
// answers from the record of values F took so far and, at the first point not in the
// record, stops KINSOL (unrecoverable callback failure) and hands the point out as the
// next iterate. KINSOL is deterministic: with the same answers it asks for the same
// points, bit for bit (checked), so the sequence of iterates is exactly that of an
// uninterrupted solve. The price is re-running KINSOL's own arithmetic, O(m²) in the m
// evaluations of a step, negligible beside the slaves' integrations.
//
// Methods (IFOSMONDI-JFM paper §4.2, appendix A; docs/references.md):
//   newton       F = γ; KIN_LINESEARCH; SPGMR (no preconditioner) with KINSOL's
//                difference-quotient Jacobian-vector products; constant forcing term
//                η (krylov_tolerance); maximum Newton step 10⁸ (table 3's maxstep);
//   anderson     G = Ψ = x − γ; KIN_FP with Anderson acceleration of depth m
//                (KINSetMAA before KINInit), at most the number of unknowns;
//   fixed_point  G = Ψ; KIN_FP without acceleration (classical IFOSMONDI in KINSOL).
// KINSOL's own stopping test is switched off (fnormtol tiny): the caller applies
// eq. 27 to every value of F and stops when it holds.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace couplet {

enum class KinsolMethod { newton, anderson, fixed_point };

struct KinsolSettings {
  KinsolMethod method = KinsolMethod::newton;
  int max_iterations = 50;             ///< KINSOL nonlinear iterations per solve
  double krylov_tolerance = 1e-4;      ///< η: GMRES stops at ‖J p + F‖ ≤ η ‖F‖
  int krylov_dimension = 0;            ///< 0: the number of unknowns (GMRES may solve exactly)
  int anderson_depth = 5;              ///< m, clipped to the number of unknowns
  double residual_relative_error = 1e-8;  ///< relative error of F (KINSetRelErrFunc): DQ increment √ of it
  double max_newton_step = 1e8;
};

class KinsolReplay {
 public:
  /// Allocates KINSOL's memory and the record of at most `max_evaluations` values of F.
  KinsolReplay(std::size_t unknowns, const KinsolSettings& settings, std::size_t max_evaluations);
  ~KinsolReplay();
  KinsolReplay(const KinsolReplay&) = delete;
  KinsolReplay& operator=(const KinsolReplay&) = delete;

  /// A new solve from x⁰ (being evaluated): forgets the record.
  void begin(std::span<const double> first_iterate);

  enum class Outcome { evaluate, stopped };
  /// Records γ(x) at the point KINSOL asked for last (x⁰ first), replays KINSOL and
  /// returns the next point it asks for; `stopped` when KINSOL ends without one
  /// (see stop_reason()).
  Outcome next(std::span<const double> x, std::span<const double> gamma, std::span<double> next_x);

  /// KINSOL's nonlinear iterations that produced the latest point handed out (Newton:
  /// the iteration in progress; fixed point and Anderson: completed updates).
  int iterations_of_latest() const { return latest_iterations_; }
  const std::string& stop_reason() const { return stop_reason_; }

 private:
  /// KINSOL's context, vectors, memory and linear solver (constructor).
  void create();
  /// Frees whatever create() made, also after a partial failure.
  void release();
  int answer(const double* u, double* f);
  void record_error(int code, const char* function, const char* message);
  friend struct KinsolCallbacks;

  std::size_t unknowns_;
  KinsolSettings settings_;
  std::size_t max_evaluations_;

  // SUNDIALS objects, as opaque pointers so that this header stays SUNDIALS-free.
  void* context_ = nullptr;
  void* memory_ = nullptr;
  void* linear_solver_ = nullptr;
  void* template_vector_ = nullptr;
  void* iterate_ = nullptr;
  void* scale_ = nullptr;

  std::vector<double> first_iterate_;
  std::vector<double> points_;     ///< [evaluation][unknown]: where F was evaluated
  std::vector<double> values_;     ///< [evaluation][unknown]: F there
  std::size_t recorded_ = 0;
  std::size_t calls_ = 0;          ///< callback calls in the current replay
  bool requested_ = false;
  bool mismatch_ = false;
  std::vector<double> requested_point_;
  int requested_iterations_ = 0;
  int latest_iterations_ = 0;
  std::string stop_reason_;
  char last_error_[256] = {};
};

}  // namespace couplet
