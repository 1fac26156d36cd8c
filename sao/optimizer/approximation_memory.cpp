// What the approximation forms keep between cycles (ApproximationMemory): the earlier points
// of the quadratic form and the quasi-Newton form's path, after each cycle (remember).
#include <vector>

#include "sao/optimizer/approximation_forms.hpp"

namespace sao {
namespace {

void keep_point(ApproximationMemory& memory, const Eigen::VectorXd& b, const Evaluation& e) {
  if (!memory.points.empty() && memory.points.back().b == b) {
    // The same design again (a proposal that became the next start): keep its gradients.
    if (e.has_gradients || !memory.points.back().evaluation.has_gradients)
      memory.points.back() = {b, e};
  } else {
    memory.points.push_back({b, e});
  }
  if (memory.points.size() > 2) memory.points.erase(memory.points.begin());
}

}  // namespace

void remember(ApproximationMemory& memory, const Approximation& used, const Eigen::VectorXd& x_star,
              const Evaluation& at_star, bool start_measured) {
  update_conservatism(memory, used, x_star, at_star);
  const bool quasi_newton = used.uses(ApproximationForm::kQuasiNewton);
  if (!used.uses(ApproximationForm::kQuadratic) && !quasi_newton) return;
  if (!start_measured) {
    // Gradients modelled (a secant cycle): the next start's curvature is taken from the last
    // start analysed with gradients, over both steps (a point of values only would give the
    // spherical curvature, blind across the step).
    std::erase_if(memory.points,
                  [](const AnalysedPoint& p) { return !p.evaluation.has_gradients; });
    return;
  }
  if (quasi_newton && used.at_b0().has_gradients &&
      (memory.path.empty() || memory.path.back().b != used.b0())) {
    memory.path.push_back({used.b0(), used.at_b0()});
    const size_t longest = 2 * static_cast<size_t>(used.b0().size()) + 2;
    if (memory.path.size() > longest) memory.path.erase(memory.path.begin());
  }
  keep_point(memory, used.b0(), used.at_b0());
  if (at_star.ok) keep_point(memory, x_star.head(used.b0().size()), at_star);
}

}  // namespace sao
