#pragma once
// The catalog of built-in models (docs/models.md, `couplet models`): name, ports,
// parameters with defaults, and a factory. Each model family registers itself
// from its own file (rotational.cpp, translational.cpp, missiles.cpp,
// lotka_volterra.cpp, ...).
//
// No global mutable state: builtin() assembles a fresh catalog on each call.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "models/model.hpp"

namespace couplet::models {

struct ModelEntry {
  ModelDescription description;  ///< as an instance built with the default parameters
  /// Builds the model; receives every parameter of the description.
  std::function<std::unique_ptr<Model>(const ParameterValues&)> create;
};

class ModelCatalog {
 public:
  /// Every built-in model, in a fixed order (by family, then as registered).
  static ModelCatalog builtin();

  /// Throws std::logic_error on duplicate names (a bug of the registering code).
  explicit ModelCatalog(std::vector<ModelEntry> entries);

  const std::vector<ModelEntry>& entries() const { return entries_; }

  /// Throws ConfigurationError naming `name` and listing the known models.
  const ModelEntry& find(std::string_view name) const;

  /// Builds model `name` with its default parameters replaced by `overrides`.
  /// Throws ConfigurationError on an unknown model, or on an unknown or non-finite
  /// parameter (naming it and listing the model's parameters).
  std::unique_ptr<Model> create(std::string_view name,
                                const std::map<std::string, double, std::less<>>& overrides) const;

 private:
  std::vector<ModelEntry> entries_;
};

/// The value of parameter `name`; throws ConfigurationError if it is missing.
double parameter_value(const ParameterValues& values, std::string_view name,
                       std::string_view model_name);

/// As parameter_value, and throws ConfigurationError unless the value is > 0
/// (masses, inertias: the equations divide by them).
double positive_parameter_value(const ParameterValues& values, std::string_view name,
                                std::string_view model_name);

/// Every parameter of `description` at its default value.
ParameterValues default_parameter_values(const ModelDescription& description);

/// An entry whose description is taken from an instance built with the default
/// parameters, so that derived fields (direct-feedthrough flags) match what
/// `create` builds. `description` supplies the parameters and their defaults.
ModelEntry make_entry(const ModelDescription& description,
                      std::function<std::unique_ptr<Model>(const ParameterValues&)> create);

// Registration, one function per model family file.
void add_rotational_models(std::vector<ModelEntry>& entries);      // rotational.cpp
void add_translational_models(std::vector<ModelEntry>& entries);   // translational.cpp
void add_missiles_models(std::vector<ModelEntry>& entries);        // missiles.cpp
void add_car_models(std::vector<ModelEntry>& entries);             // car.cpp
void add_damper_models(std::vector<ModelEntry>& entries);          // damper.cpp
void add_lotka_volterra_models(std::vector<ModelEntry>& entries);  // lotka_volterra.cpp
void add_coupling_models(std::vector<ModelEntry>& entries);        // coupling.cpp
void add_chain_models(std::vector<ModelEntry>& entries);           // chain.cpp

}  // namespace couplet::models
