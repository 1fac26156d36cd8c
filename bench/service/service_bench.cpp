// Load on `sao serve`: N clients (default 50) each poll a study's status and listen to its
// event stream while studies run, one after the other, for D seconds (default 20). Prints the
// status requests made, their latency (p50, p99, max), the events received and every error.
//
//   build/sao_service_bench [--clients N] [--seconds D] [--study FILE] [--connections new]
//
// The pollers keep their connection open (HTTP keep-alive, as browsers do); with
// `--connections new` each status request opens a connection of its own.
//
// It starts `sao serve --port 0` (the binary built beside it) on a scratch data folder and
// ends it when done. Exit status 0 when no request failed.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/service/server_process.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  int clients = 50;
  double seconds = 20.0;
  bool keep_alive = true;  // --connections new: one connection per status request
  std::string study = std::string(SAO_SOURCE_DIR) + "/problems/truck-damper/quarter-car.json";
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--clients")
      o.clients = std::max(1, std::atoi(argv[i + 1]));
    else if (key == "--seconds")
      o.seconds = std::max(1.0, std::atof(argv[i + 1]));
    else if (key == "--study")
      o.study = argv[i + 1];
  }
  return o;
}

// The study being run now (the clients follow it from one run to the next).
struct Current {
  std::mutex mutex;
  std::string id;
  std::string get() {
    std::lock_guard<std::mutex> lock(mutex);
    return id;
  }
  void set(const std::string& value) {
    std::lock_guard<std::mutex> lock(mutex);
    id = value;
  }
};

struct Totals {
  std::mutex mutex;
  std::vector<double> latencies_ms;
  std::vector<std::string> errors;
  std::atomic<long> events{0};
  void error(const std::string& e) {
    std::lock_guard<std::mutex> lock(mutex);
    if (errors.size() < 20)
      errors.push_back(e);
    else
      errors.back() = "... and more";
  }
};

// Creates studies and runs them, one after the other, until `stop`.
void drive_studies(int port, const std::string& document, Current& current, std::atomic<bool>& stop,
                   Totals& totals, int& runs) {
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(60, 0);
  while (!stop) {
    auto created = c.Post("/api/studies", document, "application/json");
    if (!created || created->status != 201) {
      totals.error("create: " + (created ? created->body : httplib::to_string(created.error())));
      return;
    }
    const std::string new_id = nlohmann::json::parse(created->body)["id"];
    current.set(new_id);
    auto run = c.Post("/api/studies/" + new_id + "/run", "{}", "application/json");
    if (!run || run->status != 202) totals.error("run: " + (run ? run->body : "no answer"));
    ++runs;
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      auto s = c.Get("/api/studies/" + new_id);
      if (!s || s->status != 200) break;
      if (nlohmann::json::parse(s->body)["state"] == "idle") break;
      if (stop) return;
    }
  }
}

void poll_status(int port, Current& current, std::atomic<bool>& stop, Totals& totals,
                 bool keep_alive) {
  httplib::Client c("127.0.0.1", port);
  c.set_keep_alive(keep_alive);
  c.set_read_timeout(30, 0);
  std::vector<double> mine;
  while (!stop) {
    const auto start = Clock::now();
    auto r = c.Get("/api/studies/" + current.get());
    const std::chrono::duration<double, std::milli> took = Clock::now() - start;
    if (!r || r->status != 200) {
      totals.error("status: " + (r ? std::to_string(r->status) : httplib::to_string(r.error())));
    } else {
      mine.push_back(took.count());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::lock_guard<std::mutex> lock(totals.mutex);
  totals.latencies_ms.insert(totals.latencies_ms.end(), mine.begin(), mine.end());
}

void listen_events(int port, Current& current, std::atomic<bool>& stop, Totals& totals) {
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(15, 0);
  while (!stop) {
    const std::string id = current.get();
    std::string buffer;
    auto r = c.Get(("/api/studies/" + id + "/events").c_str(), [&](const char* data, size_t n) {
      buffer.append(data, n);
      for (size_t at; (at = buffer.find("\n\n")) != std::string::npos;) {
        if (buffer.compare(0, 4, "id: ") == 0) ++totals.events;
        buffer.erase(0, at + 2);
      }
      return !stop.load() && current.get() == id;  // on to the next study's stream
    });
    if (!r && r.error() != httplib::Error::Canceled) {
      totals.error("events: " + httplib::to_string(r.error()));
    } else if (r && r->status != 200) {
      totals.error("events: " + std::to_string(r->status) + " " + r->body);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5))];
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const std::filesystem::path data =
      std::filesystem::temp_directory_path() / ("sao-service-bench-" + std::to_string(getpid()));
  std::ifstream in(o.study);
  std::stringstream document;
  document << in.rdbuf();
  int port = -1;
  Totals totals;
  int runs = 0;
  {
    sao::testing::ServerProcess server(data);
    port = server.port();
    if (port < 0) {
      std::fprintf(stderr, "sao serve did not start\n");
      return 2;
    }
    std::atomic<bool> stop{false};
    Current current;
    std::thread driver([&] { drive_studies(port, document.str(), current, stop, totals, runs); });
    while (current.get().empty()) {  // the first study exists (or could not be made)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      std::lock_guard<std::mutex> errors(totals.mutex);
      if (!totals.errors.empty()) break;
    }
    if (current.get().empty()) {
      stop = true;
      driver.join();
      std::fprintf(stderr, "%s\n", totals.errors.front().c_str());
      return 1;
    }
    std::vector<std::thread> clients;
    for (int k = 0; k < o.clients; ++k) {
      clients.emplace_back([&] { listen_events(port, current, stop, totals); });
      clients.emplace_back([&] { poll_status(port, current, stop, totals, o.keep_alive); });
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(o.seconds));
    stop = true;
    for (std::thread& t : clients) t.join();
    driver.join();
  }
  std::filesystem::remove_all(data);
  const auto& l = totals.latencies_ms;
  std::printf(
      "clients %d (each: status polls every 20 ms + one event stream), %.0f s, %d run(s) of %s\n",
      o.clients, o.seconds, runs, std::filesystem::path(o.study).filename().c_str());
  std::printf("status requests %zu: p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", l.size(),
              percentile(l, 0.5), percentile(l, 0.99),
              l.empty() ? 0.0 : *std::max_element(l.begin(), l.end()));
  const long slow = std::count_if(l.begin(), l.end(), [](double ms) { return ms > 500.0; });
  std::printf("p90 %.2f ms, p95 %.2f ms, over 500 ms: %ld\n", percentile(l, 0.9),
              percentile(l, 0.95), slow);
  std::printf("events received %ld (all clients)\n", totals.events.load());
  std::printf("errors %zu\n", totals.errors.size());
  for (const std::string& e : totals.errors) std::printf("  %s\n", e.c_str());
  return totals.errors.empty() ? 0 : 1;
}
