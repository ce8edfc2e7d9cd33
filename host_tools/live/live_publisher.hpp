#pragma once
// The live view's observer (docs/live.md): on the stepping thread, at each
// communication point, copies the simulation time, the wall time, the cycle's
// lateness and the evaluation signals' latest values into a LiveSampleRing, and
// the checks' first violations so far onto a LiveCheckBoard. No allocation, no lock, no system
// call: the values go through storage sized in the constructor, and a full ring drops the sample
// (LiveSampleRing).
#include <chrono>
#include <cstddef>
#include <vector>

#include "couplet/simulation.hpp"
#include "host_tools/live/live_check_board.hpp"
#include "host_tools/live/live_sample_ring.hpp"

namespace couplet::tools {

class LivePublisher final : public SimulationObserver {
 public:
  /// `outputs`: the indices (Simulation::output_index) of the signals to
  /// publish, as many as the ring's signal_count(); `checks`: one place per
  /// check of the simulation (Simulation::check_names()). The wall time counts
  /// from here.
  LivePublisher(LiveSampleRing& ring, std::vector<std::size_t> outputs, LiveCheckBoard& checks);

  void communication_point(const Simulation& simulation) override;

 private:
  LiveSampleRing& ring_;
  LiveCheckBoard& checks_;
  const std::vector<std::size_t> outputs_;
  std::vector<double> values_;  ///< sized once: the stepping thread only writes into it
  const std::chrono::steady_clock::time_point began_;
};

}  // namespace couplet::tools
