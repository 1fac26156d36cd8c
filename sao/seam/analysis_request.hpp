// One analysis as files, for a worker process on another node (issue 20):
// `sao analyse REQUEST.json OUT.json` reads a request document (the simulator's setup: its study
// section, design variable names, load cases and study folder; the design; the derivatives; the
// nominal values when the caller holds them), evaluates it with that simulator on the local
// worker pool, and writes an evaluation document. Doubles are written so that they read back
// bit for bit (JSON numbers with 17 significant digits; NaN and infinities as the strings "nan",
// "inf", "-inf"), so a study distributed this way gives the local run's results exactly.
//
// evaluate_as_jobs() is the caller's side, used by simulators that run in-process (the internal
// simulator) when a batch executor is chosen: one job per request, each `WORKER analyse ...` in
// a folder of its own under the executor's `directory` (shared by the nodes).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "sao/seam/executor.hpp"
#include "sao/seam/simulator.hpp"

namespace sao {

nlohmann::json request_document(const SimulatorSetup& setup, const EvaluationRequest& request);
// The nominal values a request document carries (null when it carries none) stay in
// `values`, which request.values then points to. Throws std::invalid_argument naming what is
// wrong by its JSON path in plain words ("derivatives[0].response: expected a string, got a
// number (3)"), never the JSON library's text; the caller names the file.
void read_request_document(const nlohmann::json& document, SimulatorSetup& setup,
                           EvaluationRequest& request, Evaluation& values);

nlohmann::json evaluation_document(const Evaluation& evaluation);
// Throws std::invalid_argument naming what is wrong by its JSON path, as above; `path` is the
// document's own ("values" in a request), "" at the top of a file.
Evaluation read_evaluation_document(const nlohmann::json& document, const std::string& path = "");

// One job per request; a job that fails (or writes no readable evaluation) is a failed
// evaluation naming its job and state. `folder` is this process's folder of job directories.
std::vector<Evaluation> evaluate_as_jobs(const std::vector<EvaluationRequest>& batch,
                                         const SimulatorSetup& setup,
                                         const std::filesystem::path& worker,
                                         const std::filesystem::path& folder,
                                         BatchExecutor& executor, JobLedger* ledger);

}  // namespace sao
