// `couplet test`: test scenarios (checks:, cases:) run as child processes, the
// verdicts on stdout and as JUnit XML validated against tests/data/junit.xsd,
// and the exit codes 0 (all passed), 3 (a check failed), 1 (a run failed or
// crashed), 2 (no scenario found).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "host_tools/test_support.hpp"
#include "test_fmus.hpp"

namespace couplet::testing {
namespace {

namespace fs = std::filesystem;

struct CommandResult {
  int exit_code = -1;
  std::string output;  ///< stdout and stderr
};

CommandResult shell(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  CommandResult result;
  std::array<char, 4096> buffer{};
  while (const std::size_t read = fread(buffer.data(), 1, buffer.size(), pipe))
    result.output.append(buffer.data(), read);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

CommandResult couplet(const std::string& arguments) {
  return shell(std::string(COUPLET_BINARY) + " " + arguments);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The left mass starts at x = 1 and only loses energy: |left.x| <= 1, with its
// maximum 1 at t = 0.
const char* const kMasses = R"(time: {start: 0, end: 1}
slaves:
  left:
    model: translational.mass
    parameters: {m: 10, c: 1, d: 0.1, x0: 1, v0: 0}
    solver: {type: exact}
  right:
    model: translational.coupled_mass
    parameters: {m: 1, c_wall: 1, d_wall: 0.1, c_coupling: 1, d_coupling: 0.2, x0: 0, v0: 0}
    solver: {type: exact}
connections:
  - {from: left.x, to: right.x}
  - {from: left.v, to: right.v}
  - {from: right.f, to: left.f}
algorithm: {type: jacobi, step: 0.1, input_order: 0}
evaluation: {grid: 0.1}
)";

const char* const kPassing = R"(name: passing
cases:
  light: {slaves.left.parameters.m: 5}
  heavy: {slaves.left.parameters.m: 20, algorithm.step: 0.05}
checks:
  - {name: stays_small, signal: left.x, max: 1.0}
)";

const char* const kFailing = R"(name: failing
checks:
  - {name: too_tight, signal: left.x, max: 0.5}
)";

// The test FMU `faulty` refuses its step after fail_time (fail_status 3) or
// aborts the process (fail_status 6).
std::string faulty_scenario(const std::string& name, int fail_status) {
  return "name: " + name +
         "\ntime: {end: 1}\nslaves:\n  s:\n    fmu: " + COUPLET_TEST_FMU("faulty") +
         "\n    parameters: {fail_time: 0.5, fail_status: " + std::to_string(fail_status) +
         "}\nalgorithm: {type: jacobi, step: 0.1}\nchecks:\n  - {name: y_small, signal: s.y, max: "
         "10}\n";
}

class TestCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fresh_directory(::testing::UnitTest::GetInstance()->current_test_info()->name());
    folder_ = base_ / "scenarios";
    fs::create_directories(folder_ / "nested");
    write("passing.yaml", std::string(kMasses) + kPassing);
    write("nested/failing.yaml", std::string(kMasses) + kFailing);
    write("broken.yaml", faulty_scenario("broken", 3));
    write("crashing.yaml", faulty_scenario("crashing", 6));
    write("no_checks.yaml", std::string(kMasses) + "name: no_checks\n");  // not a test scenario
    write("notes.txt", "not a scenario\n");
  }

  void write(const std::string& name, const std::string& text) const {
    std::ofstream(folder_ / name) << text;
  }
  std::string path(const std::string& name) const { return (folder_ / name).string(); }
  std::string out() const { return (base_ / "out").string(); }

  fs::path base_;
  fs::path folder_;
};

pugi::xml_node suite_named(const pugi::xml_document& document, const std::string& name) {
  return document.child("testsuites").find_child_by_attribute("testsuite", "name", name.c_str());
}

TEST_F(TestCommand, AFolderOfPassingFailingBrokenAndCrashingScenarios) {
  const std::string junit = (base_ / "junit.xml").string();
  const CommandResult result =
      couplet("test " + folder_.string() + " --junit " + junit + " --jobs 2 -o " + out());
  EXPECT_EQ(result.exit_code, 1) << "a run failed and one crashed:\n" << result.output;

  const CommandResult schema = shell("xmllint --noout --schema " + std::string(COUPLET_SOURCE_DIR) +
                                     "/tests/data/junit.xsd " + junit);
  EXPECT_EQ(schema.exit_code, 0) << schema.output;

  pugi::xml_document document;
  ASSERT_TRUE(document.load_file(junit.c_str())) << junit;
  const pugi::xml_node root = document.child("testsuites");
  // Sorted paths: broken, crashing, nested/failing, passing; no_checks is not a test.
  std::vector<std::string> names;
  for (const pugi::xml_node suite : root.children("testsuite"))
    names.emplace_back(suite.attribute("name").value());
  EXPECT_EQ(names, (std::vector<std::string>{"broken", "crashing", "failing", "passing"}));
  // broken: its check as far as the run went and the run's error; crashing: no
  // summary, the run's error alone; failing 1; passing 2 cases.
  EXPECT_EQ(root.attribute("tests").as_int(), 6);
  EXPECT_EQ(root.attribute("failures").as_int(), 1);
  EXPECT_EQ(root.attribute("errors").as_int(), 2);

  const pugi::xml_node passing = suite_named(document, "passing");
  EXPECT_EQ(passing.attribute("tests").as_int(), 2);
  EXPECT_EQ(passing.attribute("failures").as_int(), 0);
  EXPECT_EQ(passing.attribute("errors").as_int(), 0);
  std::vector<std::string> classes;
  for (const pugi::xml_node test_case : passing.children("testcase")) {
    classes.emplace_back(test_case.attribute("classname").value());
    EXPECT_STREQ(test_case.attribute("name").value(), "stays_small");
    EXPECT_FALSE(test_case.child("failure"));
    EXPECT_FALSE(test_case.child("error"));
  }
  EXPECT_EQ(classes, (std::vector<std::string>{"passing.light", "passing.heavy"}));
  EXPECT_TRUE(contains(passing.child("testcase").child("system-out").text().get(),
                       "run directory: " + out() + "/passing/light"));

  const pugi::xml_node failure =
      suite_named(document, "failing").child("testcase").child("failure");
  ASSERT_TRUE(failure);
  EXPECT_STREQ(failure.attribute("type").value(), "check");
  EXPECT_TRUE(
      contains(failure.attribute("message").value(), "violated first at t = 0 s (worst value 1): "))
      << failure.attribute("message").value();

  const pugi::xml_node broken = suite_named(document, "broken");
  EXPECT_EQ(broken.attribute("errors").as_int(), 1);
  const pugi::xml_node broken_run = broken.find_child_by_attribute("testcase", "name", "run");
  EXPECT_TRUE(contains(broken_run.child("error").attribute("message").value(), "run failed: "))
      << broken_run.child("error").attribute("message").value();
  EXPECT_TRUE(contains(broken_run.child("error").attribute("message").value(), "fmi2DoStep"));

  const pugi::xml_node crashed =
      suite_named(document, "crashing").find_child_by_attribute("testcase", "name", "run");
  EXPECT_TRUE(
      contains(crashed.child("error").attribute("message").value(), "crashed: signal 6 (SIGABRT)"))
      << crashed.child("error").attribute("message").value();

  // The table on stdout: scenario, case, check, verdict.
  EXPECT_TRUE(contains(result.output, "passing   light  stays_small  passed")) << result.output;
  EXPECT_TRUE(
      contains(result.output, "failing   -      too_tight    FAILED: violated first at t = 0 s"))
      << result.output;
  EXPECT_TRUE(
      contains(result.output, "crashing  -      run          ERROR: crashed: signal 6 (SIGABRT)"))
      << result.output;
  EXPECT_TRUE(contains(result.output, "6 tests: 3 passed, 1 failed, 2 errors")) << result.output;
}

// Without checks: each file given is one test, `run`, whose verdict is how the
// run ended.
TEST_F(TestCommand, RunsThatFailOrCrashAreErrorsOfTheirOwn) {
  std::string broken = faulty_scenario("broken_alone", 3);
  std::string crashing = faulty_scenario("crashing_alone", 6);
  for (std::string* text : {&broken, &crashing}) text->erase(text->find("checks:"));
  write("broken_alone.yaml", broken);
  write("crashing_alone.yaml", crashing);
  const std::string junit = (base_ / "junit.xml").string();
  const CommandResult result =
      couplet("test " + path("broken_alone.yaml") + " " + path("crashing_alone.yaml") + " " +
              path("no_checks.yaml") + " -o " + out() + " --junit " + junit);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_TRUE(
      contains(result.output, "broken_alone    -     run    ERROR: run failed: slave 's': FMU '" +
                                  std::string(COUPLET_TEST_FMU("faulty")) +
                                  "': fmi2DoStep returned fmi2Error at t = 0.5 s"))
      << result.output;
  EXPECT_TRUE(
      contains(result.output, "crashing_alone  -     run    ERROR: crashed: signal 6 (SIGABRT)\n"))
      << result.output;
  EXPECT_TRUE(contains(result.output, "no_checks       -     run    passed\n")) << result.output;
  EXPECT_TRUE(contains(result.output, "3 tests: 1 passed, 0 failed, 2 errors")) << result.output;
  // The failed run wrote its summary and log; the crashed one its log up to the crash.
  EXPECT_TRUE(fs::exists(fs::path(out()) / "broken_alone" / "summary.json"));
  EXPECT_TRUE(fs::exists(fs::path(out()) / "crashing_alone" / "run.log"));
  EXPECT_FALSE(fs::exists(fs::path(out()) / "crashing_alone" / "summary.json"));

  const CommandResult schema = shell("xmllint --noout --schema " + std::string(COUPLET_SOURCE_DIR) +
                                     "/tests/data/junit.xsd " + junit);
  EXPECT_EQ(schema.exit_code, 0) << schema.output;
  pugi::xml_document document;
  ASSERT_TRUE(document.load_file(junit.c_str())) << junit;
  const pugi::xml_node root = document.child("testsuites");
  EXPECT_EQ(root.attribute("tests").as_int(), 3);
  EXPECT_EQ(root.attribute("failures").as_int(), 0);
  EXPECT_EQ(root.attribute("errors").as_int(), 2);
  const pugi::xml_node crashed = suite_named(document, "crashing_alone").child("testcase");
  EXPECT_STREQ(crashed.attribute("classname").value(), "crashing_alone");
  EXPECT_STREQ(crashed.child("error").attribute("message").value(), "crashed: signal 6 (SIGABRT)");
  EXPECT_STREQ(crashed.child("error").attribute("type").value(), "run");
  EXPECT_EQ(std::string(crashed.child("system-out").text().get()),
            "run directory: " + out() + "/crashing_alone\ncommand: " + COUPLET_BINARY + " run " +
                path("crashing_alone.yaml") + " -o " + out() + "/crashing_alone --quiet\n");
}

// A scenario refused by `couplet run` (exit 2) is an error with couplet's message.
TEST_F(TestCommand, ARefusedScenarioIsAnErrorWithItsMessage) {
  write("refused.yaml",
        std::string(kMasses) + "name: refused\nalgorithm: {type: no_such_algorithm, step: 0.1}\n");
  const CommandResult result = couplet("test " + path("refused.yaml") + " -o " + out());
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_TRUE(contains(result.output,
                       "ERROR: scenario refused (exit code 2): couplet: configuration error: " +
                           path("refused.yaml")))
      << result.output;
}

TEST_F(TestCommand, EachCaseRunsWithItsOverrides) {
  const CommandResult result = couplet("test " + path("passing.yaml") + " -o " + out());
  EXPECT_EQ(result.exit_code, 0) << result.output;
  const auto summary = [&](const std::string& test_case) {
    return nlohmann::json::parse(
        read_file(fs::path(out()) / "passing" / test_case / "summary.json"));
  };
  // heavy halves the step: twice the communication times.
  EXPECT_EQ(summary("light")["macro_steps"].get<int>(), 10);
  EXPECT_EQ(summary("heavy")["macro_steps"].get<int>(), 20);
  EXPECT_NE(summary("light")["decision_hash"], summary("heavy")["decision_hash"]);
  EXPECT_TRUE(contains(result.output, "2 tests: 2 passed, 0 failed, 0 errors")) << result.output;
}

TEST_F(TestCommand, AFailedCheckExitsThree) {
  const CommandResult result = couplet("test " + path("passing.yaml") + " " +
                                       path("nested/failing.yaml") + " -o " + out() + " --jobs 1");
  EXPECT_EQ(result.exit_code, 3) << result.output;
}

// --live: each run serves its page (here at any free port), its address in the
// run's output; the verdicts are those of the runs without it.
TEST_F(TestCommand, LiveServesEachRunAndSaysWhere) {
  const CommandResult result =
      couplet("test " + path("passing.yaml") + " -o " + out() + " --jobs 1 --live 0");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(contains(result.output, "2 tests: 2 passed, 0 failed, 0 errors")) << result.output;
  for (const std::string test_case : {"light", "heavy"}) {
    const fs::path directory = fs::path(out()) / "passing" / test_case;
    EXPECT_TRUE(contains(result.output, "couplet test: live view of " + directory.string() +
                                            ": the address in " +
                                            (directory / "output.txt").string()))
        << result.output;
    EXPECT_TRUE(contains(read_file(directory / "output.txt"), "live view at http://127.0.0.1:"));
  }
  const CommandResult bad = couplet("test " + path("passing.yaml") + " -o " + out() + " --live x");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_TRUE(contains(bad.output, "--live: expected PORT or ADDRESS:PORT")) << bad.output;
  const CommandResult high =
      couplet("test " + path("passing.yaml") + " -o " + out() + " --live 65535");
  EXPECT_EQ(high.exit_code, 2) << high.output;
  EXPECT_TRUE(contains(high.output, "--live 65535: run 2 would need port 65536 (above 65535)"))
      << high.output;
}

TEST_F(TestCommand, AnExplicitScenarioWithoutChecksIsOneRunTest) {
  const std::string junit = (base_ / "junit.xml").string();
  const CommandResult result =
      couplet("test " + path("no_checks.yaml") + " -o " + out() + " --junit " + junit);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(contains(result.output, "no_checks  -     run    passed")) << result.output;
  EXPECT_EQ(shell("xmllint --noout --schema " + std::string(COUPLET_SOURCE_DIR) +
                  "/tests/data/junit.xsd " + junit)
                .exit_code,
            0);
}

TEST_F(TestCommand, NoScenarioFoundIsAUsageError) {
  const fs::path empty = base_ / "empty";
  fs::create_directories(empty);
  std::ofstream(empty / "plain.yaml") << kMasses;  // declares no checks
  const CommandResult none = couplet("test " + empty.string() + " -o " + out());
  EXPECT_EQ(none.exit_code, 2) << none.output;
  EXPECT_TRUE(contains(none.output, "'" + empty.string() +
                                        "': no scenario declaring checks: (*.yaml or *.ssp) found"))
      << none.output;
  const CommandResult missing = couplet("test " + (base_ / "nowhere").string());
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_TRUE(
      contains(missing.output, (base_ / "nowhere").string() + "': no such file or directory"))
      << missing.output;
  const CommandResult unwritable = couplet("test " + folder_.string() + " --junit " +
                                           (base_ / "nowhere" / "junit.xml").string());
  EXPECT_EQ(unwritable.exit_code, 2) << unwritable.output;
  EXPECT_TRUE(contains(unwritable.output, "--junit '" + (base_ / "nowhere" / "junit.xml").string() +
                                              "': cannot be written"))
      << unwritable.output;
  const CommandResult no_jobs = couplet("test " + folder_.string() + " --jobs 0");
  EXPECT_EQ(no_jobs.exit_code, 2) << no_jobs.output;
}

TEST_F(TestCommand, TwoScenariosOfOneNameAreRefusedNamingBoth) {
  write("again.yaml", std::string(kMasses) + kFailing);  // also named "failing"
  const CommandResult result = couplet("test " + folder_.string() + " -o " + out());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  const std::string both = std::string("'")
                               .append(path("again.yaml"))
                               .append("' and '")
                               .append(path("nested/failing.yaml"));
  EXPECT_TRUE(contains(result.output, both + "': two scenarios named 'failing'")) << result.output;
}

// `cases:` is part of the scenario format: run and validate accept it and
// refuse a bad case by file, line and key.
TEST_F(TestCommand, CasesAreCheckedWithFileAndLine) {
  write("cases.yaml", std::string(kMasses) + "cases:\n  light: {slaves.left.parameters.m: 5}\n");
  EXPECT_EQ(couplet("validate " + path("cases.yaml")).exit_code, 0);
  const auto refused = [&](const std::string& cases, const std::string& message) {
    write("bad_case.yaml", std::string(kMasses) + cases);
    const CommandResult result = couplet("validate " + path("bad_case.yaml"));
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_TRUE(contains(result.output, path("bad_case.yaml") + message)) << message << " in\n"
                                                                          << result.output;
  };
  // kMasses has 16 lines: `cases:` is line 17, its first case line 18.
  refused("cases:\n  light: 0.5\n",
          ":18: cases.light: must be a non-empty map of key.path to value");
  refused("cases: [a, b]\n",
          ":17: cases: must be a non-empty map of case name to {key.path: value, ...}");
  refused("cases:\n  light: {slaves.left.parameters.m: heavy}\n",
          ":18: cases.light: " + path("bad_case.yaml") +
              ": slaves.left.parameters.m: expected a number");
  refused("cases:\n  light: {algorithm.step: 5}\n", ":18: cases.light: ");
  refused("cases:\n  \"a/b\": {algorithm.step: 0.05}\n",
          ":18: cases.a/b: a case name may hold only letters, digits, '_', '-' and '.'");
  refused("cases:\n  light: {cases.other: 1}\n",
          ":18: cases.light.cases.other: expected a key path");
}

}  // namespace
}  // namespace couplet::testing
