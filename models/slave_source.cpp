#include "models/slave_source.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "couplet/errors.hpp"
#include "models/fmi/fmi3_co_simulation_slave.hpp"
#include "models/fmi/fmi3_elements.hpp"
#include "models/fmi/fmi3_model_exchange_model.hpp"
#include "models/fmi/fmi3_scheduled_execution_slave.hpp"
#include "models/fmi/fmu_slaves.hpp"
#include "models/stimulus_table.hpp"

namespace couplet::models {
namespace {

/// A column as wide as its longest entry plus two spaces, and at least `minimum`,
/// so that a long name never runs into the next column.
template <typename Range, typename Name>
int column_width(const Range& rows, Name name_of, std::size_t minimum) {
  std::size_t width = minimum;
  for (const auto& row : rows) width = std::max(width, name_of(row).size() + 2);
  return static_cast<int>(width);
}

/// "name [unit]", or the bare name for a port without a unit.
std::string with_unit(const std::string& port, const std::string& unit) {
  return unit.empty() ? port : port + " [" + unit + "]";
}

std::string describe_model(const ModelDescription& model) {
  std::ostringstream text;
  text << model.name << " — " << model.summary << "\n";
  text << "  inputs: ";
  for (std::size_t i = 0; i < model.inputs.size(); ++i)
    text << (i ? ", " : "") << with_unit(model.inputs[i], model.input_unit(i));
  if (model.inputs.empty()) text << "none";
  text << "\n  outputs: ";
  for (std::size_t j = 0; j < model.outputs.size(); ++j) {
    text << (j ? ", " : "") << with_unit(model.outputs[j].name, model.outputs[j].unit)
         << (model.outputs[j].direct_feedthrough ? " (feedthrough)" : "");
  }
  text << "\n  parameters:\n";
  const int name_width = column_width(
      model.parameters, [](const ParameterDescription& p) -> const std::string& { return p.name; },
      14);
  for (const ParameterDescription& parameter : model.parameters) {
    text << "    " << std::left << std::setw(name_width) << parameter.name << " = " << std::setw(10)
         << parameter.default_value << "  " << parameter.meaning << "\n";
  }
  return text.str();
}

class CatalogSource final : public SlaveSource {
 public:
  CatalogSource(const ModelCatalog& catalog, const std::string& model_name)
      : catalog_(catalog), entry_(catalog_.find(model_name)) {}

  std::string name() const override { return entry_.description.name; }
  std::string identity() const override { return entry_.description.name; }

  std::unique_ptr<Slave> make_slave(const SlaveSettings& settings) const override {
    return make_ode_slave(settings.slave_name, make_model(settings), settings.solver,
                          settings.limits);
  }

  std::unique_ptr<Model> make_model(const SlaveSettings& settings) const override {
    return catalog_.create(entry_.description.name, settings.parameters);
  }

  std::string describe() const override { return describe_model(entry_.description); }

 private:
  ModelCatalog catalog_;
  const ModelEntry& entry_;
};

class FmuSource final : public SlaveSource {
 public:
  FmuSource(std::shared_ptr<fmi::Package> package, fmi::InterfaceKind kind)
      : package_(std::move(package)), kind_(kind) {
    package_->library(kind_);  // a missing binary or function is a start-up error
  }

  std::string name() const override {
    return "FMU '" + package_->path() + "' (" + fmi::to_string(kind_) + ")";
  }
  std::string identity() const override { return "fmu:" + package_->description().guid; }

  std::unique_ptr<Slave> make_slave(const SlaveSettings& settings) const override {
    const fmi::FmuSettings fmu = fmu_settings(settings);
    refuse_text(settings);
    if (kind_ == fmi::InterfaceKind::co_simulation)
      return fmi::make_co_simulation_slave(package_, fmu);
    return make_ode_slave(settings.slave_name, fmi::make_model_exchange_model(package_, fmu),
                          settings.solver, settings.limits);
  }

  std::unique_ptr<Model> make_model(const SlaveSettings& settings) const override {
    if (kind_ == fmi::InterfaceKind::co_simulation) {
      throw ConfigurationError(
          "slave '" + settings.slave_name + "': FMU '" + package_->path() +
          "' is used for co-simulation, which keeps its equations inside: no monolithic "
          "reference (use fmu_kind: me if the FMU offers model exchange, or reference: none)");
    }
    refuse_text(settings);
    return fmi::make_model_exchange_model(package_, fmu_settings(settings));
  }

  std::string describe() const override;

 private:
  /// Text values are for FMI 3.0 String and Binary variables (a quoted number
  /// is a number here too).
  void refuse_text(const SlaveSettings& settings) const {
    for (const auto& [name, text] : settings.text_parameters) {
      if (settings.parameters.contains(name)) continue;
      throw ConfigurationError("slave '" + settings.slave_name + "': FMU '" + package_->path() +
                               "': parameters: '" + name + "' = \"" + text +
                               "\" is no number; text values are for the String and Binary "
                               "variables of FMI 3.0 FMUs (this is FMI 2.0)");
    }
  }

  static fmi::FmuSettings fmu_settings(const SlaveSettings& settings) {
    return {.slave_name = settings.slave_name,
            .parameters = settings.parameters,
            .limits = settings.limits,
            .coupled_inputs = settings.coupled_inputs,
            .text_parameters = settings.text_parameters};
  }

  std::shared_ptr<fmi::Package> package_;
  fmi::InterfaceKind kind_;
};

/// stimulus.table: the table is read once, here; every slave and model gets a copy.
class TableSource final : public SlaveSource {
 public:
  TableSource(const std::string& csv_path, TableInterpolation interpolation)
      : table_(read_stimulus_table(csv_path)), interpolation_(interpolation) {}

  std::string name() const override { return std::string(kTableStimulusName) + " '" + table_.file + "'"; }
  std::string identity() const override { return kTableStimulusName; }

  std::unique_ptr<Slave> make_slave(const SlaveSettings& settings) const override {
    return make_ode_slave(settings.slave_name, make_model(settings), settings.solver,
                          settings.limits);
  }

  std::unique_ptr<Model> make_model(const SlaveSettings& settings) const override {
    if (!settings.parameters.empty()) {
      throw ConfigurationError("slave '" + settings.slave_name + "': model '" +
                               kTableStimulusName +
                               "' has no parameters (its settings are 'file' and 'interpolation')");
    }
    return make_table_stimulus(table_, interpolation_);
  }

  std::string describe() const override {
    return describe_model(make_table_stimulus(table_, interpolation_)->description());
  }

 private:
  StimulusTable table_;
  TableInterpolation interpolation_;
};

std::string yes_no(bool flag) {
  return flag ? "yes" : "no";
}

std::string FmuSource::describe() const {
  const fmi::Description& description = package_->description();
  std::ostringstream text;
  text << "FMU " << package_->path() << " — " << description.model_name << " (FMI "
       << description.fmi_version << ", GUID " << description.guid;
  if (!description.generation_tool.empty()) text << ", made by " << description.generation_tool;
  text << ")\n  offers: " << (description.co_simulation ? "cs " : "")
       << (description.model_exchange ? "me " : "") << "(couplet uses " << fmi::to_string(kind_)
       << " unless fmu_kind says otherwise)\n";
  if (const auto& cs = description.co_simulation) {
    text << "  co-simulation: canHandleVariableCommunicationStepSize "
         << yes_no(cs->can_handle_variable_communication_step_size) << ", canInterpolateInputs "
         << yes_no(cs->can_interpolate_inputs) << ", maxOutputDerivativeOrder "
         << cs->max_output_derivative_order << ", canGetAndSetFMUstate "
         << yes_no(cs->can_get_and_set_fmu_state) << "\n";
  }
  if (const auto& me = description.model_exchange) {
    text << "  model exchange: " << description.states().size() << " states, "
         << description.number_of_event_indicators << " event indicators, canGetAndSetFMUstate "
         << yes_no(me->can_get_and_set_fmu_state) << ", providesDirectionalDerivative "
         << yes_no(me->provides_directional_derivative) << "\n";
  }
  const fmi::DefaultExperiment& experiment = description.default_experiment;
  if (experiment.step_size)
    text << "  default experiment step size: " << *experiment.step_size << " s\n";
  text << "  variables (name, causality, variability, type, start, unit):\n";
  const int name_width = column_width(
      description.variables, [](const fmi::Variable& v) -> const std::string& { return v.name; },
      16);
  const int causality_width = column_width(
      description.variables,
      [](const fmi::Variable& v) { return std::string(fmi::to_string(v.causality)); }, 12);
  for (const fmi::Variable& variable : description.variables) {
    if (variable.causality == fmi::Causality::local) continue;
    text << "    " << std::left << std::setw(name_width) << variable.name
         << std::setw(causality_width) << fmi::to_string(variable.causality) << std::setw(11)
         << fmi::to_string(variable.variability) << std::setw(12) << fmi::to_string(variable.type);
    if (variable.start) {
      text << std::setw(12) << *variable.start;
    } else if (variable.start_text) {
      text << std::setw(12) << ("\"" + *variable.start_text + "\"");
    } else {
      text << std::setw(12) << "-";
    }
    text << variable.unit;
    if (variable.causality == fmi::Causality::output) {
      const auto index = description.find(variable.name);
      if (index && description.has_direct_feedthrough(*index)) text << "  (feedthrough)";
    }
    text << "\n";
    if (!variable.items.empty()) {
      // An Enumeration couples as an Integer holding the item values.
      text << "    " << std::setw(name_width) << "" << "items:";
      for (std::size_t k = 0; k < variable.items.size(); ++k)
        text << (k == 0 ? " " : ", ") << variable.items[k].value << " " << variable.items[k].name;
      text << "\n";
    }
  }
  return text.str();
}

/// An FMI 3.0 FMU, run through its co-simulation or model-exchange interface.
/// Its binary is loaded when the first slave is made, so that `couplet models`
/// describes an FMU built for another platform too.
class Fmi3Source final : public SlaveSource {
 public:
  Fmi3Source(std::shared_ptr<fmi3::Package> package, fmi3::Interface interface)
      : package_(std::move(package)), interface_(interface) {}

  std::string name() const override {
    return "FMU '" + package_->path() + "' (FMI 3.0, " + fmi3::to_string(interface_) + ")";
  }
  std::string identity() const override {
    return "fmu:" + package_->description().instantiation_token;
  }

  std::unique_ptr<Slave> make_slave(const SlaveSettings& settings) const override {
    if (interface_ == fmi3::Interface::co_simulation)
      return fmi3::make_co_simulation_slave(package_, fmu_settings(settings));
    if (interface_ == fmi3::Interface::scheduled_execution)
      return fmi3::make_scheduled_execution_slave(package_, fmu_settings(settings));
    return make_ode_slave(settings.slave_name, make_model(settings), settings.solver,
                          settings.limits);
  }

  std::unique_ptr<Model> make_model(const SlaveSettings& settings) const override {
    if (interface_ != fmi3::Interface::model_exchange) {
      throw ConfigurationError(
          "slave '" + settings.slave_name + "': FMU '" + package_->path() + "' is used for " +
          fmi3::to_string(interface_) +
          ", which keeps its equations inside: no monolithic reference (use fmu_kind: me if the "
          "FMU offers model exchange, or reference: none)");
    }
    return fmi3::make_model_exchange_model(package_, fmu_settings(settings));
  }

  std::string describe() const override;

 private:
  static fmi::FmuSettings fmu_settings(const SlaveSettings& settings) {
    return {.slave_name = settings.slave_name,
            .parameters = settings.parameters,
            .limits = settings.limits,
            .coupled_inputs = settings.coupled_inputs,
            .text_parameters = settings.text_parameters};
  }

  std::shared_ptr<fmi3::Package> package_;
  fmi3::Interface interface_;
};

void describe_capabilities(std::ostream& text, const fmi3::InterfaceCapabilities& capabilities) {
  text << "canGetAndSetFMUState " << yes_no(capabilities.can_get_and_set_fmu_state)
       << ", providesDirectionalDerivatives "
       << yes_no(capabilities.provides_directional_derivatives);
}

/// Has the FMU a clock that is a port: a triggered input clock or an output clock?
bool has_clock_ports(const fmi3::Description& description) {
  return std::any_of(description.variables.begin(), description.variables.end(),
                     [](const fmi3::Variable& variable) {
                       return variable.clock && (variable.causality == fmi3::Causality::output ||
                                                 variable.clock->interval_variability ==
                                                     fmi3::IntervalVariability::triggered);
                     });
}

std::string Fmi3Source::describe() const {
  const fmi3::Description& description = package_->description();
  std::ostringstream text;
  text << "FMU " << package_->path() << " — " << description.model_name << " (FMI "
       << description.fmi_version << ", instantiation token " << description.instantiation_token;
  if (!description.generation_tool.empty()) text << ", made by " << description.generation_tool;
  text << ")\n  offers: " << (description.co_simulation ? "cs " : "")
       << (description.model_exchange ? "me " : "")
       << (description.scheduled_execution ? "se " : "") << "(couplet runs "
       << (description.model_exchange  ? "me"
           : description.co_simulation ? "cs"
                                       : "se")
       << " unless fmu_kind says otherwise; its ports: the numeric inputs and outputs, arrays "
          "as name[i]"
       << (has_clock_ports(description) ? ", triggered input clocks and output clocks as Boolean"
                                          " ports of their names)\n"
                                        : ")\n");
  if (const auto& cs = description.co_simulation) {
    text << "  co-simulation: canHandleVariableCommunicationStepSize "
         << yes_no(cs->can_handle_variable_communication_step_size) << ", hasEventMode "
         << yes_no(cs->has_event_mode) << ", providesIntermediateUpdate "
         << yes_no(cs->provides_intermediate_update) << ", mightReturnEarlyFromDoStep "
         << yes_no(cs->might_return_early_from_do_step) << ", maxOutputDerivativeOrder "
         << cs->max_output_derivative_order << ", ";
    describe_capabilities(text, cs->capabilities);
    if (cs->fixed_internal_step_size)
      text << ", fixedInternalStepSize " << *cs->fixed_internal_step_size << " s";
    text << "\n";
  }
  if (const auto& me = description.model_exchange) {
    text << "  model exchange: " << description.continuous_state_derivatives.size()
         << " continuous states, " << description.event_indicators.size() << " event indicators, ";
    describe_capabilities(text, me->capabilities);
    text << "\n";
  }
  if (const auto& se = description.scheduled_execution) {
    text << "  scheduled execution: ";
    describe_capabilities(text, se->capabilities);
    text << "\n";
  }
  const fmi::DefaultExperiment& experiment = description.default_experiment;
  if (experiment.step_size)
    text << "  default experiment step size: " << *experiment.step_size << " s\n";
  const auto clock_name = [&description](std::uint32_t reference) {
    const auto index = description.find(reference);
    return index ? description.variables[*index].name : std::to_string(reference);
  };
  bool has_clocks = false;
  for (const fmi3::Variable& variable : description.variables) {
    if (!variable.clock) continue;
    if (!has_clocks) text << "  clocks (name, causality, interval, priority):\n";
    has_clocks = true;
    const fmi3::ClockProperties& clock = *variable.clock;
    text << "    " << variable.name << "  " << fmi3::to_string(variable.causality) << "  "
         << fmi3::to_string(clock.interval_variability);
    if (clock.interval_decimal) text << " " << *clock.interval_decimal << " s";
    if (clock.shift_decimal) text << " shifted " << *clock.shift_decimal << " s";
    if (clock.priority) text << "  priority " << *clock.priority;
    text << "\n";
  }
  text << "  variables (name, causality, variability, type, start, unit):\n";
  const int name_width = column_width(
      description.variables, [](const fmi3::Variable& v) -> const std::string& { return v.name; },
      16);
  for (const fmi3::Variable& variable : description.variables) {
    if (variable.causality == fmi3::Causality::local || variable.clock) continue;
    std::string start = "-";
    if (!variable.start.empty()) {
      start.clear();
      for (const std::string& value : variable.start) start += (start.empty() ? "" : " ") + value;
    }
    text << "    " << std::left << std::setw(name_width) << variable.name << std::setw(21)
         << fmi3::to_string(variable.causality) << std::setw(11)
         << fmi::to_string(variable.variability) << std::setw(14)
         << fmi3::ArrayLayout(description).type_of(variable) << std::setw(12) << start
         << variable.unit;
    if (!variable.clocks.empty()) {
      text << "  (clocked by";
      for (const std::uint32_t clock : variable.clocks) text << " " << clock_name(clock);
      text << ")";
    }
    text << "\n";
  }
  return text.str();
}

}  // namespace

std::unique_ptr<SlaveSource> catalog_source(const ModelCatalog& catalog,
                                            const std::string& model_name) {
  return std::make_unique<CatalogSource>(catalog, model_name);
}

std::unique_ptr<SlaveSource> table_source(const std::string& csv_path,
                                          TableInterpolation interpolation) {
  return std::make_unique<TableSource>(csv_path, interpolation);
}

std::unique_ptr<SlaveSource> fmu_source(const std::string& fmu_path, FmuKind kind) {
  fmi::Archive archive = fmi::Archive::unpack(fmu_path);
  const std::string xml = archive.model_description();
  const std::string file = archive.model_description_name();
  if (fmi3::declared_fmi_version(xml, file).rfind("3.", 0) == 0) {
    fmi3::Description description = fmi3::parse_description(xml, file);
    // As for FMI 2.0: model exchange when offered, else co-simulation, else
    // scheduled execution; fmu_kind chooses among those offered.
    fmi3::Interface chosen = description.model_exchange  ? fmi3::Interface::model_exchange
                             : description.co_simulation ? fmi3::Interface::co_simulation
                                                         : fmi3::Interface::scheduled_execution;
    if (kind == FmuKind::co_simulation) chosen = fmi3::Interface::co_simulation;
    if (kind == FmuKind::model_exchange) chosen = fmi3::Interface::model_exchange;
    if (kind == FmuKind::scheduled_execution) chosen = fmi3::Interface::scheduled_execution;
    const bool offered =
        chosen == fmi3::Interface::co_simulation    ? description.co_simulation.has_value()
        : chosen == fmi3::Interface::model_exchange ? description.model_exchange.has_value()
                                                    : description.scheduled_execution.has_value();
    if (!offered) {
      throw ConfigurationError("FMU '" + fmu_path + "': fmu_kind: does not offer " +
                               fmi3::to_string(chosen));
    }
    return std::make_unique<Fmi3Source>(
        std::make_shared<fmi3::Package>(std::move(archive), std::move(description)), chosen);
  }
  fmi::Description description = fmi::parse_description(xml, file);
  std::shared_ptr<fmi::Package> package =
      fmi::Package::open(std::move(archive), std::move(description));
  fmi::InterfaceKind chosen = package->default_kind();
  if (kind == FmuKind::co_simulation) chosen = fmi::InterfaceKind::co_simulation;
  if (kind == FmuKind::model_exchange) chosen = fmi::InterfaceKind::model_exchange;
  if (kind == FmuKind::scheduled_execution) {
    throw ConfigurationError("FMU '" + fmu_path +
                             "': fmu_kind: se is FMI 3.0 scheduled execution; this is an FMI "
                             "2.0 FMU");
  }
  if (!package->offers(chosen)) {
    throw ConfigurationError("FMU '" + fmu_path + "': fmu_kind: does not offer " +
                             fmi::to_string(chosen));
  }
  return std::make_unique<FmuSource>(std::move(package), chosen);
}

}  // namespace couplet::models
