// `sao serve`: the study store and sessions of the command line behind an HTTP/JSON API
// (docs/service.md), with server-sent events of every cycle and analysis, and the workbench
// page (sao/web/ and Chart.js, embedded in the binary) at "/".
//
// Security: with a token every request under /api/ needs "Authorization: Bearer TOKEN"
// (compared in constant time), else 401; a non-loopback address needs a token (check_options);
// request bodies are capped (413); studies are named by ids the service makes, never by client
// paths; a study with an "external" simulator is refused unless allow_external
// (study_policy.hpp).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace sao::service {

struct ServiceOptions {
  std::string bind = "127.0.0.1";
  int port = 8080;  // 0: any free port (the one taken is port())
  std::string data = "sao-data";
  std::string token;  // empty: no authentication (loopback only)
  bool allow_external = false;
  size_t max_body = 4u << 20;  // bytes of a request body
  int threads = 256;           // connections served at once (each event stream holds one)
};

// An address of this machine only: 127.0.0.0/8, ::1, "localhost".
bool is_loopback(const std::string& address);
// What is wrong with the options ("" when nothing): a public address without a token.
std::string check_options(const ServiceOptions& options);

class Service {
 public:
  // Opens the data folder and takes the studies already in it. Throws on an unusable folder.
  explicit Service(const ServiceOptions& options);
  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  // Binds the address and port; returns the port (throws std::runtime_error when it cannot).
  int bind();
  // Serves until stop().
  void listen();
  // Ends every run after its current cycle, closes the event streams, stops listening.
  void stop();
  // http://ADDRESS:PORT/ once bound.
  std::string url() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sao::service
