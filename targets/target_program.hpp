#pragma once
// A target program: the command line, transports, real-time set-up and
// serving loop that couplet-target and every device program built with the
// SDK (couplet::serve) share — one serving path for both.
//
//   PROGRAM [--param k=v]... (--udp HOST:PORT | --serial DEVICE [--baud N])
//           [--realtime] [--once] [--session-timeout S] [--cpu N] [--priority P]
//           [--key-file FILE] [--allow ADDR[/PREFIX]]...
//   PROGRAM --describe
//   PROGRAM --dcp [--param k=v]... --udp HOST:PORT [--once] [--describe]
//
// Once it listens, it prints exactly one line on stdout, then nothing more:
//   PROGRAM ready udp 127.0.0.1:45678
//   PROGRAM ready serial /dev/pts/7
// `--udp HOST:0` lets the system choose the port; `--serial pty` creates a
// pseudo-terminal and reports the device to open at the other end. This is how
// `link: {spawn: true}` learns where to connect (docs/links.md).
// Exit codes: 0 done, 1 runtime error, 2 bad command line or configuration.
// Warnings and errors go to stderr.
#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/slave_source.hpp"

namespace couplet::targets {

struct TargetProgramSettings {
  std::vector<std::string> parameter_assignments;  ///< "name=value"
  std::string udp;
  std::string serial;
  unsigned baud = 115200;
  bool realtime = false;
  bool once = false;
  double session_timeout = 3.0;  ///< seconds
  double busy_poll = 0.0;        ///< seconds a UDP receive asks again before sleeping
  int cpu = -1;
  int priority = 80;
  bool refuse_configure = false;
  bool describe = false;
  std::string key_file;              ///< seal every frame with this key (docs/links.md)
  std::vector<std::string> allowed;  ///< --allow ADDR[/PREFIX]: who may send frames (UDP)
  /// --dcp: answer as a DCP 1.0 slave in NonRealTime instead of couplet's
  /// protocol (docs/dcp.md); with --describe, print its DCPX.
  bool dcp = false;
};

/// Adds the options every target program shares to `app`.
void add_target_options(CLI::App& app, TargetProgramSettings& settings);

/// Parses argc/argv with `app`; returns nullopt to go on, or the exit code
/// (0 after --help, 2 after a usage error, with the message on stderr).
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv);

/// Serves what `open_source` makes as `settings` say, until SIGINT/SIGTERM or,
/// with --once, the end of the first session. `program` names the program in
/// messages and on the ready line; `always_realtime` forces --realtime (a
/// device on the wall clock). Returns the exit code.
int run_target_program(const std::string& program, const TargetProgramSettings& settings,
                       const std::function<std::shared_ptr<const models::SlaveSource>()>& open_source,
                       bool always_realtime = false);

}  // namespace couplet::targets
