// Embeds couplet's master (docs/library.md): steps a scenario in half-second
// steps, reads an output between steps, runs to the end and prints the
// decision hash, which equals `couplet run`'s for the same scenario.
//   step_two_mass_switch SCENARIO [key.path=value ...]
#include <couplet/simulation.hpp>
#include <cstdio>
#include <exception>
#include <string>

namespace {

/// Counts the communication points, on the stepping thread: no allocation,
/// no I/O there.
class CommunicationPoints final : public couplet::SimulationObserver {
 public:
  void communication_point(const couplet::Simulation&) override { ++count; }
  long count = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s SCENARIO [key.path=value ...]\n", argv[0]);
    return 2;
  }
  couplet::Simulation::Overrides overrides;
  for (int i = 2; i < argc; ++i) {
    const std::string assignment = argv[i];
    const std::size_t equals = assignment.find('=');
    if (equals == std::string::npos) {
      std::fprintf(stderr, "%s: expected key.path=value\n", argv[i]);
      return 2;
    }
    overrides.emplace_back(assignment.substr(0, equals), assignment.substr(equals + 1));
  }
  try {
    couplet::Simulation simulation = couplet::Simulation::from_scenario(argv[1], overrides);
    CommunicationPoints points;
    simulation.add_observer(points);
    simulation.initialize();
    const std::size_t position = simulation.output_index("left.x");
    for (double t = 0.5; !simulation.finished() && t <= 1.0; t += 0.5) {
      simulation.step_until_seconds(t);
      std::printf("t = %.17g s: left.x = %.17g m\n", simulation.time_seconds(),
                  simulation.output(position));
    }
    simulation.run();
    std::printf("finished: %s, %ld communication points\n", simulation.finished() ? "yes" : "no",
                points.count);
    std::printf("decision hash %s\n", simulation.decision_hash().c_str());
    return simulation.finished() ? 0 : 1;
  } catch (const couplet::ConfigurationError& error) {
    std::fprintf(stderr, "configuration: %s\n", error.what());
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "run failed: %s\n", error.what());
    return 1;
  }
}
