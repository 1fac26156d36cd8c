// A sparse LU factorisation (Eigen's SparseLU) whose symbolic analysis (column ordering and
// elimination tree) is done once and kept for as long as the matrices keep their pattern: the
// Newton matrices of one integration or one variational run share it. Entries that are exactly
// zero at one point and not at the next (a joint's sin(0)) would change the pattern: each matrix
// is merged with the pattern of the previous ones (their entries kept as explicit zeros), so
// such an entry costs one analysis more, not one per factorisation.
#pragma once

#include <Eigen/SparseCore>
#include <Eigen/SparseLU>

namespace sao::sim {

class SparseFactor {
 public:
  // Factors `matrix` (square, compressed; it is merged with the earlier patterns in place); false
  // when it is singular.
  bool factor(Eigen::SparseMatrix<double>& matrix);
  // x = A^-1 b, or A^-T b with `transposed`.
  template <class Rhs>
  Eigen::MatrixXd solve(const Rhs& b, bool transposed = false) {  // transpose() is not const
    if (transposed) return lu_.transpose().solve(b);
    return lu_.solve(b);
  }
  // The smallest pivot's magnitude over the largest's (U's diagonal) of the last factorisation:
  // the sparse counterpart of the dense LU's pivot test (kinematics.hpp `regular`); 0 for a
  // zero pivot, 1 for an empty matrix.
  double pivot_ratio() const;
  // Symbolic analyses done so far (1 when the pattern never changed).
  int analyses() const { return analyses_; }

 private:
  Eigen::SparseMatrix<double> pattern_;  // every entry seen so far, as zeros
  Eigen::SparseLU<Eigen::SparseMatrix<double>> lu_;
  int analyses_ = 0;
};

}  // namespace sao::sim
