// `sao report DIR`: the HTML page is self-contained, holds the plots, and renders in headless
// chromium (Debian's package, installed by scripts/bootstrap); the screenshot is kept in
// build/test-report/.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "tests/support.hpp"

namespace {

namespace fs = std::filesystem;

using Output = sao::testing::CommandOutput;

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

TEST(Report, HtmlWithSvgPlotsRendersInHeadlessChromium) {
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

  // Self-contained: no address to fetch anything from; the plots are inline SVG.
  EXPECT_EQ(page.find("http"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  for (const char* title :
       {"Summary", "Contents", "Objective F", "Maximum constraint violation V",
        "Approximation errors", "Move-limit factors", "Design variables",
        "Constraint displacement: y &lt;= 1, -(y) &lt;= 1", "Time-dependent constraints",
        "Displacement |y| [m]", "Largest |acceleration| [m/s^2]", "upper bound 1", "lower bound -1",
        "start (cycle 0)"}) {
    EXPECT_NE(page.find(title), std::string::npos) << title;
  }
  // 5 per-cycle plots and one per time-dependent constraint entry: |y| <= 1 (both signs in
  // one plot) and the bound formulation's |acceleration| <= b3; no response is left unplotted
  // (both are constrained). Every plot is linked from the contents.
  EXPECT_EQ(count(page, "<svg"), 7u);
  EXPECT_EQ(count(page, "<svg class=\"plot\" id=\""), 7u);
  EXPECT_GE(count(page, "<a href=\"#"), 7u + 3u);
  EXPECT_GE(count(page, "<polyline"), 5u + 2u * 2u);
  EXPECT_GE(count(page, "class=\"bound\""), 2u);  // displacement <= 1 and >= -1
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

  const std::string browser = chromium();
  if (browser.empty()) GTEST_SKIP() << "chromium is not installed (scripts/bootstrap installs it)";
  const std::string flags =
      " --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run "
      "--user-data-dir=" +
      (dir / "chromium-profile").string() + " ";
  const std::string url = "file://" + fs::absolute(html).string();
  // The DOM chromium built from the page holds every plot.
  const Output dom = shell("timeout 120 " + browser + flags + "--dump-dom " + url);
  ASSERT_EQ(dom.code, 0);
  EXPECT_EQ(count(dom.text, "<svg"), 7u);
  EXPECT_NE(dom.text.find("<h1>impact-absorber max-acceleration</h1>"), std::string::npos);
  // The screenshot: a PNG of the rendered page, far from blank.
  const fs::path png = dir / "report.png";
  const Output shot = shell("timeout 120 " + browser + flags +
                            "--window-size=900,3600 --screenshot=" + png.string() + " " + url);
  ASSERT_EQ(shot.code, 0);
  ASSERT_TRUE(fs::exists(png));
  const std::string bytes = sao::testing::read_file(png);
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
  EXPECT_GT(bytes.size(), 60000u) << "a blank page compresses to a few kB";
  std::printf("screenshot: %s (%zu bytes)\n", png.string().c_str(), bytes.size());
}

}  // namespace
