#pragma once
// `couplet resim RUN_LOG SLAVE [--set KEY=VALUE]... [-o DIR]` (docs/run-log.md,
// "Re-simulating one slave"): one slave of a recorded run, built afresh from the
// log's scenario text plus overrides, is driven alone by exactly the requests
// the recorded master made on it — set-up, output evaluations, steps with their
// input polynomials and sample times, saves, restores, linearizations — in the
// recorded order. Its outputs are written beside the recorded ones.
//
// Open loop: the inputs are the recorded ones and do not react to what the
// re-simulated slave returns.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "host_tools/runlog/run_log.hpp"
#include "host_tools/runlog/run_log_stream.hpp"

namespace couplet::tools {

struct ResimOptions {
  std::string output_directory = "out/resim";
  /// `--set key.path=value` on the logged scenario text. Setting
  /// `slaves.NAME.model` or `slaves.NAME.fmu` replaces the slave's source
  /// (model, FMU or device) by the one given.
  std::vector<std::pair<std::string, std::string>> overrides;
};

/// Re-simulates slave `slave` of `log` and writes signals.csv and summary.json
/// into options.output_directory. Returns the summary: `slave`, `requests`
/// (the calls made), `rows`, `max_difference` per compared output, `status`
/// ("completed", or "failed" with the `error` naming the request and its time;
/// the files then hold the rows up to the failure); with checks in the
/// scenario, `checks` (the verdicts of those on the slave's outputs, evaluated
/// on every row, as `couplet run` writes them) and `checks_not_applicable`
/// (run-level checks and checks on other slaves, each with its `reason`).
///
/// Throws ConfigurationError, with nothing written, when `slave` is not a slave
/// of the log (the message lists them), is a member of a composite group, is a
/// device without an override giving it a model or FMU, when the scenario with
/// the overrides does not load or does not build the slave, when the new slave
/// has an input the recorded one lacked, or when the output directory is the
/// log's own.
nlohmann::json resimulate_slave(const RunLog& log, const std::string& slave,
                                const ResimOptions& options);
/// The same from a streamed log (its requests read as they are played, the rows
/// written as they come): memory independent of the log's length. Reads the
/// log to its end (stream.log() then says how it ended); throws RunLogError
/// for a record that breaks the format (signals.csv is then not written).
nlohmann::json resimulate_slave(RunLogStream& stream, const std::string& slave,
                                const ResimOptions& options);

/// `couplet resim`: streams the log, re-simulates, prints a short table and the
/// checks' verdicts. Returns the exit code: 0 done; 3 done and a check on the
/// slave's outputs failed; 1 the re-simulated slave failed, or the log is
/// corrupted in the middle (the requests before the damage were re-simulated);
/// 2 a log that cannot be read (the message names it). Bad usage (above)
/// throws ConfigurationError.
int resim_command(const std::string& log_path, const std::string& slave,
                  const ResimOptions& options);

}  // namespace couplet::tools
