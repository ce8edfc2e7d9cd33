#include "host_tools/live/live_publisher.hpp"

#include <stdexcept>
#include <utility>

#include "host_tools/simulation/simulation_setup.hpp"

namespace couplet::tools {

LivePublisher::LivePublisher(LiveSampleRing& ring, std::vector<std::size_t> outputs,
                             LiveCheckBoard& checks)
    : ring_(ring),
      checks_(checks),
      outputs_(std::move(outputs)),
      values_(outputs_.size()),
      began_(std::chrono::steady_clock::now()) {
  if (outputs_.size() != ring_.signal_count())
    throw std::invalid_argument("LivePublisher: the ring holds a different number of signals");
}

void LivePublisher::communication_point(const Simulation& simulation) {
  for (std::size_t k = 0; k < outputs_.size(); ++k) values_[k] = simulation.output(outputs_[k]);
  // steady_clock reads the vDSO clock: no system call on Linux.
  const LiveSample sample{
      simulation.time_seconds(),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began_).count(),
      static_cast<double>(latest_lateness_ns(simulation)) * 1e-9};
  ring_.push_from_stepping_thread(sample, values_);
  for (std::size_t c = 0; c < checks_.size(); ++c)
    checks_.publish_from_stepping_thread(c, simulation.check_first_violation(c));
}

}  // namespace couplet::tools
