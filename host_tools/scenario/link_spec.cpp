#include "host_tools/scenario/link_spec.hpp"

#include <filesystem>

#include "couplet/errors.hpp"
#include "drivers/endpoint.hpp"
#include "drivers/udp_transport.hpp"
#include "host_tools/scenario/scenario.hpp"
#include "host_tools/scenario/scenario_file_path.hpp"
#include "targets/build_directory.hpp"

namespace couplet::tools {

namespace {

// A peer silent for an hour is dead; a retransmission sooner than a millisecond
// after the request floods the link rather than recovering a lost datagram.
constexpr NumberRange kTimeoutRange{1e-3, 3600.0, " s"};
constexpr NumberRange kRetransmitRange{1e-3, 60.0, " s"};

// A name without a slash stays a name: TargetProcess looks it up on PATH when
// it starts the program, as a shell does (an installed emulator:
// qemu-system-arm); so a run log's scenario still parses where it is not
// installed. Any other path is a scenario file path (docs/scenarios.md, "File
// paths"): ${COUPLET_BUILD_DIR} expanded, relative to the scenario file.
std::string program_path(const YAML::Node& node, const std::string& source,
                         const std::string& key) {
  const std::string name = require_string(node, source, key);
  if (name.find('/') == std::string::npos) return name;
  return resolve_scenario_file(name, source, locate(source, node, key));
}

std::vector<std::string> argument_list(const YAML::Node& node, const std::string& source,
                                       const std::string& key) {
  if (!node.IsSequence()) {
    throw ConfigurationError(locate(source, node, key) +
                             ": expected a list of words, e.g. [-M, mps2-an386]");
  }
  std::vector<std::string> words;
  for (std::size_t k = 0; k < node.size(); ++k) {
    // A word is no path (an option, a machine name) but may name a file the
    // build makes: ${COUPLET_BUILD_DIR} is expanded, nothing else is done to it.
    const std::string element = key + "[" + std::to_string(k) + "]";
    const std::string word = require_string(node[k], source, element);
    try {
      words.push_back(word.find("${") == std::string::npos
                          ? word
                          : targets::expand_path_variables(word, targets::build_directory()).path);
    } catch (const ConfigurationError& error) {
      throw ConfigurationError(locate(source, node[k], element) + ": " + error.what());
    }
  }
  return words;
}

}  // namespace

namespace {

void parse_timeouts(const YAML::Node& node, const std::string& source, const std::string& path,
                    LinkSpec& link) {
  if (node["timeout"])
    link.timeout = bounded_number(node["timeout"], source, path + ".timeout", kTimeoutRange);
  if (node["retransmit_timeout"]) {
    link.retransmit_timeout = bounded_number(node["retransmit_timeout"], source,
                                             path + ".retransmit_timeout", kRetransmitRange);
    if (link.retransmit_timeout > link.timeout) {
      throw ConfigurationError(
          locate(source, node["retransmit_timeout"], path + ".retransmit_timeout") +
          ": must not exceed " + path + ".timeout (" + number_text(link.timeout) +
          " s): the peer would be declared dead before the first retransmission");
    }
  }
}

}  // namespace

LinkSpec parse_dcp_link(const YAML::Node& node, const std::string& source,
                        const std::string& path) {
  LinkSpec link;
  if (!node) return link;
  if (!node.IsMap()) {
    throw ConfigurationError(locate(source, node, path) +
                             ": must be a map, e.g. {udp: \"HOST:PORT\", timeout: 2}");
  }
  for (const auto& entry : node) {
    const std::string key = entry.first.as<std::string>();
    if (key != "udp" && key != "timeout" && key != "retransmit_timeout") {
      throw ConfigurationError(locate(source, entry.first, path + "." + key) +
                               ": a DCP slave is reached over UDP at its control endpoint: its "
                               "link takes udp, timeout and retransmit_timeout only");
    }
  }
  link.where = locate(source, node, path);
  parse_timeouts(node, source, path, link);
  if (node["udp"]) {
    link.udp = require_string(node["udp"], source, path + ".udp");
    const drivers::HostPort endpoint =
        drivers::parse_host_port(link.udp, locate(source, node["udp"], path + ".udp"));
    if (endpoint.port == 0)
      throw ConfigurationError(locate(source, node["udp"], path + ".udp") + ": port 0");
  }
  return link;
}

LinkSpec parse_link(const YAML::Node& node, const std::string& source, const std::string& path) {
  check_keys(node, source, path,
             {"udp", "serial", "spawn", "program", "arguments", "realtime", "timeout",
              "retransmit_timeout", "busy_poll", "key_file"});
  LinkSpec link;
  link.where = locate(source, node, path);
  if (node["spawn"]) link.spawn = require_flag(node["spawn"], source, path + ".spawn");
  if (node["realtime"]) link.realtime = require_flag(node["realtime"], source, path + ".realtime");
  parse_timeouts(node, source, path, link);
  if (node["busy_poll"]) {
    link.busy_poll = bounded_number(node["busy_poll"], source, path + ".busy_poll",
                                    NumberRange{0.0, drivers::kLongestBusyPollSeconds, " s"});
  }
  if (node["udp"]) {
    link.udp = require_string(node["udp"], source, path + ".udp");
    const drivers::HostPort endpoint =
        drivers::parse_host_port(link.udp, locate(source, node["udp"], path + ".udp"));
    if (endpoint.port == 0 && !link.spawn) {
      throw ConfigurationError(
          locate(source, node["udp"], path + ".udp") +
          ": port 0 only makes sense with spawn: true (the target picks a port)");
    }
  }
  if (const YAML::Node serial = node["serial"]) {
    check_keys(serial, source, path + ".serial", {"device", "baud"});
    if (!serial["device"])
      throw ConfigurationError(locate(source, serial, path + ".serial") + ": missing 'device'");
    link.serial_device = require_string(serial["device"], source, path + ".serial.device");
    if (serial["baud"]) {
      link.baud = static_cast<unsigned>(bounded_number(
          serial["baud"], source, path + ".serial.baud", ranges::count(50, 4'000'000)));
    }
    if (link.spawn && link.serial_device != "pty") {
      throw ConfigurationError(
          locate(source, serial["device"], path + ".serial.device") +
          ": with spawn: true the device must be 'pty' (the target creates a pseudo-terminal)");
    }
  }
  if (link.udp.empty() == link.serial_device.empty()) {
    throw ConfigurationError(link.where +
                             ": give exactly one of udp: \"HOST:PORT\" or serial: {device: PATH}");
  }
  if (node["busy_poll"] && !link.is_udp()) {
    throw ConfigurationError(locate(source, node["busy_poll"], path + ".busy_poll") +
                             ": applies to udp links only (a serial line is read as bytes arrive)");
  }
  if (const YAML::Node program = node["program"]) {
    if (!link.spawn) {
      throw ConfigurationError(locate(source, program, path + ".program") +
                               ": the program to start needs spawn: true");
    }
    link.program = program_path(program, source, path + ".program");
  }
  if (const YAML::Node arguments = node["arguments"]) {
    if (link.program.empty()) {
      throw ConfigurationError(locate(source, arguments, path + ".arguments") +
                               ": arguments are those of a program to start; they need program:");
    }
    link.arguments = argument_list(arguments, source, path + ".arguments");
  }
  if (link.realtime && !link.spawn) {
    throw ConfigurationError(
        link.where +
        ": realtime: true starts a spawned target in real-time mode; it needs spawn: true");
  }
  if (const YAML::Node key_file = node["key_file"]) {
    // Read when the link is made, not here: a run log's scenario must still
    // parse for replay on a machine without the key.
    link.key_file_where = locate(source, key_file, path + ".key_file");
    link.key_file = resolve_scenario_file(require_string(key_file, source, path + ".key_file"),
                                          source, link.key_file_where);
  }
  return link;
}

}  // namespace couplet::tools
