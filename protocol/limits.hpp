#pragma once
// Capacities of the wire messages (docs/links.md: fixed-size fields so the target
// side never allocates). The numbers live in couplet.options, where nanopb reads
// them; they are repeated here as constants for C++ code and checked against the
// generated structs at compile time, so the two cannot drift apart.
#include <cstddef>

#include "protocol/couplet.pb.h"

namespace couplet::protocol {

inline constexpr std::size_t kMaxCoefficients = 8;   ///< Polynomial::kMaxDegree + 1
inline constexpr std::size_t kMaxPorts = 16;         ///< inputs, outputs, discrete inputs, discrete outputs, per slave
inline constexpr std::size_t kMaxEndOutputs = 64;    ///< (derivative order + 1) × outputs
inline constexpr std::size_t kMaxParameters = 32;
inline constexpr std::size_t kMaxTextParameters = 8;  ///< String and Binary parameters
inline constexpr std::size_t kMaxTextBytes = 255;     ///< one of them, without the terminating NUL
inline constexpr std::size_t kMaxSampleTimes = 1024; ///< intermediate samples per step
inline constexpr std::size_t kMaxSampleValues = 6144;  ///< sample times × outputs per step
/// Values of one linearization, x, ẋ, A, B, C, D (e.g. 16 states, 8 inputs, 8
/// outputs): bounded by the run log's record, which must stay below 64 KiB.
inline constexpr std::size_t kMaxLinearizationValues = 720;
inline constexpr std::size_t kMaxNameBytes = 63;     ///< names, without the terminating NUL
inline constexpr std::size_t kMaxUnitBytes = 31;     ///< port units, without the terminating NUL

template <typename Struct, typename Element, std::size_t Count>
constexpr std::size_t capacity(Element (Struct::*)[Count]) {
  return Count;
}

static_assert(capacity(&couplet_wire_Polynomial::coefficients) == kMaxCoefficients);
static_assert(capacity(&couplet_wire_Describe::inputs) == kMaxPorts);
static_assert(capacity(&couplet_wire_Describe::outputs) == kMaxPorts);
static_assert(capacity(&couplet_wire_Describe::discrete_inputs) == kMaxPorts);
static_assert(capacity(&couplet_wire_Describe::discrete_outputs) == kMaxPorts);
static_assert(capacity(&couplet_wire_SlaveCall::discrete_inputs) == kMaxPorts);
static_assert(capacity(&couplet_wire_SlaveCall::discrete_outputs) == kMaxPorts);
static_assert(capacity(&couplet_wire_StepRequest::discrete_inputs) == kMaxPorts);
static_assert(capacity(&couplet_wire_StepResult::discrete_outputs) == kMaxPorts);
static_assert(capacity(&couplet_wire_Ack::discrete_outputs) == kMaxPorts);
static_assert(capacity(&couplet_wire_EvaluateOutputs::inputs) == kMaxPorts);
static_assert(capacity(&couplet_wire_StepRequest::inputs) == kMaxPorts);
static_assert(capacity(&couplet_wire_Outputs::values) == kMaxEndOutputs);
static_assert(capacity(&couplet_wire_StepResult::end_outputs) == kMaxEndOutputs);
static_assert(capacity(&couplet_wire_Configure::parameters) == kMaxParameters);
static_assert(capacity(&couplet_wire_Configure::text_parameters) == kMaxTextParameters);
static_assert(capacity(&couplet_wire_TextParameter::text) == kMaxTextBytes + 1);
static_assert(capacity(&couplet_wire_StepRequest::sample_times_ns) == kMaxSampleTimes);
static_assert(capacity(&couplet_wire_StepResult::samples) == kMaxSampleValues);
static_assert(capacity(&couplet_wire_Linearize::inputs) == kMaxPorts);
static_assert(capacity(&couplet_wire_Linearization::values) == kMaxLinearizationValues);
static_assert(capacity(&couplet_wire_Port::name) == kMaxNameBytes + 1);
static_assert(capacity(&couplet_wire_Port::unit) == kMaxUnitBytes + 1);
static_assert(capacity(&couplet_wire_Configure::model) == kMaxNameBytes + 1);

}  // namespace couplet::protocol
