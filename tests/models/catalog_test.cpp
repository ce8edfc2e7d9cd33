// The built-in model catalog: names, ports, parameters and defaults are a contract
// with scenarios and `couplet models` (docs/models.md); errors name the culprit.
#include "models/catalog.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "couplet/errors.hpp"

namespace couplet::models {
namespace {

struct ExpectedOutput {
  std::string name;
  bool direct_feedthrough;
};

struct ExpectedModel {
  std::string name;
  std::vector<std::string> inputs;
  std::vector<ExpectedOutput> outputs;
  std::vector<std::string> states;
  std::vector<std::pair<std::string, double>> parameters;  ///< in order, with defaults
};

const std::vector<ExpectedModel>& expected_models() {
  static const std::vector<ExpectedModel> models{
      {"rotational.omega2tau",
       {"omega"},
       {{"tau", true}},
       {"phi", "omega", "phi_in"},
       {{"J", 10.0}, {"c", 1.0}, {"d", 1.0}, {"ck", 1.0}, {"dk", 2.0},
        {"phi0", 0.1}, {"omega0", 0.1}, {"phi_in0", 0.2}}},
      {"rotational.tau2omega",
       {"tau"},
       {{"omega", false}},
       {"phi", "omega"},
       {{"J", 10.0}, {"c", 1.0}, {"d", 2.0}, {"phi0", 0.2}, {"omega0", 0.1}}},
      {"translational.mass",
       {"f"},
       {{"x", false}, {"v", false}},
       {"x", "v"},
       {{"m", 10.0}, {"c", 1.0}, {"d", 0.1}, {"x0", 1.0}, {"v0", 0.0}}},
      {"translational.coupled_mass",
       {"x", "v"},
       {{"f", true}},
       {"x", "v"},
       {{"m", 1.0}, {"c_wall", 1.0}, {"d_wall", 0.1}, {"c_coupling", 1.0}, {"d_coupling", 0.2},
        {"x0", 0.0}, {"v0", 0.0}, {"switch_time", 100.0}, {"c_wall_after", 4.0},
        {"anchor_after", 1.0}}},
      {"missiles.left",
       {"f"},
       {{"x", false}, {"v", false}},
       {"x", "v"},
       {{"m1", 5.0}, {"c1", 1e4}, {"d1", 10.0}, {"x0", -1.0}, {"v0", 0.0}}},
      {"missiles.right",
       {"x", "v"},
       {{"f", true}},
       {"x", "v"},
       {{"m2", 80.0}, {"c2", 1e4}, {"d2", 10.0}, {"c3", 1e5}, {"d3", 40.0}, {"x0", -3.0},
        {"v0", 0.0}}},
      {"car.vehicle",
       {"force"},
       {{"position", false}, {"v", false}},
       {"position", "v"},
       {{"m", 1000.0}, {"wind", 150.0}, {"x0", 0.0}, {"v0", 0.0}}},
      {"car.controller",
       {"position"},
       {{"force", true}},
       {},
       {{"preset", 2400.0}, {"switch_time", 10.0}, {"gain", 800.0}, {"target_speed", 16.0}}},
  };
  return models;
}

void expect_description(const ModelDescription& actual, const ExpectedModel& expected) {
  SCOPED_TRACE(expected.name);
  EXPECT_EQ(actual.name, expected.name);
  EXPECT_EQ(actual.inputs, expected.inputs);
  ASSERT_EQ(actual.outputs.size(), expected.outputs.size());
  for (std::size_t i = 0; i < expected.outputs.size(); ++i) {
    EXPECT_EQ(actual.outputs[i].name, expected.outputs[i].name);
    EXPECT_EQ(actual.outputs[i].direct_feedthrough, expected.outputs[i].direct_feedthrough)
        << "output " << expected.outputs[i].name;
  }
  EXPECT_EQ(actual.states, expected.states);
  ASSERT_EQ(actual.parameters.size(), expected.parameters.size());
  for (std::size_t i = 0; i < expected.parameters.size(); ++i) {
    EXPECT_EQ(actual.parameters[i].name, expected.parameters[i].first);
    EXPECT_EQ(actual.parameters[i].default_value, expected.parameters[i].second)
        << "default of " << expected.parameters[i].first;
  }
}

TEST(CatalogTest, ListsEveryBuiltinModelWithExactPortsAndParameters) {
  const ModelCatalog catalog = ModelCatalog::builtin();
  const auto& expected = expected_models();
  ASSERT_GE(catalog.entries().size(), expected.size());  // models of later work may follow
  for (std::size_t i = 0; i < expected.size(); ++i) {
    expect_description(catalog.entries()[i].description, expected[i]);
    EXPECT_EQ(&catalog.find(expected[i].name), &catalog.entries()[i]);
  }
}

TEST(CatalogTest, InstancesDescribeThemselvesAsTheCatalogDoes) {
  const ModelCatalog catalog = ModelCatalog::builtin();
  for (const ExpectedModel& expected : expected_models()) {
    const auto model = catalog.create(expected.name, {});
    ASSERT_NE(model, nullptr) << expected.name;
    expect_description(model->description(), expected);
    // The car's wind makes it time-varying, its controller reads u̇: not LinearModels.
    const bool linear = !expected.name.starts_with("car.");
    EXPECT_EQ(model->linear_form(0.0) != nullptr, linear) << expected.name << " is linear";
    EXPECT_EQ(model->output_derivative_order(), 3) << expected.name;
  }
}

TEST(CatalogTest, EveryModelAndParameterIsDocumentedWithAUnit) {
  const ModelCatalog catalog = ModelCatalog::builtin();
  for (const ModelEntry& entry : catalog.entries()) {
    const ModelDescription& description = entry.description;
    EXPECT_FALSE(description.summary.empty()) << description.name;
    EXPECT_EQ(description.summary.find('\n'), std::string::npos) << description.name;
    for (const ParameterDescription& parameter : description.parameters) {
      const std::string& meaning = parameter.meaning;
      const auto open = meaning.rfind('[');
      EXPECT_TRUE(open != std::string::npos && meaning.back() == ']' && meaning.size() > open + 2)
          << description.name << "." << parameter.name << ": '" << meaning
          << "' should end with a unit in brackets";
    }
  }
}

TEST(CatalogTest, InitialStatesComeFromTheParameters) {
  const ModelCatalog catalog = ModelCatalog::builtin();
  std::vector<double> omega2tau(3), right(2);
  catalog.create("rotational.omega2tau", {})->initial_state(omega2tau);
  EXPECT_EQ(omega2tau, (std::vector<double>{0.1, 0.1, 0.2}));
  catalog.create("missiles.right", {{"x0", 2.5}, {"v0", -4.0}})->initial_state(right);
  EXPECT_EQ(right, (std::vector<double>{2.5, -4.0}));
}

TEST(CatalogTest, UnknownModelNamesTheCulpritAndTheKnownModels) {
  const ModelCatalog catalog = ModelCatalog::builtin();
  try {
    catalog.find("rotational.omega2taux");
    FAIL() << "an unknown model was found";
  } catch (const ConfigurationError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("'rotational.omega2taux'"), std::string::npos) << message;
    for (const ExpectedModel& expected : expected_models()) {
      EXPECT_NE(message.find(expected.name), std::string::npos) << message;
    }
  }
  EXPECT_THROW(catalog.create("nonsense", {}), ConfigurationError);
}

TEST(CatalogTest, UnknownParameterNamesItAndListsTheModelParameters) {
  const ModelCatalog catalog = ModelCatalog::builtin();
  try {
    catalog.create("translational.coupled_mass", {{"m", 2.0}, {"c_walll", 3.0}});
    FAIL() << "an unknown parameter was accepted";
  } catch (const ConfigurationError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("'c_walll'"), std::string::npos) << message;
    EXPECT_NE(message.find("'translational.coupled_mass'"), std::string::npos) << message;
    EXPECT_NE(message.find("c_wall, d_wall, c_coupling"), std::string::npos) << message;
  }
}

TEST(CatalogTest, RejectsNonFiniteAndNonPositiveMasses) {
  const ModelCatalog catalog = ModelCatalog::builtin();
  EXPECT_THROW(catalog.create("translational.mass", {{"m", 0.0}}), ConfigurationError);
  EXPECT_THROW(catalog.create("missiles.right", {{"m2", -80.0}}), ConfigurationError);
  EXPECT_THROW(catalog.create("rotational.tau2omega", {{"J", std::nan("")}}), ConfigurationError);
  try {
    catalog.create("rotational.omega2tau", {{"J", 0.0}});
    FAIL() << "J = 0 was accepted";
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what()).find("'J'"), std::string::npos) << error.what();
  }
}

TEST(CatalogTest, OverridesReplaceDefaults) {
  // tau2omega with J = 4, c = 3, d = 0.5: J ω̇ = −c φ − d ω + τ (Glumac eq. 41).
  const auto model = ModelCatalog::builtin().create("rotational.tau2omega",
                                                    {{"J", 4.0}, {"c", 3.0}, {"d", 0.5}});
  std::vector<double> rate(2);
  model->derivatives(0.0, std::vector<double>{0.2, -0.4}, std::vector<double>{1.0}, rate);
  EXPECT_DOUBLE_EQ(rate[0], -0.4);
  EXPECT_DOUBLE_EQ(rate[1], (-3.0 * 0.2 - 0.5 * -0.4 + 1.0) / 4.0);
}

TEST(CatalogTest, Omega2tauOutputsTheCouplingTorqueOnTheOtherMass) {
  // τ = c_k (φ₁ − φ₂) + d_k (ω₁ − ω₂): with mass 1 ahead, the torque drives mass 2
  // forward and brakes mass 1 (Glumac eq. 40, signs from the physics).
  const auto model = ModelCatalog::builtin().create("rotational.omega2tau", {});
  const std::vector<double> state{0.5, 0.3, 0.1};  // φ₁, ω₁, φ_o = φ₂
  const std::vector<double> other_speed{0.2};       // ω₂
  std::vector<double> torque(1), rate(3);
  model->outputs(0.0, state, other_speed, torque);
  EXPECT_DOUBLE_EQ(torque[0], 1.0 * (0.5 - 0.1) + 2.0 * (0.3 - 0.2));
  model->derivatives(0.0, state, other_speed, rate);
  EXPECT_DOUBLE_EQ(rate[0], 0.3);
  EXPECT_DOUBLE_EQ(rate[1], (-1.0 * 0.5 - 1.0 * 0.3 - torque[0]) / 10.0);
  EXPECT_DOUBLE_EQ(rate[2], 0.2);
}

TEST(CatalogTest, MissilesInitialCouplingForceMatchesTable3) {
  // Table 3: u_{1,1}(t_init) = y_{2,1}(t_init) = −20000 N, the force on the right
  // of the left mass, from x₁(0) = −1 m, x₂(0) = −3 m at rest.
  const ModelCatalog catalog = ModelCatalog::builtin();
  const auto left = catalog.create("missiles.left", {});
  const auto right = catalog.create("missiles.right", {});
  std::vector<double> left_state(2), right_state(2), left_outputs(2), force(1);
  left->initial_state(left_state);
  right->initial_state(right_state);
  left->outputs(0.0, left_state, std::vector<double>{0.0}, left_outputs);
  EXPECT_EQ(left_outputs, (std::vector<double>{-1.0, 0.0}));
  right->outputs(0.0, right_state, left_outputs, force);
  EXPECT_DOUBLE_EQ(force[0], -20000.0);
}

TEST(CatalogTest, CoupledMassForcePullsTheMassesTogether) {
  // Right mass 1 m to the right of a resting left mass: the force on the left mass
  // is +c_coupling·1 m (towards the right mass), the right mass is pulled back.
  const auto model = ModelCatalog::builtin().create("translational.coupled_mass", {});
  const std::vector<double> state{1.0, 0.0}, left_position_velocity{0.0, 0.0};
  std::vector<double> force(1), rate(2);
  model->outputs(0.0, state, left_position_velocity, force);
  EXPECT_DOUBLE_EQ(force[0], 1.0);
  model->derivatives(0.0, state, left_position_velocity, rate);
  EXPECT_DOUBLE_EQ(rate[1], -1.0 * 1.0 - force[0]);
}

TEST(CatalogTest, DuplicateNamesAreRejected) {
  std::vector<ModelEntry> entries;
  add_translational_models(entries);
  add_translational_models(entries);
  EXPECT_THROW(ModelCatalog{std::move(entries)}, std::logic_error);
}

}  // namespace
}  // namespace couplet::models
