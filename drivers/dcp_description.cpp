#include "drivers/dcp_description.hpp"

namespace couplet::drivers {

const char* to_string(DcpVariable::Causality causality) {
  switch (causality) {
    case DcpVariable::Causality::input:
      return "Input";
    case DcpVariable::Causality::output:
      return "Output";
    case DcpVariable::Causality::parameter:
      return "Parameter";
    case DcpVariable::Causality::structural_parameter:
      return "StructuralParameter";
  }
  return "?";
}

}  // namespace couplet::drivers
