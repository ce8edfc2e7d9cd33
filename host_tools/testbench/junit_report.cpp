#include "host_tools/testbench/junit_report.hpp"

#include <cstdio>
#include <fstream>
#include <pugixml.hpp>
#include <sstream>
#include <stdexcept>

namespace couplet::tools {

namespace {

/// JUnit times are xs:decimal: fixed notation, no exponent.
std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", seconds);
  return text;
}

struct Counts {
  std::size_t tests = 0;
  std::size_t failures = 0;
  std::size_t errors = 0;
  double seconds = 0.0;

  void add(const Counts& other) {
    tests += other.tests;
    failures += other.failures;
    errors += other.errors;
    seconds += other.seconds;
  }
};

void set_counts(pugi::xml_node node, const Counts& counts) {
  node.append_attribute("tests") = static_cast<unsigned long long>(counts.tests);
  node.append_attribute("failures") = static_cast<unsigned long long>(counts.failures);
  node.append_attribute("errors") = static_cast<unsigned long long>(counts.errors);
  node.append_attribute("time") = seconds_text(counts.seconds).c_str();
}

void append_verdict(pugi::xml_node suite, const CaseVerdict& verdict, const CaseRun& run) {
  pugi::xml_node test_case = suite.append_child("testcase");
  test_case.append_attribute("name") = verdict.name.c_str();
  test_case.append_attribute("classname") = verdict.class_name.c_str();
  test_case.append_attribute("time") = seconds_text(verdict.seconds).c_str();
  if (verdict.kind == CaseVerdict::Kind::failed) {
    pugi::xml_node failure = test_case.append_child("failure");
    failure.append_attribute("message") = verdict.message.c_str();
    failure.append_attribute("type") = "check";
    failure.text() = verdict.message.c_str();
  } else if (verdict.kind == CaseVerdict::Kind::error) {
    pugi::xml_node error = test_case.append_child("error");
    error.append_attribute("message") = verdict.message.c_str();
    error.append_attribute("type") = "run";
    error.text() = verdict.message.c_str();
  }
  test_case.append_child("system-out").text() =
      ("run directory: " + run.directory + "\ncommand: " + run.command + "\n").c_str();
}

Counts append_suite(pugi::xml_node suites, const SuiteResult& result) {
  pugi::xml_node suite = suites.append_child("testsuite");
  suite.append_attribute("name") = result.name.c_str();
  Counts counts;
  for (const CaseRun& run : result.runs) {
    counts.seconds += run.seconds;
    for (const CaseVerdict& verdict : verdicts_of(result, run)) {
      ++counts.tests;
      counts.failures += verdict.kind == CaseVerdict::Kind::failed ? 1 : 0;
      counts.errors += verdict.kind == CaseVerdict::Kind::error ? 1 : 0;
      append_verdict(suite, verdict, run);
    }
  }
  set_counts(suite, counts);
  std::string directories;
  for (const CaseRun& run : result.runs) directories += run.directory + "\n";
  suite.append_child("system-out").text() =
      ("scenario: " + result.path + "\nrun directories:\n" + directories).c_str();
  return counts;
}

}  // namespace

std::string junit_xml(const std::vector<SuiteResult>& suites) {
  pugi::xml_document document;
  pugi::xml_node declaration = document.append_child(pugi::node_declaration);
  declaration.append_attribute("version") = "1.0";
  declaration.append_attribute("encoding") = "UTF-8";
  pugi::xml_node root = document.append_child("testsuites");
  root.append_attribute("name") = "couplet test";
  Counts total;
  for (const SuiteResult& suite : suites) total.add(append_suite(root, suite));
  set_counts(root, total);
  std::ostringstream text;
  document.save(text, "  ");
  return text.str();
}

void write_junit(const std::vector<SuiteResult>& suites, const std::string& path) {
  std::ofstream file(path);
  if (!file) throw std::runtime_error("--junit '" + path + "': cannot be written");
  file << junit_xml(suites);
  file.close();
  if (!file) throw std::runtime_error("--junit '" + path + "': cannot be written");
}

}  // namespace couplet::tools
