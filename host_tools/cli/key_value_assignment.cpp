#include "host_tools/cli/key_value_assignment.hpp"

#include <string>

namespace couplet::tools {

CLI::Validator key_value_assignment() {
  return CLI::Validator(
      [](const std::string& assignment) -> std::string {
        const std::size_t equals = assignment.find('=');
        if (equals == std::string::npos || equals == 0)
          return "usage: --set expects KEY=VALUE (e.g. --set algorithm.step=0.01), got '" +
                 assignment + "'";
        return "";
      },
      "KEY=VALUE");
}

}  // namespace couplet::tools
