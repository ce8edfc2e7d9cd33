#include "host_tools/resim.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "couplet/errors.hpp"
#include "host_tools/check_evaluator.hpp"
#include "host_tools/check_settings.hpp"
#include "host_tools/check_setup.hpp"
#include "host_tools/group_builder.hpp"
#include "host_tools/run_directory.hpp"
#include "host_tools/scenario.hpp"
#include "host_tools/system_builder.hpp"
#include "runtime/exact_text.hpp"

namespace couplet::tools {

namespace {

/// A member of a composite group is inside one slave of the log: "; 'body' ran
/// inside group 'damper': re-simulate the group", or "" when `name` is none.
std::string group_hint(const RunLog& log, const std::string& name) {
  try {
    for (const auto& group : YAML::Load(log.scenario_text)["groups"]) {
      for (const auto& member : group.second["slaves"]) {
        if (member.as<std::string>() == name) {
          return "; '" + name + "' ran inside the composite group '" +
                 group.first.as<std::string>() + "': re-simulate the group";
        }
      }
    }
  } catch (const YAML::Exception&) {
    // No hint from a text that does not read: the message stands without it.
  }
  return "";
}

std::size_t logged_slave_index(const RunLog& log, const std::string& name) {
  std::string names;
  for (std::size_t s = 0; s < log.slaves.size(); ++s) {
    if (log.slaves[s].name == name) return s;
    names += (names.empty() ? "" : ", ") + log.slaves[s].name;
  }
  throw ConfigurationError("run log '" + log.path + "' has no slave '" + name +
                           "' (its slaves: " + names + ")" + group_hint(log, name));
}

bool overrides_key(const ResimOptions& options, const std::string& key) {
  return std::any_of(options.overrides.begin(), options.overrides.end(),
                     [&](const auto& override) { return override.first == key; });
}

/// The logged scenario text made ready for the overrides: an override giving the
/// slave a model or an FMU replaces its source (a --set cannot delete the old
/// key, and a slave takes exactly one of model, fmu and device).
std::string text_for_overrides(const RunLog& log, const std::string& slave,
                               const ResimOptions& options) {
  YAML::Node root;
  try {
    root = YAML::Load(log.scenario_text);
  } catch (const YAML::Exception& error) {
    throw ConfigurationError("run log '" + log.path +
                             "': its scenario text is not valid YAML: " + error.what());
  }
  if (!root.IsMap()) return log.scenario_text;  // parse_scenario says what is wrong
  YAML::Node node = root["slaves"][slave];
  if (!node.IsMap()) return YAML::Dump(root);
  const std::string prefix = "slaves." + slave + ".";
  if (overrides_key(options, prefix + "model")) {
    for (const char* key : {"fmu", "fmu_kind", "device"}) node.remove(key);
  } else if (overrides_key(options, prefix + "fmu")) {
    for (const char* key : {"model", "device"}) node.remove(key);
  }
  return YAML::Dump(root);
}

/// The logged scenario with the overrides, every slave local: a slave that ran
/// behind a link is re-simulated here from its definition, as `couplet
/// reference` solves it.
Scenario resim_scenario(const RunLog& log, const std::string& slave, const ResimOptions& options) {
  Scenario scenario = parse_scenario(text_for_overrides(log, slave, options), log.scenario_source,
                                     options.overrides);
  for (SlaveSpec& spec : scenario.slaves) spec.link.reset();
  return scenario;
}

std::unique_ptr<Slave> build_resim_slave(const Scenario& scenario, const std::string& name) {
  const models::ModelCatalog catalog = models::ModelCatalog::builtin();
  const auto group = std::find_if(scenario.groups.begin(), scenario.groups.end(),
                                  [&](const GroupSpec& g) { return g.name == name; });
  if (group != scenario.groups.end()) return make_group_slave(scenario, *group, catalog);
  const auto spec = std::find_if(scenario.slaves.begin(), scenario.slaves.end(),
                                 [&](const SlaveSpec& s) { return s.name == name; });
  if (spec == scenario.slaves.end()) {
    throw ConfigurationError(
        scenario.source + ": slaves: the scenario with the overrides has no slave '" + name + "'");
  }
  if (!spec->device.empty()) {
    throw ConfigurationError(spec->where + ": slave '" + name + "' is device '" + spec->device +
                             "', whose behaviour lives in its own program: it cannot be "
                             "re-simulated without it; give the slave a model or an FMU "
                             "(--set slaves." +
                             name + ".model=NAME or --set slaves." + name + ".fmu=FILE)");
  }
  try {
    return make_slave_of(scenario, *spec, catalog);
  } catch (const ConfigurationError& error) {
    const std::string message = error.what();
    if (message.rfind(scenario.source, 0) == 0) throw;
    throw ConfigurationError(spec->where + ": " + message);
  }
}

/// Which recorded input feeds each input of the new slave, and which outputs
/// the two have in common, by name.
struct PortMatch {
  std::vector<std::size_t> input_source;  ///< per new input: the logged input
  struct Output {
    std::string name;
    std::size_t recorded;  ///< index among the logged slave's outputs
    std::size_t resimulated;
  };
  std::vector<Output> outputs;  ///< in the logged order
  std::vector<std::string> recorded_only;
  std::vector<std::string> new_only;
};

template <class Port>
std::optional<std::size_t> port_named(const std::vector<Port>& ports, const std::string& name) {
  for (std::size_t k = 0; k < ports.size(); ++k) {
    if (ports[k].name == name) return k;
  }
  return std::nullopt;
}

PortMatch match_ports(const std::string& slave, const SlaveDescription& recorded,
                      const SlaveDescription& resimulated) {
  PortMatch match;
  for (const InputDescription& input : resimulated.inputs) {
    const auto source = port_named(recorded.inputs, input.name);
    if (!source) {
      throw ConfigurationError("slave '" + slave + "' as re-simulated has input '" + input.name +
                               "', which the recorded one did not have: the log holds no values "
                               "for it");
    }
    match.input_source.push_back(*source);
  }
  for (std::size_t k = 0; k < recorded.outputs.size(); ++k) {
    const std::string& name = recorded.outputs[k].name;
    if (const auto j = port_named(resimulated.outputs, name)) {
      match.outputs.push_back({name, k, *j});
    } else {
      match.recorded_only.push_back(slave + "." + name);
    }
  }
  for (const OutputDescription& output : resimulated.outputs) {
    if (!port_named(recorded.outputs, output.name))
      match.new_only.push_back(slave + "." + output.name);
  }
  return match;
}

/// The scenario's checks as a re-simulation of one slave applies them: those on
/// an output of that slave, evaluated on every row it produces; the others
/// (realtime and accuracy are about the whole run, a signal of another slave
/// has no new values) are listed as not applicable.
struct ResimChecks {
  std::vector<CheckTarget> targets;
  nlohmann::json not_applicable = nlohmann::json::array();
};

ResimChecks resim_checks(const Scenario& scenario, const std::string& slave,
                         const SlaveDescription& description) {
  ResimChecks checks;
  const std::string prefix = slave + ".";
  for (const CheckSpec& spec : scenario.checks) {
    const bool on_signal = spec.kind != CheckKind::realtime && spec.kind != CheckKind::accuracy;
    std::optional<std::size_t> output;
    if (on_signal && spec.signal.rfind(prefix, 0) == 0)
      output = port_named(description.outputs, spec.signal.substr(prefix.size()));
    if (!output) {
      const std::string reason =
          on_signal ? "its signal is not an output of the re-simulated slave '" + slave + "'"
                    : "checks of kind '" + std::string(check_kind_name(spec.kind)) +
                          "' are about the whole run";
      nlohmann::json entry = {{"name", spec.name},
                              {"kind", std::string(check_kind_name(spec.kind))}};
      if (!spec.signal.empty()) entry["signal"] = spec.signal;
      entry["reason"] = reason;
      checks.not_applicable.push_back(entry);
      continue;
    }
    CheckTarget target{spec, PortReference{0, *output}, false, spec.signal, {}};
    if (spec.kind == CheckKind::matches)
      target.trace = read_check_trace(spec, scenario.start, scenario.end);
    checks.targets.push_back(std::move(target));
  }
  return checks;
}

/// The directory holding the log keeps the run's own summary.json and
/// signals.csv: a re-simulation writing there would mix two kinds of files.
void refuse_log_directory(const RunLog& log, const std::string& output_directory) {
  namespace fs = std::filesystem;
  std::error_code log_error;
  std::error_code output_error;
  const fs::path log_directory =
      fs::weakly_canonical(fs::absolute(log.path).parent_path(), log_error);
  const fs::path output = fs::weakly_canonical(fs::absolute(output_directory), output_error);
  if (!log_error && !output_error && log_directory == output) {
    throw ConfigurationError("-o " + output_directory + ": the directory holds the run log '" +
                             log.path +
                             "' and that run's summary.json and signals.csv; write the "
                             "re-simulation elsewhere (default out/resim)");
  }
}

/// Drives the new slave with the recorded requests and keeps, per returned row
/// of outputs, the recorded and the new values.
class RequestPlayer {
 public:
  /// `checks` watches the new outputs (the system's slave 0 is `resimulated`).
  RequestPlayer(const RunLog& log, std::size_t slave, Slave& resimulated, PortMatch match,
                CheckEvaluator& checks)
      : log_(log),
        slave_(slave),
        recorded_(log.slaves[slave].description),
        resimulated_(resimulated),
        description_(resimulated.description()),
        match_(std::move(match)),
        inputs_(description_.inputs.size()),
        end_outputs_(
            static_cast<std::size_t>(description_.capabilities.output_derivative_order + 1) *
            description_.outputs.size()),
        max_difference_(match_.outputs.size(), 0.0),
        checks_(checks) {}

  /// Plays every recorded call on the slave; returns the error of the one that
  /// failed (naming it), or an empty string.
  std::string play() {
    std::size_t request = 0;
    const std::size_t total = requests_recorded();
    for (const LoggedCall& call : log_.calls) {
      if (call.slave != slave_) continue;
      ++request;
      try {
        play(call);
      } catch (const std::exception& error) {
        requests_ = request;
        return "request " + std::to_string(request) + " of " + std::to_string(total) + " (" +
               describe(call) + "): " + error.what();
      }
    }
    requests_ = request;
    return "";
  }

  std::size_t requests_recorded() const {
    return static_cast<std::size_t>(
        std::count_if(log_.calls.begin(), log_.calls.end(),
                      [&](const LoggedCall& call) { return call.slave == slave_; }));
  }
  std::size_t requests() const { return requests_; }
  const PortMatch& match() const { return match_; }
  const std::vector<double>& max_difference() const { return max_difference_; }
  /// Row-major: time, then per compared output the recorded and the new value.
  const std::vector<double>& rows() const { return rows_; }
  std::size_t row_width() const { return 1 + 2 * match_.outputs.size(); }
  /// The time the new slave's outputs are known up to.
  Time reached() const { return time_; }

 private:
  void play(const LoggedCall& call) {
    switch (call.kind) {
      case CallKind::setup:
        resimulated_.setup(call.start);
        time_ = call.start;
        checks_.slave_set_up(0, call.start);
        return;
      case CallKind::evaluate_outputs:
        resimulated_.evaluate_outputs(inputs_of(call), end_outputs_);
        checks_.outputs_evaluated(0, inputs_, end_outputs_);
        add_row(time_, std::span(call.end_outputs).first(recorded_.outputs.size()), end_outputs_);
        return;
      case CallKind::step:
        step(call);
        return;
      case CallKind::save_state:
        resimulated_.save_state();
        saved_time_ = time_;
        checks_.state_saved(0);
        return;
      case CallKind::restore_state:
        resimulated_.restore_state();
        time_ = saved_time_;
        checks_.state_restored(0);
        return;
      case CallKind::linearize:
        linearization_.resize(LinearizationLayout::of(description_).size());
        resimulated_.linearize(inputs_of(call), linearization_);
        return;
      case CallKind::discrete_outputs:
        return;
    }
  }

  void step(const LoggedCall& call) {
    const std::size_t outputs = description_.outputs.size();
    samples_.resize(call.sample_times.size() * outputs);
    const StepRequest request{call.start, call.end, inputs_of(call), call.sample_times};
    resimulated_.step(request, {end_outputs_, samples_});
    checks_.slave_stepped(0, request, {end_outputs_, samples_}, LinkStepReport{});
    const std::size_t recorded_outputs = recorded_.outputs.size();
    for (std::size_t k = 0; k < call.sample_times.size(); ++k) {
      add_row(call.sample_times[k],
              std::span(call.samples).subspan(k * recorded_outputs, recorded_outputs),
              std::span<const double>(samples_).subspan(k * outputs, outputs));
    }
    add_row(call.end, std::span(call.end_outputs).first(recorded_outputs), end_outputs_);
    time_ = call.end;
  }

  std::span<const Polynomial> inputs_of(const LoggedCall& call) {
    for (std::size_t j = 0; j < inputs_.size(); ++j)
      inputs_[j] = call.inputs[match_.input_source[j]];
    return inputs_;
  }

  void add_row(Time time, std::span<const double> recorded, std::span<const double> resimulated) {
    rows_.push_back(to_seconds(time));
    for (std::size_t k = 0; k < match_.outputs.size(); ++k) {
      const double before = recorded[match_.outputs[k].recorded];
      const double now = resimulated[match_.outputs[k].resimulated];
      rows_.push_back(before);
      rows_.push_back(now);
      // NaN on either side is a difference too (std::max would drop it).
      const double difference = std::fabs(now - before);
      if (std::isnan(difference) || difference > max_difference_[k])
        max_difference_[k] = difference;
    }
  }

  std::string describe(const LoggedCall& call) const {
    if (call.kind == CallKind::step) {
      return "step from t = " + seconds_text(call.start) + " s to t = " + seconds_text(call.end) +
             " s";
    }
    const Time at = call.kind == CallKind::setup ? call.start : time_;
    return std::string(call_kind_name(call.kind)) + " at t = " + seconds_text(at) + " s";
  }

  const RunLog& log_;
  std::size_t slave_;
  const SlaveDescription& recorded_;
  Slave& resimulated_;
  const SlaveDescription description_;
  const PortMatch match_;
  std::vector<Polynomial> inputs_;
  std::vector<double> end_outputs_;
  std::vector<double> samples_;
  std::vector<double> linearization_;
  std::vector<double> max_difference_;
  std::vector<double> rows_;
  Time time_ = 0;
  Time saved_time_ = 0;
  std::size_t requests_ = 0;
  CheckEvaluator& checks_;
};

void write_signals(const std::filesystem::path& path, const std::string& slave,
                   const RequestPlayer& player) {
  write_file_atomically(path, [&](std::ostream& file) {
    file << "time";
    for (const PortMatch::Output& output : player.match().outputs) {
      const std::string name = slave + "." + output.name;
      file << ',' << name << ":recorded," << name;
    }
    file << '\n';
    const std::vector<double>& rows = player.rows();
    const std::size_t width = player.row_width();
    for (std::size_t start = 0; start < rows.size(); start += width) {
      for (std::size_t k = 0; k < width; ++k)
        file << (k == 0 ? "" : ",") << exact_text(rows[start + k]);
      file << '\n';
    }
  });
}

nlohmann::json summary_of(const RunLog& log, const std::string& slave, const ResimOptions& options,
                          const RequestPlayer& player, const std::string& error,
                          const CheckEvaluator& evaluator, const ResimChecks& checks) {
  nlohmann::json summary;
  summary["slave"] = slave;
  summary["log"] = log.path;
  if (const std::string& link = log.slaves[logged_slave_index(log, slave)].link; !link.empty())
    summary["recorded_link"] = link;
  summary["overrides"] = nlohmann::json::array();
  for (const auto& [key, value] : options.overrides)
    summary["overrides"].push_back(key + "=" + value);
  summary["requests"] = player.requests();
  summary["requests_recorded"] = player.requests_recorded();
  summary["rows"] = player.rows().size() / player.row_width();
  nlohmann::json differences = nlohmann::json::object();
  for (std::size_t k = 0; k < player.match().outputs.size(); ++k)
    differences[slave + "." + player.match().outputs[k].name] = player.max_difference()[k];
  summary["max_difference"] = differences;
  if (!player.match().recorded_only.empty())
    summary["recorded_only"] = player.match().recorded_only;
  if (!player.match().new_only.empty()) summary["new_only"] = player.match().new_only;
  if (log.damaged() || log.cut())
    summary["log_cut"] = log.damaged() ? log.tail_problem : "no end record";
  if (!evaluator.empty() || !checks.not_applicable.empty()) {
    RunFacts facts;
    facts.reached = player.reached();
    summary["checks"] = verdicts_json(evaluator.verdicts(facts));
    summary["checks_not_applicable"] = checks.not_applicable;
  }
  summary["status"] = error.empty() ? "completed" : "failed";
  if (!error.empty()) summary["error"] = error;
  return summary;
}

bool corrupted(const RunLog& log) {
  return log.tail == protocol::LogReadStatus::corrupted ||
         log.tail == protocol::LogReadStatus::malformed;
}

}  // namespace

nlohmann::json resimulate_slave(const RunLog& log, const std::string& slave,
                                const ResimOptions& options) {
  const std::size_t index = logged_slave_index(log, slave);
  refuse_log_directory(log, options.output_directory);
  const Scenario scenario = resim_scenario(log, slave, options);
  System system;  // the new slave alone: what the checks resolve against
  system.add_slave(slave, build_resim_slave(scenario, slave));
  Slave& resimulated = system.slave(0);
  ResimChecks checks = resim_checks(scenario, slave, resimulated.description());
  CheckEvaluator evaluator(std::move(checks.targets), system);
  RequestPlayer player(log, index, resimulated,
                       match_ports(slave, log.slaves[index].description, resimulated.description()),
                       evaluator);
  const std::string error = player.play();
  const nlohmann::json summary = summary_of(log, slave, options, player, error, evaluator, checks);
  std::filesystem::create_directories(options.output_directory);
  const std::filesystem::path directory(options.output_directory);
  write_signals(directory / "signals.csv", slave, player);
  write_file_atomically(directory / "summary.json",
                        [&](std::ostream& file) { file << summary.dump(2) << '\n'; });
  return summary;
}

int resim_command(const std::string& log_path, const std::string& slave,
                  const ResimOptions& options) {
  std::optional<RunLog> log;
  try {
    log = read_run_log(log_path);
  } catch (const RunLogError& error) {
    std::cerr << "couplet: error: " << error.what() << "\n";
    return 2;
  }
  if (log->damaged())
    std::cerr << "couplet: warning: " << log_path << ": " << log->tail_problem
              << "; read up to there\n";
  const nlohmann::json summary = resimulate_slave(*log, slave, options);
  std::cout << "resim of slave '" << slave << "' from " << log_path << ": " << summary["requests"]
            << " requests, " << summary["rows"] << " rows\n";
  for (const auto& [output, difference] : summary["max_difference"].items())
    std::cout << "  " << output << "  max difference " << difference.dump() << "\n";
  std::cout << checks_table(summary);
  if (summary.contains("checks_not_applicable")) {
    for (const nlohmann::json& check : summary["checks_not_applicable"])
      std::cout << "    " << check["name"].get<std::string>() << ": not applicable ("
                << check["reason"].get<std::string>() << ")\n";
  }
  std::cout << "  written to " << options.output_directory << "/\n";
  if (summary["status"] == "failed") {
    std::cerr << "couplet: resim failed: " << summary["error"].get<std::string>() << "\n";
    return 1;
  }
  if (corrupted(*log)) return 1;
  return checks_failed(summary) ? 3 : 0;
}

}  // namespace couplet::tools
