// A fixed-step variational integrator for the constrained equations of a dynamic multibody
// model (seed 004; docs/variational.md), and its discrete direct and adjoint sensitivities.
//
// The discrete Lagrangian of the midpoint rule, L_d(q0, q1) = h L((q0 + q1)/2, (q1 - q0)/h),
// with the generalised forces Q (weights, springs, dampers, beams) at the midpoint as discrete
// forcing, and the constraints at index 3 with their multipliers as unknowns, in the
// position-momentum (RATTLE) form: one step from (q0, v0) at t0 to (q1, v1) at t1 = t0 + h
// solves, for w = (q1, lambda, v1, mu),
//   M (vm - v0) - h/2 (Q(tm, qm, vm) - Phi_q(t0, q0)' lambda) = 0,   vm = (q1 - q0)/h,
//   Phi(t1, q1) = 0,                                                  qm = (q0 + q1)/2,
//   M (v1 - vm) - h/2 (Q(tm, qm, vm) - Phi_q(t1, q1)' mu) = 0,
//   Phi_q(t1, q1) v1 + Phi_t(t1, q1) = 0,
// by Newton's method, the Jacobians by automatic differentiation of the element templates
// (compressed: one direction per colour of their columns), the linear solves by a dense LU
// (small models) or Eigen's sparse LU. M is constant (absolute coordinates with the reference
// point at the centre of mass; beams: consistent mass), so the scheme is the symplectic
// constrained variational integrator: no energy drift.
//
// The discrete map is differentiated exactly: the direct method carries dw/dp forward through
// the steps' Newton matrices, the adjoint method makes one backward sweep of linear solves with
// their transposes (recomputed from the stored states), for every requested value at once.
// Responses read the state (q, v) at the grid points; accelerations and reactions there come
// from the augmented system [M Phi_q'; Phi_q 0] at that state (Dynamics::out), so an
// objective with accelerations at the final time gets the consistent terminal condition.
#pragma once

#include <Eigen/SparseCore>
#include <string>
#include <vector>

#include "simulators/multibody/dynamics.hpp"

namespace sao::sim::multibody {

class StepSolver;  // variational.cpp: a step's Newton matrix factorised

// What one integration produced: the states (q, v) on the grid (a row per grid point), the
// integral outputs (trapezoidal rule over the steps), and, when kept, every step.
struct VariationalRun {
  Eigen::MatrixXd states;
  Eigen::VectorXd integrals;
  std::vector<double> times;                        // every step's end, times[0] = t0
  std::vector<Eigen::VectorXd> w;                   // step j (1-based): w[j] = (q1, lambda, v1, mu)
  std::vector<Eigen::SparseMatrix<double>> newton;  // step j: its last Newton matrix dR/dw
  std::vector<int> node_of_point;                   // grid point -> index into times
  int newton_iterations = 0;                        // summed over the steps
};

class Variational {
 public:
  explicit Variational(const Dynamics& dynamics) : dynamics_(dynamics) {}

  // Integrates at parameters p in load case lc; keep: store every step (for the adjoint).
  // Returns "" or why it failed (no assembly, Newton not converging, singular step).
  std::string integrate(const Eigen::VectorXd& p, const LoadCaseSpec& lc, bool keep,
                        VariationalRun& run) const;
  // The derivatives of history output k at grid point i (or, point -1, of integral output
  // k - history outputs) with respect to the parameters `active`, by the discrete direct
  // (adjoint false) or adjoint method, into rows (wanted x active); run: from integrate with
  // keep = true.
  std::string derivatives(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                          const std::vector<int>& active, const std::vector<OutputPoint>& wanted,
                          bool adjoint, const VariationalRun& run, Eigen::MatrixXd& rows) const;

  // The step residual R(w; x0, p) of step (t0, h) and, by AD, its derivatives: dR/dw
  // (kUnknowns), [dR/dx0 | dR/dp_active] (kInputs) or all three (kAll).
  enum class Blocks { kUnknowns, kInputs, kAll };
  void linearise(double t0, double h, const double* x0, const Eigen::VectorXd& w,
                 const Eigen::VectorXd& p, const std::vector<int>& active, Blocks blocks,
                 const LoadCaseSpec& lc, Eigen::VectorXd& R, Eigen::MatrixXd& J) const;
  // Columns of R's Jacobians coloured for compressed AD: `rows` lists the rows each column can
  // reach (from the model's topology: the bodies each element joins and the parameters it
  // reads), and columns of one colour reach disjoint rows, so that one AD direction per colour
  // gives every column. input_colouring colours [dR/dx0 | dR/dp_active]: a parameter read by
  // one element reaches a few rows, so the number of colours barely grows with the number of
  // parameters. unknown_colouring colours Newton's matrix dR/dw: a joint or an element couples
  // a few coordinates, so the number of colours depends on the largest coupling, not on the
  // size of the model.
  struct Colouring {
    std::vector<std::vector<int>> rows;  // column -> the rows it may reach
    std::vector<int> colour;             // column -> its AD direction, -1: reaches no row
    int colours = 0;
  };
  Colouring input_colouring(const std::vector<int>& active) const;
  Colouring unknown_colouring() const;
  // [dR/dx0 | dR/dp_active] of step (t0, h) at w, by AD in colouring.colours directions.
  void input_jacobian(double t0, double h, const double* x0, const Eigen::VectorXd& w,
                      const Eigen::VectorXd& p, const std::vector<int>& active,
                      const Colouring& colouring, const LoadCaseSpec& lc, Eigen::MatrixXd& J) const;
  // R and Newton's matrix dR/dw (its exact zeros dropped) of step (t0, h) at w, by AD in
  // colouring.colours directions (colouring: unknown_colouring()).
  void unknown_jacobian(double t0, double h, const double* x0, const Eigen::VectorXd& w,
                        const Eigen::VectorXd& p, const Colouring& colouring,
                        const LoadCaseSpec& lc, Eigen::VectorXd& R,
                        Eigen::SparseMatrix<double>& J) const;
  // [d out_k/dx | d out_k/dp_active] at (t, x): output k of Dynamics::out.
  Eigen::RowVectorXd output_gradient(int k, double t, const double* x, const Eigen::VectorXd& p,
                                     const std::vector<int>& active, const LoadCaseSpec& lc) const;

 private:
  template <class S>
  void residual(double t0, double h, const S* x0, const S* w, const S* p, const LoadCaseSpec& lc,
                S* R) const;
  // dx0/dp_active: the assembly at t0 differentiated.
  Eigen::MatrixXd initial_derivatives(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                                      const std::vector<int>& active) const;
  // Which rows of R each column of [w | x0 | p_active] may reach (the colourings' source).
  std::vector<std::vector<char>> reach(const std::vector<int>& active) const;
  static Colouring colour(const std::vector<std::vector<char>>& reach, int first, int count);
  std::string step(double t0, double h, const double* x0, const Eigen::VectorXd& p,
                   const LoadCaseSpec& lc, const Colouring& colouring, StepSolver& solver,
                   Eigen::VectorXd& w, int& iterations, Eigen::SparseMatrix<double>* newton) const;

  const Dynamics& dynamics_;
};

}  // namespace sao::sim::multibody
