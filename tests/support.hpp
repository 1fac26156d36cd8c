// Helpers the tests share: a fresh scratch folder per test, reading a file whole, running
// a command through the shell, what a call logs, and the chart specs of a page.
#pragma once

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace sao::testing {

// SAO_BINARY_DIR/<group>/<name>, emptied and created (name: the running test's by default).
inline std::filesystem::path scratch_directory(const std::string& group,
                                               const std::string& name = {}) {
  const std::string leaf =
      name.empty() ? ::testing::UnitTest::GetInstance()->current_test_info()->name() : name;
  const std::filesystem::path dir = std::filesystem::path(SAO_BINARY_DIR) / group / leaf;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// The whole file as bytes ("" when it cannot be opened).
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct CommandOutput {
  int code = -1;     // exit status; -1 when it did not exit normally
  std::string text;  // what the command wrote to stdout (redirect stderr in `command`)
};

// Runs `command` through /bin/sh and collects its output and exit status.
inline CommandOutput run_command(const std::string& command) {
  CommandOutput out;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.text.append(buf, n);
  const int status = pclose(pipe);
  out.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

// What `body` logs through spdlog's default logger at `level` and above; the logger and level
// are restored afterwards.
template <class Body>
std::string captured_log(spdlog::level::level_enum level, Body body) {
  std::ostringstream log;
  const auto previous = spdlog::default_logger();
  const auto previous_level = spdlog::get_level();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>(
      "capture", std::make_shared<spdlog::sinks::ostream_sink_st>(log)));
  spdlog::set_level(level);
  body();
  spdlog::set_level(previous_level);
  spdlog::set_default_logger(previous);
  return log.str();
}

// The chart specs of a page sao writes (sao/report/chart.hpp: chart_html), in page order: the
// JSON of each <script type="application/json" class="chart-spec"> element, read up to the
// first "</script" after it (case-insensitively, where a browser ends the element). A spec
// that is not valid JSON fails the test and is left out.
inline std::vector<nlohmann::json> chart_specs(const std::string& html) {
  const std::string open = "<script type=\"application/json\" class=\"chart-spec\">";
  std::string lower = html;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::vector<nlohmann::json> specs;
  for (size_t at = html.find(open); at != std::string::npos; at = html.find(open, at)) {
    at += open.size();
    const size_t end = lower.find("</script", at);
    if (end == std::string::npos) {
      ADD_FAILURE() << "a chart-spec element without its end";
      break;
    }
    nlohmann::json spec = nlohmann::json::parse(html.substr(at, end - at), nullptr, false);
    if (spec.is_discarded()) {
      ADD_FAILURE() << "a chart spec that is not JSON: " << html.substr(at, end - at);
    } else {
      specs.push_back(std::move(spec));
    }
    at = end;
  }
  return specs;
}

// A page sao writes fetches nothing: no script, style sheet, image or font from an address
// (Chart.js's licence comment names its home page, which is no fetch).
inline void expect_self_contained(const std::string& page) {
  std::string lower = page;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* fetch : {"src=\"http", "src='http", "src=http", "src=\"//", "href=\"http",
                            "href='http", "href=http", "href=\"//", "<link", "<script src",
                            "@import", "url(http", "url(\"http", "url('http", "url(//"}) {
    EXPECT_EQ(lower.find(fetch), std::string::npos) << fetch;
  }
}

}  // namespace sao::testing
