#include "models/cvode_instance.hpp"

#include <cvode/cvode_ls.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace couplet::models {
namespace {

void check(int flag, const char* call) {
  if (flag < 0) {
    throw CvodeSetupFailure(std::string("CVODE: ") + call + " failed with " +
                            CvodeInstance::flag_name(flag));
  }
}

template <typename Pointer>
Pointer created(Pointer pointer, const char* what) {
  if (pointer == nullptr) throw CvodeSetupFailure(std::string("CVODE: cannot allocate ") + what);
  return pointer;
}

}  // namespace

CvodeInstance::CvodeInstance(const CvodeSetup& setup, std::span<const double> initial_state)
    : length_(initial_state.size()) {
  const auto length = static_cast<sunindextype>(length_);
  SUNContext context = nullptr;
  check(SUNContext_Create(nullptr, &context), "SUNContext_Create");
  context_.reset(context);
  vector_.reset(created(N_VNew_Serial(length, context), "the solution vector"));
  std::copy(initial_state.begin(), initial_state.end(), values().begin());
  if (setup.band) {
    matrix_.reset(created(SUNBandMatrix(length, static_cast<sunindextype>(setup.band->upper),
                                        static_cast<sunindextype>(setup.band->lower), context),
                          "the band matrix"));
    linear_solver_.reset(created(SUNLinSol_Band(vector_.get(), matrix_.get(), context),
                                 "the band linear solver"));
  } else {
    matrix_.reset(created(SUNDenseMatrix(length, length, context), "the dense matrix"));
    linear_solver_.reset(created(SUNLinSol_Dense(vector_.get(), matrix_.get(), context),
                                 "the dense linear solver"));
  }
  memory_.reset(created(CVodeCreate(setup.method, context), "the CVODE memory"));
  void* memory = memory_.get();
  check(CVodeSetErrHandlerFn(memory, &CvodeInstance::record_message, this),
        "CVodeSetErrHandlerFn");
  check(CVodeInit(memory, setup.right_hand_side, setup.start, vector_.get()), "CVodeInit");
  check(CVodeSetUserData(memory, setup.user_data), "CVodeSetUserData");
  check(CVodeSStolerances(memory, setup.relative_tolerance, setup.absolute_tolerance),
        "CVodeSStolerances");
  check(CVodeSetLinearSolver(memory, linear_solver_.get(), matrix_.get()), "CVodeSetLinearSolver");
  check(CVodeSetMaxNumSteps(memory, setup.max_steps_per_call), "CVodeSetMaxNumSteps");
}

N_Vector CvodeInstance::new_vector() const {
  return created(N_VNew_Serial(static_cast<sunindextype>(length_), context_.get()), "a vector");
}

std::string CvodeInstance::flag_name(int flag) {
  char* name = CVodeGetReturnFlagName(flag);  // malloc'ed by SUNDIALS
  std::string result = name != nullptr ? name : "flag " + std::to_string(flag);
  std::free(name);
  return result;
}

// CVErrHandlerFn: keep the message for the caller's error instead of printing it.
void CvodeInstance::record_message(int, const char* module, const char* function, char* message,
                                   void* self) {
  auto& instance = *static_cast<CvodeInstance*>(self);
  std::snprintf(instance.message_.data(), instance.message_.size(), "%s/%s: %s", module, function,
                message);
}

}  // namespace couplet::models
