#pragma once
// stimulus.table: outputs played from a CSV file (docs/models.md, "Stimuli").
// The file has a header row naming its columns: `time` (seconds, increasing)
// and one column per output, named after it. Blank lines and lines starting
// with '#' are skipped. Between rows the outputs hold the earlier row or
// interpolate linearly; before the first row they hold the first, after the
// last the last. The rows' times are the model's time events.
#include <memory>
#include <string>
#include <vector>

#include "models/model.hpp"
#include "models/slave_source.hpp"

namespace couplet::models {

struct StimulusTable {
  std::string file;                  ///< as given, for messages
  std::vector<std::string> outputs;  ///< the column names other than `time`, in file order
  std::vector<double> times;         ///< increasing, at least one
  std::vector<double> values;        ///< row-major: times.size() rows of outputs.size()
};

/// Reads and checks a table. Throws ConfigurationError "FILE:LINE: ..." for a
/// non-numeric or non-finite cell, a row of the wrong width, a time not after
/// the previous row's (by at least 1 ns, the master's tick), a missing `time`
/// column or output column, duplicate or dotted column names, no data row, or
/// "FILE: cannot be read".
StimulusTable read_stimulus_table(const std::string& path);

std::unique_ptr<Model> make_table_stimulus(StimulusTable table, TableInterpolation interpolation);

}  // namespace couplet::models
