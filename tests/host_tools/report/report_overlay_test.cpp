// `couplet report A B ...` (docs/report.md#several-runs): one page whose signal
// plots overlay the runs, each run's series on its own times with the exact
// values of its signals.csv; a table of the runs with their decision hashes; a
// missing run is a configuration error naming it; the page draws in a headless
// browser without a script error.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

fs::path temporary_directory() {
  const fs::path directory =
      fs::temp_directory_path() / ("couplet-report-overlay-" + std::to_string(::getpid()));
  fs::create_directories(directory);
  return directory;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct CommandResult {
  int exit_code = -1;
  std::string output;  ///< stdout and stderr together
};

CommandResult couplet(const std::string& arguments) {
  const std::string command =
      "timeout 300 " + std::string(COUPLET_BINARY) + " " + arguments + " 2>&1";
  CommandResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  while (const std::size_t read = std::fread(buffer.data(), 1, buffer.size(), pipe))
    result.output.append(buffer.data(), read);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

/// A ten-second run of the two-mass switch scenario into `directory` with
/// communication step and evaluation grid `step`.
void run_two_mass_switch(const fs::path& directory, const std::string& step) {
  const CommandResult run = couplet(
      "run " + std::string(COUPLET_SOURCE_DIR) +
      "/scenarios/two_mass_switch.yaml --quiet --set time.end=10 --set algorithm.step=" + step +
      " --set evaluation.grid=" + step + " -o '" + directory.string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.output;
}

// ------------------------------------------------------------ reading the page

std::string unescape(const std::string& text) {
  std::string out;
  for (std::size_t k = 0; k < text.size();) {
    if (text[k] != '&') {
      out += text[k++];
      continue;
    }
    const std::size_t end = text.find(';', k);
    const std::string entity = text.substr(k, end + 1 - k);
    if (entity == "&amp;")
      out += '&';
    else if (entity == "&lt;")
      out += '<';
    else if (entity == "&gt;")
      out += '>';
    else if (entity == "&quot;")
      out += '"';
    else if (entity == "&#39;")
      out += '\'';
    else
      ADD_FAILURE() << "unexpected entity " << entity;
    k = end + 1;
  }
  return out;
}

std::string start_tag(const std::string& html, const std::string& id) {
  const std::size_t at = html.find(" id=\"" + id + "\"");
  if (at == std::string::npos) return {};
  const std::size_t begin = html.rfind('<', at);
  return html.substr(begin, html.find('>', at) + 1 - begin);
}

std::string attribute(const std::string& tag, const std::string& name) {
  const std::string key = " " + name + "=\"";
  const std::size_t at = tag.find(key);
  if (at == std::string::npos) return {};
  const std::size_t begin = at + key.size();
  return unescape(tag.substr(begin, tag.find('"', begin) - begin));
}

/// Every plot's data, keyed by its title.
std::vector<std::pair<std::string, nlohmann::json>> plots(const std::string& html) {
  std::vector<std::pair<std::string, nlohmann::json>> found;
  const std::string title_tag = "<p class=\"plot-title\">";
  for (std::size_t at = html.find(title_tag); at != std::string::npos;
       at = html.find(title_tag, at + 1)) {
    const std::size_t begin = at + title_tag.size();
    const std::string title = unescape(html.substr(begin, html.find("</p>", begin) - begin));
    const std::size_t data = html.find(" data-plot=\"", begin);
    const std::size_t tag_begin = html.rfind('<', data);
    const std::string tag = html.substr(tag_begin, html.find('>', data) + 1 - tag_begin);
    found.emplace_back(title, nlohmann::json::parse(attribute(tag, "data-plot")));
  }
  return found;
}

struct Point {
  double x;
  double y;
};

std::vector<Point> points_of(const nlohmann::json& plot, const std::string& name) {
  const nlohmann::json& labels = plot.at("labels");
  const auto column = std::find(labels.begin(), labels.end(), name);
  if (column == labels.end()) {
    ADD_FAILURE() << "no series " << name << " in " << labels.dump();
    return {};
  }
  const auto index = static_cast<std::size_t>(column - labels.begin());
  std::vector<Point> points;
  for (const nlohmann::json& row : plot.at("data")) {
    if (!row.at(index).is_null())
      points.push_back({row[0].get<double>(), row[index].get<double>()});
  }
  return points;
}

/// Column `signal` of a signals.csv, with its times.
std::vector<Point> csv_column(const fs::path& csv, const std::string& signal) {
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  std::stringstream names(line);
  for (std::string name; std::getline(names, name, ',');) header.push_back(name);
  const auto column =
      static_cast<std::size_t>(std::find(header.begin(), header.end(), signal) - header.begin());
  EXPECT_LT(column, header.size()) << signal << " not in " << csv;
  std::vector<Point> points;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) fields.push_back(cell);
    if (column < fields.size())
      points.push_back(
          {std::strtod(fields[0].c_str(), nullptr), std::strtod(fields[column].c_str(), nullptr)});
  }
  return points;
}

void expect_same_points(const std::vector<Point>& plotted, const std::vector<Point>& csv,
                        const std::string& what) {
  ASSERT_EQ(plotted.size(), csv.size()) << what;
  for (std::size_t k = 0; k < csv.size(); ++k) {
    ASSERT_EQ(plotted[k].x, csv[k].x) << what << " point " << k;
    ASSERT_EQ(plotted[k].y, csv[k].y) << what << " point " << k;
  }
}

/// Two runs, fine (10 ms) and coarse (50 ms), and their overlay report.
class ReportOverlay : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    run_two_mass_switch(fine(), "0.01");
    run_two_mass_switch(coarse(), "0.05");
    report_run = couplet("report '" + fine().string() + "' '" + coarse().string() + "' -o '" +
                         page_path().string() + "'");
  }
  static void TearDownTestSuite() {
    if (!::testing::UnitTest::GetInstance()->Failed()) fs::remove_all(temporary_directory());
  }
  static fs::path fine() { return temporary_directory() / "fine"; }
  static fs::path coarse() { return temporary_directory() / "coarse"; }
  static fs::path page_path() { return temporary_directory() / "overlay.html"; }
  static inline CommandResult report_run;
};

TEST_F(ReportOverlay, PlotsEachRunsSignalsWithTheExactValuesOfItsCsv) {
  ASSERT_EQ(report_run.exit_code, 0) << report_run.output;
  EXPECT_NE(report_run.output.find("report of 2 runs written to " + page_path().string()),
            std::string::npos)
      << report_run.output;
  const std::string page = read_file(page_path());
  const auto all = plots(page);
  const auto left_x =
      std::find_if(all.begin(), all.end(), [](const auto& plot) { return plot.first == "left.x"; });
  ASSERT_NE(left_x, all.end()) << "no plot titled left.x";
  const nlohmann::json& plot = left_x->second;
  // The scenario's monolithic reference comes with each run, dashed.
  EXPECT_EQ(plot.at("labels"), nlohmann::json::array({"time (s)", "fine", "fine (reference)",
                                                      "coarse", "coarse (reference)"}));
  const std::vector<Point> fine_csv = csv_column(fine() / "signals.csv", "left.x");
  const std::vector<Point> coarse_csv = csv_column(coarse() / "signals.csv", "left.x");
  // Each run keeps its own grid: 0 to 10 s by 10 ms, and by 50 ms.
  EXPECT_EQ(fine_csv.size(), 1001u);
  EXPECT_EQ(coarse_csv.size(), 201u);
  expect_same_points(points_of(plot, "fine"), fine_csv, "fine left.x");
  expect_same_points(points_of(plot, "coarse"), coarse_csv, "coarse left.x");
  // The coarse run's coupling error shows: the two runs differ somewhere.
  EXPECT_NE(fine_csv.back().y, coarse_csv.back().y);
}

TEST_F(ReportOverlay, TheRunTableListsBothDecisionHashes) {
  ASSERT_EQ(report_run.exit_code, 0) << report_run.output;
  const std::string page = read_file(page_path());
  const std::size_t runs = page.find("<h2>Runs</h2>");
  ASSERT_NE(runs, std::string::npos);
  const std::string table = page.substr(runs, page.find("</table>", runs) - runs);
  std::vector<std::string> hashes;
  for (const fs::path& run : {fine(), coarse()}) {
    const nlohmann::json summary = nlohmann::json::parse(read_file(run / "summary.json"));
    const std::string hash = summary.at("decision_hash").get<std::string>();
    hashes.push_back(hash);
    EXPECT_NE(table.find("<td>" + hash + "</td>"), std::string::npos) << hash << " in " << table;
    EXPECT_NE(table.find("<td>" + run.filename().string() + "</td>"), std::string::npos) << table;
  }
  EXPECT_NE(hashes[0], hashes[1]);
  EXPECT_NE(table.find("<td>jacobi</td>"), std::string::npos) << table;
  EXPECT_NE(table.find("<td>complete</td>"), std::string::npos) << table;
}

TEST_F(ReportOverlay, AMissingRunExitsTwoNamingIt) {
  const fs::path missing = temporary_directory() / "no-such-run";
  const CommandResult result =
      couplet("report '" + fine().string() + "' '" + missing.string() + "' -o '" +
              (temporary_directory() / "x.html").string() + "'");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  std::string named = "'";  // appended, not concatenated: GCC 12 warns (-Wrestrict) on "'" + s
  named.append(missing.string()).append("' does not exist");
  EXPECT_NE(result.output.find(named), std::string::npos) << result.output;
  EXPECT_FALSE(fs::exists(temporary_directory() / "x.html"));
}

TEST_F(ReportOverlay, RendersInHeadlessChromium) {
  const fs::path chromium = "/usr/bin/chromium";
  if (!fs::exists(chromium)) GTEST_SKIP() << "no " << chromium << " (./build.sh test installs it)";
  ASSERT_EQ(report_run.exit_code, 0) << report_run.output;
  const fs::path dom_file = temporary_directory() / "dom.html";
  const std::string command =
      "timeout 120 " + chromium.string() +
      " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --user-data-dir='" +
      (temporary_directory() / "chromium-profile").string() +
      "' --window-size=1200,4000 --dump-dom 'file://" + page_path().string() + "' >'" +
      dom_file.string() + "' 2>/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0);
  const std::string dom = read_file(dom_file);
  const std::string status = start_tag(dom, "report-status");
  ASSERT_FALSE(status.empty()) << dom_file;
  EXPECT_EQ(attribute(status, "data-done"), "yes") << status;
  EXPECT_EQ(attribute(status, "data-errors"), "") << status;
  const std::size_t plotted = plots(read_file(page_path())).size();
  EXPECT_GE(plotted, 2u);  // left.x and left.v, the signals the scenario evaluates
  EXPECT_EQ(attribute(status, "data-plots"), std::to_string(plotted));
  EXPECT_EQ(attribute(status, "data-drawn"), std::to_string(plotted));
  EXPECT_EQ(attribute(status, "data-empty"), "") << "plots without drawn data";
}

}  // namespace
