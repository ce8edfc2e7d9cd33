// couplet-netem — a UDP impairment proxy for users' own tests (docs/links.md):
// loss, duplication, reordering and corruption without kernel netem.
//
//   couplet-netem --listen HOST:PORT --forward HOST:PORT [--loss P] [--duplicate P]
//                 [--reorder P] [--delay MS] [--reorder-gap MS] [--corrupt P] [--seed N]
//
// Probabilities are in [0, 1]. Point the master at --listen; the proxy relays
// to --forward (the target) and back. Once listening it prints one line on
// stdout, "couplet-netem ready 127.0.0.1:PORT" (port 0 lets the system choose),
// and on exit (SIGINT/SIGTERM) one line of counters on stderr.
// Exit codes: 0 done, 2 bad configuration.
#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <iostream>

#include "couplet/errors.hpp"
#include "drivers/udp_impairment_proxy.hpp"

namespace {

std::atomic<bool> stop_requested{false};
void request_stop(int) {
  stop_requested.store(true);
}

void print_counters(const char* direction, const couplet::drivers::FaultCounters& counters) {
  std::cerr << " " << direction << ": " << counters.messages << " datagrams, " << counters.lost
            << " lost, " << counters.duplicated << " duplicated, " << counters.reordered
            << " reordered, " << counters.corrupted << " corrupted;";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "couplet-netem — UDP impairment proxy (seeded loss, duplication, reordering, delay, "
      "corruption)"};
  std::string listen;
  std::string forward;
  couplet::drivers::FaultSettings faults;
  double delay_ms = 0.0;
  double reorder_gap_ms = static_cast<double>(faults.reorder_gap.count()) / 1000.0;
  const auto probability = CLI::Range(0.0, 1.0);
  app.add_option("--listen", listen, "address the master sends to, HOST:PORT")->required();
  app.add_option("--forward", forward, "address of the target, HOST:PORT")->required();
  app.add_option("--loss", faults.loss, "probability that a datagram is dropped")
      ->check(probability);
  app.add_option("--duplicate", faults.duplicate, "probability that a datagram is delivered twice")
      ->check(probability);
  app.add_option("--reorder", faults.reorder,
                 "probability that a datagram is held back by the reorder gap")
      ->check(probability);
  app.add_option("--corrupt", faults.corrupt, "probability that one bit of a datagram is flipped")
      ->check(probability);
  app.add_option("--delay", delay_ms, "delay added to every datagram, milliseconds")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--reorder-gap", reorder_gap_ms,
                 "extra delay of a reordered datagram, milliseconds")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--seed", faults.seed, "seed of the impairments (same seed, same faults)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  faults.delay = std::chrono::microseconds(static_cast<long>(delay_ms * 1000.0));
  faults.reorder_gap = std::chrono::microseconds(static_cast<long>(reorder_gap_ms * 1000.0));

  std::signal(SIGTERM, request_stop);
  std::signal(SIGINT, request_stop);
  std::signal(SIGPIPE, SIG_IGN);
  try {
    couplet::drivers::UdpImpairmentProxy proxy(listen, forward, faults);
    std::cout << "couplet-netem ready " << proxy.listen_endpoint() << std::endl;
    proxy.run(stop_requested);
    const auto counters = proxy.counters();
    std::cerr << "couplet-netem:";
    print_counters("to target", counters.to_forward);
    print_counters("to master", counters.to_client);
    std::cerr << " " << counters.overflow << " dropped for lack of room\n";
    return 0;
  } catch (const couplet::ConfigurationError& error) {
    std::cerr << "couplet-netem: configuration error: " << error.what() << "\n";
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "couplet-netem: error: " << error.what() << "\n";
    return 1;
  }
}
