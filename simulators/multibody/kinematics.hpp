// The kinematics of a multibody model (model.hpp): the constraint equations and generalised
// forces assembled from the elements (elements.hpp), assembly by Newton's method, and the
// kinematic analysis of a driven model with its direct and adjoint sensitivities (seed 003,
// 4.15-4.33), solved point by point on the grid.
#pragma once

#include <Eigen/SparseCore>
#include <string>
#include <vector>

#include "simulators/integrator/sparse_factor.hpp"
#include "simulators/multibody/beam.hpp"
#include "simulators/multibody/elements.hpp"

namespace sao::sim::multibody {

// An off-diagonal entry (i < j, and its mirror j, i) of the mass matrix: beam elements couple
// the translations of their two nodes.
template <class S>
struct Coupling {
  int i, j;
  S value;
};

// The mass matrix, dense, from its diagonal and the couplings of beam elements.
template <class S>
Mat<S> mass_matrix(const Vec<S>& mass, const std::vector<Coupling<S>>& coupled) {
  const auto n = mass.size();
  Mat<S> M = Mat<S>::Constant(n, n, C<S>(0.0));
  M.diagonal() = mass;
  for (const Coupling<S>& c : coupled) {
    M(c.i, c.j) += c.value;
    M(c.j, c.i) += c.value;
  }
  return M;
}

// Phi_q as a sparse matrix (m x n, compressed) whose pattern is the joints' structure: every
// coordinate of a joint's bodies in each of its rows, whatever the values (an entry that passes
// through zero, a joint's sin 0, keeps its place), so that one symbolic analysis serves a whole
// run. `slot` holds the place in the matrix's values of each entry in the order joint_rows
// visits them (Kinematics::sparse_phi_pattern).
struct SparsePhi {
  Eigen::SparseMatrix<double> matrix;
  std::vector<int> slot;
};

// The solution of the kinematic equations at one time point, and every history value there.
template <class S>
struct KinematicState {
  Vec<S> q, qd, qdd, lambda, values;
  Mat<S> phi_q;
};

// What the sparse path of the kinematic equations keeps from call to call (Kinematics::sparse):
// Phi_q in the joints' pattern and its sparse LU, whose symbolic analysis serves every
// factorisation of a run (the pattern holds whatever the values).
struct SparseKinematics {
  SparsePhi phi_q;
  SparseFactor lu;
};

// One joint's rows of Phi_q, read from its terms as Phi_q's entries (row, column): the
// reaction of that joint alone (Kinematics::reaction) without the whole Phi_q.
struct JointPhiQ {
  const Joint& joint;
  const JointTerms<AD>& terms;
  int first;  // the joint's first constraint row
  AD coeff(Eigen::Index row, Eigen::Index col) const {
    AD out = C<AD>(0.0);
    for_each_column(joint.a, joint.b, [&](int local, int c) {
      if (c == col) out = terms.phi_q[row - first][local];
    });
    return out;
  }
};

// What a kinematic analysis differentiates, and where the derivatives go.
struct KinematicRequest {
  const std::vector<int>* active = nullptr;          // parameter indices
  const std::vector<OutputPoint>* wanted = nullptr;  // (history output, grid point)
  bool adjoint = false;
  Eigen::MatrixXd* rows = nullptr;  // wanted x active
};

// Whether a factorised matrix is safely invertible. Eigen's condition estimate alone is not
// enough: it reports 1 for an exactly zero pivot (a massless free body), so the pivots are
// checked too.
bool regular(const Eigen::PartialPivLU<Eigen::MatrixXd>& lu);

// x = A^-1 b; for AD scalars through the derivative of the solution, dx = A^-1 (db - dA x).
// False when A is singular. For double and AD. With `sparse`, A's values go through a sparse
// LU (SparseFactor, its pivots tested as `regular` tests the dense LU's) instead of a dense LU.
template <class S>
bool solve(const Mat<S>& A, const Vec<S>& b, Vec<S>& x, bool sparse = false);

// x = J' (J J')^-1 b, the smallest x with J x = b; false when J J' is singular (J's rows
// dependent). For double and AD; for AD through double products per direction,
// J J' dy = db - dJ x - J dJ' y and dx = dJ' y + J' dy, instead of AD scalars' products (a
// heap derivative vector per multiplication) and the derivatives of J J' in every direction.
// With `sparse`, J J' is a sparse product factored by a sparse LDL' (its pivots' spread as the
// regularity test) instead of a dense m x n x m product and a dense LU.
template <class S>
bool least_norm(const Mat<S>& J, const Vec<S>& b, Vec<S>& x, bool sparse = false);

// The equations of a model, assembled; the member templates exist for double and AD.
class Kinematics {
 public:
  explicit Kinematics(const MultibodyModel& model) : model_(model) {}
  const MultibodyModel& model() const { return model_; }
  int nq() const { return model_.nq(); }
  int n_constraints() const { return model_.n_constraints(); }

  // Whether the model's linear algebra goes sparse: "linear_algebra" "sparse", or "auto" with at
  // least kSparseFrom unknowns (coordinates and constraint equations), kSparseFromBeams for a
  // model with beam elements (measured in docs/performance.md). A dynamic run in absolute
  // coordinates then factors its augmented system and Newton matrices sparse
  // (augmented_solver.hpp); every model its assembly (Newton on Phi = 0, the least-norm steps),
  // a kinematic model its kinematic equations (Phi_q's sparse LU, one symbolic analysis per
  // analysis), and the history outputs their augmented solves.
  static constexpr int kSparseFrom = 80;
  static constexpr int kSparseFromBeams = 40;
  bool sparse() const;
  // The choice and why, for the log: "multibody: sparse linear algebra (...)".
  std::string linear_algebra_summary() const;

  // The symbols at time t: parameters, t, load-case parameters.
  template <class S>
  Env<S> vars(const S* p, double t, const LoadCaseSpec& lc) const {
    Env<S> env;
    env.symbols.assign(p, p + model_.parameter_names.size());
    env.t_index = static_cast<int>(model_.parameter_names.size());
    env.symbols.push_back(C<S>(t));
    for (size_t i = 0; i < model_.load_names.size(); ++i) {
      const auto it = lc.parameters.find(model_.load_names[i]);
      env.symbols.push_back(C<S>(it == lc.parameters.end() ? model_.load_defaults[i] : it->second));
    }
    env.t = t;
    env.lc = &lc;
    return env;
  }
  // Phi_q of every joint into phi_q (dense), and visit(row, joint, terms, k) for every
  // constraint row (row k of the joint's terms).
  template <class S, class Visit>
  void joint_rows(const S* q, const S* qd, const Env<S>& env, Mat<S>& phi_q, Visit visit) const {
    phi_q =
        Mat<S>::Constant(n_constraints(), nq(), S(0.0));  // for AD: no derivatives until written
    joint_entries(
        q, qd, env, [&](int, int row, int col, const S& value) { phi_q(row, col) = value; }, visit);
  }
  // The same into a sparse Phi_q of the joints' pattern (made at the first call): work in
  // proportion to the joints, not to m x n.
  template <class Visit>
  void joint_rows(const double* q, const double* qd, const Env<double>& env, SparsePhi& phi_q,
                  Visit visit) const {
    if (phi_q.matrix.rows() != n_constraints() || phi_q.matrix.cols() != nq()) {
      sparse_phi_pattern(phi_q);
    }
    double* values = phi_q.matrix.valuePtr();
    const int* slot = phi_q.slot.data();
    joint_entries(
        q, qd, env, [&](int entry, int, int, double value) { values[slot[entry]] = value; }, visit);
  }
  // entry(index, row, column, value) for every entry of Phi_q a joint writes (numbered in the
  // order visited), and visit(row, joint, terms, k) for every constraint row (row k of the
  // joint's terms).
  template <class S, class Entry, class Visit>
  void joint_entries(const S* q, const S* qd, const Env<S>& env, Entry entry, Visit visit) const {
    JointTerms<S> terms;
    int row = 0, index = 0;
    for (const Joint& j : model_.joints) {
      joint_terms(j, q, qd, env, terms);
      for (int k = 0; k < j.equations(); ++k) {
        for_each_column(j.a, j.b, [&](int local, int col) {
          entry(index++, row + k, col, terms.phi_q[k][local]);
        });
        visit(row + k, j, terms, k);
      }
      row += j.equations();
    }
  }
  // The joints' pattern of Phi_q (values zero) and the slots of its entries (SparsePhi).
  void sparse_phi_pattern(SparsePhi& phi_q) const;
  // Phi, Phi_q, Phi_t and gamma (Phi_q q'' = gamma) of every joint at (t, q, q'); Phi_q dense
  // (Mat<S>) or, for double, a SparsePhi of the joints' pattern.
  template <class S, class PhiQ = Mat<S>>
  void constraints(const S* q, const S* qd, const Env<S>& env, Vec<S>& phi, PhiQ& phi_q,
                   Vec<S>& phi_t, Vec<S>& gamma) const;
  // The diagonal of the mass matrix, its off-diagonal entries (beam elements; into `coupled`
  // when given), and the generalised forces Q (weights, force and beam elements) at (t, q, q').
  template <class S>
  void mass_and_forces(const S* q, const S* qd, const Env<S>& env, Vec<S>& mass, Vec<S>& Q,
                       std::vector<Coupling<S>>* coupled = nullptr) const;
  // Reaction of joint `joint` (0 fx, 1 fy, 2 torque) on its second body (the first when the
  // second is the ground): -Phi_q' lambda over the joint's rows, the torque from its angle row.
  // Phi_q dense (Mat<S>) or, for double, sparse (Eigen::SparseMatrix<double>).
  template <class S, class PhiQ = Mat<S>>
  S reaction(int joint, int component, const PhiQ& phi_q, const Vec<S>& lambda) const;
  // Every history output at (q, q', q'') with the multipliers lambda.
  template <class S, class PhiQ = Mat<S>>
  Vec<S> history_values(const Vec<S>& q, const Vec<S>& qd, const Vec<S>& qdd, const Vec<S>& lambda,
                        const PhiQ& phi_q, const Env<S>& env) const;
  // The symbols of the integrands at (t, x): the model's, then x, y, theta, vx, vy, omega of
  // every body.
  template <class S>
  std::vector<S> integrand_symbols(const Env<S>& env, const S* x) const;

  // Newton on the position equations (plus `fix` rows for the initial conditions); on the sparse
  // path (sparse()) through `kept` (a run's, so that its symbolic analysis serves every point;
  // null: a local one).
  std::string assemble(double t, const double* p, const LoadCaseSpec& lc, Eigen::VectorXd& q,
                       bool initial_conditions, int* iterations = nullptr,
                       SparseKinematics* kept = nullptr) const;
  // The kinematic analysis; with a request, also the derivatives it asks for.
  std::string analyse(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                      const KinematicRequest* request, CaseResult& out) const;

  // The joint (or initial condition) of constraint row `row`.
  std::string row_owner(Eigen::Index row) const;
  // The owner of the largest residual.
  std::string worst_joint(const Eigen::VectorXd& phi) const;
  // "" when the rows of J (joints, then initial conditions) are independent, else "the
  // equations of joint ... depend on the others' (lock-up or a redundant joint)".
  std::string dependent_rows(const Eigen::MatrixXd& J) const;

 protected:
  const MultibodyModel& model_;

 private:
  // Velocities, accelerations, reactions and history values at the solved positions q; for AD
  // parameters with their derivatives (the dense path's direct method).
  template <class S>
  bool kinematic_point(double t, const Eigen::VectorXd& q, const S* p, const LoadCaseSpec& lc,
                       KinematicState<S>& out) const;
  // The same for double on the sparse path: one sparse LU of Phi_q (in `kept`) for q', q'' and,
  // transposed, lambda; out.phi_q is left empty (the reactions read the sparse Phi_q).
  bool sparse_kinematic_point(double t, const Eigen::VectorXd& q, const double* p,
                              const LoadCaseSpec& lc, SparseKinematics& kept,
                              KinematicState<double>& out) const;
  // The assembly's Newton step on the sparse path: J = Phi_q (kept.phi_q, assembled at q) with
  // the initial conditions' rows when phi has them (m + c rows), J^-1 phi when J is square (its
  // sparse LU in kept.lu), else the smallest step J' (J J')^-1 phi; false when J is singular.
  bool sparse_newton_step(const Eigen::VectorXd& phi, SparseKinematics& kept,
                          Eigen::VectorXd& step) const;
  // The requested derivatives at grid point `point` (direct or adjoint), the analysis's state
  // `solved` there; on the sparse path through `kept`, its LU of Phi_q at that point; "" or why
  // not.
  std::string kinematic_sensitivities(double t, int point, const Eigen::VectorXd& p,
                                      const LoadCaseSpec& lc, const KinematicRequest& request,
                                      const KinematicState<double>& solved,
                                      SparseKinematics& kept) const;
  // The same on the sparse path (kinematics_sensitivities.cpp) for the wanted values `here`:
  // the levels' Jacobians in (q, q', q'', lambda, p) assembled sparse element by element, the
  // direct method's solves and the adjoint's with kept.lu (Phi_q, factored at this point).
  void sparse_sensitivities(double t, const std::vector<size_t>& here, const Eigen::VectorXd& p,
                            const LoadCaseSpec& lc, const KinematicRequest& request,
                            const KinematicState<double>& solved, SparseKinematics& kept) const;
};

}  // namespace sao::sim::multibody
