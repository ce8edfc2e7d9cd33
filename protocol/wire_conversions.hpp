#pragma once
// Between runtime types and wire messages (protocol/couplet.proto), for the
// links and the run log. Doubles are copied, never converted, so a value crosses
// the link (DESIGN §8: a lossy link gives bit-identical results) and the log
// (replay) bit for bit. Conversions on the stepping path do not allocate;
// descriptions (start-up only) do. Descriptions convert faithfully: the link
// ends declare remote slaves rollback-less themselves.
#include <span>
#include <string>

#include "protocol/couplet.pb.h"
#include "couplet/polynomial.hpp"
#include "couplet/slave.hpp"

namespace couplet::wire {

void to_wire(const Polynomial& polynomial, couplet_wire_Polynomial& wire);
Polynomial from_wire(const couplet_wire_Polynomial& wire);

/// Copies a NUL-terminated name into a fixed-size wire field; throws
/// ConfigurationError naming `what` when it does not fit.
template <std::size_t Size>
void copy_name(char (&field)[Size], const std::string& text, const std::string& what);

void copy_name_into(std::span<char> field, const std::string& text, const std::string& what);

/// The wire form of a slave's description (target side).
void to_wire(const SlaveDescription& description, const std::string& model, couplet_wire_Describe& wire);

/// A slave description from a Describe. Throws SlaveError naming `slave_name`
/// on an inconsistent message.
SlaveDescription from_wire(const couplet_wire_Describe& wire, const std::string& slave_name);

template <std::size_t Size>
void copy_name(char (&field)[Size], const std::string& text, const std::string& what) {
  copy_name_into(std::span<char>(field, Size), text, what);
}

}  // namespace couplet::wire
