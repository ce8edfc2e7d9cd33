// couplet-target — serves a built-in model or an FMU over UDP or serial.
//
//   couplet-target (--model NAME | --fmu FILE [--fmu-kind cs|me]) [--param k=v]...
//                  (--udp HOST:PORT | --serial DEVICE [--baud N])
//                  [--realtime] [--once] [--session-timeout S] [--cpu N] [--priority P]
//
// Once it listens, it prints exactly one line on stdout, then nothing more:
//   couplet-target ready udp 127.0.0.1:45678
//   couplet-target ready serial /dev/pts/7
// `--udp HOST:0` lets the system choose the port; `--serial pty` creates a
// pseudo-terminal and reports the device to open at the other end. This is how
// `link: {spawn: true}` learns where to connect (docs/links.md).
// Exit codes: 0 done, 2 bad configuration. Warnings and errors go to stderr.
#include <pty.h>
#include <termios.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <iostream>

#include "drivers/realtime_setup.hpp"
#include "drivers/serial_transport.hpp"
#include "drivers/udp_transport.hpp"
#include "drivers/wall_clock.hpp"
#include "models/catalog.hpp"
#include "models/slave_source.hpp"
#include "runtime/errors.hpp"
#include "targets/serve.hpp"

namespace {

std::atomic<bool> stop_requested{false};

void request_stop(int) {
  stop_requested.store(true);
}

constexpr int kExitConfiguration = 2;

couplet::targets::ParameterOverrides parse_parameters(const std::vector<std::string>& assignments) {
  couplet::targets::ParameterOverrides parameters;
  for (const std::string& assignment : assignments) {
    const std::size_t equals = assignment.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw couplet::ConfigurationError("--param '" + assignment + "': expected name=value");
    }
    try {
      std::size_t used = 0;
      const std::string text = assignment.substr(equals + 1);
      const double value = std::stod(text, &used);
      if (used != text.size()) throw std::invalid_argument("trailing characters");
      parameters[assignment.substr(0, equals)] = value;
    } catch (const std::logic_error&) {
      throw couplet::ConfigurationError("--param '" + assignment + "': the value is not a number");
    }
  }
  return parameters;
}

/// A pseudo-terminal whose slave side the master opens by path. The target
/// keeps the slave side open too, so that its master side never sees a hang-up
/// between sessions; both sides are raw.
struct PseudoTerminal {
  int master = -1;
  int slave = -1;
  std::string path;
};

PseudoTerminal open_pseudo_terminal() {
  PseudoTerminal pty;
  char name[256] = {};
  termios raw{};
  cfmakeraw(&raw);
  if (::openpty(&pty.master, &pty.slave, name, &raw, nullptr) != 0) {
    throw couplet::ConfigurationError("--serial pty: cannot create a pseudo-terminal");
  }
  pty.path = name;
  return pty;
}

/// Real-time mode: what the target saw, on stderr when it ends.
void print_realtime_report(const couplet::targets::TargetServer& server) {
  const auto& lateness = server.input_lateness();
  const auto& counters = server.counters();
  if (counters.periods == 0) return;
  std::cerr << "couplet-target: real time: " << counters.periods << " periods, "
            << counters.starved_periods << " without a fresh input; input lateness [us] min "
            << static_cast<double>(lateness.min_ns()) / 1e3 << ", median "
            << static_cast<double>(lateness.quantile_ns(0.5)) / 1e3 << ", p99 "
            << static_cast<double>(lateness.quantile_ns(0.99)) / 1e3 << ", max "
            << static_cast<double>(lateness.max_ns()) / 1e3 << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace couplet;
  CLI::App app{"couplet-target — serves a built-in model or an FMU over a link"};
  std::string model;
  std::string fmu;
  std::string fmu_kind = "auto";
  std::vector<std::string> assignments;
  std::string udp;
  std::string serial;
  unsigned baud = 115200;
  bool realtime = false;
  bool once = false;
  double session_timeout = 3.0;
  int cpu = -1;
  int priority = 80;
  bool refuse_configure = false;
  auto* model_option =
      app.add_option("--model", model, "built-in model to serve (see `couplet models`)");
  auto* fmu_option = app.add_option("--fmu", fmu, "FMI 2.0 FMU to serve (docs/fmi.md)");
  model_option->excludes(fmu_option);
  app.add_option("--fmu-kind", fmu_kind, "interface of the FMU: cs, me, or auto (me when offered)")
      ->check(CLI::IsMember({"auto", "cs", "me"}))
      ->capture_default_str();
  app.add_option("--param", assignments, "parameter override name=value (repeatable)");
  auto* udp_option =
      app.add_option("--udp", udp, "listen on HOST:PORT (port 0: the system chooses)");
  auto* serial_option =
      app.add_option("--serial", serial, "serial device, or 'pty' for a new pseudo-terminal");
  udp_option->excludes(serial_option);
  app.add_option("--baud", baud, "serial line speed")->capture_default_str();
  app.add_flag("--realtime", realtime, "advance the model on the wall clock (docs/links.md)");
  app.add_flag("--once", once, "exit when the first session ends");
  app.add_option("--session-timeout", session_timeout,
                 "seconds of silence after which a session is abandoned")
      ->capture_default_str();
  app.add_option("--cpu", cpu, "real-time mode: pin to this CPU");
  app.add_option("--priority", priority, "real-time mode: SCHED_FIFO priority")
      ->capture_default_str();
  app.add_flag("--refuse-configure", refuse_configure,
               "behave like a device that refuses configuration");
  CLI11_PARSE(app, argc, argv);
  if (model.empty() == fmu.empty()) {
    std::cerr << "couplet-target: give exactly one of --model NAME or --fmu FILE\n";
    return kExitConfiguration;
  }
  if (udp.empty() == serial.empty()) {
    std::cerr << "couplet-target: give exactly one of --udp HOST:PORT or --serial DEVICE\n";
    return kExitConfiguration;
  }
  std::signal(SIGTERM, request_stop);
  std::signal(SIGINT, request_stop);
  std::signal(SIGPIPE, SIG_IGN);

  try {
    targets::TargetOptions options;
    options.model = model;
    options.parameters = parse_parameters(assignments);
    options.session_timeout =
        std::chrono::milliseconds(static_cast<long>(session_timeout * 1000.0));
    options.accepts_configure = !refuse_configure;
    options.realtime = realtime;
    const models::FmuKind kind = fmu_kind == "cs"   ? models::FmuKind::co_simulation
                                 : fmu_kind == "me" ? models::FmuKind::model_exchange
                                                    : models::FmuKind::automatic;
    targets::TargetServer server =
        fmu.empty() ? targets::TargetServer(models::ModelCatalog::builtin(), options)
                    : targets::TargetServer(models::fmu_source(fmu, kind), options);

    std::unique_ptr<drivers::Transport> transport;
    std::string ready;
    PseudoTerminal pty;
    if (!udp.empty()) {
      auto socket = drivers::UdpTransport::bind(udp);
      ready = "udp " + socket->local_endpoint();
      transport = std::move(socket);
    } else if (serial == "pty") {
      pty = open_pseudo_terminal();
      transport = drivers::SerialTransport::adopt(pty.master, "pty " + pty.path);
      ready = "serial " + pty.path;
    } else {
      transport = drivers::SerialTransport::open(serial, baud);
      ready = "serial " + serial;
    }

    if (realtime) {
      for (const std::string& warning : drivers::enter_realtime({priority, cpu})) {
        std::cerr << "couplet-target: warning: " << warning << "\n";
      }
    }
    std::cout << "couplet-target ready " << ready << std::endl;

    targets::ServeOptions serve_options;
    serve_options.once = once;
    if (realtime) {
      targets::serve_realtime(server, *transport, serve_options, stop_requested);
      print_realtime_report(server);
    } else {
      targets::serve(server, *transport, serve_options, stop_requested);
    }
    if (pty.slave >= 0) ::close(pty.slave);
    return 0;
  } catch (const ConfigurationError& error) {
    std::cerr << "couplet-target: configuration error: " << error.what() << "\n";
    return kExitConfiguration;
  } catch (const std::exception& error) {
    std::cerr << "couplet-target: error: " << error.what() << "\n";
    return 1;
  }
}
