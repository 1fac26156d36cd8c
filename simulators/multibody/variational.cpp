#include "simulators/multibody/variational.hpp"

#include <Eigen/SparseLU>
#include <cmath>
#include <sstream>

#include "simulators/integrator/sparse_factor.hpp"

namespace sao::sim::multibody {

// Above this many unknowns per step the Newton matrix goes to Eigen's sparse LU (joints and
// elements couple a few coordinates each), below it to a dense LU.
constexpr Eigen::Index kDenseLimit = 80;

// A factorised Newton matrix (or its transpose), dense or sparse by size. The sparse LU keeps
// its symbolic analysis from matrix to matrix while their pattern holds (SparseFactor): one
// solver serves every Newton iteration of a run's steps, or every step of a sensitivity sweep.
class StepSolver {
 public:
  // False when J is singular.
  bool factor(const Eigen::SparseMatrix<double>& J) {
    sparse_ = J.rows() > kDenseLimit;
    if (!sparse_) {
      dense_.compute(Eigen::MatrixXd(J));
      return regular(dense_);
    }
    Eigen::SparseMatrix<double> merged = J;  // merged with the earlier patterns
    return sparse_lu_.factor(merged);
  }
  Eigen::MatrixXd solve(const Eigen::MatrixXd& b) {
    if (!sparse_) return dense_.solve(b);
    return sparse_lu_.solve(b);
  }

 private:
  bool sparse_ = false;
  Eigen::PartialPivLU<Eigen::MatrixXd> dense_;
  SparseFactor sparse_lu_;
};

namespace {

// An entry of Phi_q times x. In AD a joint leaves the entries it does not write (and constant
// ones) without a derivative vector (elements.hpp, JointTerms), and Eigen's AutoDiffScalar
// does not make a scaled expression of such an entry coherent with a full one: such an entry
// enters as its value alone.
template <class S>
S times(const S& entry, const S& x) {
  if constexpr (!std::is_same_v<S, double>) {
    if (entry.derivatives().size() != ad_size) return entry.value() * x;
  }
  return entry * x;
}

// AD copies of `values`, seeded on directions first.. (first < 0: constants).
void seeded(const double* values, int count, int first, int directions, std::vector<AD>& out) {
  out.resize(count);
  for (int i = 0; i < count; ++i) {
    out[i] = AD(values[i], Eigen::VectorXd::Zero(directions));
    if (first >= 0) out[i].derivatives()(first + i) = 1.0;
  }
}

// The largest relative change of the positions and velocities in a Newton update.
double relative_update(const Eigen::VectorXd& w, const Eigen::VectorXd& dw, int n, int m) {
  double worst = 0.0;
  for (int i = 0; i < n; ++i) {
    worst = std::max(worst, std::abs(dw(i)) / (1.0 + std::abs(w(i))));
    const int v = n + m + i;
    worst = std::max(worst, std::abs(dw(v)) / (1.0 + std::abs(w(v))));
  }
  return worst;
}

}  // namespace

template <class S>
void Variational::residual(double t0, double h, const S* x0, const S* w, const S* p,
                           const LoadCaseSpec& lc, S* R) const {
  const int n = dynamics_.nq(), m = dynamics_.n_constraints();
  const S* q0 = x0;
  const S* v0 = x0 + n;
  const S* q1 = w;
  const S* lambda = w + n;
  const S* v1 = w + n + m;
  const S* mu = w + 2 * n + m;
  Vec<S> qm(n), vm(n);
  for (int i = 0; i < n; ++i) {
    qm(i) = 0.5 * (q0[i] + q1[i]);
    vm(i) = (q1[i] - q0[i]) / h;
  }
  Vec<S> mass, Q;
  std::vector<Coupling<S>> coupled;
  dynamics_.mass_and_forces(qm.data(), vm.data(), dynamics_.vars(p, t0 + 0.5 * h, lc), mass, Q,
                            &coupled);
  // The force rows ra = M (vm - v0) - h/2 (Q - Phi_q(q0)' lambda) and
  // rc = M (v1 - vm) - h/2 (Q - Phi_q(q1)' mu), through M's diagonal and its couplings and
  // Phi_q's entries one by one: work in proportion to the model, not to n^2.
  S* ra = R;
  S* rc = R + n + m;
  for (int i = 0; i < n; ++i) {
    ra[i] = mass(i) * (vm(i) - v0[i]) - 0.5 * h * Q(i);
    rc[i] = mass(i) * (v1[i] - vm(i)) - 0.5 * h * Q(i);
  }
  for (const Coupling<S>& c : coupled) {
    ra[c.i] += c.value * (vm(c.j) - v0[c.j]);
    ra[c.j] += c.value * (vm(c.i) - v0[c.i]);
    rc[c.i] += c.value * (v1[c.j] - vm(c.j));
    rc[c.j] += c.value * (v1[c.i] - vm(c.i));
  }
  auto none = [](int, const Joint&, const JointTerms<S>&, int) {};
  dynamics_.joint_entries(
      q0, v0, dynamics_.vars(p, t0, lc),
      [&](int, int row, int col, const S& value) {
        ra[col] += 0.5 * h * times(value, lambda[row]);
      },
      none);
  // Phi(q1) and the velocity constraints rd = Phi_q(q1) v1 + Phi_t(q1).
  S* phi = R + n;
  S* rd = R + 2 * n + m;
  for (int i = 0; i < m; ++i) rd[i] = C<S>(0.0);
  dynamics_.joint_entries(
      q1, v1, dynamics_.vars(p, t0 + h, lc),
      [&](int, int row, int col, const S& value) {
        rc[col] += 0.5 * h * times(value, mu[row]);
        rd[row] += times(value, v1[col]);
      },
      [&](int row, const Joint&, const JointTerms<S>& terms, int k) {
        phi[row] = terms.phi[k];
        rd[row] += terms.phi_t[k];
      });
}

void Variational::linearise(double t0, double h, const double* x0, const Eigen::VectorXd& w,
                            const Eigen::VectorXd& p, const std::vector<int>& active, Blocks blocks,
                            const LoadCaseSpec& lc, Eigen::VectorXd& R, Eigen::MatrixXd& J) const {
  const int n = dynamics_.nq(), size = static_cast<int>(w.size());
  const bool unknowns = blocks != Blocks::kInputs, inputs = blocks != Blocks::kUnknowns;
  const int na = inputs ? static_cast<int>(active.size()) : 0;
  const int first_input = unknowns ? size : 0;
  const int directions = first_input + (inputs ? 2 * n + na : 0);
  ad_size = directions;
  std::vector<AD> ws, xs, ps;
  seeded(w.data(), size, unknowns ? 0 : -1, directions, ws);
  seeded(x0, 2 * n, inputs ? first_input : -1, directions, xs);
  seeded(p.data(), static_cast<int>(p.size()), -1, directions, ps);
  for (int a = 0; a < na; ++a) ps[active[a]].derivatives()(first_input + 2 * n + a) = 1.0;
  std::vector<AD> r(size);
  residual<AD>(t0, h, xs.data(), ws.data(), ps.data(), lc, r.data());
  R.resize(size);
  J.resize(size, directions);
  for (int i = 0; i < size; ++i) {
    R(i) = r[i].value();
    if (r[i].derivatives().size() == directions) {
      J.row(i) = r[i].derivatives().transpose();
    } else {
      J.row(i).setZero();
    }
  }
}

std::vector<std::vector<char>> Variational::reach(const std::vector<int>& active) const {
  const MultibodyModel& model = dynamics_.model();
  const int n = dynamics_.nq(), m = dynamics_.n_constraints(), size = 2 * n + 2 * m;
  const int na = static_cast<int>(active.size());
  // reach[column][row]: R's rows are (ra: n, Phi: m, rc: n, rd: m), its columns
  // (q1, lambda, v1, mu: the unknowns w; then q0, v0: the step's start x0; then p_active).
  const int q1 = 0, lambda = n, v1 = n + m, mu = 2 * n + m, q0 = size, v0 = size + n;
  const int ra = 0, phi = n, rc = n + m, rd = 2 * n + m;
  std::vector<std::vector<char>> reach(size + 2 * n + na, std::vector<char>(size, 0));
  std::vector<std::vector<int>> of_parameter(model.parameter_names.size());
  for (int a = 0; a < na; ++a) of_parameter[active[a]].push_back(size + 2 * n + a);
  // Every column in `from` reaches the rows `first + r` for r in `to`.
  auto link = [&](const std::vector<int>& from, const std::vector<int>& to, int first) {
    for (int column : from) {
      for (int r : to) reach[column][first + r] = 1;
    }
  };
  auto parameters = [&](const Reads& reads) {
    std::vector<int> out;
    for (int i : reads.parameters)
      out.insert(out.end(), of_parameter[i].begin(), of_parameter[i].end());
    return out;
  };
  auto coordinates = [](int a, int b) {
    std::vector<int> cols;
    for_each_column(a, b, [&](int, int col) { cols.push_back(col); });
    return cols;
  };
  auto shifted = [](std::vector<int> cols, int by) {
    for (int& c : cols) c += by;
    return cols;
  };
  // Terms of (qm, vm) in both force rows: the columns of q0 and q1 and the parameters read.
  auto at_midpoint = [&](const std::vector<int>& cols, const Reads& reads) {
    for (int first : {ra, rc}) {
      link(shifted(cols, q0), cols, first);
      link(shifted(cols, q1), cols, first);
      link(parameters(reads), cols, first);
    }
  };
  // Bodies: M (vm - v0) and M (v1 - vm), the weights; beams: their mass couplings as well.
  for (size_t i = 0; i < model.bodies.size(); ++i) {
    const std::vector<int> own = coordinates(static_cast<int>(i), -1);
    at_midpoint(own, model.bodies[i].reads);
    link(shifted(own, v0), own, ra);
    link(shifted(own, v1), own, rc);
  }
  for (const Force& f : model.forces) at_midpoint(coordinates(f.a, f.b), f.reads);
  for (const BeamElement& e : model.beam_elements) {
    const std::vector<int> cols = coordinates(e.a, e.b);
    at_midpoint(cols, e.reads);
    link(shifted(cols, v0), cols, ra);
    link(shifted(cols, v1), cols, rc);
  }
  // Joints: Phi_q(q0)' lambda in ra, Phi(q1) and Phi_q(q1) v1 + Phi_t in their own rows,
  // Phi_q(q1)' mu in rc; their parameters every one of these rows.
  int row = 0;
  for (const Joint& j : model.joints) {
    const std::vector<int> cols = coordinates(j.a, j.b);
    std::vector<int> own(j.equations());
    for (int k = 0; k < j.equations(); ++k) own[k] = row + k;
    link(shifted(cols, q0), cols, ra);
    link(shifted(own, lambda), cols, ra);
    link(shifted(cols, q1), own, phi);
    link(shifted(cols, q1), cols, rc);
    link(shifted(own, mu), cols, rc);
    link(shifted(cols, q1), own, rd);
    link(shifted(cols, v1), own, rd);
    const std::vector<int> reads = parameters(j.reads);
    for (int first : {ra, rc}) link(reads, cols, first);
    for (int first : {phi, rd}) link(reads, own, first);
    row += j.equations();
  }
  return reach;
}

Variational::Colouring Variational::colour(const std::vector<std::vector<char>>& reach, int first,
                                           int count) {
  // Greedy: each column takes the first colour none of whose columns shares a row.
  Colouring out;
  out.rows.resize(count);
  out.colour.assign(count, -1);
  std::vector<std::vector<char>> taken;  // colour -> the rows its columns reach
  for (int column = 0; column < count; ++column) {
    const std::vector<char>& rows = reach[first + column];
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
      if (rows[r]) out.rows[column].push_back(r);
    }
    if (out.rows[column].empty()) continue;
    int colour = 0;
    for (; colour < static_cast<int>(taken.size()); ++colour) {
      bool free = true;
      for (int r : out.rows[column]) free = free && !taken[colour][r];
      if (free) break;
    }
    if (colour == static_cast<int>(taken.size())) taken.emplace_back(rows.size(), 0);
    for (int r : out.rows[column]) taken[colour][r] = 1;
    out.colour[column] = colour;
  }
  out.colours = static_cast<int>(taken.size());
  return out;
}

Variational::Colouring Variational::input_colouring(const std::vector<int>& active) const {
  const int size = 2 * dynamics_.nq() + 2 * dynamics_.n_constraints();
  return colour(reach(active), size, 2 * dynamics_.nq() + static_cast<int>(active.size()));
}

Variational::Colouring Variational::unknown_colouring() const {
  const int size = 2 * dynamics_.nq() + 2 * dynamics_.n_constraints();
  return colour(reach({}), 0, size);
}

void Variational::unknown_jacobian(double t0, double h, const double* x0, const Eigen::VectorXd& w,
                                   const Eigen::VectorXd& p, const Colouring& colouring,
                                   const LoadCaseSpec& lc, Eigen::VectorXd& R,
                                   Eigen::SparseMatrix<double>& J) const {
  const int n = dynamics_.nq(), size = static_cast<int>(w.size());
  const int directions = colouring.colours;
  ad_size = directions;
  std::vector<AD> ws, xs, ps;
  seeded(w.data(), size, -1, directions, ws);
  seeded(x0, 2 * n, -1, directions, xs);
  seeded(p.data(), static_cast<int>(p.size()), -1, directions, ps);
  for (int c = 0; c < size; ++c) {
    if (colouring.colour[c] >= 0) ws[c].derivatives()(colouring.colour[c]) = 1.0;
  }
  std::vector<AD> r(size);
  residual<AD>(t0, h, xs.data(), ws.data(), ps.data(), lc, r.data());
  R.resize(size);
  for (int i = 0; i < size; ++i) R(i) = r[i].value();
  std::vector<Eigen::Triplet<double>> entries;
  for (int c = 0; c < size; ++c) {
    const int colour = colouring.colour[c];
    if (colour < 0) continue;
    for (int row : colouring.rows[c]) {
      if (r[row].derivatives().size() != directions) continue;
      const double d = r[row].derivatives()(colour);
      if (d != 0.0) entries.emplace_back(row, c, d);
    }
  }
  J.resize(size, size);
  J.setFromTriplets(entries.begin(), entries.end());
}

void Variational::input_jacobian(double t0, double h, const double* x0, const Eigen::VectorXd& w,
                                 const Eigen::VectorXd& p, const std::vector<int>& active,
                                 const Colouring& colouring, const LoadCaseSpec& lc,
                                 Eigen::MatrixXd& J) const {
  const int n = dynamics_.nq(), size = static_cast<int>(w.size());
  const int na = static_cast<int>(active.size()), directions = colouring.colours;
  J.setZero(size, 2 * n + na);
  if (directions == 0) return;
  ad_size = directions;
  std::vector<AD> ws, xs, ps;
  seeded(w.data(), size, -1, directions, ws);
  seeded(x0, 2 * n, -1, directions, xs);
  seeded(p.data(), static_cast<int>(p.size()), -1, directions, ps);
  for (int c = 0; c < 2 * n; ++c) {
    if (colouring.colour[c] >= 0) xs[c].derivatives()(colouring.colour[c]) = 1.0;
  }
  for (int a = 0; a < na; ++a) {
    if (colouring.colour[2 * n + a] >= 0)
      ps[active[a]].derivatives()(colouring.colour[2 * n + a]) = 1.0;
  }
  std::vector<AD> r(size);
  residual<AD>(t0, h, xs.data(), ws.data(), ps.data(), lc, r.data());
  for (int c = 0; c < 2 * n + na; ++c) {
    const int colour = colouring.colour[c];
    if (colour < 0) continue;
    for (int row : colouring.rows[c]) {
      if (r[row].derivatives().size() == directions) J(row, c) = r[row].derivatives()(colour);
    }
  }
}

Eigen::RowVectorXd Variational::output_gradient(int k, double t, const double* x,
                                                const Eigen::VectorXd& p,
                                                const std::vector<int>& active,
                                                const LoadCaseSpec& lc) const {
  const int n2 = 2 * dynamics_.nq(), na = static_cast<int>(active.size());
  ad_size = n2 + na;
  std::vector<AD> xs, ps;
  seeded(x, n2, 0, n2 + na, xs);
  seeded(p.data(), static_cast<int>(p.size()), -1, n2 + na, ps);
  for (int a = 0; a < na; ++a) ps[active[a]].derivatives()(n2 + a) = 1.0;
  const AD value = dynamics_.out<AD>(k, t, xs.data(), ps.data(), lc);
  if (value.derivatives().size() != n2 + na) return Eigen::RowVectorXd::Zero(n2 + na);
  return value.derivatives().transpose();
}

std::string Variational::step(double t0, double h, const double* x0, const Eigen::VectorXd& p,
                              const LoadCaseSpec& lc, const Colouring& colouring,
                              StepSolver& solver, Eigen::VectorXd& w, int& iterations,
                              Eigen::SparseMatrix<double>* newton) const {
  const VariationalSettings& settings = dynamics_.model().variational;
  const int n = dynamics_.nq(), m = dynamics_.n_constraints();
  // The guess: a step at constant velocity, the last multipliers.
  for (int i = 0; i < n; ++i) {
    w(i) = x0[i] + h * x0[n + i];
    w(n + m + i) = x0[n + i];
  }
  Eigen::VectorXd R;
  Eigen::SparseMatrix<double> sparse;
  double change = 0.0;
  for (int it = 0; it < settings.max_iterations; ++it) {
    unknown_jacobian(t0, h, x0, w, p, colouring, lc, R, sparse);
    if (!R.allFinite()) break;
    if (!solver.factor(sparse)) {
      std::vector<double> x(x0, x0 + 2 * n);
      return "variational integrator: singular step matrix at t = " + std::to_string(t0) + ": " +
             dynamics_.singular_motion(t0, x.data(), p.data(), lc);
    }
    const Eigen::VectorXd dw = solver.solve(-R);
    w += dw;
    ++iterations;
    change = relative_update(w, dw, n, m);
    if (change <= settings.tolerance) {
      if (newton) *newton = sparse;
      return "";
    }
  }
  std::ostringstream why;
  why << "variational integrator: Newton did not converge in " << settings.max_iterations
      << " iterations in the step from t = " << t0 << " (h = " << h << ", last relative change "
      << change << ", tolerance " << settings.tolerance
      << "): a smaller simulator.multibody.integrator.step may help";
  return why.str();
}

std::string Variational::integrate(const Eigen::VectorXd& p, const LoadCaseSpec& lc, bool keep,
                                   VariationalRun& run) const {
  const MultibodyModel& model = dynamics_.model();
  const int n = dynamics_.nq(), m = dynamics_.n_constraints();
  const int nh = static_cast<int>(model.history_names.size());
  const int ni = static_cast<int>(model.integrals.size());
  const int points = lc.grid.points;
  run = VariationalRun{};
  run.states.resize(points, 2 * n);
  run.integrals = Eigen::VectorXd::Zero(ni);
  Eigen::VectorXd x(2 * n);
  dynamics_.initial<double>(p.data(), x.data(), lc);
  Eigen::VectorXd w = Eigen::VectorXd::Zero(2 * n + 2 * m);
  const Colouring colouring = unknown_colouring();  // Newton's matrix in a few AD directions
  StepSolver solver;                                // one symbolic analysis for the run
  auto integrand = [&](double t, const Eigen::VectorXd& state, double weight) {
    for (int k = 0; k < ni; ++k) {
      run.integrals(k) += weight * dynamics_.out<double>(nh + k, t, state.data(), p.data(), lc);
    }
  };
  run.states.row(0) = x.transpose();
  run.times.push_back(lc.grid.at(0));
  run.node_of_point.push_back(0);
  if (keep) {  // no step ends at t0
    run.w.push_back(Eigen::VectorXd());
    run.newton.emplace_back();
  }
  for (int i = 0; i + 1 < points; ++i) {
    const double t_start = lc.grid.at(i), span = lc.grid.at(i + 1) - t_start;
    const int steps =
        std::max(1, static_cast<int>(std::ceil(span / model.variational.step - 1e-9)));
    const double h = span / steps;
    for (int s = 0; s < steps; ++s) {
      const double t0 = t_start + s * h;
      integrand(t0, x, 0.5 * h);
      Eigen::SparseMatrix<double> newton;
      const std::string failure = step(t0, h, x.data(), p, lc, colouring, solver, w,
                                       run.newton_iterations, keep ? &newton : nullptr);
      if (!failure.empty()) return failure;
      x.head(n) = w.head(n);
      x.tail(n) = w.segment(n + m, n);
      integrand(t0 + h, x, 0.5 * h);
      run.times.push_back(t0 + h);
      if (keep) {
        run.w.push_back(w);
        run.newton.push_back(std::move(newton));
      }
    }
    run.states.row(i + 1) = x.transpose();
    run.node_of_point.push_back(static_cast<int>(run.times.size()) - 1);
  }
  return "";
}

Eigen::MatrixXd Variational::initial_derivatives(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                                                 const std::vector<int>& active) const {
  const int n = dynamics_.nq(), na = static_cast<int>(active.size());
  Eigen::MatrixXd dx0(2 * n, na);
  ad_size = na;
  std::vector<AD> ps, x0(2 * n);
  seeded(p.data(), static_cast<int>(p.size()), -1, na, ps);
  for (int a = 0; a < na; ++a) ps[active[a]].derivatives()(a) = 1.0;
  dynamics_.initial<AD>(ps.data(), x0.data(), lc);
  for (int i = 0; i < 2 * n; ++i) {
    if (x0[i].derivatives().size() == na) {
      dx0.row(i) = x0[i].derivatives().transpose();
    } else {
      dx0.row(i).setZero();
    }
  }
  return dx0;
}

std::string Variational::derivatives(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                                     const std::vector<int>& active,
                                     const std::vector<OutputPoint>& wanted, bool adjoint,
                                     const VariationalRun& run, Eigen::MatrixXd& rows) const {
  const int n = dynamics_.nq(), m = dynamics_.n_constraints();
  const int na = static_cast<int>(active.size()), nw = static_cast<int>(wanted.size());
  const int nodes = static_cast<int>(run.times.size()), size = 2 * n + 2 * m;
  rows.setZero(nw, na);
  if (na == 0 || nw == 0) return "";
  if (static_cast<int>(run.w.size()) != nodes) return "variational integrator: steps not kept";
  // Which wanted values read node j, with which weight (1 for a history value, the trapezoidal
  // weight for an integral).
  std::vector<std::vector<std::pair<int, double>>> at_node(nodes);
  for (int c = 0; c < nw; ++c) {
    const OutputPoint& o = wanted[c];
    if (o.point >= 0) {
      at_node[run.node_of_point.at(o.point)].push_back({c, 1.0});
      continue;
    }
    for (int j = 0; j < nodes; ++j) {
      const double before = j > 0 ? run.times[j] - run.times[j - 1] : 0.0;
      const double after = j + 1 < nodes ? run.times[j + 1] - run.times[j] : 0.0;
      at_node[j].push_back({c, 0.5 * (before + after)});
    }
  }
  auto state = [&](int j) {
    Eigen::VectorXd x(2 * n);
    if (j == 0) {
      x = run.states.row(0).transpose();
    } else {
      x.head(n) = run.w[j].head(n);
      x.tail(n) = run.w[j].segment(n + m, n);
    }
    return x;
  };
  // gx (2n x nw) and gp (na x nw) += the explicit derivatives of the values read at node j.
  auto seed = [&](int j, Eigen::MatrixXd& gx, Eigen::MatrixXd& gp) {
    const Eigen::VectorXd x = state(j);
    for (const auto& [c, weight] : at_node[j]) {
      const Eigen::RowVectorXd g =
          output_gradient(wanted[c].output, run.times[j], x.data(), p, active, lc);
      gx.col(c) += weight * g.head(2 * n).transpose();
      gp.col(c) += weight * g.tail(na).transpose();
    }
  };
  const Eigen::MatrixXd dx0 = initial_derivatives(p, lc, active);
  Eigen::MatrixXd gx = Eigen::MatrixXd::Zero(2 * n, nw), gp = Eigen::MatrixXd::Zero(na, nw);
  const Colouring colouring = input_colouring(active);
  Eigen::MatrixXd J;
  StepSolver solver;
  // Step j's [dR/dx0 | dR/dp_active] into J, its Newton matrix (or the transpose) factorised.
  auto linearised = [&](int j, bool transposed) {
    const Eigen::VectorXd x0 = state(j - 1);
    input_jacobian(run.times[j - 1], run.times[j] - run.times[j - 1], x0.data(), run.w[j], p,
                   active, colouring, lc, J);
    if (transposed) return solver.factor(run.newton[j].transpose());
    return solver.factor(run.newton[j]);
  };
  auto singular = [&](int j) {
    return "variational integrator: singular step matrix at t = " +
           std::to_string(run.times[j - 1]) + " in the sensitivities";
  };
  if (!adjoint) {  // direct: dx_j/dp forward through the steps
    Eigen::MatrixXd s = dx0;
    seed(0, gx, gp);
    Eigen::MatrixXd out = s.transpose() * gx + gp;
    for (int j = 1; j < nodes; ++j) {
      if (!linearised(j, false)) return singular(j);
      const Eigen::MatrixXd sw = -solver.solve(J.leftCols(2 * n) * s + J.rightCols(na));
      s.topRows(n) = sw.topRows(n);
      s.bottomRows(n) = sw.middleRows(n + m, n);
      gx.setZero();
      gp.setZero();
      seed(j, gx, gp);
      out += s.transpose() * gx + gp;
    }
    rows = out.transpose();
    return "";
  }
  // Adjoint: b = dJ/dx_j (total, through the later steps), one sweep for every value.
  Eigen::MatrixXd b = Eigen::MatrixXd::Zero(2 * n, nw), grad = Eigen::MatrixXd::Zero(na, nw);
  seed(nodes - 1, b, grad);
  for (int j = nodes - 1; j >= 1; --j) {
    if (!linearised(j, true)) return singular(j);
    Eigen::MatrixXd rhs = Eigen::MatrixXd::Zero(size, nw);
    rhs.topRows(n) = b.topRows(n);
    rhs.middleRows(n + m, n) = b.bottomRows(n);
    const Eigen::MatrixXd a = solver.solve(rhs);
    grad -= J.rightCols(na).transpose() * a;
    b = -J.leftCols(2 * n).transpose() * a;
    seed(j - 1, b, grad);
  }
  grad += dx0.transpose() * b;
  rows = grad.transpose();
  return "";
}

}  // namespace sao::sim::multibody
