// The whole process tree of an external run, found and killed (Linux, /proc): issue 18.
//
// Every run's environment carries a cookie, SAO_RUN_ID=<run directory>, inherited by all the
// processes the code starts, also by one that called setsid() (escaping a process-group
// kill) or whose parent has died (re-parented). kill_run_tree() finds every process whose
// environment holds the cookie in /proc/*/environ and kills it with SIGKILL, until none is
// left. `sao` is a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so orphans of a run are
// re-parented to it, not to init, and reaped here (reap_orphans) instead of staying zombies;
// the code itself gets PR_SET_PDEATHSIG(SIGKILL) (process.cpp), so a `sao` killed by SIGKILL
// takes the code down with it. What survives such a kill (the code's own children) is found
// by the next `sao` from the owner marker of its session folder (find_leftovers).
//
// Limits (docs/trust.md): a process that clears its own environment block, or one started by
// another user, is not found (the environment of another user's process cannot be read, unless
// `sao` runs as root).
//
// Cost: one pass over /proc/*/environ after every run (about 1 ms for 90 processes on the
// project's loaded 2-core machine); /proc/*/stat is read only when a zombie child exists.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace sao::adapters {

// The environment variable that marks every process of an external run.
inline constexpr const char* kRunCookie = "SAO_RUN_ID";

// Makes this process a child subreaper (idempotent).
void become_subreaper();

// Pids of the processes whose environment holds `name=value` exactly, or,
// with `prefix`, `name=` followed by a value that starts with `value`; with the value.
struct MarkedProcess {
  pid_t pid = 0;
  std::string value;
};
std::vector<MarkedProcess> find_marked(const std::string& name, const std::string& value,
                                       bool prefix);

// SIGKILLs every process whose SAO_RUN_ID is `cookie`, again until none is found (a process may
// fork while the list is read), and reaps those that were re-parented to this process.
// Returns how many were killed.
int kill_run_tree(const std::string& cookie);

// Reaps zombies re-parented to this process (orphans of external runs that ended by
// themselves) that are not a run's own program (registered by the caller while it runs).
void reap_orphans();

// The direct children of this process started by run_process, which reap_orphans leaves to
// their own waiter. start_child() holds a lock across the fork so that a child that exits at
// once is never reaped by another thread before it is registered.
class ChildRegistry {
 public:
  static void lock();
  static void add_and_unlock(pid_t pid);  // pid 0: nothing started
  static void remove(pid_t pid);
};

// Runs whose trees are alive, so that an interrupted `sao` can kill them all.
void register_live_run(const std::string& cookie);
void unregister_live_run(const std::string& cookie);

// On SIGINT, SIGTERM or SIGHUP: kills the tree of every live run, prints what it did on
// stderr ("sao: interrupted by SIGINT: killed 3 process(es) of 2 external run(s) ...") and
// ends the process with `exit_code` (_exit: analyses already stored stay stored). Also makes
// the process a subreaper. A signal ignored at the start (nohup) stays ignored. Call once,
// before any thread starts.
void install_interrupt_handler(int exit_code);

// An action the interrupt handler runs (in its own thread, before the process ends) with the
// signal's number; it returns a line for stderr ("" for none). The SLURM executor cancels the
// study's jobs on SIGINT this way (adapters/slurm_executor.hpp). Call before the signal comes.
void add_interrupt_action(std::function<std::string(int signal)> action);

// True once an interrupt is being handled: a run whose program ended must not report (or
// store) a failure that only the interruption caused; run_process waits for the exit instead.
bool interrupting();

// "pid start-time" of this process, for the owner marker of a session folder, and whether
// such a marker still names a live process.
std::string owner_marker();
bool owner_alive(const std::string& marker);

// Processes left over from an earlier `sao` that was killed: their SAO_RUN_ID lies under
// `run_directory`, and the owner marker of their session folder (the file <session folder> +
// `marker_suffix`) names a process that is dead (or is missing). Kills them and returns a line
// per session, "<session folder>: pid(s) 123 (000004-case0) 456 (000005-case0)" (each pid with
// its run directory), for a warning; empty when there were none.
std::vector<std::string> kill_leftovers(const std::string& run_directory,
                                        const std::string& marker_suffix);

}  // namespace sao::adapters
