#pragma once
// Landing on given times (the breakpoints of stimuli, docs/models.md): a
// variable step that would cross the next one ends on it instead, so that a
// jump never falls inside a step, where the coupling would smear it. Used by
// F3ORNITS (each slave's proposal) and IFOSMONDI (each macro step); defect
// control keeps a cursor of its own, since its steps also keep to a grid.
#include <algorithm>
#include <span>

#include "couplet/time.hpp"

namespace couplet {

/// `end`, or the first of `landings` (increasing) after `start` when it lies
/// before `end` and at least `minimum` (one tick at least) after `start`. A
/// binary search: no allocation, fit for the stepping thread.
inline Time land_on_next(std::span<const Time> landings, Time start, Time end, Time minimum) {
  const auto next = std::upper_bound(landings.begin(), landings.end(), start);
  if (next == landings.end() || *next >= end) return end;
  return *next - start >= std::max<Time>(1, minimum) ? *next : end;
}

}  // namespace couplet
