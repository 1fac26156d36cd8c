// The reliability margins of a cycle (reliability_margins.hpp).
#include "sao/optimizer/reliability_margins.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "sao/study/random_design.hpp"

namespace sao {

bool has_reliability_targets(const Study& study) {
  return std::any_of(study.constraints.begin(), study.constraints.end(),
                     [](const Constraint& c) { return c.reliability.k > 0; });
}

std::vector<ReliabilityMargin> reliability_margins(const ApproximateProblem& problem,
                                                   const RandomSection& random) {
  const Study& study = *problem.study;
  const int n = study.n_design();
  const reliability::RandomVector rv = random_vector_at(study, random, problem.x0.head(n));
  // Sigma = D R D over the random variables; `of`: the design variable each acts on.
  const int m = rv.size();
  Eigen::VectorXd sd(m);
  std::vector<int> of(m);
  for (int r = 0; r < m; ++r) {
    sd(r) = rv.distributions()[r].sd();
    of[r] = random.variables[r].variable;
  }
  const Eigen::MatrixXd R =
      rv.correlation().size() ? rv.correlation() : Eigen::MatrixXd::Identity(m, m);
  const Eigen::MatrixXd sigma = sd.asDiagonal() * R * sd.asDiagonal();

  Eigen::MatrixXd jacobian;
  const Eigen::VectorXd values = problem.row_values(problem.x0, &jacobian);
  std::vector<ReliabilityMargin> margins;
  std::vector<double> best;         // per margin: the largest g_hat + k sd_hat of its rows
  std::map<int, size_t> margin_of;  // constraint -> its entry
  for (size_t i = 0; i < problem.rows.size(); ++i) {
    const RetainedRow& row = problem.rows[i];
    const Constraint& c = study.constraints[row.constraint];
    if (!(c.reliability.k > 0)) continue;
    const auto at = static_cast<Eigen::Index>(i);
    Eigen::VectorXd a(m);  // d g_hat / d (random variable)
    for (int r = 0; r < m; ++r) a(r) = jacobian(at, of[r]);
    const double sd_hat = std::sqrt(std::max(0.0, a.dot(sigma * a)));
    const double shifted = values(at) - c.margin / row.normaliser + c.reliability.k * sd_hat;
    const auto [entry, added] = margin_of.emplace(row.constraint, margins.size());
    if (added) {
      margins.push_back({row.constraint, row.point, 0.0, 0.0});
      best.push_back(shifted);
    } else if (shifted <= best[entry->second]) {
      continue;
    }
    ReliabilityMargin& mine = margins[entry->second];
    best[entry->second] = shifted;
    mine.point = row.point;
    mine.sd = sd_hat * row.normaliser;
    mine.margin = c.reliability.k * mine.sd;
  }
  return margins;
}

}  // namespace sao
