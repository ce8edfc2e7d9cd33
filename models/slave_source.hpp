#pragma once
// Where a slave's equations or behaviour come from — the built-in catalog, an
// FMU, (next) a user's device — behind one interface, so that the scenario
// code, the monolithic reference and couplet-target need not know each kind.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/catalog.hpp"
#include "models/model.hpp"
#include "models/ode_slave.hpp"
#include "couplet/slave.hpp"

namespace couplet::models {

/// How one scenario slave is to be made from its source.
struct SlaveSettings {
  std::string slave_name;
  /// Overrides of parameters (catalog) or start values by variable name (FMU).
  std::map<std::string, double, std::less<>> parameters;
  SolverSettings solver;    ///< integrator of an ODE slave (catalog, model-exchange FMU)
  CapabilityLimits limits;  ///< declared limits; for FMUs also the input degree and step
  /// The inputs some connection drives; nullopt: all. An FMU leaves the others at
  /// their start values; a built-in model needs every input connected.
  std::optional<std::vector<std::string>> coupled_inputs;
  /// Start values given as text (fmi::FmuSettings::text_parameters): FMI 3.0
  /// String and Binary variables; every other source refuses them.
  std::map<std::string, std::string, std::less<>> text_parameters;
};

class SlaveSource {
 public:
  virtual ~SlaveSource() = default;

  /// For messages and `couplet models`: "translational.mass", "FMU 'a.fmu' (model exchange)".
  virtual std::string name() const = 0;

  /// What couplet-target serves and checks a Configure against: the catalog
  /// name, or "fmu:" and the FMU's GUID.
  virtual std::string identity() const = 0;

  /// A slave for a run. Throws ConfigurationError naming the slave and the setting.
  virtual std::unique_ptr<Slave> make_slave(const SlaveSettings& settings) const = 0;

  /// The equations, for the monolithic reference. Throws ConfigurationError
  /// saying why there are none (a co-simulation FMU keeps its solver inside).
  virtual std::unique_ptr<Model> make_model(const SlaveSettings& settings) const = 0;

  /// Multi-line text for `couplet models`: ports, parameters, capabilities.
  virtual std::string describe() const = 0;
};

/// A model of the catalog; the source keeps its own copy of the catalog.
/// Throws ConfigurationError for an unknown name.
std::unique_ptr<SlaveSource> catalog_source(const ModelCatalog& catalog,
                                            const std::string& model_name);

enum class FmuKind { automatic, co_simulation, model_exchange, scheduled_execution };

/// How stimulus.table passes between its rows (docs/models.md, "Stimuli").
enum class TableInterpolation { hold, linear };

/// The catalog name of the table stimulus, which needs a file besides numbers.
inline constexpr const char* kTableStimulusName = "stimulus.table";

/// stimulus.table playing a CSV file, read and checked now (ConfigurationError
/// naming the file and line otherwise); its outputs are the file's columns.
std::unique_ptr<SlaveSource> table_source(const std::string& csv_path,
                                          TableInterpolation interpolation);

/// An FMU file, unpacked and checked now (ConfigurationError naming the file and
/// the element otherwise). `automatic`: model exchange when offered.
std::unique_ptr<SlaveSource> fmu_source(const std::string& fmu_path, FmuKind kind);

}  // namespace couplet::models
