// Global metamodels of a study's responses from the analyses its store holds (`sao metamodel
// DIR`, issue 50; docs/metamodels.md, "`sao metamodel DIR`").
//
// The points are the designs of the store's successful analyses made with the study's simulator
// inputs (whatever made them: `sao run`, `sao doe`, `sao step`, ...), each design once. The
// values modelled, per load case: a scalar response's value; a history's largest value and the
// time of it; and per analysed design the study's objective (as the user sees it: for the bound
// formulation, the largest value bounded) and each constraint's value at its worst point (the
// largest for <=, the smallest for >=), as `sao evaluate` reports them.
//
// For each value the models asked are fitted (sao/metamodel/), each with its leave-one-out
// accuracy; a model needing more points than there are is skipped with the reason. The best
// model is the one of least LOO RMS; Sobol indices (first order and total, bootstrap intervals)
// come from it (or from the model asked) over the box the points span. Variables that take one
// value in every analysis are not inputs of the models (their effect cannot be seen). Seeded:
// the same store and request give the same report.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sao/metamodel/metamodel.hpp"
#include "sao/metamodel/sobol.hpp"
#include "sao/store/store.hpp"
#include "sao/study/study.hpp"

namespace sao::report {

// The models by name: "linear", "interactions", "quadratic" (least-squares polynomials),
// "rbf" (cubic radial basis functions with a linear tail), "kriging" (Matern 5/2 correlation,
// constant trend, length scales by maximum likelihood).
const std::vector<std::string>& metamodel_names();
// Those fitted when none are asked: linear, quadratic, rbf, kriging.
const std::vector<std::string>& default_metamodels();

struct MetamodelRequest {
  std::vector<std::string> models;     // empty: default_metamodels()
  std::vector<std::string> responses;  // empty: every value; else names (value_names below)
  std::string sobol_model;             // "": the best model; "none": no Sobol indices
  int sobol_samples = 4096;            // N of sobol.hpp (>= 64)
  int bootstrap = 300;                 // resamples of the intervals
  std::uint32_t seed = 1;              // kriging's likelihood starts and the Sobol sample
};

struct ModelFit {
  std::string model;
  int needs = 0;  // points it needs: its coefficients (kriging: trend and length scales), one more
  bool fitted = false;  // false: skipped (too few points, or the fit failed), `skipped` says why
  std::string skipped;
  metamodel::Accuracy accuracy;
};

enum class ValueKind { kScalar, kHistoryMax, kHistoryTimeOfMax, kObjective, kConstraint };
// "scalar", "history max", "time of history max", "objective", "constraint".
std::string to_string(ValueKind kind);

struct ModelledValue {
  std::string name;  // "hump.deflection.max", "hump.deflection.t_max", "crossing.peak",
                     // "objective.NAME", "constraint.NAME"
  ValueKind kind = ValueKind::kScalar;
  std::string response;    // the study's response, objective or constraint name
  std::string load_case;   // "" for the objective and constraints
  std::string unit;        // declared by the study ("" when none); a time's: the load case's
  std::vector<int> rows;   // the report's points with this value (finite)
  Eigen::VectorXd values;  // the value at those points
  // The same value at every point (to 1e-10 of its magnitude: rounding): no model is fitted,
  // the variables have no effect on it over these analyses.
  bool constant = false;
  std::vector<ModelFit> fits;                    // in the order asked (none for a constant value)
  int best = -1;                                 // index in fits of least LOO RMS; -1: none fitted
  std::string sobol_model;                       // the model the indices are of ("" when none)
  std::optional<metamodel::SobolIndices> sobol;  // one entry per model input (inputs below)
  std::string note;  // why there are no Sobol indices, when there are none
  // The best model (fits[best]), on the report's inputs (MetamodelReport::inputs, in that order,
  // own units); null when none is fitted. `sao robust` samples it (robust.hpp).
  std::shared_ptr<const metamodel::Metamodel> best_model;
};

struct MetamodelReport {
  std::string store;                        // its path ("" when given analyses)
  std::vector<std::string> variables;       // the design variables, study order
  std::vector<std::string> variable_units;  // "" where none is declared
  std::vector<int> inputs;                  // the variables the models take (they vary)
  Eigen::MatrixXd points;                   // the distinct designs analysed (all variables)
  metamodel::Bounds box;                    // the box the points span (of the inputs)
  int analyses = 0;                         // successful analyses with the study's simulator inputs
  int repeated = 0;                 // of them, repeats of a design analysed before (not used again)
  int other_inputs = 0;             // successful analyses under other simulator inputs (not used)
  std::vector<std::string> models;  // the models asked, resolved
  MetamodelRequest request;
  std::vector<ModelledValue> values;
};

// Too few distinct designs for the cheapest model asked (a std::invalid_argument, so bad input
// like an unknown name; the service tells it apart: the study needs more analyses).
class TooFewDesigns : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The report from `analyses` (StudyStore::analyses: successful ones are used, others ignored;
// all must have been made with the study's simulator inputs). Throws std::invalid_argument for
// an unknown model or response name (listing the known ones), bad Sobol settings, and when the
// distinct designs are fewer than the cheapest model asked needs (TooFewDesigns, saying how many
// there are and how many it needs, and suggesting `sao doe`).
MetamodelReport metamodel_report(const Study& study, const std::vector<StoredAnalysis>& analyses,
                                 const MetamodelRequest& request);

// The report of the store's analyses made with `inputs_hash` (simulator_inputs_hash of `study`).
MetamodelReport metamodel_report(const StudyStore& store, const Study& study,
                                 const std::string& inputs_hash, const MetamodelRequest& request);

// The report of a store file (opened read-only): its current branch's study, with the simulator
// inputs of that study (its simulator is made to read them). Throws StoreError for a file that
// is not a study store or holds no study, StudyError when the stored study does not load.
MetamodelReport metamodel_report(const std::string& store_path, const MetamodelRequest& request);

// The values the report models (every response value, the objective, each constraint's worst
// value; no model fitted) at each of `analyses`, in order: a value's `rows` index `analyses` (a
// failed analysis, or one lacking the value, is left out). `sao robust` takes the statistics of
// analysed samples from them.
std::vector<ModelledValue> analysis_values(const Study& study,
                                           const std::vector<StoredAnalysis>& analyses);

// The report as text: per value a table of the models (points, LOO RMS, R^2_pred, R^2,
// adjusted R^2; the best marked) and of its Sobol indices (S_i and S_Ti with their intervals).
std::string metamodel_report_text(const MetamodelReport& report);

// The report as one JSON document: "variables" (name, unit, the span, whether an input),
// "points", "analyses", "values" (name, kind, response, load_case, unit, points, "models" with
// their accuracy, "best", "loo_points": per point {design, computed, predicted_loo} of the best
// model, "sobol": model, variables with S, S_low, S_high, ST, ST_low, ST_high).
// Numbers that are not finite are null.
nlohmann::ordered_json metamodel_report_json(const MetamodelReport& report);

}  // namespace sao::report
