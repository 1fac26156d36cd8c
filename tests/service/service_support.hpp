// What the service tests share: the `sao serve` process (server_process.hpp, also the load
// bench's) and the requests they make, through cpp-httplib's client.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/service/server_process.hpp"
#include "tests/support.hpp"

namespace sao::testing {

// The body of a response as JSON (null when it is not JSON).
inline nlohmann::json json_of(const httplib::Result& r) {
  if (!r) return nullptr;
  return nlohmann::json::parse(r->body, nullptr, false);
}

inline std::string problem_file(const std::string& relative) {
  return std::string(SAO_SOURCE_DIR) + "/problems/" + relative;
}

// `sao ARGS` with stderr kept apart; the output and the exit code.
inline CommandOutput sao_command(const std::string& args) {
  return run_command(std::string(SAO_COMMAND) + " " + args + " 2>/dev/null");
}

// `sao step DIR --json`: its cycle line.
inline nlohmann::json cli_step(const std::filesystem::path& dir, const std::string& extra = {}) {
  const CommandOutput out = sao_command("step " + dir.string() + " --json " + extra);
  EXPECT_EQ(out.code, 0) << out.text;
  std::istringstream lines(out.text);
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object() && j.value("event", "") == "cycle") return j;
  }
  ADD_FAILURE() << "no cycle line in: " << out.text;
  return nullptr;
}

// POST `body` to `path`, expecting `expected`; the answer as JSON.
inline nlohmann::json post(httplib::Client& c, const std::string& path,
                           const nlohmann::json& body = nlohmann::json::object(),
                           int expected = 200) {
  const auto r = c.Post(path, body.dump(), "application/json");
  EXPECT_TRUE(r) << path;
  if (!r) return nullptr;
  EXPECT_EQ(r->status, expected) << path << ": " << r->body;
  return json_of(r);
}

// GET `path`, expecting `expected`; the answer as JSON.
inline nlohmann::json get(httplib::Client& c, const std::string& path, int expected = 200) {
  const auto r = c.Get(path);
  EXPECT_TRUE(r) << path;
  if (!r) return nullptr;
  EXPECT_EQ(r->status, expected) << path << ": " << r->body;
  return json_of(r);
}

// The study's status once it is idle again (a run, a DOE, a front or a robustness estimate
// goes on on a thread of the server).
inline nlohmann::json when_idle(httplib::Client& c, const std::string& base) {
  nlohmann::json status;
  for (int i = 0; i < 600; ++i) {
    status = json_of(c.Get(base));
    if (status.value("state", "") == "idle") return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ADD_FAILURE() << "not idle after 30 s: " << status.value("state", "");
  return status;
}

// The events of the study at `base` (/api/studies/ID) the server still holds (its last 1024,
// read with "Last-Event-ID: 0"), up to and including the first of type `until`; each as
// {"event": TYPE, "data": {...}}.
inline std::vector<nlohmann::json> held_events(int port, const std::string& base,
                                               const std::string& until) {
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(60, 0);
  std::string text;
  const std::string last = "event: " + until + "\n";
  c.Get((base + "/events").c_str(), httplib::Headers{{"Last-Event-ID", "0"}},
        [&](const char* data, size_t n) {
          text.append(data, n);
          const auto at = text.find(last);
          return at == std::string::npos || text.find("\n\n", at) == std::string::npos;
        });
  std::vector<nlohmann::json> out;
  std::istringstream lines(text);
  std::string type;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("event: ")) type = line.substr(7);
    if (!line.starts_with("data: ")) continue;
    out.push_back({{"event", type}, {"data", nlohmann::json::parse(line.substr(6))}});
    if (type == until) break;
  }
  return out;
}

// A server on a scratch data folder with one study made from a study file.
struct ServedStudy {
  std::filesystem::path root = scratch_directory("test-service");
  ServerProcess server{root / "data"};
  httplib::Client client = server.client();
  std::string id;
  std::string base;  // /api/studies/ID

  explicit ServedStudy(const std::string& study_file) {
    EXPECT_GT(server.port(), 0) << server.line();
    id = post(client, "/api/studies", nlohmann::json::parse(read_file(study_file)), 201)
             .value("id", "");
    base = "/api/studies/" + id;
  }
};

}  // namespace sao::testing
