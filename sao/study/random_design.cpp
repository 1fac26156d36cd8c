// The random variables of a study at one design (random_design.hpp).
#include "sao/study/random_design.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace sao {

using reliability::Distribution;
using reliability::RandomVector;
constexpr double kInf = std::numeric_limits<double>::infinity();

RandomVector random_vector_at(const Study& study, const RandomSection& random,
                              const Eigen::VectorXd& design) {
  std::vector<std::string> names;
  std::vector<Distribution> distributions;
  for (const RandomVariableSpec& v : random.variables) {
    const double value = design(v.variable);
    const double sd = std::isnan(v.sd) ? v.cov * std::abs(value) : v.sd;
    const std::string where = v.path + " (\"" + v.name + "\" of " + study.design[v.variable].name +
                              " = " + std::to_string(value) + "): ";
    try {
      if (v.distribution == "normal") {
        distributions.push_back(Distribution::normal(value, sd));
      } else if (v.distribution == "lognormal") {
        if (!(value > 0)) throw std::invalid_argument("a lognormal needs a positive value");
        distributions.push_back(std::isnan(v.sigma)
                                    ? Distribution::lognormal(value, sd)
                                    : Distribution::lognormal_of_log(
                                          std::log(value) - 0.5 * v.sigma * v.sigma, v.sigma));
      } else if (v.distribution == "uniform") {
        distributions.push_back(Distribution::uniform(value + v.lower, value + v.upper));
      } else {
        distributions.push_back(
            Distribution::truncated_normal(value, sd, std::isnan(v.lower) ? -kInf : value + v.lower,
                                           std::isnan(v.upper) ? kInf : value + v.upper));
      }
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(where + e.what());
    }
    names.push_back(v.name);
  }
  return RandomVector(names, distributions, random.correlation);
}

}  // namespace sao
