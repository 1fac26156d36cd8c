// The kinematic analysis's direct and adjoint sensitivities on the sparse path (issue 52):
// the residuals' derivatives in z = (q, q', q'', lambda, p_active) assembled element by element
// (each joint, body, force and beam element in AD seeded on its own coordinates, velocities and
// active parameters, as the dynamic run's linearisation does: dynamics.cpp) into sparse
// matrices, and the levels solved or eliminated with the analysis's sparse LU of Phi_q at the
// point (SparseFactor): work in proportion to the model, not to its square or cube.
#include <algorithm>

#include "simulators/multibody/kinematics.hpp"

namespace sao::sim::multibody {
namespace {

using Triplets = std::vector<Eigen::Triplet<double>>;

// The AD inputs of one element at one grid point: its bodies' coordinates (and velocities and
// accelerations), its multipliers and its active parameters, seeded on directions of their own,
// and the z columns of those directions. Only what an element reads is set: its equations read
// nothing else (the elements' Reads, as the dynamic run's).
class LocalSeeds {
 public:
  LocalSeeds(const Kinematics& kinematics, const Eigen::VectorXd& p, double t,
             const LoadCaseSpec& lc, const std::vector<int>& active,
             const KinematicState<double>& solved)
      : n_(kinematics.nq()),
        m_(kinematics.n_constraints()),
        solved_(solved),
        position_(p.size(), -1),
        q(n_),
        qd(n_),
        qdd(n_),
        lambda(m_) {
    for (size_t a = 0; a < active.size(); ++a) position_[active[a]] = static_cast<int>(a);
    ad_size = 0;  // every symbol a constant until seeded
    std::vector<AD> ps(static_cast<size_t>(p.size()));
    for (Eigen::Index i = 0; i < p.size(); ++i) ps[i] = AD(p(i), Eigen::VectorXd());
    env = kinematics.vars(ps.data(), t, lc);
  }
  int n() const { return n_; }
  int m() const { return m_; }

  // Seeds the coordinates of `bodies` (and with `levels` 2 their velocities, 3 their
  // accelerations: the levels not seeded held), the multipliers of rows [first, first + count)
  // and the active parameters of `reads`; `columns` maps the directions to z.
  void seed(const std::vector<int>& bodies, int levels, const Reads& reads, int first = 0,
            int count = 0) {
    columns.clear();
    for (int level = 0; level < levels; ++level) {
      for (int b : bodies) {
        for (int c = 0; c < 3; ++c) columns.push_back(level * n_ + 3 * b + c);
      }
    }
    for (int k = first; k < first + count; ++k) columns.push_back(3 * n_ + k);
    for (int i : reads.parameters) {
      if (position_[i] >= 0) columns.push_back(3 * n_ + m_ + position_[i]);
    }
    ad_size = static_cast<Eigen::Index>(columns.size());
    int direction = 0;
    auto set = [&](AD& to, double value, bool seeded) {
      to.value() = value;
      to.derivatives().setZero(ad_size);
      if (seeded) to.derivatives()(direction++) = 1.0;
    };
    const Vec<double>* values[3] = {&solved_.q, &solved_.qd, &solved_.qdd};
    std::vector<AD>* scalars[3] = {&q, &qd, &qdd};
    for (int level = 0; level < 3; ++level) {
      for (int b : bodies) {
        for (int c = 0; c < 3; ++c) {
          set((*scalars[level])[3 * b + c], (*values[level])(3 * b + c), level < levels);
        }
      }
    }
    for (int k = first; k < first + count; ++k) set(lambda[k], solved_.lambda(k), true);
    for (int i : reads.parameters) {
      if (position_[i] >= 0) set(env.symbols[i], value_of(env.symbols[i]), true);
    }
    seeded_ = &reads;
  }
  // The parameters back to constants (an element reads only its own: Reads).
  void unseed() {
    for (int i : seeded_->parameters) env.symbols[i].derivatives().resize(0);
  }
  // value's derivatives as entries (row, z column) of `out`, times `factor`.
  void add(Triplets& out, int row, const AD& value, double factor = 1.0) const {
    if (value.derivatives().size() != ad_size) return;  // a constant
    for (size_t l = 0; l < columns.size(); ++l) {
      const double d = value.derivatives()(static_cast<Eigen::Index>(l));
      if (d != 0.0) out.emplace_back(row, columns[l], factor * d);
    }
  }

  std::vector<int> columns;  // z column of each direction
  Env<AD> env;

 private:
  int n_, m_;
  const KinematicState<double>& solved_;
  std::vector<int> position_;  // model parameter -> position among the active ones, or -1
  const Reads* seeded_ = nullptr;

 public:
  std::vector<AD> q, qd, qdd, lambda;  // the seeded element's entries set, the others unread
};

std::vector<int> bodies_of(int a, int b) {
  std::vector<int> out;
  for (int body : {a, b}) {
    if (body >= 0) out.push_back(body);
  }
  return out;
}

// The residuals' derivatives in z: Phi (m rows), Phi_q q' + Phi_t, Phi_q q'' - gamma (m rows
// each) and Phi_q' lambda - Q + M q'' (n rows; the mass matrix's diagonal, as the analysis's
// inverse dynamics: Kinematics::mass_and_forces without couplings).
struct LevelJacobians {
  Eigen::SparseMatrix<double> position, velocity, acceleration, multiplier;
};

void joint_derivatives(const MultibodyModel& model, const KinematicState<double>& solved,
                       LocalSeeds& s, Triplets (&out)[4]) {
  const int n = s.n();
  int row = 0;
  JointTerms<AD> terms;
  for (const Joint& j : model.joints) {
    s.seed(bodies_of(j.a, j.b), 2, j.reads);
    joint_terms(j, s.q.data(), s.qd.data(), s.env, terms);
    for (int k = 0; k < j.equations(); ++k) {
      s.add(out[0], row + k, terms.phi[k]);
      AD velocity = terms.phi_t[k], acceleration = -terms.gamma[k];
      for_each_column(j.a, j.b, [&](int local, int col) {
        const AD& entry = terms.phi_q[k][local];
        velocity += entry * s.qd[col];
        acceleration += entry * solved.qdd(col);
        out[2].emplace_back(row + k, 2 * n + col, value_of(entry));
        out[3].emplace_back(col, 3 * n + row + k, value_of(entry));
      });
      s.add(out[1], row + k, velocity);
      s.add(out[2], row + k, acceleration);
    }
    for_each_column(j.a, j.b, [&](int local, int col) {  // Phi_q' lambda, in q and p
      AD sum = C<AD>(0.0);
      for (int k = 0; k < j.equations(); ++k) sum += terms.phi_q[k][local] * solved.lambda(row + k);
      s.add(out[3], col, sum);
    });
    s.unseed();
    row += j.equations();
  }
}

// -Q + M q'' of the bodies, forces and beam elements into the multipliers' level.
void force_derivatives(const MultibodyModel& model, const KinematicState<double>& solved,
                       LocalSeeds& s, Triplets& out) {
  const int n = s.n();
  auto inertia = [&](int col, const AD& mass) {
    s.add(out, col, mass, solved.qdd(col));
    out.emplace_back(col, 2 * n + col, value_of(mass));
  };
  for (size_t i = 0; i < model.bodies.size(); ++i) {
    s.seed({}, 0, model.bodies[i].reads);
    AD mass[3], weight[2];
    body_terms(model.bodies[i], model.gx, model.gy, s.env, mass, weight);
    const int r = 3 * static_cast<int>(i);
    for (int c = 0; c < 3; ++c) inertia(r + c, mass[c]);
    for (int c = 0; c < 2; ++c) s.add(out, r + c, weight[c], -1.0);
    s.unseed();
  }
  AD fa[3], fb[3];
  for (const Force& f : model.forces) {
    s.seed(bodies_of(f.a, f.b), 2, f.reads);
    force_terms(f, s.q.data(), s.qd.data(), s.env, fa, fb);
    for_each_column(f.a, f.b, [&](int local, int col) {
      s.add(out, col, local < 3 ? fa[local] : fb[local - 3], -1.0);
    });
    s.unseed();
  }
  for (const BeamElement& e : model.beam_elements) {
    s.seed(bodies_of(e.a, e.b), 2, e.reads);
    beam_forces(e, model.gx, model.gy, s.q.data(), s.qd.data(), s.env, fa, fb);
    AD own, coupling, rotary;
    beam_mass(e, s.env, own, coupling, rotary);
    for (int c = 0; c < 3; ++c) {
      s.add(out, 3 * e.a + c, fa[c], -1.0);
      s.add(out, 3 * e.b + c, fb[c], -1.0);
      inertia(3 * e.a + c, c < 2 ? own : rotary);
      inertia(3 * e.b + c, c < 2 ? own : rotary);
    }
    s.unseed();
  }
}

LevelJacobians level_jacobians(const MultibodyModel& model, const KinematicState<double>& solved,
                               LocalSeeds& s, Eigen::Index nz) {
  Triplets entries[4];
  joint_derivatives(model, solved, s, entries);
  force_derivatives(model, solved, s, entries[3]);
  LevelJacobians out;
  Eigen::SparseMatrix<double>* to[4] = {&out.position, &out.velocity, &out.acceleration,
                                        &out.multiplier};
  for (int k = 0; k < 4; ++k) {
    to[k]->resize(k < 3 ? s.m() : s.n(), nz);
    to[k]->setFromTriplets(entries[k].begin(), entries[k].end());  // summed
  }
  return out;
}

// d(history output k)/dz as a dense row: the output evaluated alone, in AD seeded on what it
// reads (Kinematics::history_values' order of the outputs).
Eigen::RowVectorXd output_derivatives(const Kinematics& kinematics, int k, LocalSeeds& s,
                                      Eigen::Index nz) {
  const MultibodyModel& model = kinematics.model();
  const int n = s.n();
  Eigen::RowVectorXd out = Eigen::RowVectorXd::Zero(nz);
  auto take = [&](const AD& value) {
    Triplets entries;
    s.add(entries, 0, value);
    for (const auto& e : entries) out(e.col()) += e.value();
    s.unseed();
  };
  const int nb = static_cast<int>(model.bodies.size());
  if (k < 9 * nb) {  // a body's coordinate, velocity or acceleration
    out((k % 9 / 3) * n + 3 * (k / 9) + k % 3) = 1.0;
    return out;
  }
  int index = k - 9 * nb;
  for (const Force& f : model.forces) {
    if (f.kind != ForceKind::kSpringDamper) continue;
    if (index < 3) {
      s.seed(bodies_of(f.a, f.b), 2, f.reads);
      AD state[5];
      spring_state(f, s.q.data(), s.qd.data(), s.env, state[0], state[1], state[2], state[3],
                   state[4]);
      take(state[index]);
      return out;
    }
    index -= 3;
  }
  if (index < 3 * static_cast<int>(model.joints.size())) {
    const int joint = index / 3;
    int first = 0;
    for (int i = 0; i < joint; ++i) first += model.joints[i].equations();
    const Joint& j = model.joints[joint];
    s.seed(bodies_of(j.a, j.b), 1, j.reads, first, j.equations());
    JointTerms<AD> terms;
    joint_terms(j, s.q.data(), s.qd.data(), s.env, terms);
    const Eigen::Map<const Vec<AD>> lambda(s.lambda.data(), s.m());
    take(kinematics.reaction<AD>(joint, index % 3, JointPhiQ{j, terms, first}, Vec<AD>(lambda)));
    return out;
  }
  index -= 3 * static_cast<int>(model.joints.size());
  if (index < 6 * static_cast<int>(model.markers.size())) {
    const Marker& mk = model.markers[index / 6];
    Reads reads;
    reads.add(mk.at.u);
    reads.add(mk.at.v);
    reads.finish();
    s.seed(bodies_of(mk.at.body, -1), 3, reads);
    take(marker(mk, index % 6, s.q.data(), s.qd.data(), s.qdd.data(), s.env));
    return out;
  }
  index -= 6 * static_cast<int>(model.markers.size());
  for (const Beam& beam : model.beams) {
    const int per_kind = beam.elements + 1, count = beam_output_kinds(beam) * per_kind;
    if (index < count) {  // every node of the beam and what its elements read
      Reads reads;
      reads.add(beam.section_modulus);
      for (int e = 0; e < beam.elements; ++e) {
        const std::vector<int>& p = model.beam_elements[beam.first + e].reads.parameters;
        reads.parameters.insert(reads.parameters.end(), p.begin(), p.end());
      }
      reads.finish();
      s.seed(beam.nodes, 2, reads);
      take(beam_output(model, beam, static_cast<BeamOutput>(index / per_kind), index % per_kind,
                       s.q.data(), s.qd.data(), s.env));
      return out;
    }
    index -= count;
  }
  return out;
}

}  // namespace

void Kinematics::sparse_sensitivities(double t, const std::vector<size_t>& here,
                                      const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                                      const KinematicRequest& request,
                                      const KinematicState<double>& solved,
                                      SparseKinematics& kept) const {
  const int n = nq(), m = n_constraints();
  const auto na = static_cast<Eigen::Index>(request.active->size());
  const Eigen::Index nz = 3 * n + m + na;
  LocalSeeds seeds(*this, p, t, lc, *request.active, solved);
  const LevelJacobians J = level_jacobians(model_, solved, seeds, nz);
  // kept.lu holds Phi_q at this point (sparse_kinematic_point): Phi_q is each level's
  // Jacobian in its own unknown (Phi_q' the multipliers').
  std::vector<Eigen::RowVectorXd> outputs;
  for (size_t f : here) {
    outputs.push_back(output_derivatives(*this, (*request.wanted)[f].output, seeds, nz));
  }
  if (!request.adjoint) {
    // Direct: each level's derivatives in the parameters, -Phi_q^-1 (its Jacobian in the
    // levels before and in p times their derivatives), one factorisation for every parameter.
    Eigen::MatrixXd dz = Eigen::MatrixXd::Zero(nz, na);
    dz.bottomRows(na).setIdentity();
    const std::pair<const Eigen::SparseMatrix<double>*, Eigen::Index> levels[] = {
        {&J.position, 0}, {&J.velocity, n}, {&J.acceleration, 2 * n}};
    for (const auto& [level, offset] : levels) {
      dz.middleRows(offset, n) = -kept.lu.solve(Eigen::MatrixXd(*level * dz));
    }
    dz.middleRows(3 * n, m) = -kept.lu.solve(Eigen::MatrixXd(J.multiplier * dz), true);
    for (size_t k = 0; k < here.size(); ++k) {
      request.rows->row(static_cast<Eigen::Index>(here[k])) = outputs[k] * dz;
    }
    return;
  }
  // Adjoint: the levels eliminated backwards, one solve each per wanted value.
  for (size_t k = 0; k < here.size(); ++k) {
    Eigen::RowVectorXd& gz = outputs[k];
    const Eigen::VectorXd mu_l = kept.lu.solve(Eigen::VectorXd(gz.segment(3 * n, m).transpose()));
    gz -= (J.multiplier.transpose() * mu_l).transpose();
    const std::pair<const Eigen::SparseMatrix<double>*, Eigen::Index> levels[] = {
        {&J.acceleration, 2 * n}, {&J.velocity, n}, {&J.position, 0}};
    for (const auto& [level, offset] : levels) {
      const Eigen::VectorXd mu =
          kept.lu.solve(Eigen::VectorXd(gz.segment(offset, n).transpose()), true);
      gz -= (level->transpose() * mu).transpose();
    }
    request.rows->row(static_cast<Eigen::Index>(here[k])) = gz.tail(na);
  }
}

}  // namespace sao::sim::multibody
