// The random variables of a study ("random_variables", docs/robustness.md) at one design: their
// distributions centred on its values. Shared by `sao robust` (sao/report/robust.hpp) and the
// driver's reliability margins (sao/optimizer/reliability_margins.hpp).
#pragma once

#include <Eigen/Dense>

#include "sao/reliability/random_vector.hpp"
#include "sao/study/study.hpp"

namespace sao {

// The random variables at `design` (the design variables' values): each distribution centred on
// the value of the variable it acts on. Throws std::invalid_argument naming the entry
// ("random_variables[i]") for a spread that is not one there (a cov of a zero value, a lognormal
// of a value <= 0).
reliability::RandomVector random_vector_at(const Study& study, const RandomSection& random,
                                           const Eigen::VectorXd& design);

}  // namespace sao
