// The SLURM batch executor (issue 20, docs/cluster.md): the runs of a batch become one job array.
//
// execute(jobs):
//   1. a job found in the ledger (submitted by an earlier `sao`, killed since) is re-attached:
//      followed if queued or running, read if finished; one that was lost (cancelled, purged,
//      its directory gone) is submitted again, with a warning naming it;
//   2. every other job gets a script in its directory (`sao-job.sh`: its environment, its
//      command, stdout.txt / stderr.txt, its exit status into `.sao-exit-status`), and one array
//      script beside them runs task i's script; `sbatch --parsable --array=0-(n-1)[%max_jobs]`
//      submits it with --time, --cpus-per-task, --partition, --account and the extra arguments,
//      and every task's id ("123_4") goes into the ledger at once;
//   3. `squeue --array --states=all` (then `sacct` for a job the controller has forgotten) is
//      polled until every task has ended; a running task past the simulator's timeout is
//      cancelled with `scancel` and reported as timed out;
//   4. each outcome names its job id and its final state: COMPLETED, or FAILED with an exit
//      status, ran the program (the simulator decides whether the exit status is a success);
//      TIMEOUT, CANCELLED, NODE_FAIL, OUT_OF_MEMORY, PREEMPTED, BOOT_FAIL, DEADLINE did not.
// sbatch, squeue, sacct and scancel run through Boost.Process with argument lists
// (run_capture), found in PATH when the executor is made; SLURM_CONF in the environment picks the
// cluster (scripts/local-slurm for a one-node one). On SIGINT every live job of this process is
// cancelled (scancel) and the handler says so; SIGTERM, SIGHUP and SIGKILL leave them queued or
// running for the next `sao run DIR` to re-attach to.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "sao/seam/executor.hpp"

namespace sao::adapters {

class SlurmExecutor final : public BatchExecutor {
 public:
  // Throws std::invalid_argument when sbatch, squeue or scancel is not found in PATH.
  explicit SlurmExecutor(ExecutorSettings settings);
  std::vector<JobOutcome> execute(const std::vector<JobSpec>& jobs, JobLedger* ledger) override;

  // The array script and a task's script as they are written (docs/cluster.md shows them).
  static std::string array_script(const std::filesystem::path& list);
  static std::string job_script(const JobSpec& job);
  // sbatch's arguments for `tasks` tasks whose longest time limit is `timeout_seconds`.
  std::vector<std::string> sbatch_arguments(size_t tasks, double timeout_seconds,
                                            const std::filesystem::path& script) const;

 private:
  struct Watched;
  // Submits jobs[indices] as one array; fills their outcomes' job ids (or failures).
  void submit(const std::vector<JobSpec>& jobs, const std::vector<size_t>& indices,
              std::vector<Watched>& watched, JobLedger* ledger);
  // Polls the queue until every watched job has ended.
  void follow(std::vector<Watched>& watched);
  void query_squeue(std::vector<Watched>& watched);
  void query_sacct(std::vector<Watched>& watched);
  void cancel(const std::vector<std::string>& ids);
  // The array scripts and lists of the submissions after the first `after` (batch ended).
  void remove_scripts(const std::vector<JobSpec>& jobs, size_t after) const;

  ExecutorSettings settings_;
  std::filesystem::path sbatch_, squeue_, sacct_, scancel_;
  size_t submissions_ = 0;
};

// Registers the batch executor "slurm" (sao/seam/executor.hpp), idempotent.
void register_slurm_executor();

}  // namespace sao::adapters
