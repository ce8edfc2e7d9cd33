#pragma once
// One CVODE integrator's SUNDIALS objects (6.4): the context, the solution
// vector, a dense or band matrix with its direct linear solver and the CVODE
// memory, created and initialized together and freed in reverse order. The
// OdeSlave solver (models/cvode_solver.cpp) and the monolithic reference
// (models/monolithic_reference.cpp) both integrate with it; each adds its own
// callbacks (linear system, root finding) and its own segment logic.
#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>

#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace couplet::models {

/// A band ∂f/∂x: rows j − upper .. j + lower of column j.
struct CvodeBand {
  std::size_t lower = 0;
  std::size_t upper = 0;
};

/// What CVodeInit and the first Set calls need.
struct CvodeSetup {
  int method = CV_BDF;                ///< CV_BDF or CV_ADAMS
  std::optional<CvodeBand> band;      ///< none: a dense matrix
  double start = 0.0;                 ///< t₀ of CVodeInit
  CVRhsFn right_hand_side = nullptr;  ///< called with `user_data`
  void* user_data = nullptr;
  double relative_tolerance = 0.0;
  double absolute_tolerance = 0.0;
  long max_steps_per_call = 500;  ///< CVodeSetMaxNumSteps
};

/// Thrown when a SUNDIALS object cannot be created or a set-up call fails.
class CvodeSetupFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class CvodeInstance {
 public:
  /// Creates everything and calls CVodeInit from `initial_state` (whose size is
  /// the system's), then the error handler, user data, scalar tolerances,
  /// linear solver and step limit. Throws CvodeSetupFailure naming the call.
  CvodeInstance(const CvodeSetup& setup, std::span<const double> initial_state);
  CvodeInstance(const CvodeInstance&) = delete;
  CvodeInstance& operator=(const CvodeInstance&) = delete;

  void* memory() const { return memory_.get(); }
  SUNContext context() const { return context_.get(); }
  /// CVODE's solution vector: the initial state, then what CVode returns.
  N_Vector vector() const { return vector_.get(); }
  std::span<double> values() const {
    return {N_VGetArrayPointer_Serial(vector_.get()), length_};
  }
  /// A fresh serial vector of the system's length in this context.
  N_Vector new_vector() const;

  /// The last message CVODE reported ("module/function: text", empty if
  /// none since clear_message()). A fixed buffer: a warning on the real-time
  /// path does not allocate.
  const char* message() const { return message_.data(); }
  void clear_message() { message_[0] = '\0'; }

  /// CVODE's name for a return flag ("CV_CONV_FAILURE", or "flag N").
  static std::string flag_name(int flag);

 private:
  struct ContextDeleter {
    void operator()(SUNContext context) const { SUNContext_Free(&context); }
  };
  struct Deleter {
    void operator()(N_Vector vector) const { N_VDestroy(vector); }
    void operator()(SUNMatrix matrix) const { SUNMatDestroy(matrix); }
    void operator()(SUNLinearSolver solver) const { SUNLinSolFree(solver); }
    void operator()(void* memory) const { CVodeFree(&memory); }
  };
  static void record_message(int, const char* module, const char* function, char* message,
                             void* self);

  std::size_t length_;
  // Declared in order of creation: destroyed in reverse, the context last.
  std::unique_ptr<std::remove_pointer_t<SUNContext>, ContextDeleter> context_;
  std::unique_ptr<std::remove_pointer_t<N_Vector>, Deleter> vector_;
  std::unique_ptr<std::remove_pointer_t<SUNMatrix>, Deleter> matrix_;
  std::unique_ptr<std::remove_pointer_t<SUNLinearSolver>, Deleter> linear_solver_;
  std::unique_ptr<void, Deleter> memory_;
  std::array<char, 512> message_{};
};

}  // namespace couplet::models
