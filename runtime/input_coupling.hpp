#pragma once
// Input polynomials built from a source's reported outputs (Glumac eqs. 14–15):
// the Taylor polynomial of order m around the time of the source's outputs.
#include <span>
#include <vector>

#include "runtime/algorithm.hpp"

namespace couplet {

/// For every Real slave input, the Real output that feeds it; built once at
/// start. An input an Integer output drives is `held`: the executor sets it
/// (a constant, Executor::hold_integer_inputs) and the masters leave it alone;
/// `source` names the Integer output then (an index into discrete_outputs).
class InputSources {
 public:
  InputSources() = default;
  explicit InputSources(const System& system);
  PortReference source(std::size_t slave, std::size_t input) const {
    return sources_[slave][input].output;
  }
  bool held(std::size_t slave, std::size_t input) const { return sources_[slave][input].held; }
  std::size_t input_count(std::size_t slave) const { return sources_[slave].size(); }

 private:
  struct Source {
    PortReference output;
    bool held = false;
  };
  std::vector<std::vector<Source>> sources_;
};

/// Taylor polynomial of order min(order, reported derivatives) of one output of
/// `source`, around source.output_time, scaled by `scale` seconds.
Polynomial taylor_from_outputs(const StepSlot& source, std::size_t output, int order, double scale);

/// Sets every input of `target` but the held ones to the Taylor polynomial of
/// its source's outputs.
void assign_taylor_inputs(std::size_t target, const InputSources& sources,
                          std::span<StepSlot> slots, int order, double scale);

}  // namespace couplet
