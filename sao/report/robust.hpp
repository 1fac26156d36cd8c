// Robustness of a design under random variables (`sao robust`, issue 51; docs/robustness.md).
//
// At a design, the study's random variables ("random_variables", sao/study) are distributions
// centred on the values of the design variables they act on (sao/reliability). For every value
// the metamodel report knows (each scalar response, each history's maximum, the objective, each
// constraint's worst value; metamodel_report.hpp) the mean, standard deviation and quantiles are
// estimated with their confidence intervals, and per constraint the probability of violating it.
//
// Methods:
//  - "mc", "lhs": on a metamodel. A local DOE (a Latin hypercube of `points` in the box mean +- 3
//    sd of the random variables, cut to their supports and to the design variables' bounds; the
//    other variables at the design) is stored in the study store as a DOE and analysed by the
//    DOE runner (doe_run.hpp: stored, re-used, resumable); the model asked (kriging or quadratic)
//    is fitted by the metamodel report to the local DOE's successful analyses (not to the
//    verification's, which check it); `samples` samples
//    of the random variables (Monte Carlo or Latin hypercube) are predicted. `verify` of those
//    samples are analysed too (stored as a DOE of their own): their predicted and computed
//    values, and the statistics of the computed ones, are reported beside the model's.
//  - "mc-analyses": `samples` Monte Carlo samples analysed by the simulator (stored as a DOE).
//  - "form": FORM per constraint on the metamodel of the "lhs" method (its gradients by central
//    differences of the model), with the sample statistics of the metamodel beside it.
// With `sobol`, the metamodel methods also give each value's Sobol indices over the random
// variables (sobol.hpp on the model, its inputs the independent standard normal components z of
// x = F^-1(Phi(L z)): with correlations, z_i is the part of x_i independent of x_1..x_i-1).
// Seeded: the same store, design and request give the same result and analyse nothing again.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sao/metamodel/sobol.hpp"
#include "sao/reliability/form.hpp"
#include "sao/reliability/statistics.hpp"
#include "sao/report/metamodel_report.hpp"
#include "sao/store/doe_run.hpp"

namespace sao::report {

enum class RobustMethod { kMonteCarlo, kLatinHypercube, kAnalyses, kForm };
// "mc", "lhs", "mc-analyses", "form"; false for another word.
bool robust_method_from_name(const std::string& name, RobustMethod& method);
const char* robust_method_name(RobustMethod method);

struct RobustRequest {
  RobustMethod method = RobustMethod::kLatinHypercube;
  int points = 0;  // local DOE points (0: max(2k + 1, 10) for kriging, quadratic: its terms + 2)
  int samples = 10000;                // samples on the metamodel; "mc-analyses": analyses
  int verify = 10;                    // analysed samples beside the metamodel's (0: none)
  std::string metamodel = "kriging";  // or "quadratic"
  std::vector<double> quantiles = {0.05, 0.5, 0.95};
  double confidence = 0.95;
  std::uint64_t seed = 1;
  int batch = 0;  // analyses per batch (0: as `sao doe`)
  // Sobol indices of every modelled value over the random variables (metamodel methods only):
  // N base points of sobol.hpp (0: none; else >= 64).
  int sobol = 0;
};

// What a set of analyses the robustness estimate ran or re-used came to.
struct AnalysisSet {
  int doe = 0;           // its DOE id in the store
  DoeProgress progress;  // its purpose: "doe" (the local DOE), "verification", "samples"
};

// A purpose of the estimate's analyses as the text output names it ("doe": "local DOE").
std::string robust_purpose_title(const std::string& purpose);

struct RobustValue {
  std::string name;  // as the metamodel report names it ("objective.f", "constraint.c1", ...)
  ValueKind kind = ValueKind::kScalar;
  std::string unit;
  bool constant = false;  // the same at every point analysed: no spread
  double constant_value = 0.0;
  std::optional<reliability::SampleStatistics> statistics;  // of the method's samples
  // A constraint: its sense ("<=", ">=") and bound, the probability of violating it.
  std::string sense;
  double bound = 0.0;
  std::optional<reliability::FailureProbability> violation;
  // Sobol indices over the random variables (request.sobol), one entry per random variable.
  std::optional<metamodel::SobolIndices> sobol;
  // The constraint's reliability target (Constraint::Reliability; k 0: none): robust_output says
  // whether the sampled figures meet it.
  double target_k = 0.0;
  double target_probability = 0.0;
  std::optional<reliability::FormResult> form;  // "form"
  std::string note;                             // why a figure is missing
  // The metamodel's leave-one-out RMS error on the local DOE (NaN without a model).
  double loo_rms = std::numeric_limits<double>::quiet_NaN();
  // The verification: predicted and computed at the analysed samples, their RMS difference, and
  // the statistics of the computed values.
  Eigen::VectorXd verify_predicted, verify_computed;
  double verify_rms = std::numeric_limits<double>::quiet_NaN();
  std::optional<reliability::SampleStatistics> verified;
  std::optional<reliability::FailureProbability> verified_violation;
};

struct RobustResult {
  RobustRequest request;
  std::string store;
  std::string design_source;           // "initial design", "reported design of branch 1", ...
  std::vector<std::string> variables;  // design variable names
  Eigen::VectorXd design;
  std::vector<std::string> random;         // random variable names
  std::vector<std::string> random_of;      // the design variable each acts on
  std::vector<std::string> distributions;  // described at the design
  Eigen::MatrixXd correlation;
  Eigen::VectorXd box_lower, box_upper;  // metamodel methods: the local DOE's box (random ones)
  std::string model;                     // the metamodel fitted ("" for mc-analyses)
  int samples = 0;                       // samples the statistics are of
  std::vector<AnalysisSet> analyses;
  std::vector<RobustValue> values;
};

// The design the run in the study directory `dir` reported (its result.json's "design"), when
// the file is there and names every design variable; `sao robust DIR`'s default design.
std::optional<Eigen::VectorXd> reported_design(const Study& study, const std::string& dir);

// The estimate at `design` (design variables only) in the store of `session` (opened for
// analyses). `progress` is called before and after each batch of analyses, its purpose what the
// batch is for ("doe", "verification", "samples"). Throws std::invalid_argument for bad settings
// (bad input) and TooFewDesigns when the local DOE's successful analyses do not suffice for the
// model.
RobustResult robust_analysis(StudySession& session, const RandomSection& random,
                             const Eigen::VectorXd& design, const RobustRequest& request,
                             const std::function<void(const DoeProgress&)>& progress);

// The design of an estimate in the study directory `dir`: the design the run reported
// (reported_design; else the initial design) with `values` (design variable name -> value)
// applied; `source` says which. Throws std::invalid_argument for a name that is not a design
// variable.
Eigen::VectorXd directory_design(const Study& study, const std::string& dir,
                                 const std::map<std::string, double>& values, std::string& source);
// The random variables of the session's study; throws StudyError when it has none.
const RandomSection& random_section(const StudySession& session);

// The estimate in the study directory `dir` (`session` its store, opened for analyses), as
// Python's Session.robust and the service take it: at the design the run reported
// (reported_design; else the initial design) with `values` (design variable name -> value)
// applied. Throws StudyError when the study has no random variables, std::invalid_argument for
// a name that is not a design variable and as robust_analysis does.
RobustResult robust_of_directory(StudySession& session, const std::string& dir,
                                 const RobustRequest& request,
                                 const std::map<std::string, double>& values,
                                 const std::function<void(const DoeProgress&)>& progress);

// As text: the random variables, the analyses, per value a table (mean, sd, quantiles, each with
// its interval; per constraint the probability of violating it), the verification.
std::string robust_text(const RobustResult& result);
// As one JSON document (numbers that are not finite: null).
nlohmann::ordered_json robust_json(const RobustResult& result);

}  // namespace sao::report
