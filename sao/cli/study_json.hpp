// The --json forms of the commands on a study file (check, evaluate, check-gradient; issue
// 26, item 6), and the step-size hint of check-gradient (item 9). One JSON document each, the
// design variables in study order.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sao/report/evaluate.hpp"
#include "sao/report/gradient_check.hpp"
#include "sao/report/result_file.hpp"
#include "sao/seam/simulator.hpp"
#include "sao/study/study.hpp"

namespace sao::cli {

// One analysed design: its variables, objective, largest violation, every constraint's worst
// value and where, and per load case the range of every response the study declares, by its
// name (with `all`, of every response the simulator delivers, by the simulator's name;
// histories: min, max and the time of the max).
nlohmann::ordered_json design_json(const Study& study, const Evaluation& evaluation,
                                   const Eigen::VectorXd& x, const std::string& label,
                                   bool all = false);

// The rows of a gradient check, the analyses used and the step hints.
nlohmann::ordered_json gradient_check_json(const GradientCheck& check,
                                           const std::vector<std::string>& hints);

// Where the simulator's finite-difference step (simulator.gradients: forward or central,
// dp = (1 + |b|) p, docs/sensitivities.md) is large next to a design variable: more than 1 % of
// |b| or of its span. One sentence per such variable, with the step to set instead; none for a
// simulator that computes derivatives itself (direct, adjoint, auto).
std::vector<std::string> step_hints(const Study& study, const nlohmann::json& document,
                                    const Eigen::VectorXd& design);

// Where check-gradient's reference did not settle (GradientCheckRow::settled false) and
// differs from the simulator's derivative by more than 1e-3: one sentence per such row, with a
// ten times smaller --step to try (relative_step: the one used).
std::vector<std::string> reference_hints(const Study& study, const GradientCheck& check,
                                         double relative_step);

}  // namespace sao::cli
