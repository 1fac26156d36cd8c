// `sao report DIR`: the HTML page is self-contained, holds the charts (their specs, drawn by
// Chart.js in the page), and renders in headless chromium (Debian's package, installed by
// scripts/bootstrap): every chart drawn on a canvas; the screenshot is kept in
// build/test-report/. The other pages sao writes (`sao evaluate --plot`'s histories, the
// sweep's compromise curve) render there too.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "sao/report/sweep_files.hpp"
#include "tests/support.hpp"

namespace {

namespace fs = std::filesystem;

using Output = sao::testing::CommandOutput;
using sao::SweepMember;
using sao::SweepOptions;
using sao::SweepResult;

// Runs a command (its stderr dropped) and returns its exit code and output.
Output shell(const std::string& command) {
  return sao::testing::run_command(command + " 2>/dev/null");
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string chromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    if (shell(std::string("command -v ") + name).code == 0) return name;
  }
  return "";
}

// The series of a chart spec with this name (null when there is none).
nlohmann::json series_named(const nlohmann::json& spec, const std::string& name) {
  for (const nlohmann::json& s : spec["series"]) {
    if (s["name"] == name) return s;
  }
  return nullptr;
}

// Points of a series with both coordinates (what the renderer draws).
size_t drawn_points(const nlohmann::json& series) {
  size_t n = 0;
  for (size_t i = 0; i < series["x"].size(); ++i) {
    n += series["x"][i].is_number() && series["y"][i].is_number();
  }
  return n;
}

struct Browser {
  std::string command;  // "" when there is none
  std::string flags;
};

Browser browser(const fs::path& dir) {
  const std::string name = chromium();
  if (name.empty()) return {};
  return {name,
          " --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run "
          "--disable-background-networking --user-data-dir=" +
              (dir / "chromium-profile").string() + " "};
}

// The DOM chromium builds from a page (its scripts run).
Output dom_of(const Browser& b, const fs::path& html) {
  return shell("timeout 120 " + b.command + b.flags + "--dump-dom file://" +
               fs::absolute(html).string());
}

TEST(Report, HtmlWithChartsRendersInHeadlessChromium) {
  const fs::path dir = fs::path(SAO_BINARY_DIR) / "test-report";
  fs::remove_all(dir);
  const std::string sao = std::string(SAO_BINARY_DIR) + "/sao";
  const std::string study =
      std::string(SAO_SOURCE_DIR) + "/problems/impact-absorber/max-acceleration.json";
  ASSERT_EQ(shell(sao + " run " + study + " -q --out " + dir.string()).code, 0);
  const Output report = shell(sao + " report " + dir.string());
  ASSERT_EQ(report.code, 0) << report.text;
  const fs::path html = dir / "report.html";
  const std::string page = sao::testing::read_file(html);
  const nlohmann::json result = nlohmann::json::parse(sao::testing::read_file(dir / "result.json"));
  const int cycles = result["cycles"];
  ASSERT_GT(cycles, 1);

  // Self-contained: no address to fetch anything from; Chart.js and the renderer inline.
  sao::testing::expect_self_contained(page);
  EXPECT_NE(page.find("sao_charts.draw_all(document)"), std::string::npos);
  for (const char* title :
       {"Summary", "Contents", "Objective F", "Maximum constraint violation V",
        "Approximation errors", "Move-limit factors", "Design variables",
        "Displacement |y| [m] @impact: y &lt;= 1, -(y) &lt;= 1", "Time-dependent constraints",
        "Largest |acceleration| [m/s^2]", "start (cycle 0)"}) {
    EXPECT_NE(page.find(title), std::string::npos) << title;
  }
  // 9 per-cycle charts (objective, violation, errors, predicted against computed for the
  // objective and the constraints, move limits, the scaled design, each of the 2 variables),
  // one per time-dependent constraint entry: |y| <= 1 (both signs in one chart) and the bound
  // formulation's |acceleration| <= b3 (both responses are constrained: no response chart);
  // the scatter of the stored analyses: each objective part against each variable; and the
  // histories the simulator delivers beside the responses. Every chart is a link target
  // listed in the contents.
  const std::vector<nlohmann::json> specs = sao::testing::chart_specs(page);
  EXPECT_EQ(count(page, "<figure class=\"chart\" id=\""), specs.size());
  std::map<std::string, size_t> kinds;  // id prefix -> charts
  for (const nlohmann::json& spec : specs) {
    const std::string id = spec["id"];
    ++kinds[id.substr(0, id.find('-'))];
  }
  EXPECT_EQ(kinds["plot"], 7u);
  EXPECT_EQ(kinds["variable"], 2u);
  EXPECT_EQ(kinds["constraint"], 2u);
  EXPECT_GE(kinds["analyses"], 2u);
  EXPECT_EQ(kinds["analyses"] % 2, 0u);  // each objective part against both variables
  EXPECT_EQ(
      kinds["plot"] + kinds["variable"] + kinds["constraint"] + kinds["analyses"] + kinds["output"],
      specs.size());
  std::set<std::string> ids;
  for (const nlohmann::json& spec : specs) {
    const std::string id = spec["id"];
    EXPECT_TRUE(ids.insert(id).second) << "two charts " << id;
    EXPECT_NE(page.find("<figure class=\"chart\" id=\"" + id + "\">"), std::string::npos) << id;
    EXPECT_NE(page.find("<a href=\"#" + id + "\">"), std::string::npos) << id;
    EXPECT_FALSE(spec["series"].empty()) << id;
  }
  // The objective per cycle: cycle 0 (the start) and every cycle.
  const nlohmann::json& objective = specs[0];
  EXPECT_EQ(objective["id"], "plot-objective");
  EXPECT_EQ(objective["x_integer"], true);
  ASSERT_EQ(objective["series"][0]["x"].size(), static_cast<size_t>(cycles) + 1);
  EXPECT_EQ(objective["series"][0]["x"][cycles], cycles);
  for (int k = 1; k <= cycles; ++k) {  // each cycle's proposal, as result.json's history has it
    const double F = result["history"][k - 1]["F_opt"];
    EXPECT_NEAR(objective["series"][0]["y"][k].get<double>(), F, 1e-12 * std::abs(F)) << k;
  }
  // The displacement: both bounds, and at each design drawn its history over the 101 time
  // points with the retained points marked on it.
  nlohmann::json displacement;
  for (const nlohmann::json& spec : specs) {
    if (spec["title"].get<std::string>().rfind("Displacement |y| [m]", 0) == 0) displacement = spec;
  }
  ASSERT_TRUE(displacement.is_object());
  ASSERT_EQ(displacement["lines"].size(), 2u);
  EXPECT_EQ(displacement["lines"][0]["label"], "upper bound 1");
  EXPECT_EQ(displacement["lines"][1]["label"], "lower bound -1");
  size_t histories = 0;
  for (const nlohmann::json& s : displacement["series"]) {
    if (!s["line"].get<bool>()) continue;
    ++histories;
    SCOPED_TRACE(s["name"].get<std::string>());
    EXPECT_EQ(drawn_points(s), 101u);
    const nlohmann::json kept =
        series_named(displacement, s["name"].get<std::string>() + ": retained points");
    ASSERT_TRUE(kept.is_object());
    EXPECT_GT(drawn_points(kept), 0u);
    EXPECT_LT(drawn_points(kept), 101u);
  }
  EXPECT_GE(histories, 2u);  // the start and the final design at least
  EXPECT_TRUE(series_named(displacement, "first: start (cycle 0)").is_object());
  EXPECT_LT(page.find("id=\"summary\""), page.find("id=\"cycles\""));  // the summary first

  // --cycles: chosen designs; a cycle that does not exist is a usage error.
  const Output chosen = shell(sao + " report " + dir.string() + " --cycles 0,2,last --out " +
                              (dir / "chosen.html").string());
  ASSERT_EQ(chosen.code, 0) << chosen.text;
  const std::string chosen_page = sao::testing::read_file(dir / "chosen.html");
  EXPECT_NE(chosen_page.find("Histories drawn at: start (cycle 0); cycle 2"), std::string::npos);
  EXPECT_EQ(
      shell(sao + " report " + dir.string() + " --cycles 999 --out " + (dir / "bad.html").string())
          .code,
      2);
  EXPECT_EQ(shell(sao + " report " + dir.string() + " --cycles 1,best,nope").code, 2);
  EXPECT_FALSE(fs::exists(dir / "bad.html"));

  const Browser b = browser(dir);
  if (b.command.empty())
    GTEST_SKIP() << "chromium is not installed (scripts/bootstrap installs it)";
  // The DOM chromium built from the page: every chart drawn on a canvas, none empty.
  const Output dom = dom_of(b, html);
  ASSERT_EQ(dom.code, 0);
  const size_t charts = sao::testing::chart_specs(page).size();
  EXPECT_GE(charts, 15u);
  EXPECT_EQ(count(dom.text, "<canvas"), charts);
  EXPECT_EQ(count(dom.text, "<figcaption>"), charts);
  EXPECT_EQ(count(dom.text, "class=\"empty\""), 0u);
  EXPECT_NE(dom.text.find("<h1>impact-absorber max-acceleration</h1>"), std::string::npos);
  // The screenshot: a PNG of the rendered page, far from blank.
  const fs::path png = dir / "report.png";
  const Output shot = shell("timeout 120 " + b.command + b.flags +
                            "--window-size=900,3600 --screenshot=" + png.string() + " file://" +
                            fs::absolute(html).string());
  ASSERT_EQ(shot.code, 0);
  ASSERT_TRUE(fs::exists(png));
  const std::string bytes = sao::testing::read_file(png);
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
  EXPECT_GT(bytes.size(), 60000u) << "a blank page compresses to a few kB";
  std::printf("screenshot: %s (%zu bytes)\n", png.string().c_str(), bytes.size());
}

// `sao evaluate --plot DIR`: DIR/histories.html, one chart per history of the study, drawn
// (a label that holds what would end or hold open a <script> element included); a sweep whose
// members all failed: its compromise page says so in the chart's place.
TEST(Report, HistoriesAndCompromisePagesRenderInHeadlessChromium) {
  const fs::path dir = fs::path(SAO_BINARY_DIR) / "test-report-pages";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string sao = std::string(SAO_BINARY_DIR) + "/sao";
  nlohmann::json document = nlohmann::json::parse(sao::testing::read_file(
      std::string(SAO_SOURCE_DIR) + "/problems/impact-absorber/max-acceleration.json"));
  const std::string label = "y <!--<script> </script> & \"more\"";
  document["responses"][0]["label"] = label;
  const std::string study = (dir / "study.json").string();
  std::ofstream(study) << document.dump(2);
  const Output evaluated =
      shell(sao + " evaluate " + study + " --json --plot " + (dir / "plots").string());
  ASSERT_EQ(evaluated.code, 0) << evaluated.text;
  const nlohmann::json out = nlohmann::json::parse(evaluated.text);
  EXPECT_EQ(out["plots"]["file"], (dir / "plots" / "histories.html").string());
  EXPECT_EQ(out["plots"]["charts"], 2);  // y and acceleration
  const fs::path histories = dir / "plots" / "histories.html";
  const std::string page = sao::testing::read_file(histories);
  sao::testing::expect_self_contained(page);
  const std::vector<nlohmann::json> specs = sao::testing::chart_specs(page);
  ASSERT_EQ(specs.size(), 2u);
  std::set<std::string> ids;
  for (const nlohmann::json& spec : specs) {
    ids.insert(spec["id"].get<std::string>());
    ASSERT_EQ(spec["series"].size(), 1u);  // the one design evaluated
    EXPECT_EQ(drawn_points(spec["series"][0]), 101u);
  }
  EXPECT_EQ(ids, std::set<std::string>({"impact-y", "impact-acceleration"}));
  for (const nlohmann::json& spec : specs) {  // "label [unit]" of each response, its bounds
    if (spec["id"] == "impact-y") {
      EXPECT_EQ(spec["y_label"], label + " [m]");
      EXPECT_EQ(spec["lines"].size(), 2u);  // |y| <= 1
    } else {
      EXPECT_EQ(spec["y_label"], "Acceleration [m/s^2]");  // delivered as yddot
    }
  }

  SweepResult none;
  SweepOptions options;
  options.range = sao::parse_sweep_range("constraints.0.upper=1,2");
  for (double v : {1.0, 2.0}) {
    SweepMember m;
    m.value = v;
    m.summary.status = sao::RunStatus::kFailed;
    none.members.push_back(m);
  }
  sao::write_sweep((dir / "sweep").string(), options, none, {}, "F");

  const Browser b = browser(dir);
  if (b.command.empty())
    GTEST_SKIP() << "chromium is not installed (scripts/bootstrap installs it)";
  const Output drawn = dom_of(b, histories);
  ASSERT_EQ(drawn.code, 0);
  EXPECT_EQ(count(drawn.text, "<canvas"), 2u);
  EXPECT_EQ(count(drawn.text, "class=\"empty\""), 0u);
  EXPECT_NE(drawn.text.find("<figcaption>y &lt;!--&lt;script&gt; &lt;/script&gt; &amp; \"more\" "
                            "[m] @impact</figcaption>"),
            std::string::npos)
      << drawn.text.substr(drawn.text.find("<body"), 3000);
  const Output compromise = dom_of(b, dir / "sweep" / "compromise.html");
  ASSERT_EQ(compromise.code, 0);
  EXPECT_EQ(count(compromise.text, "<canvas"), 0u);
  EXPECT_NE(compromise.text.find("<p class=\"empty\">No member converged"), std::string::npos)
      << compromise.text.substr(compromise.text.find("<body"), 3000);
}

}  // namespace
