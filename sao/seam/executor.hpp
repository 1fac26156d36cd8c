// Where the runs of a batch execute (issue 20): the executor seam, next to the difference batch.
//
// The local executor is the process's worker pool (run_batch in difference_batch.hpp): each run
// is prepared, executed and read in one call on a worker thread, as before. A batch executor
// (SLURM, adapters/slurm_executor.hpp) takes the runs in three stages instead, so that a whole
// batch becomes one submission (a job array):
//   1. prepare: the simulator writes each run's directory (on a folder the nodes share) and says
//      what to run there (a JobSpec);
//   2. execute: the executor submits every job, follows them and returns one JobOutcome each;
//   3. finish: the simulator reads each run's results from its directory.
// A perturbed run that fails is prepared again with half its step (the simulator's retries), in
// a second submission. The plan and the assembly of the evaluations are run_batch's, so both
// executors give the same evaluations from the same runs.
//
// The executor is chosen in the simulator section ("executor", read_executor_settings) or on the
// command line (`sao run --executor slurm`, an override of that key). Implementations register a
// factory by type name (the command registers "slurm"), as simulators do, so that the seam and
// the simulators never link the code that submits jobs.
//
// Resume: a JobLedger (the study store implements it) keeps every submitted job's id and
// directory under a key naming the run (its design, load case and perturbation, exactly). A new
// `sao` that meets a run whose key is in the ledger re-attaches to that job instead of submitting
// it again: it waits for it if it is still queued or running, and reads it if it has finished.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sao/seam/difference_batch.hpp"
#include "sao/seam/json_reader.hpp"

namespace sao {

// The study's simulator.executor (docs/cluster.md).
struct ExecutorSettings {
  std::string type = "local";      // "local" (the worker pool) or a registered batch executor
  std::string partition;           // sbatch --partition ("" : the cluster's default)
  std::string account;             // sbatch --account ("" : none)
  std::string time;                // sbatch --time ("" : from the simulator's timeout)
  int cpus = 1;                    // sbatch --cpus-per-task
  std::vector<std::string> extra;  // further sbatch arguments, verbatim, one argument each
  int max_jobs = 0;                // tasks of one batch running at once (0: no limit)
  double poll_seconds = 0.5;       // pause between two looks at the queue
  // Where a simulator without run directories of its own (internal) writes its jobs' folders
  // (relative to the current folder; it must be shared by the nodes).
  std::string directory = "sao-jobs";
  bool local() const { return type == "local"; }
};

// Reads section["executor"] (absent: local). Unknown keys and bad values are problems of
// `section` with their paths ("simulator.executor.cpus: expected ...").
ExecutorSettings read_executor_settings(JsonReader& section);

// One run as a job: what to run in its prepared directory.
struct JobSpec {
  std::string key;  // names the run exactly, for the ledger (run_key)
  std::filesystem::path directory;
  std::vector<std::string> command;                // the program (absolute path) and its arguments
  std::map<std::string, std::string> environment;  // set for the program
  bool inherit_environment = true;
  std::vector<std::string> environment_allowlist;  // non-empty: only these are inherited
  double timeout_seconds = 0.0;                    // 0: none
  std::filesystem::path stdout_file, stderr_file;
};

// How a job ended.
struct JobOutcome {
  bool ran = false;                 // the program ran to its end (its exit status is in exit_code)
  int exit_code = -1;               // the program's exit status when `ran`
  std::string job_id;               // "123" or "123_4" (an array task)
  std::string state;                // COMPLETED, FAILED, TIMEOUT, CANCELLED, NODE_FAIL, ...
  std::string message;              // why it did not run to its end ("job 123_4 ended NODE_FAIL")
  std::filesystem::path directory;  // where it ran (an earlier sao's folder when re-attached)
  bool reattached = false;          // submitted by an earlier `sao` and found in the ledger
};

// Job ids kept with the analyses, so that a resumed `sao` re-attaches to them (the study store).
class JobLedger {
 public:
  struct Entry {
    std::string job_id;
    std::string directory;
  };
  virtual ~JobLedger() = default;
  // The job last submitted for `key`, if any.
  virtual std::optional<Entry> find_job(const std::string& key) = 0;
  // Records jobs as soon as they are submitted (one transaction for all of them).
  virtual void record_jobs(const std::vector<std::pair<std::string, Entry>>& jobs) = 0;
};

// The key of a run: the design's exact bits, the load case, the perturbed variable and the
// step's exact bits (hexadecimal).
std::string run_key(const Eigen::VectorXd& design, int load_case, int variable, double step);

// Runs jobs on a scheduler; one call is one batch, returns when every job has ended.
class BatchExecutor {
 public:
  virtual ~BatchExecutor() = default;
  // `ledger` may be null (no store). Outcomes in the order of `jobs`.
  virtual std::vector<JobOutcome> execute(const std::vector<JobSpec>& jobs, JobLedger* ledger) = 0;
};

using BatchExecutorFactory = std::unique_ptr<BatchExecutor> (*)(const ExecutorSettings& settings);
void register_batch_executor(const std::string& type, BatchExecutorFactory factory);
bool batch_executor_registered(const std::string& type);
// Throws std::invalid_argument when `settings.type` is not registered.
std::unique_ptr<BatchExecutor> make_batch_executor(const ExecutorSettings& settings);

// A simulator's three stages of one run (see above).
struct StagedRunner {
  // Writes the run's directory and fills the spec; false (with BatchRun::message) when the run
  // cannot even be prepared (it fails without a job).
  std::function<bool(BatchRun&, JobSpec&)> prepare;
  // Reads the run's results after its job ended (sets BatchRun::ok, result, message).
  std::function<void(BatchRun&, const JobOutcome&)> finish;
  int retries = 0;  // a failed perturbed run is prepared again with half its step, this often
};

// run_batch with the runs executed as jobs by `executor` (one submission per round of retries).
std::vector<Evaluation> run_batch_as_jobs(const std::vector<EvaluationRequest>& batch,
                                          int load_cases, int design_variables,
                                          const DifferenceSettings& differences,
                                          BatchExecutor& executor, JobLedger* ledger,
                                          const StagedRunner& runner);

}  // namespace sao
