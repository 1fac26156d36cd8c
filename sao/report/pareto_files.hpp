// The files of a Pareto run (`sao pareto`, docs/pareto.md), written from run_pareto's result
// into the study's folder: pareto.csv (one row per front point: the design, every objective and
// constraint predicted and, for a verified point, computed, and the prediction's error),
// pareto.json (the same with the rounds and the settings) and pareto.html (a self-contained
// page drawn by the one chart renderer, as the sweep's compromise page: two objectives as the
// predicted front with the verified points apart; three or more as a scatter matrix).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sao/store/pareto_run.hpp"

namespace sao {

// The index in result.front of the best-balanced point: the verified, agreeing point nearest the
// ideal point (each objective's best over the front: its least, or its largest for a maximised
// one; objectives scaled to [0, 1] over the front), or the nearest of all points when none is
// verified and agreeing.
int balanced_point(const Study& study, const ParetoResult& result);

// A round's criteria models' leave-one-out errors: [{"name", "loo_rms", "loo_percent"}] (empty
// for the models of the values).
nlohmann::ordered_json model_errors_json(const ParetoRound& round);

// pareto.json's document: {"study", "store", "settings", "objectives": [{name, unit, label,
// sense}], "constraints": [names], "doe", "modelled" ("values" or "criteria", as run),
// "response_values" (of an analysis), "rounds" (each with its "models"' errors), "agreed",
// "analysed", "reused",
// "balanced", "front": [{"index", "design", "predicted", "computed", "error", "verified",
// "agrees"}]}.
nlohmann::ordered_json pareto_json(const Study& study, const ParetoResult& result,
                                   const ParetoOptions& options);

// Writes pareto.csv, pareto.json and pareto.html into `dir` (atomically, each).
void write_pareto(const std::string& dir, const Study& study, const ParetoResult& result,
                  const ParetoOptions& options);

}  // namespace sao
