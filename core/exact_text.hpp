#pragma once
// A double as text that reads back to the same bits ("%.17g"): for CSV files,
// command lines handed to targets, and messages where the exact value matters.
#include <cstdio>
#include <string>

namespace couplet {

inline std::string exact_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

}  // namespace couplet
