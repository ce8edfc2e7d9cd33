#pragma once
// The command-line check of `--set KEY=VALUE`: a value without '=' (or with an
// empty key) is a usage error, caught while the command line is parsed, so that
// couplet says "usage error" and not "configuration error" (docs/cli.md).
#include <CLI/CLI.hpp>

namespace couplet::tools {

/// A CLI11 validator accepting "key.path=value" with a non-empty key.
CLI::Validator key_value_assignment();

}  // namespace couplet::tools
