#pragma once
// `couplet test --junit FILE` (docs/testing.md): the results as JUnit XML in
// the Jenkins/Ant format that Jenkins, GitLab and GitHub read
// (tests/data/junit.xsd): <testsuites>, one <testsuite> per scenario (name,
// tests, failures, errors, time), one <testcase> per check and case
// (classname scenario[.case], name the check), a <failure type="check"> with
// the first violation, an <error> for a run that failed or crashed, and
// <system-out> naming the run directory.
#include <string>
#include <vector>

#include "host_tools/testbench/test_results.hpp"

namespace couplet::tools {

/// The XML text.
std::string junit_xml(const std::vector<SuiteResult>& suites);

/// Writes junit_xml(suites) to `path`; throws std::runtime_error naming it when
/// it cannot be written.
void write_junit(const std::vector<SuiteResult>& suites, const std::string& path);

}  // namespace couplet::tools
