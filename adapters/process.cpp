#include "adapters/process.hpp"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>

#include "adapters/process_tree.hpp"

namespace sao::adapters {

namespace bp = boost::process;

namespace {

// The program dies with the thread of `sao` that started it (PR_SET_PDEATHSIG), also when `sao`
// is killed by SIGKILL; if `sao` died before the call, the program does not run at all.
struct DieWithParent : boost::process::extend::handler {
  pid_t parent = ::getpid();
  template <class Executor>
  void on_exec_setup(Executor&) const {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (::getppid() != parent) ::_exit(127);
  }
};

// The exit status of the program into `result`, after the wait.
void set_status(int status, ProcessResult& result) {
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signaled = true;
    result.signal = WTERMSIG(status);
  }
}

}  // namespace

ProcessResult run_process(const ProcessSpec& spec) {
  ProcessResult result;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const bool inherit_all = spec.inherit_environment && spec.environment_allowlist.empty();
  bp::environment env =
      inherit_all ? bp::environment(boost::this_process::environment()) : bp::environment();
  for (const std::string& name : spec.environment_allowlist) {
    if (const char* value = std::getenv(name.c_str())) env[name] = value;
  }
  for (const auto& [key, value] : spec.environment) env[key] = value;
  if (!spec.run_id.empty()) {
    env[kRunCookie] = spec.run_id;
    register_live_run(spec.run_id);
  }

  std::error_code ec;
  bp::group group;
  // Registered before anything can reap it (reap_orphans leaves registered children alone).
  ChildRegistry::lock();
  bp::child child(bp::exe = spec.program.string(), bp::args = spec.arguments,
                  bp::start_dir = spec.directory.string(), env,
                  bp::std_out > boost::filesystem::path(spec.stdout_file.string()),
                  bp::std_err > boost::filesystem::path(spec.stderr_file.string()),
                  bp::std_in < bp::null, group, DieWithParent{}, ec);
  const pid_t pid = !ec && child.valid() ? child.id() : 0;
  ChildRegistry::add_and_unlock(pid);
  if (pid == 0) {
    result.error = ec ? ec.message() : "no process";
    result.seconds = elapsed();
    if (!spec.run_id.empty()) unregister_live_run(spec.run_id);
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
  // Whatever the program left behind goes too (on a time-out: all of it): its process group,
  // then every process carrying the run's cookie, wherever it went.
  std::error_code ignored;
  group.terminate(ignored);
  if (!spec.run_id.empty()) kill_run_tree(spec.run_id);
  if (result.timed_out) child.wait(ignored);
  // Killed because `sao` is being interrupted: not a failure of the code; `sao` exits shortly.
  while (interrupting()) std::this_thread::sleep_for(std::chrono::seconds(1));
  ChildRegistry::remove(pid);
  if (!spec.run_id.empty()) unregister_live_run(spec.run_id);
  if (!result.timed_out) set_status(child.native_exit_code(), result);
  result.seconds = elapsed();
  return result;
}

CapturedRun run_capture(const std::filesystem::path& program,
                        const std::vector<std::string>& arguments) {
  CapturedRun result;
  std::error_code ec;
  bp::ipstream out, err;
  ChildRegistry::lock();
  bp::child child(bp::exe = program.string(), bp::args = arguments, bp::std_out > out,
                  bp::std_err > err, bp::std_in < bp::null, DieWithParent{}, ec);
  const pid_t pid = !ec && child.valid() ? child.id() : 0;
  ChildRegistry::add_and_unlock(pid);
  if (pid == 0) {
    result.error = ec ? ec.message() : "no process";
    return result;
  }
  result.started = true;
  // Small outputs: stdout read to its end, then stderr (the programs write little to either).
  result.out.assign(std::istreambuf_iterator<char>(out), std::istreambuf_iterator<char>());
  result.err.assign(std::istreambuf_iterator<char>(err), std::istreambuf_iterator<char>());
  child.wait(ec);
  ChildRegistry::remove(pid);
  ProcessResult status;
  set_status(child.native_exit_code(), status);
  result.exit_code = status.signaled ? -1 : status.exit_code;
  return result;
}

std::string describe(const ProcessResult& r) {
  std::ostringstream out;
  if (!r.started) {
    out << "could not start: " << r.error;
  } else if (r.timed_out) {
    out << "timed out after " << r.seconds << " s (process tree killed)";
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
