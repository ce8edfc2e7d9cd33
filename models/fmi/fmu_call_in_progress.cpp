#include "models/fmi/fmu_call_in_progress.hpp"

namespace couplet::models::fmi {

namespace {
thread_local const FmuCall* current_call = nullptr;
}  // namespace

FmuCallScope::FmuCallScope(const FmuCall& call) noexcept : previous_(current_call) {
  current_call = &call;
}

FmuCallScope::~FmuCallScope() {
  current_call = previous_;
}

const FmuCall* fmu_call_in_progress() noexcept {
  return current_call;
}

}  // namespace couplet::models::fmi
