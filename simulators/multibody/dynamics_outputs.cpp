// A history output's derivatives on the sparse path (Dynamics::out<AD>, issue 52): an output
// that reads the accelerations or the multipliers z = (q'', lambda) of the augmented system
// A z = r is differentiated as o(x, p, z(x, p)) with z held, plus w' G, where w = A^-1 do/dz
// (A is symmetric) is one solve with the sparse augmented solver and G = d(r - A z)/d(x, p) is
// never formed: the derivatives of w'(r - A z) are summed term by term from the caller's AD
// scalars, element by element through the joints' entries of Phi_q. The dense path solved A z = r
// in AD scalars instead (a dense (n + m)^2 matrix of AD scalars and a dense LU).
#include <stdexcept>

#include "simulators/multibody/augmented_solver.hpp"
#include "simulators/multibody/dynamics.hpp"

namespace sao::sim::multibody {
namespace {

// Which output of the augmented system's solution an output index is.
struct SolvedOutput {
  enum Kind { kAcceleration, kReaction, kMarker } kind;
  int index = 0, component = 0;  // coordinate; joint and component; marker and component
};

bool solved_output(const MultibodyModel& model, int k, SolvedOutput& out) {
  const int nb = static_cast<int>(model.bodies.size());
  if (k < 9 * nb) {
    out = {SolvedOutput::kAcceleration, 3 * (k / 9) + k % 9 - 6, 0};
    return k % 9 >= 6;
  }
  int index = k - 9 * nb;
  for (const Force& f : model.forces) {
    if (f.kind == ForceKind::kSpringDamper) index -= 3;
  }
  if (index < 0) return false;
  const int joints = 3 * static_cast<int>(model.joints.size());
  if (index < joints) {
    out = {SolvedOutput::kReaction, index / 3, index % 3};
    return true;
  }
  index -= joints;
  if (index >= 6 * static_cast<int>(model.markers.size())) return false;
  out = {SolvedOutput::kMarker, index / 6, index % 6};
  return index % 6 >= 4 && model.markers[index / 6].at.body >= 0;
}

}  // namespace

bool Dynamics::sparse_out(int k, double t, const AD* x, const AD* p, const LoadCaseSpec& lc,
                          AD& out) const {
  SolvedOutput what{};
  if (!sparse() || !solved_output(model_, k, what)) return false;
  const int n = nq(), m = n_constraints();
  std::vector<double> xv(2 * static_cast<size_t>(n)), pv(model_.parameter_names.size());
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = x[i].value();
  for (size_t i = 0; i < pv.size(); ++i) pv[i] = p[i].value();
  const Env<double> ev = vars(pv.data(), t, lc);
  Vec<double> mass, rhs;
  std::vector<Coupling<double>> coupled;
  SparsePhi phi;
  augmented(xv.data(), xv.data() + n, ev, mass, coupled, phi, rhs);
  AugmentedSolver solver;
  solver.set_sparse(true);
  if (!solver.factor(mass, coupled, phi.matrix)) {
    throw std::runtime_error(singular_motion(t, x, p, lc));
  }
  const Eigen::VectorXd z = solver.solve(rhs);
  const Eigen::VectorXd qdd = z.head(n), lambda = z.tail(m);
  const Env<AD> v = vars(p, t, lc);
  // The output with z held (its derivatives in x and p), and do/dz (it is linear in z).
  Eigen::VectorXd gz = Eigen::VectorXd::Zero(n + m);
  switch (what.kind) {
    case SolvedOutput::kAcceleration:
      out = C<AD>(qdd(what.index));
      gz(what.index) = 1.0;
      break;
    case SolvedOutput::kReaction: {
      const Joint& j = model_.joints[what.index];
      int first = 0;
      for (int i = 0; i < what.index; ++i) first += model_.joints[i].equations();
      JointTerms<AD> terms;
      joint_terms(j, x, x + n, v, terms);
      Vec<AD> la(m);
      Vec<double> unit = Vec<double>::Zero(m);
      for (int r = first; r < first + j.equations(); ++r) {
        la(r) = C<AD>(lambda(r));
        unit(r) = 1.0;
        gz(n + r) = reaction<double>(what.index, what.component, phi.matrix, unit);
        unit(r) = 0.0;
      }
      out = reaction<AD>(what.index, what.component, JointPhiQ{j, terms, first}, la);
      break;
    }
    case SolvedOutput::kMarker: {
      const Marker& mk = model_.markers[what.index];
      const int b = 3 * mk.at.body;
      Vec<AD> held(n);
      Vec<double> unit = Vec<double>::Zero(n);
      const double base = marker(mk, what.component, xv.data(), xv.data() + n, unit.data(), ev);
      for (int c = b; c < b + 3; ++c) {
        held(c) = C<AD>(qdd(c));
        unit(c) = 1.0;
        gz(c) = marker(mk, what.component, xv.data(), xv.data() + n, unit.data(), ev) - base;
        unit(c) = 0.0;
      }
      out = marker(mk, what.component, x, x + n, held.data(), v);
      break;
    }
  }
  // w' G: the derivatives of w'(r - A z), r = (Q, stabilised gamma), A z = (M q'' + Phi_q'
  // lambda, Phi_q q''), with z held, summed term by term (a term without a derivative vector is
  // a constant).
  const Eigen::VectorXd w = solver.solve(gz);
  Eigen::VectorXd& d = out.derivatives();
  auto add = [&d](const AD& term, double factor) {
    if (factor != 0.0 && term.derivatives().size() == d.size()) d += factor * term.derivatives();
  };
  Vec<AD> masses, forces;
  std::vector<Coupling<AD>> couplings;
  mass_and_forces(x, x + n, v, masses, forces, &couplings);
  for (int i = 0; i < n; ++i) {
    add(forces(i), w(i));
    add(masses(i), -w(i) * qdd(i));
  }
  for (const Coupling<AD>& c : couplings) add(c.value, -(w(c.i) * qdd(c.j) + w(c.j) * qdd(c.i)));
  joint_entries(
      x, x + n, v,
      [&](int, int row, int col, const AD& value) {
        add(value, -(w(col) * lambda(row) + w(n + row) * qdd(col)));
      },
      [&](int row, const Joint& j, const JointTerms<AD>& terms, int r) {
        add(stabilised_gamma(j, terms, r, x + n, model_.alpha, model_.beta), w(n + row));
      });
  return true;
}

}  // namespace sao::sim::multibody
