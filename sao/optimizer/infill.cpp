#include "sao/optimizer/infill.hpp"

#include <nlopt.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "sao/doe/plan.hpp"
#include "sao/metamodel/improvement.hpp"
#include "sao/metamodel/kriging.hpp"

namespace sao {
namespace {

struct Models {
  std::unique_ptr<metamodel::KrigingModel> objective;
  std::vector<metamodel::KrigingModel> constraints;
  double best = 0.0;
  bool feasible_known = false;
  double level = 0.0;

  double criterion(const Eigen::VectorXd& b, double* mean = nullptr) const {
    const Eigen::MatrixXd at = b.transpose();
    const metamodel::KrigingPrediction f = objective->predict_with_error(at);
    if (mean) *mean = f.mean(0);
    std::vector<metamodel::ConstraintPrediction> g;
    for (const metamodel::KrigingModel& c : constraints) {
      const metamodel::KrigingPrediction p = c.predict_with_error(at);
      g.push_back({p.mean(0), p.std_error(0), level});
    }
    if (feasible_known) {
      return metamodel::constrained_expected_improvement(f.mean(0), f.std_error(0), best, g);
    }
    double all = 1.0;
    for (const auto& p : g)
      all *= metamodel::probability_of_feasibility(p.mean, p.std_error, p.upper);
    return all;
  }
};

double nlopt_criterion(unsigned n, const double* x, double*, void* data) {
  const auto* models = static_cast<const Models*>(data);
  return models->criterion(Eigen::Map<const Eigen::VectorXd>(x, n));
}

}  // namespace

InfillProposal expected_improvement_infill(const InfillData& data, const metamodel::Bounds& box,
                                           const Eigen::VectorXd& lower,
                                           const Eigen::VectorXd& upper, std::uint64_t seed) {
  const int n = static_cast<int>(data.points.cols());
  const Eigen::Index m = data.points.rows();
  Models models;
  metamodel::KrigingSettings settings;
  settings.estimate_nugget = true;
  models.objective =
      std::make_unique<metamodel::KrigingModel>(data.points, data.objective, box, settings);
  for (Eigen::Index j = 0; j < data.constraints.cols(); ++j) {
    models.constraints.emplace_back(data.points, data.constraints.col(j), box, settings);
  }
  models.level = data.feasible_level;
  models.best = HUGE_VAL;
  for (Eigen::Index r = 0; r < m; ++r) {
    const bool feasible =
        data.constraints.cols() == 0 || data.constraints.row(r).maxCoeff() <= data.feasible_level;
    if (feasible && data.objective(r) < models.best) {
      models.best = data.objective(r);
      models.feasible_known = true;
    }
  }
  // Candidates in the region, the five best polished by BOBYQA (maximising the criterion).
  const doe::Region region{lower, upper};
  const Eigen::MatrixXd unit = doe::latin_hypercube(100 * n + 100, n, seed);
  std::vector<std::pair<double, Eigen::VectorXd>> ranked;
  for (Eigen::Index r = 0; r < unit.rows(); ++r) {
    const Eigen::VectorXd b = region.from_unit(unit.row(r).transpose());
    ranked.emplace_back(models.criterion(b), b);
  }
  std::sort(ranked.begin(), ranked.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  InfillProposal best;
  best.criterion = -HUGE_VAL;
  for (size_t k = 0; k < std::min<size_t>(5, ranked.size()); ++k) {
    std::vector<double> x(ranked[k].second.data(), ranked[k].second.data() + n);
    double value = ranked[k].first;
    nlopt_opt opt = nlopt_create(NLOPT_LN_BOBYQA, static_cast<unsigned>(n));
    nlopt_set_lower_bounds(opt, lower.data());
    nlopt_set_upper_bounds(opt, upper.data());
    nlopt_set_max_objective(opt, nlopt_criterion, &models);
    nlopt_set_maxeval(opt, 200 * n);
    nlopt_set_xtol_rel(opt, 1e-6);
    const nlopt_result r = nlopt_optimize(opt, x.data(), &value);
    nlopt_destroy(opt);
    Eigen::VectorXd b = Eigen::Map<const Eigen::VectorXd>(x.data(), n);
    if (r < 0 || !std::isfinite(value) || value < ranked[k].first) {
      b = ranked[k].second;  // keep the candidate where the polish failed or lost ground
      value = ranked[k].first;
    }
    if (value > best.criterion) {
      best.criterion = value;
      best.design = b.cwiseMax(lower).cwiseMin(upper);
    }
  }
  models.criterion(best.design, &best.predicted);
  best.feasible_known = models.feasible_known;
  return best;
}

}  // namespace sao
