#pragma once
// The `link:` key of a slave in a scenario (docs/links.md):
//   link: {udp: "HOST:PORT"}                        a target that is already running
//   link: {serial: {device: PATH, baud: N}}         a device on a serial line
//   link: {spawn: true, udp: "127.0.0.1:0"}         start a local couplet-target
//   link: {spawn: true, serial: {device: pty}}      ... over a pseudo-terminal
//   link: {spawn: true, program: PATH, udp: ...}    start a device program instead
//   link: {spawn: true, program: qemu-system-arm, arguments: [...], serial: {device: pty}}
//                                                   ... with a command line of its own (an
//                                                   emulator)
// Optional: timeout (s, dead peer), retransmit_timeout (s), realtime (spawned
// target advances on the wall clock), busy_poll (s a UDP receive asks again
// before sleeping, on the master and a spawned target), key_file (every frame
// authenticated with the pre-shared key in that file; a spawned target gets it too).
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

namespace couplet::tools {

struct LinkSpec {
  std::string udp;            ///< "HOST:PORT"; with spawn, where the target binds (port 0: any)
  std::string serial_device;  ///< a device path; with spawn, "pty"
  unsigned baud = 115200;
  bool spawn = false;
  std::string program;  ///< with spawn: the program to start (empty: couplet-target)
  /// With program: its whole command line after its name, instead of the
  /// target options couplet gives (--serial pty --once ...); for programs that
  /// are not couplet targets, such as an emulator running a board's firmware.
  std::optional<std::vector<std::string>> arguments;
  bool realtime = false;
  double timeout = 2.0;              ///< seconds without an answer: the peer is dead
  double retransmit_timeout = 0.05;  ///< seconds before the first retransmission
  /// Seconds a UDP receive asks again before sleeping; off by default: on the
  /// 2-core VM it makes the remote step slower (docs/links.md, "Busy polling").
  double busy_poll = 0.0;
  std::string where;           ///< "file:line: slaves.right.link" for messages
  std::string key_file;        ///< the pre-shared key's file; empty: plain frames
  std::string key_file_where;  ///< "file:line: slaves.right.link.key_file"

  bool is_udp() const { return !udp.empty(); }
};

/// Parses and checks a link node; errors name `path` and the line.
LinkSpec parse_link(const YAML::Node& node, const std::string& source, const std::string& path);

/// The link of a DCP slave (docs/dcp.md): `udp` (its control endpoint, else
/// the description's), `timeout` and `retransmit_timeout`; a null node gives
/// the defaults.
LinkSpec parse_dcp_link(const YAML::Node& node, const std::string& source, const std::string& path);

}  // namespace couplet::tools
