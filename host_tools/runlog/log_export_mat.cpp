#include "host_tools/runlog/log_export_mat.hpp"

#include <matio.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>
#include <utility>

#include "host_tools/process/loaded_library.hpp"

namespace couplet::tools {

namespace {

constexpr std::size_t kMatlabNameLength = 63;  // namelengthmax
constexpr const char* kColumnNames = "column_names";
constexpr const char* kVariableNames = "variable_names";

std::string valid_name(const std::string& column) {
  std::string name;
  for (const char c : column) {
    const auto byte = static_cast<unsigned char>(c);
    name += std::isalnum(byte) != 0 && byte < 0x80 ? c : '_';
  }
  if (name.empty() || std::isalpha(static_cast<unsigned char>(name.front())) == 0) {
    std::string prefixed = "x";  // (+= rather than insert: GCC 12 warns falsely, -Wrestrict)
    prefixed += name;
    name = std::move(prefixed);
  }
  name.resize(std::min(name.size(), kMatlabNameLength));
  return name;
}

std::string unique_name(const std::string& name, const std::set<std::string>& taken) {
  if (!taken.contains(name)) return name;
  for (std::size_t n = 2;; ++n) {
    std::string suffix = "_";
    suffix += std::to_string(n);
    const std::string candidate =
        name.substr(0, std::min(name.size(), kMatlabNameLength - suffix.size())) + suffix;
    if (!taken.contains(candidate)) return candidate;
  }
}

/// The matio functions the export calls, from libmatio loaded when a MAT-file
/// is first written: matio brings HDF5 and through it curl, gnutls, Kerberos,
/// LDAP, ... — some 30 shared libraries that every couplet command loaded at
/// start when couplet linked matio, and that only this export needs
/// (docs/results.md, "Start-up time").
struct Matio {
  decltype(&Mat_CreateVer) create;
  decltype(&Mat_Close) close;
  decltype(&Mat_VarCreate) create_variable;
  decltype(&Mat_VarWrite) write_variable;
  decltype(&Mat_VarFree) free_variable;
  decltype(&Mat_VarSetCell) set_cell;
};

/// Loaded the first time a MAT-file is written.
const Matio& matio() {
  static const Matio loaded = [] {
    const LoadedLibrary library(COUPLET_MATIO_LIBRARY, false,
                                "MAT export needs matio, which cannot be loaded",
                                "Debian: apt-get install libmatio11");
    Matio functions{};
    library.resolve("Mat_CreateVer", functions.create);
    library.resolve("Mat_Close", functions.close);
    library.resolve("Mat_VarCreate", functions.create_variable);
    library.resolve("Mat_VarWrite", functions.write_variable);
    library.resolve("Mat_VarFree", functions.free_variable);
    library.resolve("Mat_VarSetCell", functions.set_cell);
    return functions;
  }();
  return loaded;
}

struct MatFileCloser {
  void operator()(mat_t* file) const { matio().close(file); }
};
struct MatVariableFreer {
  void operator()(matvar_t* variable) const { matio().free_variable(variable); }
};
using MatFile = std::unique_ptr<mat_t, MatFileCloser>;
using MatVariable = std::unique_ptr<matvar_t, MatVariableFreer>;

[[noreturn]] void cannot_write(const std::string& path, const std::string& what) {
  throw std::runtime_error("cannot write '" + path + "': " + what);
}

void write_variable(mat_t* file, MatVariable variable, const std::string& path) {
  if (!variable) cannot_write(path, "matio could not create a variable");
  if (matio().write_variable(file, variable.get(), MAT_COMPRESSION_NONE) != 0)
    cannot_write(path, "matio could not write variable '" + std::string(variable->name) + "'");
}

MatVariable column_vector(const std::string& name, const ExportTable& table, std::size_t column) {
  std::vector<double> values;
  values.reserve(table.rows.size());
  for (const auto& row : table.rows) {
    const bool present = column < row.size() && row[column].has_value();
    values.push_back(present ? *row[column] : std::numeric_limits<double>::quiet_NaN());
  }
  std::size_t dims[2] = {values.size(), 1};
  return MatVariable(
      matio().create_variable(name.c_str(), MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, values.data(), 0));
}

/// An Integer column as int64, a Boolean one as logical; a column with an
/// absent cell as doubles with NaN there (MATLAB's integers have no NaN).
MatVariable discrete_column_vector(const std::string& name, const ExportTable& table,
                                   std::size_t column) {
  const auto& rows = table.discrete_rows;
  const bool complete = std::all_of(rows.begin(), rows.end(), [&](const auto& row) {
    return column < row.size() && row[column].has_value();
  });
  std::size_t dims[2] = {rows.size(), 1};
  if (!complete) {
    std::vector<double> values;
    for (const auto& row : rows) {
      const bool present = column < row.size() && row[column].has_value();
      values.push_back(present ? static_cast<double>(*row[column])
                               : std::numeric_limits<double>::quiet_NaN());
    }
    return MatVariable(matio().create_variable(name.c_str(), MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims,
                                               values.data(), 0));
  }
  if (table.discrete_types[column] == DiscreteType::boolean) {
    std::vector<std::uint8_t> values;
    for (const auto& row : rows) values.push_back(*row[column] != 0 ? 1 : 0);
    return MatVariable(matio().create_variable(name.c_str(), MAT_C_UINT8, MAT_T_UINT8, 2, dims,
                                               values.data(), MAT_F_LOGICAL));
  }
  std::vector<std::int64_t> values;
  for (const auto& row : rows) values.push_back(*row[column]);
  return MatVariable(
      matio().create_variable(name.c_str(), MAT_C_INT64, MAT_T_INT64, 2, dims, values.data(), 0));
}

/// A 1×n cell array of char row vectors.
MatVariable text_cells(const char* name, const std::vector<std::string>& texts) {
  std::size_t dims[2] = {1, texts.size()};
  MatVariable cells(matio().create_variable(name, MAT_C_CELL, MAT_T_CELL, 2, dims, nullptr, 0));
  if (!cells) return cells;
  for (std::size_t k = 0; k < texts.size(); ++k) {
    std::size_t text_dims[2] = {1, texts[k].size()};
    // matio copies the characters (no MAT_F_DONT_COPY_DATA); the cell owns them.
    matvar_t* text = matio().create_variable(nullptr, MAT_C_CHAR, MAT_T_UTF8, 2, text_dims,
                                             const_cast<char*>(texts[k].data()), 0);
    if (text == nullptr) return nullptr;
    matio().set_cell(cells.get(), static_cast<int>(k), text);
  }
  return cells;
}

}  // namespace

std::vector<std::string> matlab_names(const std::vector<std::string>& columns) {
  std::set<std::string> taken{kColumnNames, kVariableNames};
  std::vector<std::string> names;
  for (const std::string& column : columns) {
    names.push_back(unique_name(valid_name(column), taken));
    taken.insert(names.back());
  }
  return names;
}

void write_mat_file(const ExportTable& table, const std::string& path) {
  MatFile file(matio().create(path.c_str(), "couplet export", MAT_FT_MAT5));
  if (!file) cannot_write(path, "the MAT-file cannot be created");
  try {
    std::vector<std::string> columns = table.columns;
    columns.insert(columns.end(), table.discrete_columns.begin(), table.discrete_columns.end());
    const std::vector<std::string> names = matlab_names(columns);
    for (std::size_t c = 0; c < table.columns.size(); ++c)
      write_variable(file.get(), column_vector(names[c], table, c), path);
    for (std::size_t c = 0; c < table.discrete_columns.size(); ++c) {
      write_variable(file.get(), discrete_column_vector(names[table.columns.size() + c], table, c),
                     path);
    }
    write_variable(file.get(), text_cells(kColumnNames, columns), path);
    write_variable(file.get(), text_cells(kVariableNames, names), path);
    if (matio().close(file.release()) != 0) cannot_write(path, "matio could not close the file");
  } catch (const std::runtime_error&) {
    file.reset();
    std::remove(path.c_str());  // no half-written file left for MATLAB to choke on
    throw;
  }
}

}  // namespace couplet::tools
