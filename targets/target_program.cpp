#include "targets/target_program.hpp"

#include <pty.h>
#include <termios.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <iostream>
#include <sstream>

#include "couplet/device.hpp"
#include "couplet/errors.hpp"
#include "drivers/endpoint.hpp"
#include "drivers/realtime_setup.hpp"
#include "drivers/serial_transport.hpp"
#include "drivers/udp_transport.hpp"
#include "protocol/frame_key.hpp"
#include "targets/dcp_server.hpp"
#include "targets/device_source.hpp"
#include "targets/serve.hpp"
#include "targets/target_server.hpp"

namespace couplet::targets {
namespace {

// Set by SIGINT/SIGTERM; the serving loops look at it between frames. A signal
// handler can reach nothing else.
std::atomic<bool> stop_requested{false};

void request_stop(int) {
  stop_requested.store(true);
}

constexpr int kExitError = 1;
constexpr int kExitConfiguration = 2;

ParameterOverrides parse_parameters(const std::vector<std::string>& assignments) {
  ParameterOverrides parameters;
  for (const std::string& assignment : assignments) {
    const std::size_t equals = assignment.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw ConfigurationError("--param '" + assignment + "': expected name=value");
    }
    try {
      std::size_t used = 0;
      const std::string text = assignment.substr(equals + 1);
      const double value = std::stod(text, &used);
      if (used != text.size()) throw std::invalid_argument("trailing characters");
      parameters[assignment.substr(0, equals)] = value;
    } catch (const std::logic_error&) {
      throw ConfigurationError("--param '" + assignment + "': the value is not a number");
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

  PseudoTerminal() = default;
  PseudoTerminal(const PseudoTerminal&) = delete;
  PseudoTerminal& operator=(const PseudoTerminal&) = delete;
  ~PseudoTerminal() {
    if (slave >= 0) ::close(slave);
  }
};

void open_pseudo_terminal(PseudoTerminal& pty) {
  char name[256] = {};
  termios raw{};
  cfmakeraw(&raw);
  if (::openpty(&pty.master, &pty.slave, name, &raw, nullptr) != 0) {
    throw ConfigurationError("--serial pty: cannot create a pseudo-terminal");
  }
  pty.path = name;
}

/// Real-time mode: what the target saw, on stderr when it ends.
void print_realtime_report(const std::string& program, const TargetServer& server) {
  const auto& lateness = server.input_lateness();
  const auto& counters = server.counters();
  if (counters.periods == 0) return;
  std::cerr << program << ": real time: " << counters.periods << " periods, "
            << counters.starved_periods << " without a fresh input; input lateness [us] min "
            << static_cast<double>(lateness.min_ns()) / 1e3 << ", median "
            << static_cast<double>(lateness.quantile_ns(0.5)) / 1e3 << ", p99 "
            << static_cast<double>(lateness.quantile_ns(0.99)) / 1e3 << ", max "
            << static_cast<double>(lateness.max_ns()) / 1e3 << "\n";
  if (!server.steps_by_activation()) return;
  const auto& activations = server.activation_lateness();
  std::cerr << program << ": real time: " << counters.activations
            << " activation instants on the wall clock; lateness [us] min "
            << static_cast<double>(activations.min_ns()) / 1e3 << ", median "
            << static_cast<double>(activations.quantile_ns(0.5)) / 1e3 << ", p99 "
            << static_cast<double>(activations.quantile_ns(0.99)) / 1e3 << ", max "
            << static_cast<double>(activations.max_ns()) / 1e3 << "\n";
}

TargetOptions target_options(const TargetProgramSettings& settings, bool realtime) {
  if (!(settings.session_timeout > 0.0) || settings.session_timeout > 86400.0)
    throw ConfigurationError("--session-timeout must be more than 0 and at most 86400 s, got " +
                             (std::ostringstream() << settings.session_timeout).str());
  TargetOptions options;
  options.parameters = parse_parameters(settings.parameter_assignments);
  // Rounded up: a timeout below 1 ms must not become 0 (a session that is never alive).
  options.session_timeout =
      std::chrono::milliseconds(static_cast<long>(std::ceil(settings.session_timeout * 1000.0)));
  options.accepts_configure = !settings.refuse_configure;
  options.realtime = realtime;
  if (!settings.key_file.empty()) options.key = protocol::read_frame_key(settings.key_file);
  return options;
}

/// Whether `--udp HOST:PORT` listens on loopback only (nobody else can reach it).
bool is_loopback(const std::string& udp) {
  return udp.rfind("127.", 0) == 0 || udp.rfind("localhost:", 0) == 0 ||
         udp.rfind("[::1]:", 0) == 0;
}

/// What was dropped for the link's security, on stderr when the program ends.
void print_security_report(const std::string& program, const TargetServer& server) {
  const TargetCounters& counters = server.counters();
  if (counters.unauthenticated + counters.replayed + counters.disallowed == 0) return;
  std::cerr << program << ": dropped " << counters.unauthenticated
            << " frames that failed authentication, " << counters.replayed
            << " replayed or without their session's nonce, " << counters.disallowed
            << " from addresses --allow does not admit\n";
}

int serve_source(const std::string& program, const TargetProgramSettings& settings,
                 std::shared_ptr<const models::SlaveSource> source, bool realtime) {
  TargetServer server(std::move(source), target_options(settings, realtime));
  std::unique_ptr<drivers::Transport> transport;
  std::string ready;
  PseudoTerminal pty;
  ServeOptions serve_options;
  serve_options.once = settings.once;
  if (!settings.allowed.empty()) {
    if (settings.udp.empty())
      throw ConfigurationError("--allow applies to UDP only: a serial line has no addresses");
    serve_options.allowed = AddressFilter(settings.allowed);
  }
  if (!settings.udp.empty() && settings.key_file.empty() && !is_loopback(settings.udp)) {
    std::cerr << program << ": warning: serving " << settings.udp
              << " without --key-file: any host that reaches this port can drive the target "
                 "(docs/deploy.md)\n";
  }
  if (!settings.udp.empty()) {
    auto socket = drivers::UdpTransport::bind(settings.udp);
    socket->set_busy_poll(std::chrono::duration<double>(settings.busy_poll));
    ready = "udp " + socket->local_endpoint();
    transport = std::move(socket);
  } else if (settings.serial == "pty") {
    open_pseudo_terminal(pty);
    transport = drivers::SerialTransport::adopt(pty.master, "pty " + pty.path);
    ready = "serial " + pty.path;
  } else {
    transport = drivers::SerialTransport::open(settings.serial, settings.baud);
    ready = "serial " + settings.serial;
  }
  if (realtime) {
    for (const std::string& warning : drivers::enter_realtime({settings.priority, settings.cpu}))
      std::cerr << program << ": warning: " << warning << "\n";
  }
  std::cout << program << " ready " << ready << std::endl;

  if (realtime) {
    serve_realtime(server, *transport, serve_options, stop_requested);
    print_realtime_report(program, server);
  } else {
    serve(server, *transport, serve_options, stop_requested);
  }
  print_security_report(program, server);
  return 0;
}

/// --dcp: the source as a DCP slave on the --udp socket, or its DCPX.
int serve_dcp_slave(const std::string& program, const TargetProgramSettings& settings,
                    std::shared_ptr<const models::SlaveSource> source) {
  if (settings.udp.empty())
    throw ConfigurationError("--dcp needs --udp HOST:PORT (DCP runs over UDP)");
  if (settings.realtime || !settings.key_file.empty() || !settings.allowed.empty() ||
      settings.refuse_configure) {
    throw ConfigurationError(
        "--dcp serves NonRealTime DCP: --realtime, --key-file, --allow and --refuse-configure "
        "belong to couplet's own protocol");
  }
  const std::string name = source->name();
  DcpServer server(std::move(source), parse_parameters(settings.parameter_assignments), name);
  const drivers::HostPort endpoint = drivers::parse_host_port(settings.udp, "--udp");
  if (settings.describe) {
    std::cout << server.slave_description(endpoint.host, endpoint.port);
    return 0;
  }
  auto socket = drivers::UdpTransport::bind(settings.udp);
  const std::uint16_t port = socket->local_port();
  std::cout << program << " ready udp " << socket->local_endpoint() << std::endl;
  serve_dcp(server, *socket, port, settings.once, stop_requested);
  const DcpServerCounters& counters = server.counters();
  if (counters.rejected + counters.foreign > 0) {
    std::cerr << program << ": dropped " << counters.rejected << " malformed and "
              << counters.foreign << " foreign DCP datagrams\n";
  }
  return 0;
}

}  // namespace

void add_target_options(CLI::App& app, TargetProgramSettings& settings) {
  app.add_option("--param", settings.parameter_assignments,
                 "parameter override name=value (repeatable)");
  auto* udp = app.add_option("--udp", settings.udp,
                             "listen on HOST:PORT (0.0.0.0: every interface; port 0: any)");
  auto* serial = app.add_option("--serial", settings.serial,
                                "serial device, or 'pty' for a new pseudo-terminal");
  udp->excludes(serial);
  app.add_option("--baud", settings.baud, "serial line speed")->capture_default_str();
  app.add_flag("--realtime", settings.realtime, "advance on the wall clock (docs/links.md)");
  app.add_flag("--once", settings.once, "exit when the first session ends");
  app.add_option("--session-timeout", settings.session_timeout,
                 "seconds of silence after which a session is abandoned")
      ->capture_default_str();
  app.add_option("--busy-poll", settings.busy_poll,
                 "seconds a UDP receive asks the socket again before it sleeps (docs/links.md)")
      ->check(CLI::Range(0.0, drivers::kLongestBusyPollSeconds))
      ->capture_default_str();
  app.add_option("--cpu", settings.cpu, "real-time mode: pin to this CPU");
  app.add_option("--priority", settings.priority, "real-time mode: SCHED_FIFO priority (1-99)")
      ->check(CLI::Range(1, 99))
      ->capture_default_str();
  app.add_flag("--refuse-configure", settings.refuse_configure,
               "behave like a device that refuses configuration");
  app.add_flag("--describe", settings.describe,
               "print what is served (ports, parameters), then exit");
  app.add_option("--key-file", settings.key_file,
                 "authenticate every frame with the key in FILE (32 hex digits, mode 0600; "
                 "`couplet keygen FILE` makes one; docs/links.md)");
  app.add_option("--allow", settings.allowed,
                 "UDP: accept frames only from ADDR or ADDR/PREFIX (repeatable)");
  app.add_flag("--dcp", settings.dcp,
               "answer as a DCP 1.0 slave (NonRealTime) over --udp instead of couplet's "
               "protocol; with --describe, print its slave description (DCPX) (docs/dcp.md)");
}

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::ParseError& error) {
    // Prints the help, or the message and the usage hint.
    return app.exit(error) == 0 ? 0 : kExitConfiguration;
  }
}

int run_target_program(const std::string& program, const TargetProgramSettings& settings,
                       const std::function<std::shared_ptr<const models::SlaveSource>()>& open_source,
                       bool always_realtime) {
  if (!settings.describe && settings.udp.empty() == settings.serial.empty()) {
    std::cerr << program << ": give exactly one of --udp HOST:PORT or --serial DEVICE\n";
    return kExitConfiguration;
  }
  std::signal(SIGTERM, request_stop);
  std::signal(SIGINT, request_stop);
  std::signal(SIGPIPE, SIG_IGN);
  try {
    std::shared_ptr<const models::SlaveSource> source = open_source();
    if (settings.dcp) return serve_dcp_slave(program, settings, std::move(source));
    if (settings.describe) {
      std::cout << source->describe();
      return 0;
    }
    return serve_source(program, settings, std::move(source), always_realtime || settings.realtime);
  } catch (const ConfigurationError& error) {
    std::cerr << program << ": configuration error: " << error.what() << "\n";
    return kExitConfiguration;
  } catch (const std::exception& error) {
    std::cerr << program << ": error: " << error.what() << "\n";
    return kExitError;
  }
}

}  // namespace couplet::targets

namespace couplet {

int serve(const Device& device, int argc, char** argv) {
  const std::string program = device.description.name.empty() ? "device" : device.description.name;
  CLI::App app{program + " — a couplet device: serves it as a co-simulation slave over a link"};
  targets::TargetProgramSettings settings;
  targets::add_target_options(app, settings);
  if (const auto exit_code = targets::parse_command_line(app, argc, argv)) return *exit_code;
  return targets::run_target_program(
      program, settings, [&] { return targets::device_source(device); },
      device.description.realtime);
}

}  // namespace couplet
