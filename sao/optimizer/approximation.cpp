#include "sao/optimizer/approximation.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sao {

LinearApproximation::LinearApproximation(const Study& study, const Evaluation& at_b0,
                                         const Eigen::VectorXd& x0)
    : study_(study), exact_(study, at_b0), at_b0_(at_b0), b0_(x0.head(study.n_design())) {
  if (!at_b0.has_gradients)
    throw std::invalid_argument("LinearApproximation: analysis has no gradients");
}

Eigen::Ref<const Eigen::RowVectorXd> LinearApproximation::slope(int response, int load_case,
                                                                int point) const {
  const std::string& source = study_.responses[response].source;
  const auto& gradients = at_b0_.cases[load_case].gradients;
  auto it = gradients.find(source);
  if (it == gradients.end() || point >= it->second.rows() || it->second.cols() != b0_.size()) {
    throw std::logic_error("LinearApproximation: no gradient of \"" + source + "\" point " +
                           std::to_string(point) + " was computed");
  }
  if (!it->second.row(point).allFinite()) {
    throw std::logic_error("LinearApproximation: gradient of \"" + source + "\" point " +
                           std::to_string(point) + " was not requested or is not finite");
  }
  return it->second.row(point);
}

double LinearApproximation::value(int response, int load_case, int point,
                                  const Eigen::VectorXd& x) const {
  const double r0 = exact_.value(response, load_case, point, x);
  const auto g = slope(response, load_case, point);
  double r = r0;
  for (int k = 0; k < b0_.size(); ++k) {
    const Intermediate& phi = study_.design[k].intermediate;
    if (phi.identity()) {
      r += g(k) * (x(k) - b0_(k));
    } else {
      r += g(k) * (phi.value(x(k)) - phi.value(b0_(k))) / phi.slope(b0_(k));
    }
  }
  return r;
}

void LinearApproximation::add_gradient(int response, int load_case, int point,
                                       const Eigen::VectorXd& x, double coef,
                                       Eigen::Ref<Eigen::VectorXd> grad) const {
  const auto g = slope(response, load_case, point);
  for (int k = 0; k < b0_.size(); ++k) {
    const Intermediate& phi = study_.design[k].intermediate;
    const double chain = phi.identity() ? 1.0 : phi.slope(x(k)) / phi.slope(b0_(k));
    grad(k) += coef * g(k) * chain;
  }
}

bool all_identity(const Study& study) {
  return std::all_of(study.design.begin(), study.design.end(),
                     [](const DesignVariable& v) { return v.intermediate.identity(); });
}

}  // namespace sao
