#pragma once
// `couplet export RUN.log --mat FILE` (docs/run-log.md "MAT-file"): an export
// table as a MATLAB MAT-file (version 5, uncompressed, through matio): one
// double column vector per column, named by matlab_names(); absent cells NaN;
// an Integer column int64 and a Boolean one logical (double with NaN where a
// cell is absent); `column_names` and `variable_names`, cell arrays of char in
// column order (the Real columns, then the discrete ones), say which variable
// holds which column.
#include <string>
#include <vector>

#include "host_tools/runlog/log_export.hpp"

namespace couplet::tools {

/// MATLAB variable names for `columns`, in order: every character other than a
/// letter, digit or underscore becomes '_'; a name that does not start with a
/// letter gets an 'x' in front; at most 63 characters (MATLAB's namelengthmax);
/// a name already given (or reserved: column_names, variable_names) gets "_2",
/// "_3", ... at its end. "left.x" -> left_x, "order:right.f" -> order_right_f.
std::vector<std::string> matlab_names(const std::vector<std::string>& columns);

/// Writes `table` to `path`. Throws std::runtime_error naming the file when it
/// cannot be created or written.
void write_mat_file(const ExportTable& table, const std::string& path);

}  // namespace couplet::tools
