// System validation: every rejection fires and names the culprit.
#include "runtime/system.hpp"

#include <gtest/gtest.h>

#include "couplet/errors.hpp"

namespace couplet {
namespace {

// Only a description: validation never steps a slave.
class DescribedSlave final : public Slave {
 public:
  explicit DescribedSlave(SlaveDescription description) : description_(std::move(description)) {}
  const SlaveDescription& description() const override { return description_; }
  void setup(Time) override {}
  void evaluate_outputs(std::span<const Polynomial>, std::span<double>) override {}
  void step(const StepRequest&, const OutputBuffers&) override {
    FAIL() << "validation stepped a slave";
  }

 private:
  SlaveDescription description_;
};

std::unique_ptr<Slave> slave(std::vector<std::string> inputs,
                             std::vector<OutputDescription> outputs,
                             SlaveCapabilities capabilities = {}) {
  SlaveDescription description;
  for (auto& name : inputs) description.inputs.push_back({name});
  description.outputs = std::move(outputs);
  description.capabilities = capabilities;
  return std::make_unique<DescribedSlave>(description);
}

const AlgorithmRequirements kNonIterative{.algorithm_name = "jacobi"};

std::string validation_error(const System& system,
                             const AlgorithmRequirements& requirements = kNonIterative) {
  try {
    system.validate(requirements);
  } catch (const ConfigurationError& error) {
    return error.what();
  }
  return "";
}

System two_mass(bool left_feedthrough, bool right_feedthrough) {
  System system;
  system.add_slave("left", slave({"f"}, {{"x", left_feedthrough}, {"v", false}}));
  system.add_slave("right", slave({"x", "v"}, {{"f", right_feedthrough}}));
  system.connect("left.x", "right.x");
  system.connect("left.v", "right.v");
  system.connect("right.f", "left.f");
  return system;
}

TEST(System, AcceptsAValidTwoMassSystem) {
  EXPECT_EQ(validation_error(two_mass(false, true)), "");
}

// How a distributed run puts a stand-in in a slave's place: same name and
// connections, the replaced slave handed back; a stand-in with other ports is refused.
TEST(System, ReplacesASlaveKeepingItsConnections) {
  System system = two_mass(false, true);
  const Slave* before = &system.slave(1);
  std::unique_ptr<Slave> replaced = system.replace_slave(1, slave({"x", "v"}, {{"f", true}}));
  EXPECT_EQ(replaced.get(), before);
  EXPECT_NE(&system.slave(1), before);
  EXPECT_EQ(system.slave_name(1), "right");
  EXPECT_EQ(system.connections().size(), 3u);
  EXPECT_EQ(validation_error(system), "");
  try {
    system.replace_slave(1, slave({"x"}, {{"f", true}}));
    FAIL() << "a stand-in with other ports was accepted";
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what()).find("'right'"), std::string::npos) << error.what();
  }
}

TEST(System, UnknownSlaveIsNamed) {
  System system = two_mass(false, true);
  EXPECT_THROW(
      {
        try {
          system.connect("middle.x", "right.x");
        } catch (const ConfigurationError& error) {
          EXPECT_NE(std::string(error.what()).find("unknown slave 'middle'"), std::string::npos)
              << error.what();
          throw;
        }
      },
      ConfigurationError);
}

TEST(System, UnknownVariableIsNamedWithTheAlternatives) {
  System system;
  system.add_slave("left", slave({"f"}, {{"x", false}}));
  try {
    system.connect("left.position", "left.f");
    FAIL();
  } catch (const ConfigurationError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("no output 'position'"), std::string::npos) << message;
    EXPECT_NE(message.find("outputs: x"), std::string::npos) << message;
  }
}

TEST(System, UnconnectedInputIsNamed) {
  System system;
  system.add_slave("left", slave({"f"}, {{"x", false}}));
  system.add_slave("right", slave({"x", "v"}, {{"f", false}}));
  system.connect("left.x", "right.x");
  system.connect("right.f", "left.f");
  EXPECT_NE(validation_error(system).find("input 'right.v' is not connected"), std::string::npos);
}

TEST(System, DoublyDrivenInputIsNamed) {
  System system = two_mass(false, true);
  try {
    system.connect("left.v", "right.x");
    FAIL();
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what()).find("input 'right.x' is driven twice"), std::string::npos)
        << error.what();
  }
}

TEST(System, AlgebraicLoopThroughFeedthroughIsRejectedForNonIterative) {
  const System system = two_mass(true, true);
  const std::string message = validation_error(system);
  EXPECT_NE(message.find("algebraic loop"), std::string::npos) << message;
  EXPECT_NE(message.find("right.f"), std::string::npos) << message;
  EXPECT_NE(message.find("left.x"), std::string::npos) << message;
}

TEST(System, FeedthroughWithoutACycleIsNoLoop) {
  // left.v has feedthrough but feeds nothing; right.f's loop passes through left.x,
  // which has none: feedthrough on both slaves, yet no cycle of feedthrough ports.
  System system;
  system.add_slave("left", slave({"f"}, {{"x", false}, {"v", true}}));
  system.add_slave("right", slave({"x"}, {{"f", true}}));
  system.connect("left.x", "right.x");
  system.connect("right.f", "left.f");
  EXPECT_EQ(validation_error(system), "");
}

TEST(System, IterativeAlgorithmNeedsRollback) {
  const System system = two_mass(false, true);
  const std::string message = validation_error(
      system,
      {.algorithm_name = "ifosmondi", .needs_rollback = true, .resolves_algebraic_loops = true});
  EXPECT_NE(message.find("slave 'left' cannot roll back"), std::string::npos) << message;
}

// MISSILES resolves a feedthrough loop in its linear system without rollback,
// but every slave must linearize.
TEST(System, LinearizingAlgorithmNeedsLinearizationNotRollback) {
  const System loop = [] {
    System system;
    system.add_slave("left", slave({"f"}, {{"x", true}}));
    system.add_slave("right", slave({"x"}, {{"f", true}}));
    system.connect("left.x", "right.x");
    system.connect("right.f", "left.f");
    return system;
  }();
  const AlgorithmRequirements missiles{
      .algorithm_name = "missiles", .resolves_algebraic_loops = true, .needs_linearization = true};
  const std::string message = validation_error(loop, missiles);
  EXPECT_NE(
      message.find(
          "slave 'left' cannot linearize (state and Jacobians), but algorithm 'missiles' needs it"),
      std::string::npos)
      << message;
  EXPECT_EQ(message.find("roll back"), std::string::npos) << message;
  EXPECT_EQ(message.find("algebraic loop"), std::string::npos) << message;
}

TEST(System, DegreeTheSlaveCannotTakeIsNamed) {
  System system;
  SlaveCapabilities zoh_only;
  zoh_only.max_input_degree = 0;
  zoh_only.output_derivative_order = 2;
  system.add_slave("device", slave({"u"}, {{"y", false}}, zoh_only));
  system.connect("device.y", "device.u");
  const std::string message = validation_error(
      system,
      {.algorithm_name = "jacobi", .required_input_degree = 1, .required_output_derivatives = 1});
  EXPECT_NE(message.find("slave 'device' accepts input polynomials of degree at most 0"),
            std::string::npos)
      << message;
}

TEST(System, MissingOutputDerivativesAreNamed) {
  System system;
  SlaveCapabilities capabilities;
  capabilities.max_input_degree = 3;
  system.add_slave("device", slave({"u"}, {{"y", false}}, capabilities));
  system.connect("device.y", "device.u");
  const std::string message = validation_error(
      system,
      {.algorithm_name = "jacobi", .required_input_degree = 1, .required_output_derivatives = 1});
  EXPECT_NE(message.find("output 'device.y' reports 0 time derivative(s)"), std::string::npos)
      << message;
}

TEST(System, SlaveNamesAreUniqueAndDotFree) {
  System system;
  system.add_slave("a", slave({}, {}));
  EXPECT_THROW(system.add_slave("a", slave({}, {})), ConfigurationError);
  EXPECT_THROW(system.add_slave("a.b", slave({}, {})), ConfigurationError);
}

/// The message of connecting left.y [from_unit] to right.u [to_unit].
std::string unit_refusal(const std::string& from_unit, const std::string& to_unit) {
  System system;
  system.add_slave("left", slave({}, {{.name = "y", .unit = from_unit}}));
  SlaveDescription right;
  right.inputs.push_back({.name = "u", .unit = to_unit});
  system.add_slave("right", std::make_unique<DescribedSlave>(right));
  try {
    system.connect("left.y", "right.u");
  } catch (const ConfigurationError& error) {
    return error.what();
  }
  return "";
}

// System::connect converts nothing (the scenario's builder inserts the
// converters): two units are one when their definitions are, and a refusal
// says why the units would not convert.
TEST(System, UnitsConnectWhenTheyAreOneUnitAndARefusalSaysWhyNot) {
  EXPECT_EQ(unit_refusal("N m", "N.m"), "");
  EXPECT_EQ(unit_refusal("m/s2", "m.s-2"), "");
  EXPECT_EQ(unit_refusal("", "K"), "");
  EXPECT_NE(unit_refusal("m", "K").find("'left.y' [m] -> 'right.u' [K]: the units differ, and "
                                        "their SI bases differ (m, K); declare"),
            std::string::npos);
  EXPECT_NE(unit_refusal("furlong", "m")
                .find("the units differ, and couplet does not know "
                      "'furlong'"),
            std::string::npos);
  // One base, different units: the caller's to convert.
  EXPECT_NE(unit_refusal("km/h", "m/s").find("[m/s]: the units differ; declare"),
            std::string::npos);
}

/// The message of connecting Integer left.n [from_unit] to Real right.u [to_unit].
std::string integer_to_real_refusal(const std::string& from_unit, const std::string& to_unit,
                                    DiscreteType type = DiscreteType::integer) {
  System system;
  SlaveDescription left;
  left.discrete_outputs.push_back({.name = "n", .type = type, .unit = from_unit});
  system.add_slave("left", std::make_unique<DescribedSlave>(left));
  SlaveDescription right;
  right.inputs.push_back({.name = "u", .unit = to_unit});
  system.add_slave("right", std::make_unique<DescribedSlave>(right));
  try {
    system.connect("left.n", "right.u", "scenario.yaml:9: connections[0]");
    if (system.integer_source_of({1, 0}) != PortReference{0, 0}) return "not connected";
    system.validate({.algorithm_name = "missiles", .real_sources_only = true});
  } catch (const ConfigurationError& error) {
    return error.what();
  }
  return "";
}

// An Integer output drives a Real input; its unit is compared as a Real
// output's (converted by the caller when the bases agree); a Boolean never
// drives a Real input; an algorithm that takes every input from Real outputs
// refuses it, naming where it was declared.
TEST(System, AnIntegerOutputDrivesARealInputOfItsUnit) {
  const std::string missiles =
      "scenario.yaml:9: connections[0]: 'left.n' (Integer) -> 'right.u' (Real): algorithm "
      "'missiles' solves every Real input from Real outputs, and an Integer output drives this one";
  EXPECT_EQ(integer_to_real_refusal("", "m"), missiles);
  EXPECT_EQ(integer_to_real_refusal("mm", "mm"), missiles);
  EXPECT_NE(integer_to_real_refusal("mm", "m").find("'left.n' [mm] -> 'right.u' [m]: the units "
                                                    "differ; declare"),
            std::string::npos);
  EXPECT_NE(integer_to_real_refusal("mm", "s").find("their SI bases differ (m, s)"),
            std::string::npos);
  EXPECT_NE(integer_to_real_refusal("", "", DiscreteType::boolean)
                .find("'left.n' (Boolean) -> 'right.u' (Real): the types differ"),
            std::string::npos);
}

TEST(System, SlavesAreInsertedOnlyBeforeTheFirstConnection) {
  System system;
  system.add_slave("a", slave({}, {{"y", false}}));
  system.add_slave("b", slave({"u"}, {}));
  EXPECT_EQ(system.insert_slave(1, "between", slave({}, {})), 1u);
  EXPECT_EQ(system.slave_name(2), "b");
  system.connect("a.y", "b.u");
  EXPECT_THROW(system.insert_slave(0, "first", slave({}, {})), std::logic_error);
  EXPECT_EQ(system.add_slave("last", slave({}, {})), 3u);  // appending moves no index
}

}  // namespace
}  // namespace couplet
