#pragma once
// stimulus.table: outputs played from a CSV file (docs/models.md, "Stimuli").
// The file has a header row naming its columns: `time` (seconds, increasing)
// and one column per output, named after it. A column named `NAME:Integer` or
// `NAME:Boolean` is an Integer or Boolean output NAME (whole numbers; 0 or 1),
// always held between rows. Blank lines and lines starting with '#' are
// skipped. Between rows the Real outputs hold the earlier row or interpolate
// linearly; before the first row they hold the first, after the last the
// last. The rows' times are the model's time events.
#include <memory>
#include <string>
#include <vector>

#include "models/model.hpp"
#include "models/slave_source.hpp"

namespace couplet::models {

struct StimulusTable {
  std::string file;                  ///< as given, for messages
  std::vector<std::string> outputs;  ///< the Real columns' names, in file order
  std::vector<double> times;         ///< increasing, at least one
  std::vector<double> values;        ///< row-major: times.size() rows of outputs.size()
  std::vector<DiscretePortDescription> discrete_outputs;  ///< the Integer and Boolean columns
  std::vector<std::int64_t>
      discrete_values;  ///< row-major: times.size() rows of discrete_outputs.size()
};

/// Reads and checks a table. Throws ConfigurationError "FILE:LINE: ..." for a
/// non-numeric or non-finite cell, a discrete cell that is no whole number (or,
/// Boolean, neither 0 nor 1), an unknown type after ':', a row of the wrong width, a time not after
/// the previous row's (by at least 1 ns, the master's tick), a missing `time`
/// column or output column, duplicate or dotted column names, no data row, or
/// "FILE: cannot be read".
StimulusTable read_stimulus_table(const std::string& path);

std::unique_ptr<Model> make_table_stimulus(StimulusTable table, TableInterpolation interpolation);

}  // namespace couplet::models
