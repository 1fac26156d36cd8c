// The external-code adapter (SPEC 7, issue 6): a black-box program becomes a Simulator.
// For every run (a design, possibly with one variable perturbed, in one load case) it
//   1. creates a fresh working directory, writes the input templates with their placeholders
//      replaced by values of design variables, explicit relations of them, constants and
//      load-case parameters (templates.hpp), and copies the declared support files;
//   2. runs the command (an argument list, no shell unless "shell": true) with its
//      environment and a time limit that kills the whole process tree (process.hpp,
//      process_tree.hpp);
//   3. reads the responses from the files the code wrote (parsers.hpp);
//   4. removes the directory on success unless the study keeps them; failures always keep it.
// The study section is read and checked before, into an ExternalConfig (external_config.hpp).
// A batch (the nominal design with its finite-difference perturbations, plan points) goes to
// run_batch (sao/seam/difference_batch.hpp) on `workers` concurrent runs. Finite differences
// use the step rule (4.10) delta_b = (1 + |b|) p, forward or central; a failed perturbed run
// is retried with half the step (`gradients.retries` times) before the evaluation fails.
//
// Every failure is a value (Evaluation::ok == false) whose message names the run directory,
// the design and what went wrong, and is logged; nothing here throws at run time.
// The study section is documented in docs/adapters.md.
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "adapters/external_config.hpp"
#include "sao/seam/difference_batch.hpp"
#include "sao/seam/executor.hpp"
#include "sao/seam/simulator.hpp"

namespace sao::adapters {

class ExternalSimulator final : public Simulator {
 public:
  // Reads and checks the section (read_external_config). Throws a SectionError listing every
  // problem, each with its JSON path.
  explicit ExternalSimulator(const SimulatorSetup& setup);
  explicit ExternalSimulator(ExternalConfig config);
  ~ExternalSimulator() override;
  std::vector<ResponseInfo> responses() const override;
  // Throws std::invalid_argument for a malformed request only.
  std::vector<Evaluation> evaluate(const std::vector<EvaluationRequest>& batch) override;
  // The names and contents of the template and support files, so that a study store does not
  // re-use analyses made with other input files (the command's program is not included).
  std::string fingerprint() const override;
  void use_job_ledger(JobLedger* ledger) override { ledger_ = ledger; }

  const ExternalSettings& settings() const { return config_.settings; }
  // The folder holding this simulator's run directories (created on the first run).
  const std::filesystem::path& session_directory() const { return session_; }

 private:
  // Beside the session folder, <session>.owner names the `sao` process that owns it (pid and
  // start time) while it runs (process_tree.hpp).
  static constexpr const char* kOwnerSuffix = ".owner";
  std::filesystem::path owner_file() const { return session_.string() + kOwnerSuffix; }

  // Before the first run: leftovers of a killed `sao` killed, the owner marker written.
  void start_session();
  void run(BatchRun& job);
  bool run_once(BatchRun& job, const Eigen::VectorXd& design);
  // The parts of a run: its folder, its inputs written, its results read (and the folder
  // removed unless kept); fail() names the run in the message and logs it (returns false).
  std::filesystem::path next_directory(const BatchRun& job);
  bool write_run_directory(BatchRun& job, const Eigen::VectorXd& design,
                           const std::filesystem::path& dir);
  bool read_run(BatchRun& job, const Eigen::VectorXd& design, const std::filesystem::path& dir);
  bool fail(BatchRun& job, const Eigen::VectorXd& design, const std::filesystem::path& dir,
            const std::string& why) const;
  // False (the run failed, its message set) when a perturbation leaves the input files unchanged.
  bool perturbation_changes_inputs(BatchRun& job) const;
  // A batch executor's stages (executor.hpp): the run's folder and job, then its results.
  static Eigen::VectorXd run_design(const BatchRun& job);
  bool prepare_job(BatchRun& job, JobSpec& spec);
  void finish_job(BatchRun& job, const JobOutcome& outcome, const std::filesystem::path& prepared);
  // The text of every template of load case c for a design ("" for other cases' templates).
  bool render_inputs(size_t c, const Eigen::VectorXd& design, std::vector<std::string>& texts,
                     std::string& error) const;
  std::string label(const BatchRun& job, const Eigen::VectorXd& design) const;

  ExternalConfig config_;
  std::filesystem::path session_;
  std::atomic<long> counter_{0};
  std::once_flag session_started_;
  std::unique_ptr<BatchExecutor> executor_;  // null: the local worker pool
  JobLedger* ledger_ = nullptr;
};

// Registers the factory of type "external" with sao::register_simulator (idempotent).
void register_external_simulator();

}  // namespace sao::adapters
