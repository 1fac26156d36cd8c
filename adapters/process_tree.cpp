#include "adapters/process_tree.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

namespace sao::adapters {
namespace {

// The whole content of a /proc file ("" when it cannot be read: gone, another user's).
std::string read_proc(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string text;
  char buffer[8192];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return text;
}

// The pids in /proc, except this process. (Reading the environment of another user's process
// fails, so only this user's are found, unless `sao` runs as root.)
std::vector<pid_t> other_processes() {
  std::vector<pid_t> pids;
  DIR* proc = ::opendir("/proc");
  if (!proc) return pids;
  const pid_t self = ::getpid();
  while (const dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (*end != '\0' || pid <= 0 || pid == self) continue;
    pids.push_back(static_cast<pid_t>(pid));
  }
  ::closedir(proc);
  return pids;
}

// Fields of /proc/PID/stat after the command name: state (0), ppid (1), ..., starttime (19).
std::vector<std::string> stat_fields(pid_t pid) {
  const std::string text = read_proc("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = text.rfind(')');
  std::vector<std::string> fields;
  if (close == std::string::npos) return fields;
  std::istringstream in(text.substr(close + 1));
  std::string f;
  while (in >> f) fields.push_back(f);
  return fields;
}

std::mutex children_mutex;
std::set<pid_t> children;  // guarded by children_mutex

std::mutex live_mutex;
std::map<std::string, int> live_runs;  // cookie -> count; guarded by live_mutex

int signal_pipe[2] = {-1, -1};
std::atomic<bool> interrupted{false};

std::mutex actions_mutex;
std::vector<std::function<std::string(int)>>& interrupt_actions() {
  static std::vector<std::function<std::string(int)>> actions;
  return actions;
}

extern "C" void on_interrupt(int signal) {
  const unsigned char s = static_cast<unsigned char>(signal);
  [[maybe_unused]] const ssize_t n = ::write(signal_pipe[1], &s, 1);
}

}  // namespace

void become_subreaper() {
  ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

std::vector<MarkedProcess> find_marked(const std::string& name, const std::string& value,
                                       bool prefix) {
  const std::string key = name + "=";
  std::vector<MarkedProcess> found;
  for (const pid_t pid : other_processes()) {
    const std::string env = read_proc("/proc/" + std::to_string(pid) + "/environ");
    for (size_t at = 0; at < env.size();) {
      size_t end = env.find('\0', at);
      if (end == std::string::npos) end = env.size();
      if (env.compare(at, key.size(), key) == 0) {
        const std::string v = env.substr(at + key.size(), end - at - key.size());
        if (prefix ? v.compare(0, value.size(), value) == 0 : v == value) {
          found.push_back({pid, v});
        }
        break;
      }
      at = end + 1;
    }
  }
  return found;
}

int kill_run_tree(const std::string& cookie) {
  std::set<pid_t> killed;
  // A process may fork between the listing and the kill, and a child in the middle of an exec
  // shows no environment for a moment: list again until two rounds, a few milliseconds apart,
  // find nothing (one round when there was nothing from the start: a run that left nothing).
  int quiet = 0;
  for (int round = 0; round < 100 && quiet < (killed.empty() ? 1 : 2); ++round) {
    bool any = false;
    for (const MarkedProcess& p : find_marked(kRunCookie, cookie, false)) {
      if (::kill(p.pid, SIGKILL) == 0) {
        any = true;
        killed.insert(p.pid);
      }
    }
    quiet = any ? 0 : quiet + 1;
    if (!killed.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  reap_orphans();
  return static_cast<int>(killed.size());
}

void reap_orphans() {
  // Most calls find no zombie child at all: then /proc is not read.
  siginfo_t info{};
  if (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0) return;
  const std::string self = std::to_string(::getpid());
  std::lock_guard<std::mutex> lock(children_mutex);
  for (const pid_t pid : other_processes()) {
    const std::vector<std::string> f = stat_fields(pid);
    if (f.size() < 2 || f[0] != "Z" || f[1] != self || children.count(pid)) continue;
    ::waitpid(pid, nullptr, WNOHANG);
  }
}

void ChildRegistry::lock() {
  children_mutex.lock();
}

void ChildRegistry::add_and_unlock(pid_t pid) {
  if (pid > 0) children.insert(pid);
  children_mutex.unlock();
}

void ChildRegistry::remove(pid_t pid) {
  std::lock_guard<std::mutex> lock(children_mutex);
  children.erase(pid);
}

void register_live_run(const std::string& cookie) {
  std::lock_guard<std::mutex> lock(live_mutex);
  ++live_runs[cookie];
}

void unregister_live_run(const std::string& cookie) {
  std::lock_guard<std::mutex> lock(live_mutex);
  if (--live_runs[cookie] <= 0) live_runs.erase(cookie);
}

void install_interrupt_handler(int exit_code) {
  become_subreaper();
  if (signal_pipe[0] >= 0 || ::pipe2(signal_pipe, O_CLOEXEC) != 0) return;
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  // A signal ignored when `sao` started (nohup, a background job of a script) stays ignored.
  for (const int s : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction before {};
    if (::sigaction(s, nullptr, &before) == 0 && before.sa_handler == SIG_IGN) continue;
    ::sigaction(s, &action, nullptr);
  }
  std::thread([exit_code] {
    unsigned char s = 0;
    while (::read(signal_pipe[0], &s, 1) < 0 && errno == EINTR) {
    }
    interrupted = true;
    std::vector<std::string> cookies;
    {
      std::lock_guard<std::mutex> lock(live_mutex);
      for (const auto& [cookie, count] : live_runs) cookies.push_back(cookie);
    }
    int killed = 0;
    for (const std::string& cookie : cookies) killed += kill_run_tree(cookie);
    std::ostringstream msg;
    msg << "sao: interrupted by SIG" << sigabbrev_np(s) << ": killed " << killed
        << " process(es) of " << cookies.size() << " external run(s)\n";
    std::vector<std::function<std::string(int)>> actions;
    {
      std::lock_guard<std::mutex> lock(actions_mutex);
      actions = interrupt_actions();
    }
    for (const auto& action : actions) {
      const std::string line = action(s);
      if (!line.empty()) msg << line << "\n";
    }
    const std::string text = msg.str();
    [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, text.data(), text.size());
    ::_exit(exit_code);
  }).detach();
}

void add_interrupt_action(std::function<std::string(int signal)> action) {
  std::lock_guard<std::mutex> lock(actions_mutex);
  interrupt_actions().push_back(std::move(action));
}

bool interrupting() {
  return interrupted;
}

std::string owner_marker() {
  const std::vector<std::string> f = stat_fields(::getpid());
  return std::to_string(::getpid()) + " " + (f.size() > 19 ? f[19] : "0");
}

bool owner_alive(const std::string& marker) {
  std::istringstream in(marker);
  long pid = 0;
  std::string start;
  if (!(in >> pid >> start) || pid <= 0) return false;
  const std::vector<std::string> f = stat_fields(static_cast<pid_t>(pid));
  return f.size() > 19 && f[19] == start && f[0] != "Z";
}

std::vector<std::string> kill_leftovers(const std::string& run_directory,
                                        const std::string& marker_suffix) {
  namespace fs = std::filesystem;
  const std::string under = (fs::path(run_directory) / "").string();
  std::map<std::string, std::vector<MarkedProcess>> sessions;  // session folder -> processes
  std::map<std::string, bool> alive;
  for (const MarkedProcess& p : find_marked(kRunCookie, under, true)) {
    const std::string session = fs::path(p.value).parent_path().string();
    if (!alive.count(session)) {
      std::ifstream in(session + marker_suffix);
      std::string marker;
      std::getline(in, marker);
      alive[session] = owner_alive(marker);
    }
    if (!alive[session]) sessions[session].push_back(p);
  }
  std::vector<std::string> report;
  for (const auto& [session, found] : sessions) {
    std::ostringstream line;
    line << session << ": pid(s)";
    std::set<std::string> cookies;
    for (const MarkedProcess& p : found) {
      line << " " << p.pid << " (" << fs::path(p.value).filename().string() << ")";
      cookies.insert(p.value);
    }
    for (const std::string& cookie : cookies) kill_run_tree(cookie);
    report.push_back(line.str());
  }
  return report;
}

}  // namespace sao::adapters
