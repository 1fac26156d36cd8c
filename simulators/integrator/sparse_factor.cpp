#include "simulators/integrator/sparse_factor.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace sao::sim {

bool SparseFactor::factor(Eigen::SparseMatrix<double>& matrix) {
  bool fresh = pattern_.rows() != matrix.rows() || pattern_.cols() != matrix.cols();
  if (!fresh) {
    // The union of the patterns (pattern_'s values are zeros): the same size as pattern_ when
    // `matrix` has no new entry.
    Eigen::SparseMatrix<double> merged = matrix + pattern_;
    fresh = merged.nonZeros() != pattern_.nonZeros();
    matrix = std::move(merged);
  }
  matrix.makeCompressed();
  if (fresh) {
    pattern_ = matrix;
    pattern_.coeffs().setZero();
    lu_.analyzePattern(matrix);
    ++analyses_;
  }
  lu_.factorize(matrix);
  return lu_.info() == Eigen::Success;
}

double SparseFactor::pivot_ratio() const {
  // U's diagonal is stored in L's supernodes (as SparseLU::absDeterminant reads it).
  const auto& l = lu_.matrixL().m_mapL;
  using Supernodal = std::remove_cvref_t<decltype(l)>;
  double smallest = 0.0, largest = 0.0;
  for (Eigen::Index j = 0; j < l.cols(); ++j) {
    double pivot = 0.0;
    for (Supernodal::InnerIterator it(l, j); it; ++it) {
      if (it.index() == j) {
        pivot = std::abs(it.value());
        break;
      }
    }
    smallest = j == 0 ? pivot : std::min(smallest, pivot);
    largest = std::max(largest, pivot);
  }
  if (l.cols() == 0) return 1.0;
  return largest > 0.0 ? smallest / largest : 0.0;
}

}  // namespace sao::sim
