// D-optimal selection of points from a set of candidates for a polynomial basis
// (docs/metamodels.md, "D-optimal points").
//
// The chosen points maximise det(X'X), X the model matrix of the basis (scaled variables) at
// the fixed points and the chosen candidates together: the least-squares coefficients then have
// the smallest joint confidence region. The search is a modified Fedorov exchange: for each
// chosen point in turn, the candidate whose exchange with it raises the determinant most
// replaces it, until a pass over the design improves nothing; it runs from several starts (a
// given initial set and random subsets) and keeps the best. A candidate is chosen at most once,
// and never when it coincides with a fixed point (a deterministic analysis is not repeated).
#pragma once

#include <cstdint>
#include <vector>

#include "sao/metamodel/polynomial.hpp"

namespace sao::metamodel {

struct DOptimalSettings {
  int starts = 10;           // random starting subsets (besides `initial`, if given)
  std::uint32_t seed = 1;    // the random starts; the same seed gives the same design
  int max_passes = 100;      // passes over the design per start
  std::vector<int> initial;  // an optional starting subset (candidate indices, `count` of them)
};

struct DOptimalDesign {
  std::vector<int> chosen;  // candidate rows chosen, ascending
  double log_det = 0.0;     // log det(X'X) of the fixed and chosen points (-inf: singular)
  std::vector<double> start_log_det;  // per start (initial first if given): its log det(X'X)
  std::vector<double> final_log_det;  // per start: after its exchanges (never below its start)
  int exchanges = 0;                  // exchanges made over all starts
};

// log det(X'X) for the basis at points (own units); -infinity when X'X is singular.
double log_det_information(const PolynomialBasis& basis, const Eigen::MatrixXd& points);

// Chooses `count` of the candidate rows (own units, m x n) so that, with the `fixed` rows
// (points already analysed, always in the design, may be empty: 0 x n), det(X'X) is largest.
// Throws std::invalid_argument when count > candidates, count + fixed rows < the basis's terms,
// the candidates or fixed points are not finite or repeat a point, or `initial` is not
// `count` distinct candidate indices.
DOptimalDesign d_optimal(const Eigen::MatrixXd& candidates, const PolynomialBasis& basis, int count,
                         const Eigen::MatrixXd& fixed = Eigen::MatrixXd(),
                         const DOptimalSettings& settings = {});

}  // namespace sao::metamodel
