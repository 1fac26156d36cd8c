#include "simulators/integrator/second_order_solver.hpp"

#include <sunmatrix/sunmatrix_dense.h>

#include <Eigen/Dense>
#include <new>

namespace sao::sim {
namespace {

// The factorisation between a set-up and the solves that use it; sized once.
struct Content {
  Eigen::Index n = 0, half = 0;
  Eigen::Index blocks = 1;    // right-hand sides of size n stacked in one vector
  bool second_order = false;  // try the Schur complement
  bool reduced = false;       // the Schur complement (else the whole matrix) is factored
  Eigen::MatrixXd c, d;       // the off-diagonal blocks C and D of M
  Eigen::MatrixXd schur;      // E - D C
  Eigen::PartialPivLU<Eigen::MatrixXd> lu;
  Eigen::VectorXd rhs, top;              // scratch of the solves
  Eigen::MatrixXd block_rhs, block_top;  // the same for more than one block
  long last_flag = 0;
};

Content& content(SUNLinearSolver s) {
  return *static_cast<Content*>(s->content);
}

SUNLinearSolver_Type get_type(SUNLinearSolver) {
  return SUNLINEARSOLVER_DIRECT;
}

bool identity(const Eigen::Ref<const Eigen::MatrixXd>& block) {
  for (Eigen::Index j = 0; j < block.cols(); ++j) {
    for (Eigen::Index i = 0; i < block.rows(); ++i) {
      if (block(i, j) != (i == j ? 1.0 : 0.0)) return false;
    }
  }
  return true;
}

// Factors M (the matrix CVODES formed); a zero pivot is a recoverable failure, as in SUNDIALS's
// dense solver (CVODES then retries with a smaller step).
int set_up(SUNLinearSolver s, SUNMatrix a) {
  Content& k = content(s);
  const Eigen::Map<const Eigen::MatrixXd> m(SUNDenseMatrix_Data(a), k.n, k.n);
  const Eigen::Index h = k.half;
  k.reduced = k.second_order && identity(m.topLeftCorner(h, h));
  if (k.reduced) {
    k.c = m.topRightCorner(h, h);
    k.d = m.bottomLeftCorner(h, h);
    k.schur = m.bottomRightCorner(h, h);
    k.schur.noalias() -= k.d * k.c;
    k.lu.compute(k.schur);
  } else {
    k.lu.compute(m);
  }
  const auto pivots = k.lu.matrixLU().diagonal();
  for (Eigen::Index i = 0; i < pivots.size(); ++i) {
    if (pivots(i) == 0.0) {
      k.last_flag = i + 1;
      return SUNLS_LUFACT_FAIL;
    }
  }
  k.last_flag = SUNLS_SUCCESS;
  return SUNLS_SUCCESS;
}

// x = M^-1 b with the factorisation; Rhs is a vector (one block) or a matrix (n x blocks).
template <class Rhs, class Out>
void solve_with(Content& k, Rhs& rhs, Rhs& top, Out&& xv) {
  const Eigen::Index h = k.half;
  if (!k.reduced) {
    xv = k.lu.solve(rhs);
  } else {
    top = rhs.topRows(h);
    rhs.bottomRows(h).noalias() -= k.d * top;
    xv.bottomRows(h) = k.lu.solve(rhs.bottomRows(h));
    xv.topRows(h) = top;
    xv.topRows(h).noalias() -= k.c * xv.bottomRows(h);
  }
}

// Solves every block of b (n x blocks, column after column) with the one factorisation; one
// block as a vector, the arithmetic of the solver before blocks existed.
int solve(SUNLinearSolver s, SUNMatrix, N_Vector x, N_Vector b, sunrealtype) {
  Content& k = content(s);
  if (k.blocks == 1) {
    k.rhs = Eigen::Map<const Eigen::VectorXd>(N_VGetArrayPointer(b), k.n);  // x may be b
    solve_with(k, k.rhs, k.top, Eigen::Map<Eigen::VectorXd>(N_VGetArrayPointer(x), k.n));
  } else {
    k.block_rhs = Eigen::Map<const Eigen::MatrixXd>(N_VGetArrayPointer(b), k.n, k.blocks);
    solve_with(k, k.block_rhs, k.block_top,
               Eigen::Map<Eigen::MatrixXd>(N_VGetArrayPointer(x), k.n, k.blocks));
  }
  k.last_flag = SUNLS_SUCCESS;
  return SUNLS_SUCCESS;
}

sunindextype last_flag(SUNLinearSolver s) {
  return content(s).last_flag;
}

int free_solver(SUNLinearSolver s) {
  if (!s) return SUNLS_SUCCESS;
  delete static_cast<Content*>(s->content);
  s->content = nullptr;
  SUNLinSolFreeEmpty(s);
  return SUNLS_SUCCESS;
}

// The callback solver's content: the system's solve.
struct Callback {
  std::function<void(double*)> solve;
};

int callback_solve(SUNLinearSolver s, SUNMatrix, N_Vector x, N_Vector b, sunrealtype) {
  N_VScale(1.0, b, x);
  static_cast<Callback*>(s->content)->solve(N_VGetArrayPointer(x));
  return SUNLS_SUCCESS;
}

int callback_setup(SUNLinearSolver, SUNMatrix) {
  return SUNLS_SUCCESS;
}

int free_callback(SUNLinearSolver s) {
  if (!s) return SUNLS_SUCCESS;
  delete static_cast<Callback*>(s->content);
  s->content = nullptr;
  SUNLinSolFreeEmpty(s);
  return SUNLS_SUCCESS;
}

void destroy_placeholder(SUNMatrix a) {
  SUNMatFreeEmpty(a);
}

SUNMatrix_ID placeholder_id(SUNMatrix) {
  return SUNMATRIX_CUSTOM;
}

}  // namespace

SUNMatrix placeholder_matrix(SUNContext context) {
  SUNMatrix a = SUNMatNewEmpty(context);
  if (!a) return nullptr;
  a->ops->getid = placeholder_id;
  a->ops->destroy = destroy_placeholder;
  return a;
}

SUNLinearSolver callback_solver(SUNContext context, std::function<void(double*)> solve) {
  SUNLinearSolver s = SUNLinSolNewEmpty(context);
  if (!s) return nullptr;
  auto* k = new (std::nothrow) Callback{std::move(solve)};
  if (!k) {
    SUNLinSolFreeEmpty(s);
    return nullptr;
  }
  s->content = k;
  s->ops->gettype = get_type;
  s->ops->setup = callback_setup;
  s->ops->solve = callback_solve;
  s->ops->free = free_callback;
  return s;
}

SUNLinearSolver block_solver(SUNContext context, long n, long blocks, bool second_order) {
  if (n <= 0 || blocks <= 0 || (second_order && n % 2 != 0)) return nullptr;
  SUNLinearSolver s = SUNLinSolNewEmpty(context);
  if (!s) return nullptr;
  auto* k = new (std::nothrow) Content;
  if (!k) {
    SUNLinSolFreeEmpty(s);
    return nullptr;
  }
  k->n = n;
  k->half = n / 2;
  k->blocks = blocks;
  k->second_order = second_order;
  s->content = k;
  s->ops->gettype = get_type;
  s->ops->setup = set_up;
  s->ops->solve = solve;
  s->ops->lastflag = last_flag;
  s->ops->free = free_solver;
  return s;
}

SUNLinearSolver second_order_solver(SUNContext context, long n) {
  return block_solver(context, n, 1, true);
}

}  // namespace sao::sim
