#include "adapters/slurm_executor.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cmath>
#include <csignal>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "adapters/process.hpp"
#include "adapters/process_tree.hpp"
#include "adapters/slurm_states.hpp"

namespace sao::adapters {
namespace fs = std::filesystem;

namespace {

// The exit status of the program, written by its task's script.
constexpr const char* kExitStatusFile = ".sao-exit-status";
constexpr const char* kJobScript = "sao-job.sh";

// Jobs of this process not yet ended: cancelled on SIGINT.
std::mutex live_mutex;
std::set<std::string>& live_jobs() {
  static std::set<std::string> ids;
  return ids;
}

// 'text' for /bin/sh, whatever it holds.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// squeue's elapsed time ([D-][HH:]MM:SS) in seconds.
double elapsed_seconds(const std::string& text) {
  double days = 0, total = 0;
  std::string rest = text;
  if (const size_t dash = rest.find('-'); dash != std::string::npos) {
    days = std::atof(rest.substr(0, dash).c_str());
    rest = rest.substr(dash + 1);
  }
  std::istringstream in(rest);
  std::string part;
  while (std::getline(in, part, ':')) total = total * 60 + std::atof(part.c_str());
  return days * 86400 + total;
}

// The id of a job array's task, "123_4"; the array's own id is before the '_'.
std::string array_of(const std::string& id) {
  return id.substr(0, id.find('_'));
}

std::string joined_ids(const std::set<std::string>& ids) {
  std::string out;
  for (const std::string& id : ids) out += (out.empty() ? "" : ",") + id;
  return out;
}

fs::path need_program(const char* name) {
  const fs::path p = find_program(name, fs::current_path());
  if (p.empty()) {
    throw std::invalid_argument(std::string(name) +
                                " not found in PATH: the \"slurm\" executor needs the SLURM "
                                "client commands (Debian slurm-client; docs/cluster.md)");
  }
  return p;
}

}  // namespace

// How long a job may be unknown to both squeue and sacct before its state is taken as unknown.
constexpr int kUnknownSeconds = 30;

struct SlurmExecutor::Watched {
  size_t job = 0;  // index into the jobs of execute()
  std::string id;  // "123_4"
  std::string state = "PENDING";
  double elapsed = 0.0;
  double timeout = 0.0;
  bool timed_out = false;  // cancelled by us for its time limit
  int unknown_polls = 0;   // polls in which neither squeue nor sacct knew it
  std::chrono::steady_clock::time_point unknown_since;  // the first of those polls
  bool reattached = false;
  fs::path directory;
  bool done() const { return slurm_state_ended(state) || state == "UNKNOWN"; }
};

SlurmExecutor::SlurmExecutor(ExecutorSettings settings)
    : settings_(std::move(settings)),
      sbatch_(need_program("sbatch")),
      squeue_(need_program("squeue")),
      sacct_(find_program("sacct", fs::current_path())),
      scancel_(need_program("scancel")) {
  static std::once_flag handler;
  std::call_once(handler, [scancel = scancel_] {
    add_interrupt_action([scancel](int signal) -> std::string {
      if (signal != SIGINT) return {};  // SIGTERM, SIGHUP: left for `sao run DIR` to re-attach
      std::set<std::string> ids;
      {
        std::lock_guard<std::mutex> lock(live_mutex);
        ids = live_jobs();
      }
      if (ids.empty()) return {};
      std::vector<std::string> args(ids.begin(), ids.end());
      const CapturedRun r = run_capture(scancel, args);
      return "sao: cancelled " + std::to_string(ids.size()) + " SLURM job(s) of this study (" +
             joined_ids(ids) + ")" +
             (r.exit_code == 0 ? "" : "; scancel: " + (r.started ? r.err : r.error));
    });
  });
}

std::string SlurmExecutor::job_script(const JobSpec& job) {
  std::ostringstream s;
  s << "#!/bin/sh\n# One run of sao (a task of its job array): the code in its run directory.\n";
  s << "cd " << quoted(job.directory.string()) << " || exit 97\n";
  const bool inherit_all = job.inherit_environment && job.environment_allowlist.empty();
  s << (inherit_all ? "env" : "env -i");
  for (const std::string& name : job.environment_allowlist) {
    s << " ${" << name << "+\"" << name << "=$" << name << "\"}";
  }
  for (const auto& [name, value] : job.environment) s << " " << quoted(name + "=" + value);
  s << " \\\n ";
  for (const std::string& word : job.command) s << " " << quoted(word);
  s << " \\\n  >" << quoted(job.stdout_file.string()) << " 2>" << quoted(job.stderr_file.string())
    << " </dev/null\n";
  s << "status=$?\necho \"$status\" >" << kExitStatusFile << "\nexit \"$status\"\n";
  return s.str();
}

std::string SlurmExecutor::array_script(const fs::path& list) {
  return "#!/bin/sh\n# Task i of this array runs the script of line i+1 of the list.\n"
         "script=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" " +
         quoted(list.string()) + ")\nexec /bin/sh \"$script\"\n";
}

std::vector<std::string> SlurmExecutor::sbatch_arguments(size_t tasks, double timeout_seconds,
                                                         const fs::path& script) const {
  std::vector<std::string> a = {"--parsable", "--job-name=sao", "--no-requeue",
                                "--output=/dev/null", "--error=/dev/null"};
  std::string array = "--array=0-" + std::to_string(tasks - 1);
  if (settings_.max_jobs > 0) array += "%" + std::to_string(settings_.max_jobs);
  a.push_back(array);
  a.push_back("--cpus-per-task=" + std::to_string(settings_.cpus));
  if (!settings_.time.empty()) {
    a.push_back("--time=" + settings_.time);
  } else if (timeout_seconds > 0) {
    // SLURM counts minutes; sao cancels a task at the timeout itself, this is the backstop.
    a.push_back("--time=" + std::to_string(static_cast<long>(std::ceil(timeout_seconds / 60)) + 1));
  }
  if (!settings_.partition.empty()) a.push_back("--partition=" + settings_.partition);
  if (!settings_.account.empty()) a.push_back("--account=" + settings_.account);
  a.insert(a.end(), settings_.extra.begin(), settings_.extra.end());
  a.push_back(script.string());
  return a;
}

void SlurmExecutor::submit(const std::vector<JobSpec>& jobs, const std::vector<size_t>& indices,
                           std::vector<Watched>& watched, JobLedger* ledger) {
  if (indices.empty()) return;
  // The array's script and list beside the first run directory (the session folder).
  const fs::path folder = jobs[indices.front()].directory.parent_path();
  const std::string stem =
      "slurm-" + std::to_string(::getpid()) + "-" + std::to_string(++submissions_);
  const fs::path list = folder / (stem + ".list"), script = folder / (stem + ".sh");
  double timeout = 0.0;
  auto fail_all = [&](const std::string& why) {
    for (size_t k : indices) {
      Watched& w = watched.emplace_back();
      w.job = k;
      w.state = "NOT_SUBMITTED";
      w.directory = jobs[k].directory;
      w.id = why;
    }
    spdlog::warn("slurm executor: {}", why);
  };
  try {
    std::ofstream names(list);
    for (size_t k : indices) {
      const fs::path task = jobs[k].directory / kJobScript;
      std::ofstream(task) << job_script(jobs[k]);
      names << task.string() << "\n";
      timeout = std::max(timeout, jobs[k].timeout_seconds);
    }
    std::ofstream(script) << array_script(list);
    if (!names) throw std::runtime_error("cannot write " + list.string());
  } catch (const std::exception& e) {
    return fail_all(std::string("cannot write the job scripts: ") + e.what());
  }
  const CapturedRun r = run_capture(sbatch_, sbatch_arguments(indices.size(), timeout, script));
  const std::string array_id = r.out.substr(0, r.out.find_first_not_of("0123456789"));
  if (r.exit_code != 0 || array_id.empty()) {
    std::string why = r.started ? r.err : r.error;
    while (!why.empty() && std::isspace(static_cast<unsigned char>(why.back()))) why.pop_back();
    return fail_all("sbatch failed (exit status " + std::to_string(r.exit_code) + "): " + why);
  }
  std::vector<std::pair<std::string, JobLedger::Entry>> entries;
  std::lock_guard<std::mutex> lock(live_mutex);
  for (size_t t = 0; t < indices.size(); ++t) {
    Watched& w = watched.emplace_back();
    w.job = indices[t];
    w.id = array_id + "_" + std::to_string(t);
    w.timeout = jobs[indices[t]].timeout_seconds;
    w.directory = jobs[indices[t]].directory;
    live_jobs().insert(w.id);
    entries.push_back({jobs[indices[t]].key, {w.id, w.directory.string()}});
  }
  spdlog::info("slurm executor: submitted {} run(s) as job array {}", indices.size(), array_id);
  if (ledger) ledger->record_jobs(entries);  // before anything else can happen to this process
}

void SlurmExecutor::remove_scripts(const std::vector<JobSpec>& jobs, size_t after) const {
  if (jobs.empty()) return;
  std::error_code ec;
  const fs::path folder = jobs.front().directory.parent_path();
  for (size_t n = after + 1; n <= submissions_; ++n) {
    const std::string stem = "slurm-" + std::to_string(::getpid()) + "-" + std::to_string(n);
    fs::remove(folder / (stem + ".list"), ec);
    fs::remove(folder / (stem + ".sh"), ec);
  }
}

void SlurmExecutor::query_squeue(std::vector<Watched>& watched) {
  std::set<std::string> arrays;
  for (const Watched& w : watched) {
    if (!w.done()) arrays.insert(array_of(w.id));
  }
  if (arrays.empty()) return;
  const CapturedRun r = run_capture(squeue_, {"--noheader", "--array", "--states=all",
                                              "--jobs=" + joined_ids(arrays), "--format=%i|%T|%M"});
  // id -> state, elapsed; a line "123_[0-4]" (tasks not yet started) stands for each task.
  const std::map<std::string, std::pair<std::string, std::string>> seen = parse_squeue_lines(r.out);
  for (Watched& w : watched) {
    if (w.done()) continue;
    auto it = seen.find(w.id);
    if (it == seen.end()) {
      ++w.unknown_polls;
      continue;
    }
    w.unknown_polls = 0;
    w.state = it->second.first;
    w.elapsed = elapsed_seconds(it->second.second);
  }
}

void SlurmExecutor::query_sacct(std::vector<Watched>& watched) {
  // Asked by array: a task cancelled before it started is listed as its pending array
  // ("123_[0-4]  CANCELLED by 1000"), not by its own id.
  std::set<std::string> arrays;
  for (const Watched& w : watched) {
    if (!w.done() && w.unknown_polls > 0) arrays.insert(array_of(w.id));
  }
  if (arrays.empty() || sacct_.empty()) return;
  const CapturedRun r =
      run_capture(sacct_, {"--noheader", "--parsable2", "--allocations",
                           "--jobs=" + joined_ids(arrays), "--format=JobID,State"});
  const std::map<std::string, std::string> states = parse_sacct_lines(r.out);
  for (Watched& w : watched) {
    if (w.done()) continue;
    const auto it = states.find(w.id);
    if (it == states.end()) continue;
    w.state = it->second;
    w.unknown_polls = 0;
  }
}

void SlurmExecutor::cancel(const std::vector<std::string>& ids) {
  if (ids.empty()) return;
  const CapturedRun r = run_capture(scancel_, ids);
  if (r.exit_code != 0) {
    spdlog::warn("slurm executor: scancel {}: {}", ids.front(), r.started ? r.err : r.error);
  }
}

void SlurmExecutor::follow(std::vector<Watched>& watched) {
  const auto pause = std::chrono::duration<double>(settings_.poll_seconds);
  for (;;) {
    // Being interrupted: the handler cancels the jobs and ends the process; their CANCELLED
    // states are not failures of the runs to report (or store).
    while (interrupting()) std::this_thread::sleep_for(std::chrono::seconds(1));
    query_squeue(watched);
    query_sacct(watched);
    std::vector<std::string> over;
    bool all_done = true;
    for (Watched& w : watched) {
      // Forgotten by both squeue and sacct for ten looks and kUnknownSeconds (sacct absent, or
      // the job purged): the controller hands ended jobs to the accounting asynchronously, so
      // sacct may not know a job squeue has just forgotten for several seconds.
      if (!w.done() && w.unknown_polls == 1) w.unknown_since = std::chrono::steady_clock::now();
      if (!w.done() && w.unknown_polls >= 10 &&
          std::chrono::steady_clock::now() - w.unknown_since >=
              std::chrono::seconds(kUnknownSeconds)) {
        w.state = "UNKNOWN";
      }
      if (!w.done() && !w.timed_out && w.timeout > 0 && w.state == "RUNNING" &&
          w.elapsed > w.timeout) {
        w.timed_out = true;
        over.push_back(w.id);
      }
      if (w.done()) {
        std::lock_guard<std::mutex> lock(live_mutex);
        live_jobs().erase(w.id);
      }
      all_done = all_done && w.done();
    }
    cancel(over);
    if (all_done) return;
    std::this_thread::sleep_for(pause);
  }
}

std::vector<JobOutcome> SlurmExecutor::execute(const std::vector<JobSpec>& jobs,
                                               JobLedger* ledger) {
  std::vector<JobOutcome> out(jobs.size());
  std::vector<Watched> watched;
  std::vector<size_t> fresh;
  for (size_t k = 0; k < jobs.size(); ++k) {
    std::optional<JobLedger::Entry> known = ledger ? ledger->find_job(jobs[k].key) : std::nullopt;
    std::error_code ec;
    if (known && fs::is_directory(known->directory, ec)) {
      Watched& w = watched.emplace_back();
      w.job = k;
      w.id = known->job_id;
      w.timeout = jobs[k].timeout_seconds;
      w.reattached = true;
      w.directory = known->directory;
      spdlog::info("slurm executor: re-attached to job {} ({})", w.id, known->directory);
    } else {
      fresh.push_back(k);
    }
  }
  const size_t first_submission = submissions_;
  submit(jobs, fresh, watched, ledger);
  follow(watched);
  // A re-attached job that did not run to its end was lost with the earlier `sao` (cancelled
  // by its SIGINT, purged, ...): submitted again.
  std::vector<size_t> lost;
  for (Watched& w : watched) {
    std::error_code ec;
    const bool ran = (w.state == "COMPLETED" || w.state == "FAILED") &&
                     fs::exists(w.directory / kExitStatusFile, ec);
    if (w.reattached && !ran) {
      spdlog::warn(
          "slurm executor: job {} of an earlier sao ended {} without its results; "
          "submitted again",
          w.id, w.state);
      lost.push_back(w.job);
      w.state = "LOST";
    }
  }
  if (!lost.empty()) {
    std::vector<Watched> again;
    submit(jobs, lost, again, ledger);
    follow(again);
    watched.insert(watched.end(), again.begin(), again.end());
  }
  remove_scripts(jobs, first_submission);
  for (const Watched& w : watched) {
    if (w.state == "LOST") continue;
    JobOutcome& o = out[w.job];
    o.job_id = w.id;
    o.state = w.timed_out ? "TIMEOUT" : w.state;
    o.directory = w.directory;
    o.reattached = w.reattached;
    std::ifstream status(w.directory / kExitStatusFile);
    if (w.state == "NOT_SUBMITTED") {
      o.job_id.clear();
      o.message = w.id;  // the reason
    } else if (w.timed_out) {
      o.message = "timed out after " + std::to_string(static_cast<long>(w.timeout)) + " s (job " +
                  w.id + " TIMEOUT, cancelled with scancel)";
    } else if ((w.state == "COMPLETED" || w.state == "FAILED") && (status >> o.exit_code)) {
      o.ran = true;
    } else if (w.state == "COMPLETED" || w.state == "FAILED") {
      o.message = "job " + w.id + " ended " + w.state + " without writing its exit status (" +
                  kExitStatusFile + ": its script did not run to its end)";
    } else if (w.state == "UNKNOWN") {
      o.message = "job " + w.id + ": its state is unknown (neither squeue nor sacct knows it)";
    } else {
      const std::string why = slurm_state_description(w.state);
      o.message = "job " + w.id + " ended " + w.state + (why.empty() ? "" : " (" + why + ")");
    }
  }
  return out;
}

void register_slurm_executor() {
  register_batch_executor("slurm", [](const ExecutorSettings& s) -> std::unique_ptr<BatchExecutor> {
    return std::make_unique<SlurmExecutor>(s);
  });
}

}  // namespace sao::adapters
