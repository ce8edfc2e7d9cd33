#pragma once
// Reading a DCP slave description (DCPX, docs/dcp.md) into its typed values
// (drivers/dcp_description.hpp), with pugixml; every error names the file, the
// element and its line. And the text `couplet models FILE.dcpx` prints.
#include <string>

#include "drivers/dcp_description.hpp"

namespace couplet::tools {

/// Reads a DCPX file. Throws ConfigurationError "FILE: ELEMENT (line N): why"
/// for a file that is not one, or describes a slave couplet cannot drive over
/// UDP (no UDP_IPv4 transport, DCP other than 1.x).
drivers::DcpDescription read_dcp_description(const std::string& path);

/// The same, from the XML text (`file` names it in messages).
drivers::DcpDescription parse_dcp_description(const std::string& xml, const std::string& file);

/// Multi-line text for `couplet models FILE.dcpx`: modes, resolutions,
/// endpoints, variables.
std::string describe(const drivers::DcpDescription& description);

}  // namespace couplet::tools
