// The adjoint method's shared backward sweep (issue 25; adjoint_system in
// cvodes_integrator.hpp): one backward problem for the adjoint vectors of every functional.
#include <sunmatrix/sunmatrix_dense.h>

#include <algorithm>
#include <sstream>

#include "simulators/integrator/cvodes_session.hpp"
#include "simulators/integrator/second_order_solver.hpp"

namespace sao::sim::detail {
namespace {

// -[f_x | f_p]' Lambda (- [g_x | g_p]' in the columns of integral functionals), the rows of
// columns first .. first + rows - 1 of [f_x | f_p]: the block's right-hand side (first 0, n rows)
// or its quadratures (first n, np rows); the columns not yet joined stay 0.
void block_products(CvodesSession& s, double t, N_Vector x, N_Vector lambda, double* result,
                    int first, int rows) {
  const int m = s.active;
  const Eigen::Map<const Eigen::MatrixXd> l(data(lambda), s.n(), s.block);
  Eigen::Map<Eigen::MatrixXd> out(result, rows, s.block);
  if (s.system->block_vector_jacobian) {
    s.system->block_vector_jacobian(t, data(x), l.leftCols(m), s.block_vjp);
    out.leftCols(m) = -s.block_vjp.middleRows(first, rows);
  } else {
    const Eigen::MatrixXd& jac = jacobian_at(s, t, data(x));
    out.leftCols(m).noalias() = -jac.middleCols(first, rows).transpose() * l.leftCols(m);
  }
  out.rightCols(s.block - m).setZero();
  bool quadrature_done = false;
  for (int c = 0; c < m; ++c) {
    const int k = s.block_quadrature[static_cast<size_t>(c)];
    if (k < 0) continue;
    if (!quadrature_done) s.system->quadrature_jacobian(t, data(x), s.work_q);
    quadrature_done = true;
    out.col(c) -= s.work_q.row(k).segment(first, rows).transpose();
  }
}

// The block of adjoint vectors Lambda (n x block): Lambda' = -f_x' Lambda (- g_x').
int block_adjoint_callback(sunrealtype t, N_Vector x, N_Vector lambda, N_Vector lambda_dot,
                           void* user_data) {
  return guarded(user_data, [&](CvodesSession& s) {
    block_products(s, t, x, lambda, data(lambda_dot), 0, s.n());
    return finite_derivatives(s, "adjoint right-hand side", data(lambda_dot),
                              N_VGetLength(lambda_dot), t);
  });
}

// The block's quadratures -(Lambda' f_p + g_p), np x block (see adjoint_quad_callback).
int block_quad_callback(sunrealtype t, N_Vector x, N_Vector lambda, N_Vector qdot,
                        void* user_data) {
  return guarded(user_data, [&](CvodesSession& s) {
    block_products(s, t, x, lambda, data(qdot), s.n(), s.np());
    return finite_derivatives(s, "adjoint quadrature (lambda' f_p)", data(qdot), N_VGetLength(qdot),
                              t);
  });
}

// The n x n block -f_x' of the sweep's Jacobian; block_solver applies it to every column.
int block_jac_callback(sunrealtype t, N_Vector x, N_Vector, N_Vector, SUNMatrix J, void* user_data,
                       N_Vector, N_Vector, N_Vector) {
  return guarded(user_data, [&](CvodesSession& s) {
    const int n = s.n();
    const Eigen::MatrixXd& jac = jacobian_at(s, t, data(x));
    Eigen::Map<Eigen::MatrixXd>(SUNDenseMatrix_Data(J), n, n) = -jac.leftCols(n).transpose();
    return 0;
  });
}

// The grid point where a functional's adjoint vector starts (joins the shared sweep).
int join_point(const AdjointFunctional& fn, const TimeGrid& grid) {
  return fn.quadrature >= 0 ? grid.points - 1 : fn.point;
}

// The adjoint vectors of all functionals (columns, in sweep order) and their quadratures,
// carried from stop to stop, and what the backward problem integrates between two stops.
struct Sweep {
  std::vector<int> order;     // functional of each column
  Eigen::MatrixXd lambda, q;  // n x P, np x P
  int joined = 0;             // columns joined so far
  // Transition mode: the backward state is [I_n | 0] at each stop (the n adjoint vectors of
  // the unit weights, and one particular solution per integral functional), and a segment
  // maps every joined column at once; else the state is the joined columns themselves.
  bool transition = false;
  std::vector<int> particular;  // per column: its particular solution's block column, or -1
};

// After the backward problem reached the next stop: the joined columns there.
void take_segment(CvodesSession& s, Sweep& w, int n, int np) {
  const Eigen::Map<const Eigen::MatrixXd> l(data(s.adjoint), n, s.block);
  const Eigen::Map<const Eigen::MatrixXd> q(data(s.adjoint_quad), np, s.block);
  const int m = w.joined;
  if (!w.transition) {
    w.lambda.leftCols(m) = l.leftCols(m);
    w.q.leftCols(m) = q.leftCols(m);
    return;
  }
  w.q.leftCols(m).noalias() += q.leftCols(n) * w.lambda.leftCols(m);
  const Eigen::MatrixXd mapped = l.leftCols(n) * w.lambda.leftCols(m);
  w.lambda.leftCols(m) = mapped;
  for (int c = 0; c < m; ++c) {
    const int k = w.particular[static_cast<size_t>(c)];
    if (k < 0) continue;
    w.lambda.col(c) += l.col(k);
    w.q.col(c) += q.col(k);
  }
}

// The backward problem's state at a stop: the joined columns, or [I_n | 0].
void segment_start(CvodesSession& s, const Sweep& w, int n, int np) {
  Eigen::Map<Eigen::MatrixXd> l(data(s.adjoint), n, s.block);
  Eigen::Map<Eigen::MatrixXd> q(data(s.adjoint_quad), np, s.block);
  if (w.transition) {
    l.setZero();
    l.leftCols(n).setIdentity();
    q.setZero();
  } else {
    l = w.lambda;
    q = w.q;
    s.active = w.joined;
  }
}

}  // namespace

const BackwardCallbacks kSharedSweep{block_adjoint_callback, block_quad_callback,
                                     block_jac_callback};

bool shared_sweep(CvodesSession& s, const OdeSystem& system, const TimeGrid& grid,
                  const IntegratorSettings& settings, const std::vector<AdjointFunctional>& wanted,
                  AdjointResult& result) {
  const int n = static_cast<int>(system.x0.size()), np = system.parameters;
  const int all = static_cast<int>(wanted.size());
  Sweep w;
  // Columns in the order the sweep meets the functionals: latest first.
  for (int c = 0; c < all; ++c) w.order.push_back(c);
  auto joins = [&](int c) { return join_point(wanted[static_cast<size_t>(w.order[c])], grid); };
  std::stable_sort(w.order.begin(), w.order.end(), [&](int a, int b) {
    return join_point(wanted[static_cast<size_t>(a)], grid) >
           join_point(wanted[static_cast<size_t>(b)], grid);
  });
  int integrals = 0;
  for (const AdjointFunctional& fn : wanted) integrals += fn.quadrature >= 0 ? 1 : 0;
  w.transition = n + integrals < all;  // the narrower backward block
  if (w.transition) {
    s.block = n + integrals;
    s.block_quadrature.assign(static_cast<size_t>(n), -1);
  } else {
    s.block = all;
  }
  for (int f : w.order) {
    const int k = wanted[static_cast<size_t>(f)].quadrature;
    w.particular.push_back(w.transition && k >= 0 ? static_cast<int>(s.block_quadrature.size())
                                                  : -1);
    if (!w.transition || k >= 0) s.block_quadrature.push_back(k);
  }
  s.active = s.block;
  w.lambda.setZero(n, all);
  w.q.setZero(np, all);
  s.adjoint = N_VNew_Serial(static_cast<sunindextype>(n) * s.block, s.context);
  s.adjoint_quad = N_VNew_Serial(static_cast<sunindextype>(np) * s.block, s.context);
  if (!s.adjoint || !s.adjoint_quad || !backward_solver(s, system, s.block)) {
    result.message = "CVODES: allocation of the shared backward sweep failed";
    return false;
  }
  int which = -1, flag = CV_SUCCESS, point = grid.points;
  sunrealtype t = 0;
  while (point > 0) {
    // The next stop: the next functional's time, t0 after the last.
    point = w.joined < all ? joins(w.joined) : 0;
    if (which >= 0) flag = CVodeB(s.memory, grid.at(point), CV_NORMAL);
    if (which >= 0 && flag >= 0) flag = CVodeGetB(s.memory, which, &t, s.adjoint);
    if (which >= 0 && flag >= 0) flag = CVodeGetQuadB(s.memory, which, &t, s.adjoint_quad);
    if (which >= 0 && flag >= 0) {
      long steps = 0;
      CVodeGetNumSteps(CVodeGetAdjCVodeBmem(s.memory, which), &steps);
      result.backward_steps += steps;
      take_segment(s, w, n, np);
    }
    // The vectors joining here start with h_x (0 for an integral).
    for (; w.joined < all && joins(w.joined) == point; ++w.joined) {
      const AdjointFunctional& fn = wanted[static_cast<size_t>(w.order[w.joined])];
      if (fn.quadrature < 0) w.lambda.col(w.joined) += fn.state_weight;
    }
    if (flag >= 0 && point > 0) {
      segment_start(s, w, n, np);
      // The error test's RMS norm spans every value of the block, the columns not yet joined
      // (0) included: tolerances times sqrt(joined / all) keep it the joined columns' RMS.
      const double scale = std::sqrt(static_cast<double>(s.active) / s.block);
      flag = start_backward(s, system, settings, grid.at(point), which, kSharedSweep, scale);
      ++result.sweep_stops;
    }
    if (flag < 0) {
      std::ostringstream stop;
      stop << "shared backward sweep (" << w.joined << " of " << all
           << " adjoint vectors joined, at t = " << grid.at(point) << ")";
      result.message = describe(s, stop.str(), flag);
      return false;
    }
  }
  result.backward_solves = which >= 0 ? 1 : 0;
  for (int c = 0; c < all; ++c) {
    result.gradients.row(w.order[static_cast<size_t>(c)]) =
        (system.x0_p.transpose() * w.lambda.col(c) + w.q.col(c)).transpose();
  }
  return true;
}

}  // namespace sao::sim::detail
