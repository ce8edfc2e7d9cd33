#pragma once
// A Device (couplet/device.hpp) as a model source: what couplet::serve() hands
// to the target server, like the catalog and FMUs for couplet-target.
#include <memory>
#include <string>

#include "couplet/device.hpp"
#include "models/slave_source.hpp"

namespace couplet::targets {

/// What a device's target serves and a scenario's `device: NAME` asks for.
std::string device_identity(const std::string& device_name);

/// `PROGRAM --describe`: ports with units, capabilities, parameters.
std::string describe_device(const DeviceDescription& device);

/// Checks the device (check_device) and keeps a copy of it.
std::shared_ptr<const models::SlaveSource> device_source(const Device& device);

}  // namespace couplet::targets
