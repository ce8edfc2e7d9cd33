// Fuzz target: what comes from a DCP peer (docs/dcp.md). The first byte
// modulo 3 chooses the decoder: 0, the rest is one datagram from a slave for
// protocol::dcp::decode_answer; 1, the text of a DCPX file for
// tools::parse_dcp_description; 2, one datagram from a master for
// protocol::dcp::decode_request (couplet-target --dcp). The contract: a
// datagram either decodes to its type's exact layout, its payload inside the
// datagram, or is refused with a reason; a description either reads, with
// every variable's type and causality known, or is a ConfigurationError
// naming the file.
#include <cstdint>
#include <string>

#include "couplet/errors.hpp"
#include "fuzz_input.hpp"
#include "host_tools/assembly/dcp_description_reader.hpp"
#include "protocol/dcp_pdu.hpp"

namespace {

using couplet::fuzz::require;
namespace dcp = couplet::protocol::dcp;

void decode(std::span<const std::uint8_t> datagram) {
  const char* reason = nullptr;
  const std::optional<dcp::Answer> answer = dcp::decode_answer(datagram, reason);
  if (!answer) {
    require(reason != nullptr, "a refused datagram without a reason");
    return;
  }
  require(!datagram.empty(), "an empty datagram decoded");
  const auto* begin = datagram.data();
  const auto* end = begin + datagram.size();
  require(answer->payload.empty() || (answer->payload.data() >= begin &&
                                      answer->payload.data() + answer->payload.size() <= end),
          "a payload outside the datagram");
  switch (answer->kind) {
    case dcp::AnswerKind::ack:
      require(datagram.size() == 4, "an RSP_ack of another length");
      break;
    case dcp::AnswerKind::nack:
      require(datagram.size() == 8, "an RSP_nack of another length");
      break;
    case dcp::AnswerKind::state_ack:
    case dcp::AnswerKind::state_changed:
      require(static_cast<std::uint8_t>(answer->state) <= dcp::kLastState, "an undefined state");
      break;
    case dcp::AnswerKind::data:
      require(answer->payload.size() + dcp::kDataHeaderBytes == datagram.size(),
              "a data payload of the wrong size");
      break;
    default:
      break;
  }
}

void decode_from_master(std::span<const std::uint8_t> datagram) {
  const char* reason = nullptr;
  const std::optional<dcp::Request> request = dcp::decode_request(datagram, reason);
  if (!request) {
    require(reason != nullptr, "a refused request without a reason");
    return;
  }
  require(!datagram.empty() && static_cast<dcp::PduType>(datagram[0]) == request->type,
          "a request of another type");
  const auto* begin = datagram.data();
  const auto* end = begin + datagram.size();
  require(request->payload.empty() || (request->payload.data() >= begin &&
                                       request->payload.data() + request->payload.size() <= end),
          "a payload outside the datagram");
  require(static_cast<std::uint8_t>(request->state) <= dcp::kLastState, "an undefined state");
}

void describe(std::span<const std::uint8_t> text) {
  const std::string xml(text.begin(), text.end());
  try {
    const couplet::drivers::DcpDescription description =
        couplet::tools::parse_dcp_description(xml, "fuzz.dcpx");
    require(description.major_version == 1, "a description of another major version read");
    for (const couplet::drivers::DcpVariable& variable : description.variables) {
      require(std::string(couplet::drivers::to_string(variable.causality)) != "?",
              "a variable of unknown causality");
      require(dcp::to_string(variable.type).rfind("data type", 0) != 0,
              "a variable of unknown type");
    }
    (void)couplet::tools::describe(description);
  } catch (const couplet::ConfigurationError& error) {
    require(std::string(error.what()).rfind("fuzz.dcpx: ", 0) == 0,
            "an error that does not name the file");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::span<const std::uint8_t> rest(data + 1, size - 1);
  switch (data[0] % 3) {
    case 0:
      decode(rest);
      break;
    case 1:
      describe(rest);
      break;
    default:
      decode_from_master(rest);
      break;
  }
  return 0;
}
