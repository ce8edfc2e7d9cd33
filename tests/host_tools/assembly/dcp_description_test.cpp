// Reading DCP slave descriptions (DCPX) and choosing the time resolution
// (docs/dcp.md): what a user's file gives, and how a bad one is named.
#include <gtest/gtest.h>

#include "couplet/errors.hpp"
#include "drivers/dcp_slave.hpp"
#include "host_tools/assembly/dcp_description_reader.hpp"

namespace couplet::tools {
namespace {

namespace dcp = protocol::dcp;
using drivers::choose_time_resolution;
using drivers::DcpDescription;
using drivers::DcpVariable;

std::string description_text(const std::string& op_mode, const std::string& time_res,
                             const std::string& variables) {
  return R"(<?xml version="1.0" encoding="UTF-8"?>
<dcpSlaveDescription dcpMajorVersion="1" dcpMinorVersion="0" dcpSlaveName="s"
                     uuid="00112233-4455-6677-8899-aabbccddeeff">
  <OpMode>)" +
         op_mode + R"(</OpMode>
  )" + time_res +
         R"(
  <TransportProtocols>
    <UDP_IPv4><Control host="127.0.0.1" port="8080"/>
      <DAT_input_output host="127.0.0.1"><AvailablePortRange from="2048" to="4096"/></DAT_input_output>
    </UDP_IPv4>
  </TransportProtocols>
  <Variables>)" +
         variables + R"(</Variables>
</dcpSlaveDescription>
)";
}

const std::string kNrt = R"(<NonRealTime defaultSteps="2" fixedSteps="false" maxSteps="50"/>)";
const std::string kVariable =
    R"(<Variable name="y" valueReference="1"><Output><Float64 start="10.0"/></Output></Variable>)";

std::string error_of(const std::string& text) {
  try {
    parse_dcp_description(text, "slave.dcpx");
  } catch (const ConfigurationError& error) {
    return error.what();
  }
  return "no error";
}

TEST(DcpDescription, ReadsWhatTheMasterNeeds) {
  const DcpDescription description = parse_dcp_description(
      description_text(
          kNrt + "<SoftRealTime/>",
          R"(<TimeRes><Resolution numerator="1" denominator="100"/></TimeRes>)",
          kVariable +
              R"(<Variable name="n" valueReference="7"><Input><Int16 start="-3"/></Input></Variable>)"),
      "slave.dcpx");
  EXPECT_EQ(description.slave_name, "s");
  EXPECT_EQ(description.uuid[0], 0x00);
  EXPECT_EQ(description.uuid[15], 0xff);
  EXPECT_TRUE(description.soft_real_time);
  EXPECT_FALSE(description.hard_real_time);
  ASSERT_TRUE(description.non_real_time);
  EXPECT_EQ(description.non_real_time->default_steps, 2u);
  EXPECT_FALSE(description.non_real_time->fixed_steps);
  EXPECT_EQ(description.non_real_time->max_steps, 50u);
  ASSERT_EQ(description.resolutions.size(), 1u);
  EXPECT_TRUE(description.resolutions[0].fixed);  // the schema's default
  EXPECT_EQ(description.control_port, 8080);
  ASSERT_EQ(description.data_ports.size(), 1u);
  EXPECT_EQ(description.data_ports[0].to, 4096);
  ASSERT_EQ(description.variables.size(), 2u);
  EXPECT_EQ(description.variables[0].start, 10.0);
  EXPECT_EQ(description.variables[1].type, dcp::DataType::int16);
  EXPECT_EQ(description.variables[1].causality, DcpVariable::Causality::input);
  EXPECT_EQ(description.variables[1].start, -3.0);
}

TEST(DcpDescription, BadFilesAreNamedWithElementAndLine) {
  EXPECT_EQ(error_of("<fmiModelDescription/>"),
            "slave.dcpx: fmiModelDescription (line 1): the root element must be "
            "dcpSlaveDescription, not 'fmiModelDescription'");
  EXPECT_EQ(
      error_of(description_text("", "", "")),
      "slave.dcpx: OpMode (line 4): offers no mode (HardRealTime, SoftRealTime or NonRealTime)");
  const std::string duplicate =
      kVariable + R"(<Variable name="z" valueReference="1"><Output><Float64/></Output></Variable>)";
  EXPECT_EQ(error_of(description_text(kNrt, "", duplicate)),
            "slave.dcpx: Variable 'z' (line 11): valueReference: 1 is used by another variable");
  std::string major = description_text(kNrt, "", "");
  major.replace(major.find("dcpMajorVersion=\"1\""), 19, "dcpMajorVersion=\"2\"");
  EXPECT_EQ(error_of(major),
            "slave.dcpx: dcpSlaveDescription (line 2): dcpMajorVersion: DCP 2.x: couplet speaks "
            "DCP 1.0 (dcpMajorVersion 1)");
  std::string uuid = description_text(kNrt, "", "");
  uuid.replace(uuid.find("aabbcc"), 6, "zzbbcc");
  EXPECT_NE(error_of(uuid).find("uuid: '00112233-4455-6677-8899-zzbbccddeeff' is not a UUID"),
            std::string::npos);
}

TEST(DcpDescription, ArraysAreRefusedByName) {
  for (
      const char* array :
      {R"(<Variable name="a" valueReference="2"><Input><Dimensions/><Float64/></Input></Variable>)",
       R"(<Variable name="a" valueReference="2"><Input><Float64><Dimensions/></Float64></Input></Variable>)"}) {
    EXPECT_EQ(error_of(description_text(kNrt, "", array)),
              "slave.dcpx: Variable 'a' (line 11): is an array (Dimensions): couplet exchanges "
              "scalar DCP variables");
  }
}

TEST(DcpDescription, TimeResolutionIsTheSlavesFixedOneElseTheMacroStep) {
  const auto with = [](const std::string& time_res) {
    return parse_dcp_description(description_text(kNrt, time_res, ""), "slave.dcpx");
  };
  const auto fixed = with(R"(<TimeRes><Resolution numerator="1" denominator="100"/>
      <Resolution numerator="1" denominator="1000" recommended="true"/></TimeRes>)");
  EXPECT_EQ(choose_time_resolution(fixed, 0), (std::pair<std::uint32_t, std::uint32_t>{1, 1000}));
  const auto any = with("");
  EXPECT_EQ(choose_time_resolution(any, 2'500'000),
            (std::pair<std::uint32_t, std::uint32_t>{1, 400}));
  EXPECT_THROW(choose_time_resolution(any, 0), ConfigurationError);
  const auto range = with(
      R"(<TimeRes><ResolutionRange numeratorFrom="1" numeratorTo="10" denominator="1000"/></TimeRes>)");
  EXPECT_EQ(choose_time_resolution(range, 5'000'000),
            (std::pair<std::uint32_t, std::uint32_t>{1, 200}));
  try {
    choose_time_resolution(range, 20'000'000);
    ADD_FAILURE() << "a step outside the range was accepted";
  } catch (const ConfigurationError& error) {
    EXPECT_NE(
        std::string(error.what()).find("offers no time resolution of the macro step (1/50 s)"),
        std::string::npos)
        << error.what();
  }
  const auto odd = with(R"(<TimeRes><Resolution numerator="1" denominator="3"/></TimeRes>)");
  EXPECT_THROW(choose_time_resolution(odd, 0), ConfigurationError);
}

}  // namespace
}  // namespace couplet::tools
