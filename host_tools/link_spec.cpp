#include "host_tools/link_spec.hpp"

#include <filesystem>

#include "drivers/endpoint.hpp"
#include "host_tools/scenario.hpp"
#include "couplet/errors.hpp"

namespace couplet::tools {

namespace {

bool parse_flag(const YAML::Node& node, const std::string& source, const std::string& key) {
  try {
    return node.as<bool>();
  } catch (const YAML::Exception&) {
    throw ConfigurationError(locate(source, node, key) + ": expected true or false");
  }
}

double positive_seconds(const YAML::Node& node, const std::string& source, const std::string& key) {
  const double value = require_number(node, source, key);
  if (!(value > 0.0)) throw ConfigurationError(locate(source, node, key) + ": must be positive (seconds)");
  return value;
}

}  // namespace

LinkSpec parse_link(const YAML::Node& node, const std::string& source, const std::string& path) {
  check_keys(node, source, path,
             {"udp", "serial", "spawn", "program", "realtime", "timeout", "retransmit_timeout"});
  LinkSpec link;
  link.where = locate(source, node, path);
  if (node["spawn"]) link.spawn = parse_flag(node["spawn"], source, path + ".spawn");
  if (node["realtime"]) link.realtime = parse_flag(node["realtime"], source, path + ".realtime");
  if (node["timeout"]) link.timeout = positive_seconds(node["timeout"], source, path + ".timeout");
  if (node["retransmit_timeout"]) {
    link.retransmit_timeout = positive_seconds(node["retransmit_timeout"], source, path + ".retransmit_timeout");
  }
  if (node["udp"]) {
    link.udp = require_string(node["udp"], source, path + ".udp");
    const drivers::HostPort endpoint = drivers::parse_host_port(link.udp, locate(source, node["udp"], path + ".udp"));
    if (endpoint.port == 0 && !link.spawn) {
      throw ConfigurationError(locate(source, node["udp"], path + ".udp") +
                               ": port 0 only makes sense with spawn: true (the target picks a port)");
    }
  }
  if (const YAML::Node serial = node["serial"]) {
    check_keys(serial, source, path + ".serial", {"device", "baud"});
    if (!serial["device"]) throw ConfigurationError(locate(source, serial, path + ".serial") + ": missing 'device'");
    link.serial_device = require_string(serial["device"], source, path + ".serial.device");
    if (serial["baud"]) {
      const double baud = require_number(serial["baud"], source, path + ".serial.baud");
      if (!(baud >= 50 && baud <= 4'000'000) || baud != static_cast<double>(static_cast<unsigned>(baud))) {
        throw ConfigurationError(locate(source, serial["baud"], path + ".serial.baud") + ": must be a whole number of baud");
      }
      link.baud = static_cast<unsigned>(baud);
    }
    if (link.spawn && link.serial_device != "pty") {
      throw ConfigurationError(locate(source, serial["device"], path + ".serial.device") +
                               ": with spawn: true the device must be 'pty' (the target creates a pseudo-terminal)");
    }
  }
  if (link.udp.empty() == link.serial_device.empty()) {
    throw ConfigurationError(link.where + ": give exactly one of udp: \"HOST:PORT\" or serial: {device: PATH}");
  }
  if (const YAML::Node program = node["program"]) {
    if (!link.spawn) {
      throw ConfigurationError(locate(source, program, path + ".program") +
                               ": the program to start needs spawn: true");
    }
    // Relative to the scenario file, as FMUs are.
    const std::filesystem::path file = require_string(program, source, path + ".program");
    link.program = (file.is_absolute() ? file : std::filesystem::path(source).parent_path() / file)
                       .lexically_normal()
                       .string();
  }
  if (link.realtime && !link.spawn) {
    throw ConfigurationError(link.where + ": realtime: true starts a spawned target in real-time mode; it needs spawn: true");
  }
  return link;
}

}  // namespace couplet::tools
