#include "adapters/process.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <boost/process.hpp>
#include <chrono>
#include <cstring>
#include <sstream>
#include <thread>

namespace sao::adapters {

namespace bp = boost::process;

ProcessResult run_process(const ProcessSpec& spec) {
  ProcessResult result;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  bp::environment env = spec.inherit_environment
                            ? bp::environment(boost::this_process::environment())
                            : bp::environment();
  for (const auto& [key, value] : spec.environment) env[key] = value;

  std::error_code ec;
  bp::group group;
  bp::child child(bp::exe = spec.program.string(), bp::args = spec.arguments,
                  bp::start_dir = spec.directory.string(), env,
                  bp::std_out > boost::filesystem::path(spec.stdout_file.string()),
                  bp::std_err > boost::filesystem::path(spec.stderr_file.string()),
                  bp::std_in < bp::null, group, ec);
  if (ec || !child.valid()) {
    result.error = ec ? ec.message() : "no process";
    result.seconds = elapsed();
    return result;
  }
  result.started = true;

  // Poll with a growing pause: short runs are noticed within microseconds, long ones cost
  // little. (Waiting on the group would reap the child and lose its exit status.)
  const auto deadline =
      start +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(spec.timeout_seconds > 0 ? spec.timeout_seconds : 1e9));
  auto pause = std::chrono::microseconds(20);
  while (child.running(ec)) {
    if (std::chrono::steady_clock::now() >= deadline) {
      result.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
  // Whatever the program left behind in its group goes too (on a time-out: all of it).
  std::error_code ignored;
  group.terminate(ignored);
  if (result.timed_out) child.wait(ignored);
  const int status = child.native_exit_code();
  if (!result.timed_out) {
    if (WIFEXITED(status)) {
      result.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      result.signaled = true;
      result.signal = WTERMSIG(status);
    }
  }
  result.seconds = elapsed();
  return result;
}

std::string describe(const ProcessResult& r) {
  std::ostringstream out;
  if (!r.started) {
    out << "could not start: " << r.error;
  } else if (r.timed_out) {
    out << "timed out after " << r.seconds << " s (process group killed)";
  } else if (r.signaled) {
    out << "killed by signal " << r.signal << " (" << strsignal(r.signal) << ")";
  } else {
    out << "exit status " << r.exit_code;
  }
  return out.str();
}

std::filesystem::path find_program(const std::string& name, const std::filesystem::path& base) {
  namespace fs = std::filesystem;
  auto executable = [](const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
  };
  if (name.empty()) return {};
  if (name.find('/') != std::string::npos) {
    fs::path p(name);
    if (p.is_relative()) p = base / p;
    return executable(p) ? fs::absolute(p).lexically_normal() : fs::path();
  }
  const boost::filesystem::path found = bp::search_path(name);
  if (found.empty() || !executable(found.string())) return {};
  return fs::path(found.string());
}

}  // namespace sao::adapters
