#include "sao/approximation.hpp"

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
  return r0 + slope(response, load_case, point).dot(x.head(b0_.size()) - b0_);
}

void LinearApproximation::add_gradient(int response, int load_case, int point,
                                       const Eigen::VectorXd&, double coef,
                                       Eigen::Ref<Eigen::VectorXd> grad) const {
  grad.head(b0_.size()) += coef * slope(response, load_case, point).transpose();
}

}  // namespace sao
