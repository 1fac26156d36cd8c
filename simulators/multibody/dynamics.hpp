// The dynamics of a multibody model (model.hpp): the equations of motion
//   [M  Phi_q'] [q'']   [Q                                 ]
//   [Phi_q  0 ] [lam] = [gamma - 2 alpha Phi' - beta^2 Phi ]
// (Baumgarte-stabilised), solved through the Schur complement or a dense LU; the assembly at
// t0 with its parameter derivatives; and the per-run instance whose linearisation goes element
// by element through the augmented system instead of differentiating the solve.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "simulators/multibody/kinematics.hpp"

namespace sao::sim::multibody {

// One run in the absolute coordinates x = (q, q') (dynamics.cpp), with what the run in
// independent coordinates (reduced.hpp) reuses of it: the run's frozen quantities, the mass
// and forces, and their element-by-element derivatives.
class AbsoluteRun : public OdeModel::Instance {
 public:
  // The symbols at the run's last time and its frozen quantities.
  virtual Env<double>& env() = 0;
  // The diagonal of M and the generalised forces Q at (t, q, q'), into `mass` and `forces`.
  virtual void mass_and_forces(double t, const double* q, const double* qd, Vec<double>& mass,
                               Vec<double>& forces) = 0;
  // G' of the force rows: d(Q - M q'')/d(q, q', p_active) at (t, x) with q'' held at `qdd`,
  // (2n + na) x n.
  virtual Eigen::Ref<const Eigen::MatrixXd> force_derivatives(double t, const double* x,
                                                              const Eigen::VectorXd& qdd) = 0;
  // The same, transposed and sparse: G = d(Q - M q'')/d(q, q', p_active), n x (2n + na), with
  // every derivative an element has, zero or not (its pattern the same at every point of a run).
  virtual void sparse_force_derivatives(double t, const double* x, const Eigen::VectorXd& qdd,
                                        Eigen::SparseMatrix<double>& out) = 0;
  // From now on, the derivatives in the coordinates i (and their velocities) with needed[i]
  // false are not formed: their rows of G' stay zero (a run in independent coordinates whose
  // null-space basis has a zero row there multiplies them by zero anyway). Every element's
  // other derivatives are those it had: forward AD keeps its directions apart.
  virtual void restrict_coordinates(const std::vector<bool>& needed) = 0;
};

// The dynamic equations of a model; the member templates exist for double and AD.
class Dynamics : public Kinematics {
 public:
  using Kinematics::Kinematics;

  // The augmented system A z = r of the accelerations and multipliers: the mass matrix (its
  // diagonal, and the couplings of beam elements), Phi_q (Mat<S>, or for double a SparsePhi
  // of the joints' pattern), and r = (Q, gamma with Baumgarte stabilisation), at (t, q, q').
  // `forces`, when given, is the scratch of the generalised forces (reused from call to call:
  // no allocation).
  template <class S, class PhiQ = Mat<S>>
  void augmented(const S* q, const S* qd, const Env<S>& env, Vec<S>& mass,
                 std::vector<Coupling<S>>& coupled, PhiQ& phi_q, Vec<S>& rhs,
                 Vec<S>* forces = nullptr) const;
  // Solves for q'' and the multipliers lambda at (t, q, q'); false when the system is singular.
  template <class S>
  bool accelerations(const S* q, const S* qd, const Env<S>& env, Vec<S>& qdd,
                     Vec<S>* lambda = nullptr, Mat<S>* phi_q = nullptr) const;
  // x' = (q', q'') at x = (q, q'); false when the system is singular.
  template <class S>
  bool equations(const S* x, S* xdot, const Env<S>& env) const;
  // x0(p): assembled at t0 (constraints plus the initial conditions, by Newton), velocities
  // projected onto the constraints; for AD with exact first derivatives.
  template <class S>
  void initial(const S* p, S* x0, const LoadCaseSpec& lc) const;
  // History output or integrand k at (t, x).
  template <class S>
  S out(int k, double t, const S* x, const S* p, const LoadCaseSpec& lc) const;
  // Why the equations of motion are singular at (t, x): the joints whose equations depend on
  // the others' (lock-up, a redundant joint), else the bodies without mass or inertia.
  template <class S>
  std::string singular_motion(double t, const S* x, const S* p, const LoadCaseSpec& lc) const;

  // Every history output at x = (q, q') into h: the augmented system solved for q'' and the
  // multipliers, through the sparse Phi_q and Schur complement on the sparse path (sparse());
  // false when the system is singular.
  bool history_values_at(const double* x, const Env<double>& env,
                         Eigen::Ref<Eigen::VectorXd> h) const;

  // One run at parameters p in load case lc, differentiated with respect to `active`.
  std::unique_ptr<AbsoluteRun> run(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                                   const std::vector<int>& active) const;

 private:
  // out<AD> on the sparse path (dynamics_outputs.cpp) for an output that reads the
  // accelerations or the multipliers: the augmented system solved once in double by the sparse
  // solver, the output's derivatives through one more solve (A^-1 do/dz) and w'(r - A z) in AD
  // element by element; false (nothing done) on the dense path or for any other output.
  bool sparse_out(int k, double t, const AD* x, const AD* p, const LoadCaseSpec& lc, AD& out) const;
};

}  // namespace sao::sim::multibody
