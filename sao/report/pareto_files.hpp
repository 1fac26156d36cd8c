// The files of a Pareto run (`sao pareto`, docs/pareto.md), written from run_pareto's result
// into the study's folder: pareto.csv (one row per front point: the design, every objective and
// constraint predicted and, for a verified point, computed, and the prediction's error),
// pareto.json (the same with the rounds and the settings) and pareto.html (a self-contained
// page drawn by the one chart renderer, as the sweep's compromise page: two objectives as the
// predicted front with the verified points apart; three or more as a scatter matrix).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sao/report/chart.hpp"
#include "sao/report/table.hpp"
#include "sao/store/pareto_run.hpp"

namespace sao {

// The index in result.front of the best-balanced point: the verified, agreeing point nearest the
// ideal point (each objective's best over the front: its least, or its largest for a maximised
// one; objectives scaled to [0, 1] over the front), or the nearest of all points when none is
// verified and agreeing.
int balanced_point(const Study& study, const ParetoResult& result);

// A round's criteria models' leave-one-out errors: [{"name", "loo_rms", "loo_percent", "inputs"
// ("linear" or "log": kriging on the logarithms of the positive variables)}] (empty for the
// models of the values).
nlohmann::ordered_json model_errors_json(const ParetoRound& round);

// pareto.json's document: {"study", "store", "settings", "objectives": [{name, unit, label,
// sense}], "constraints": [names], "doe", "modelled" ("values" or "criteria", as run),
// "response_values" (of an analysis), "rounds" (each with its "models"' errors), "agreed",
// "analysed", "reused",
// "balanced", "front": [{"index", "design", "predicted", "computed", "error", "verified",
// "agrees"}]}.
nlohmann::ordered_json pareto_json(const Study& study, const ParetoResult& result,
                                   const ParetoOptions& options);

// pareto.csv's table (and the Python package's DataFrame of the front, docs/python.md): per
// front point "point", "verified" and "agrees" (yes/no; "" for a point not verified), the design,
// every objective and constraint (its worst value) and "max_violation" (V, %), each "NAME
// predicted" and "NAME computed" (verified points only), and each objective's "NAME error"
// (predicted - computed, a fraction of its range over the front).
report::Table pareto_table(const Study& study, const ParetoResult& result);

// pareto.json's "settings": the options of the run.
nlohmann::ordered_json pareto_settings_json(const ParetoOptions& options);

// The charts of the front (pareto.html's, the workbench's): for two objectives the predicted
// front as a curve with the verified points' predictions and analyses as separate markers; for
// three or more one chart per pair of objectives (a scatter matrix's lower triangle, row by
// row: (1, 2), (1, 3), (2, 3), ...), the predicted points as markers.
std::vector<Plot> pareto_charts(const Study& study, const ParetoResult& result);

// The front of pareto.json's document (its points: design, predicted and computed values,
// errors, verified and agrees; and "agreed") as run_pareto gave it. Throws std::invalid_argument
// when it does not hold a front of `study` (another study's names).
ParetoResult read_pareto_front(const nlohmann::json& document, const Study& study);

// DIR/pareto.json as `sao pareto` wrote it. Throws std::invalid_argument when it is missing or
// is not JSON.
nlohmann::json read_pareto_json(const std::string& dir);

// A front point as the start of an ordinary study (`sao pareto DIR --start-study K`, Python's
// Session.front_point_study, docs/pareto.md): single_objective_study of point `k` (1-based) of
// `front` (pareto.json's document), `document` and `study` the multi-objective study as stored,
// the objective named `objective` kept ("": the first). Throws std::invalid_argument naming the
// point or the objective when the front has no such one.
struct FrontPointStudy {
  nlohmann::json study;
  int objective = 0;      // the index of the objective kept
  bool verified = false;  // the point's values: analysed (else predicted)
};
FrontPointStudy front_point_study(const nlohmann::json& front, const nlohmann::json& document,
                                  const Study& study, int k, const std::string& objective);

// Writes pareto.csv, pareto.json and pareto.html into `dir` (atomically, each).
void write_pareto(const std::string& dir, const Study& study, const ParetoResult& result,
                  const ParetoOptions& options);

}  // namespace sao
