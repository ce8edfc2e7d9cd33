#include "models/catalog.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "couplet/errors.hpp"

namespace couplet::models {
namespace {

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

std::string known_model_names(const std::vector<ModelEntry>& entries) {
  std::string names;
  for (const ModelEntry& entry : entries) {
    names += (names.empty() ? "" : ", ") + entry.description.name;
  }
  return names;
}

std::string parameter_names(const ModelDescription& description) {
  std::string names;
  for (const ParameterDescription& parameter : description.parameters) {
    names += (names.empty() ? "" : ", ") + parameter.name;
  }
  return names.empty() ? "(none)" : names;
}

bool has_parameter(const ModelDescription& description, std::string_view name) {
  return std::any_of(description.parameters.begin(), description.parameters.end(),
                     [name](const ParameterDescription& parameter) { return parameter.name == name; });
}

}  // namespace

ModelCatalog ModelCatalog::builtin() {
  std::vector<ModelEntry> entries;
  add_rotational_models(entries);
  add_translational_models(entries);
  add_missiles_models(entries);
  add_car_models(entries);
  add_damper_models(entries);
  add_lotka_volterra_models(entries);
  add_coupling_models(entries);
  add_chain_models(entries);
  add_stimulus_models(entries);
  return ModelCatalog(std::move(entries));
}

ModelCatalog::ModelCatalog(std::vector<ModelEntry> entries) : entries_(std::move(entries)) {
  for (auto entry = entries_.begin(); entry != entries_.end(); ++entry) {
    const auto same_name = [&](const ModelEntry& other) {
      return other.description.name == entry->description.name;
    };
    if (std::any_of(entries_.begin(), entry, same_name)) {
      throw std::logic_error("model catalog: duplicate model name " +
                             quoted(entry->description.name));
    }
    const ModelDescription& description = entry->description;
    if (!description.input_units.empty() &&
        description.input_units.size() != description.inputs.size()) {
      throw std::logic_error("model catalog: " + quoted(description.name) + " declares " +
                             std::to_string(description.input_units.size()) + " input units for " +
                             std::to_string(description.inputs.size()) + " inputs");
    }
  }
}

const ModelEntry& ModelCatalog::find(std::string_view name) const {
  const auto entry = std::find_if(entries_.begin(), entries_.end(), [name](const ModelEntry& e) {
    return e.description.name == name;
  });
  if (entry == entries_.end()) {
    throw ConfigurationError("unknown model " + quoted(name) +
                             "; known models: " + known_model_names(entries_));
  }
  return *entry;
}

std::unique_ptr<Model> ModelCatalog::create(
    std::string_view name, const std::map<std::string, double, std::less<>>& overrides) const {
  const ModelEntry& entry = find(name);
  ParameterValues values = default_parameter_values(entry.description);
  for (const auto& [parameter, value] : overrides) {
    if (!has_parameter(entry.description, parameter)) {
      throw ConfigurationError("model " + quoted(name) + " has no parameter " + quoted(parameter) +
                               "; its parameters are: " + parameter_names(entry.description));
    }
    if (!std::isfinite(value)) {
      throw ConfigurationError("parameter " + quoted(parameter) + " of model " + quoted(name) +
                               " must be a finite number");
    }
    values[parameter] = value;
  }
  return entry.create(values);
}

ParameterValues default_parameter_values(const ModelDescription& description) {
  ParameterValues values;
  for (const ParameterDescription& parameter : description.parameters) {
    values.emplace(parameter.name, parameter.default_value);
  }
  return values;
}

ModelEntry make_entry(const ModelDescription& description,
                      std::function<std::unique_ptr<Model>(const ParameterValues&)> create) {
  const std::unique_ptr<Model> instance = create(default_parameter_values(description));
  return ModelEntry{instance->description(), std::move(create)};
}

double parameter_value(const ParameterValues& values, std::string_view name,
                       std::string_view model_name) {
  const auto value = values.find(name);
  if (value == values.end()) {
    throw ConfigurationError("model " + quoted(model_name) + ": parameter " + quoted(name) +
                             " is missing");
  }
  return value->second;
}

double positive_parameter_value(const ParameterValues& values, std::string_view name,
                                std::string_view model_name) {
  const double value = parameter_value(values, name, model_name);
  if (!(value > 0.0)) {
    throw ConfigurationError("parameter " + quoted(name) + " of model " + quoted(model_name) +
                             " must be positive, got " + std::to_string(value));
  }
  return value;
}

}  // namespace couplet::models
