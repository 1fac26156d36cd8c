// A `sao serve` process (tests/service and bench/service): started on a free port (--port 0)
// over a data folder, its port read from the "serving http://HOST:PORT/" line it prints,
// stopped (SIGTERM) with the object. Needs SAO_COMMAND (the `sao` binary) defined.
#pragma once

// httplib.h includes <resolv.h>, whose macro _res is a parameter name in Eigen's headers.
#include <httplib.h>
#undef _res

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

extern char** environ;

namespace sao::testing {

class ServerProcess {
 public:
  // `sao serve --port 0 --data DATA ARGS...`; waits for its "serving http://HOST:PORT/" line.
  ServerProcess(const std::filesystem::path& data, const std::vector<std::string>& args = {}) {
    std::vector<std::string> argv = {SAO_COMMAND, "serve", "--port", "0", "--data", data.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> c_argv;
    for (std::string& a : argv) c_argv.push_back(a.data());
    c_argv.push_back(nullptr);
    int out[2];
    if (pipe(out) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    const int rc = posix_spawn(&pid_, argv[0].c_str(), &actions, nullptr, c_argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    if (rc != 0) {
      close(out[0]);
      pid_ = -1;
      return;
    }
    read_port(out[0]);
    stdout_ = out[0];  // kept open: the server may still write to it
  }
  ~ServerProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int status = 0;
      waitpid(pid_, &status, 0);
    }
    if (stdout_ >= 0) close(stdout_);
  }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Sends SIGTERM and waits for the server to end: its exit code (-1 when it did not exit).
  int terminate() {
    if (pid_ <= 0) return -1;
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  int port() const { return port_; }
  const std::string& line() const { return line_; }
  httplib::Client client(const std::string& token = {}) const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(120, 0);
    if (!token.empty()) c.set_bearer_token_auth(token.c_str());
    return c;
  }

 private:
  void read_port(int fd) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    char c = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 1000) <= 0) continue;
      if (read(fd, &c, 1) != 1 || c == '\n') break;
      line_ += c;
    }
    std::smatch m;
    if (std::regex_search(line_, m, std::regex(R"(serving http://[^:]+:(\d+)/)"))) {
      port_ = std::stoi(m[1]);
    }
  }
  pid_t pid_ = -1;
  int stdout_ = -1;
  int port_ = -1;
  std::string line_;
};

}  // namespace sao::testing
