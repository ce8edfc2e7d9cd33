#include "models/fmi/fmu_instance.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "couplet/errors.hpp"

namespace couplet::models::fmi {
namespace {

bool settable(const Variable& variable) {
  if (variable.causality == Causality::parameter || variable.causality == Causality::input)
    return true;
  return variable.variability != Variability::constant &&
         (variable.initial == Initial::exact || variable.initial == Initial::approx);
}

std::string settable_names(const Description& description) {
  std::string names;
  for (const Variable& variable : description.variables) {
    if (!settable(variable) || variable.type == VariableType::string) continue;
    names += (names.empty() ? "" : ", ") + variable.name;
  }
  return names.empty() ? "none" : names;
}

}  // namespace

Instance::Instance(std::shared_ptr<Package> package, InterfaceKind kind, std::string slave_name)
    : package_(std::move(package)),
      slave_name_(std::move(slave_name)),
      log_ring_(std::make_unique<LogRing>()) {
  functions_ = &package_->library(kind).functions();
  callbacks_.logger = &Instance::log;
  callbacks_.allocateMemory = &std::calloc;
  callbacks_.freeMemory = &std::free;
  callbacks_.stepFinished = nullptr;
  callbacks_.componentEnvironment = log_ring_.get();
  const Description& description = package_->description();
  const std::string resources = package_->resource_uri();
  component_ = functions_->Instantiate(
      slave_name_.c_str(),
      kind == InterfaceKind::co_simulation ? fmi2CoSimulation : fmi2ModelExchange,
      description.guid.c_str(), resources.c_str(), &callbacks_, fmi2False, fmi2True);
  if (component_ == nullptr) {
    std::string text = "slave '" + slave_name_ + "': FMU '" + package_->path() +
                       "': fmi2Instantiate returned NULL (GUID " + description.guid + ")";
    for (const std::string& line : recent_log()) text += "; FMU log: " + line;
    throw ConfigurationError(text);
  }
}

Instance::~Instance() {
  if (component_ != nullptr) functions_->FreeInstance(component_);
}

void Instance::log(fmi2ComponentEnvironment environment, fmi2String instance_name,
                   fmi2Status status, fmi2String category, fmi2String message, ...) {
  if (environment == nullptr || message == nullptr) return;
  auto& ring = *static_cast<LogRing*>(environment);
  auto& line = ring.lines[ring.written % kLogLines];
  const int prefix =
      std::snprintf(line.data(), line.size(), "[%s %s %s] ", instance_name ? instance_name : "",
                    to_string(status), category ? category : "");
  const std::size_t used =
      prefix > 0 ? std::min(static_cast<std::size_t>(prefix), line.size() - 1) : 0;
  va_list arguments;
  va_start(arguments, message);
  std::vsnprintf(line.data() + used, line.size() - used, message, arguments);
  va_end(arguments);
  ++ring.written;
}

std::vector<std::string> Instance::recent_log() const {
  std::vector<std::string> lines;
  const LogRing& ring = *log_ring_;
  const std::size_t first = ring.written > kLogLines ? ring.written - kLogLines : 0;
  for (std::size_t k = first; k < ring.written; ++k)
    lines.emplace_back(ring.lines[k % kLogLines].data());
  return lines;
}

std::string Instance::failure_text(fmi2Status status, const char* call) const {
  std::string text = "slave '" + slave_name_ + "': FMU '" + package_->path() + "': " + call +
                     " returned " + to_string(status);
  return text;
}

void Instance::check(fmi2Status status, const char* call, double time) const {
  if (status == fmi2OK || status == fmi2Warning) return;
  char at[64];
  std::snprintf(at, sizeof at, " at t = %.17g s", time);
  std::string text = failure_text(status, call) + at;
  for (const std::string& line : recent_log()) text += "; FMU log: " + line;
  throw SlaveError(text);
}

void Instance::request_stop(double time, const std::string& how) const {
  char at[64];
  std::snprintf(at, sizeof at, "%.17g", time);
  throw StopRequest(slave_name_, time,
                    "slave '" + slave_name_ + "' asked to stop the simulation at t = " + at +
                        " s (FMU '" + package_->path() + "': " + how + ")");
}

void Instance::check_setup(fmi2Status status, const char* call) const {
  if (status == fmi2OK || status == fmi2Warning) return;
  std::string text = failure_text(status, call);
  for (const std::string& line : recent_log()) text += "; FMU log: " + line;
  throw ConfigurationError(text);
}

void Instance::set_start_values(
    const std::map<std::string, double, std::less<>>& parameters) const {
  const Description& description = package_->description();
  for (const auto& [name, value] : parameters) {
    const std::optional<std::size_t> index = description.find(name);
    if (!index) {
      throw ConfigurationError(
          "slave '" + slave_name_ + "': FMU '" + package_->path() + "': parameters." + name +
          ": no such variable (settable: " + settable_names(description) + ")");
    }
    const Variable& variable = description.variables[*index];
    if (!settable(variable) || variable.type == VariableType::string) {
      throw ConfigurationError(
          "slave '" + slave_name_ + "': FMU '" + package_->path() + "': parameters." + name +
          ": cannot be set (causality " + to_string(variable.causality) + ", type " +
          to_string(variable.type) + "; settable: " + settable_names(description) + ")");
    }
    const fmi2ValueReference reference = variable.value_reference;
    switch (variable.type) {
      case VariableType::real:
        check_setup(functions_->SetReal(component_, &reference, 1, &value), "fmi2SetReal");
        break;
      case VariableType::integer:
      case VariableType::enumeration: {
        if (value != static_cast<double>(static_cast<fmi2Integer>(value))) {
          throw ConfigurationError("slave '" + slave_name_ + "': parameters." + name +
                                   ": expected a whole number");
        }
        const auto whole = static_cast<fmi2Integer>(value);
        check_setup(functions_->SetInteger(component_, &reference, 1, &whole), "fmi2SetInteger");
        break;
      }
      case VariableType::boolean: {
        if (value != 0.0 && value != 1.0) {
          throw ConfigurationError("slave '" + slave_name_ + "': parameters." + name +
                                   ": expected 0 or 1 (Boolean)");
        }
        const fmi2Boolean flag = value != 0.0 ? fmi2True : fmi2False;
        check_setup(functions_->SetBoolean(component_, &reference, 1, &flag), "fmi2SetBoolean");
        break;
      }
      case VariableType::string:
        break;
    }
  }
}

const char* to_string(fmi2Status status) {
  switch (status) {
    case fmi2OK:
      return "fmi2OK";
    case fmi2Warning:
      return "fmi2Warning";
    case fmi2Discard:
      return "fmi2Discard";
    case fmi2Error:
      return "fmi2Error";
    case fmi2Fatal:
      return "fmi2Fatal";
    case fmi2Pending:
      return "fmi2Pending";
  }
  return "unknown status";
}

}  // namespace couplet::models::fmi
