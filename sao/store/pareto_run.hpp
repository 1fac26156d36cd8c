// A Pareto front of a multi-objective study run on its store (`sao pareto`, issue 51,
// docs/pareto.md):
//   1. a design of experiments (the study's "doe" section, or a default Latin hypercube) run by
//      the DOE runner (doe_run.hpp): stored, re-used, resumable;
//   2. per round: global models (pareto_models.hpp: of every response value, the criteria
//      evaluated on them, or of each objective and constraint itself) fitted over the
//      successful analyses of the DOE's and the verified points, and the front of those
//      predictions found by pagmo2 (sao/pareto/front.hpp); `verify` points spread along the
//      front are analysed (by the DOE runner again: stored, re-used when analysed before) and
//      their predictions compared with the analyses;
//      when a round disagrees and `faces` > 0, each verified point's projection onto the bounds
//      it lies near is analysed too (the models learn the box's faces from analyses there);
//   3. the next round fits again with those analyses; the rounds end when every verified point of
//      a round agrees within the tolerance, or after `rounds` rounds.
// The result is the last round's front: every point predicted, the verified ones with their
// analysed values and the prediction's error. When the last round still disagrees, each of its
// disagreeing points gives its place to the run's analysed design nearest its prediction among
// the nondominated feasible analyses (`replaced`): the front written never ends on a
// prediction its analysis refuted. The store draws nothing (the report writes
// pareto.csv, pareto.json and pareto.html: sao/report/pareto_files.hpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sao/pareto/front.hpp"
#include "sao/store/doe_run.hpp"

namespace sao {

// What the metamodels model (`--model`, docs/pareto.md "What is modelled"): every response value
// (each response, load case and time point: the criteria are evaluated on them), or the criteria
// themselves (one model per objective and per constraint's largest g_hat, fitted on the
// analyses' computed criteria); automatic: the criteria when an analysis holds more than
// kParetoCriteriaAbove response values, else the values.
enum class ParetoModelling { kAuto, kValues, kCriteria };
constexpr int kParetoCriteriaAbove = 200;
bool parse_pareto_modelling(const std::string& word, ParetoModelling& modelling);
const char* pareto_modelling_name(ParetoModelling modelling);

struct ParetoOptions {
  pareto::Settings search;  // algorithm, population, generations, seed
  MetamodelKind model = MetamodelKind::kKriging;
  ParetoModelling modelling = ParetoModelling::kAuto;
  int verify = 10;          // points verified per round (>= 1)
  int rounds = 10;          // rounds at most (>= 1): they end earlier when the points agree
  double tolerance = 0.02;  // agreement: |error| <= tolerance x the objective's front range
  // Face points: each verified point's variables within `faces` of a bound (a fraction of the
  // box, on the log scale for a variable of positive lower bound) moved onto it and the design
  // analysed for the models (0: none, the default; docs/pareto.md measures 0.2). In [0, 0.5].
  double faces = 0.0;
  int batch = 0;  // analyses per batch (0: the DOE runner's default)
  // Refinement by the study's own SAO cycle (docs/pareto.md step 8): from each verified point of
  // the final front, at most `refine` cycles of the ordinary Driver on the epsilon-constraint
  // study of `refine_objective` (single_objective_study: that objective minimised, the others
  // bounded at the point's analysed values), its analyses in the store; the best analysed design
  // of that run dominating the point takes its place (0: none, the default).
  int refine = 0;
  std::string refine_objective;  // the objective minimised ("": the first)
};

// The DOE of `document` (a study document): its "doe" section, or without one a Latin hypercube
// of max(10 n, 20) points in the design bounds (the loader's defaults: seed 1), read by the study
// loader as a section written in the file would be. Throws StudyError as load_study does.
DoeSection pareto_doe_section(const nlohmann::json& document, const std::string& source);

// The options of `sao pareto` from a JSON object (the service's request body, Python's keyword
// arguments): "algorithm" (nsga2|moead), "population" (8..100000), "generations" (1..10^6),
// "seed", "metamodel" (kriging|quadratic|linear), "verify" (1..10000), "rounds" (1..1000),
// "tolerance" (1e-9..10), "faces" (0..0.5), "refine" (0..100 cycles), "refine_objective" (an
// objective's name, checked by run_pareto), each optional (the command's default). Throws
// std::invalid_argument naming the key for an unknown key or a bad value.
ParetoOptions pareto_options(const nlohmann::json& settings);

// The number of objectives of the current branch's stored study of `session` (its "objectives";
// 0 for one "objective"), before opening: a study of several has no run (open() refuses it, the
// driver optimises one objective) and is opened for analyses only (open_for_analyses: a front).
size_t stored_objectives(StudySession& session);

// The DOE of a Pareto run on `session` (opened for analyses): prepare_doe of pareto_doe_section
// of its stored study (found when run before with the same settings: resumed or re-used).
PreparedDoe prepare_pareto_doe(StudySession& session);

// The values of one front point, per objective (as the user sees them: maximised ones with their
// own sign) and per constraint (its worst value, and V: the largest normalised violation over
// every constraint, percent).
struct ParetoValues {
  Eigen::VectorXd objectives;
  Eigen::VectorXd constraints;
  Eigen::VectorXd normalised;  // each constraint's largest g_hat (the search's constraints)
  double violation = 0.0;
};

struct ParetoPoint {
  Eigen::VectorXd design;
  ParetoValues predicted;
  bool verified = false;
  ParetoValues computed;  // verified only
  Eigen::VectorXd error;  // verified only: (predicted - computed) / the objective's front range
  bool agrees = false;    // verified only: every |error| and the computed V within the tolerance
  // An analysed design of the run in place of a last-round point whose analysis disagreed
  // (verified; its prediction is the last models', which may have been fitted on it).
  bool replaced = false;
  // A verified point replaced by an analysed design of its refinement (step 8) that dominates it.
  bool refined = false;
};

// The leave-one-out error of one model of a criterion (the criteria models only): its RMS in
// the criterion's units, and relative to the criterion's spread over the training points.
struct ParetoModelError {
  std::string name;  // the objective's or constraint's name
  double loo_rms = 0.0;
  double loo_percent = 0.0;  // NaN for a constant criterion
  bool log_inputs = false;   // kriging on the logarithms of the positive variables (by LOO)
};

struct ParetoRound {
  int round = 0;
  int points = 0;        // on the front
  int training = 0;      // analyses the models were fitted on
  std::string model;     // MetamodelResponses::description()
  double worst_loo = 0;  // its worst leave-one-out RMS, percent of the value's spread
  std::vector<ParetoModelError> errors;  // the criteria models': each one's (values: none)
  int verified = 0;                      // front points verified
  int faces = 0;                         // face points added to the training (analysed or re-used)
  int analysed = 0;                      // of those, analysed in this process (the others re-used)
  int failed = 0;
  int disagreeing = 0;
  double max_error = 0.0;  // largest |error| of the verified points (fraction of the range)
};

struct ParetoResult {
  std::vector<ParetoPoint> front;  // the last round's, sorted by the first objective
  Eigen::VectorXd ranges;          // each objective's range over the front (the errors' unit)
  std::vector<ParetoRound> rounds;
  DoeProgress doe;
  ParetoModelling modelling = ParetoModelling::kValues;  // as run (never kAuto)
  int response_values = 0;  // values of an analysis (every response, load case, time point)
  bool agreed = false;      // the last round's verified points all agree
  int replaced = 0;         // disagreeing points replaced by analysed designs or dropped (step 7)
  int analysed = 0;         // analyses this process ran (DOE, verification, refinement)
  int reused = 0;           // points taken from the store
  // The refinement (step 8; all 0 without): the verified points it started from, those replaced
  // by a dominating design, and the Driver's counts over all its runs.
  struct Refinement {
    int started = 0;
    int improved = 0;
    int cycles = 0;
    int analyses = 0;        // designs analysed in this process
    int sensitivities = 0;   // sensitivity analyses (the Driver's count, besides)
    int simulator_runs = 0;  // in this process
    int reused = 0;          // analyses taken from the store
    int refused = 0;         // points whose epsilon-constraint study the loader refused
    std::string reason;      // the first refusal's message
  } refinement;
};

// Runs it on `session` (opened for analyses; a multi-objective study) with the DOE `doe`
// (prepare_stored_doe); `on_batch` sees the progress of every batch of analyses as run_doe
// reports it, the DOE's (purpose "doe") and each round's verification ("verification", its
// round), `on_round` each round once its points are verified. Throws StudyError for a study of one
// objective, a design variable without finite bounds or an unknown refine_objective,
// std::runtime_error when the models cannot
// be fitted (too few successful analyses) or the front is empty (no predicted feasible point).
ParetoResult run_pareto(StudySession& session, const StoredDoe& doe, const ParetoOptions& options,
                        const std::function<void(const DoeProgress&)>& on_batch,
                        const std::function<void(const ParetoRound&)>& on_round);

// A single-objective study started at front point `point` (`sao pareto DIR --start-study K
// OUT.json`, docs/pareto.md): `document` (the multi-objective study as stored) with objective
// `keep` as its "objective", every other objective a constraint bounded by its value at the
// point (computed when verified, else predicted; "upper" for a minimised one, "lower" for a
// maximised one) and the design variables' "initial" at the point's design.
nlohmann::json single_objective_study(const nlohmann::json& document, const Study& study,
                                      const ParetoPoint& point, int keep);

// The values of design `design` (design variables) on `model` (auxiliaries at their initial
// values, a bound formulation's at the largest value it bounds).
ParetoValues pareto_values(const Study& study, const Eigen::VectorXd& design,
                           const ResponseModel& model);

// Fills v.constraints (each constraint's value where its g_hat is largest) and v.violation from
// v.normalised at the full variable vector x: g = c + s g_hat N (criteria.hpp's normalisation
// undone).
void finish_pareto_values(const Study& study, const Eigen::VectorXd& x, ParetoValues& v);

}  // namespace sao
