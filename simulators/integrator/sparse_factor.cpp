#include "simulators/integrator/sparse_factor.hpp"

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

}  // namespace sao::sim
