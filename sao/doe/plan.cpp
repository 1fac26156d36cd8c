// make_plan: the method's points in the unit cube, the explicit constraints applied, scaled to
// the region (plan.hpp).
#include <string>

#include "sao/doe/plan_parts.hpp"
#include "sao/metamodel/d_optimal.hpp"

namespace sao::doe {
namespace {

struct Named {
  Method method;
  const char* name;
};
constexpr Named kMethods[] = {{Method::kLatinHypercube, "lhs"},
                              {Method::kSobol, "sobol"},
                              {Method::kFullFactorial, "full_factorial"},
                              {Method::kFractionalFactorial, "fractional_factorial"},
                              {Method::kDOptimal, "d_optimal"}};

// The metamodel library's polynomial order of a D-optimal plan.
metamodel::PolynomialOrder order_of(Polynomial p) {
  switch (p) {
    case Polynomial::kLinear:
      return metamodel::PolynomialOrder::linear;
    case Polynomial::kInteraction:
      return metamodel::PolynomialOrder::interactions;
    case Polynomial::kQuadratic:
      break;
  }
  return metamodel::PolynomialOrder::quadratic;
}

// The rows of `existing` inside the region, in unit coordinates.
Eigen::MatrixXd existing_inside(const Request& r) {
  std::vector<Eigen::VectorXd> inside;
  for (int i = 0; i < r.existing.rows(); ++i) {
    const Eigen::VectorXd x = r.existing.row(i).transpose();
    if (r.region.contains(x)) inside.push_back(r.region.to_unit(x));
  }
  Eigen::MatrixXd out(inside.size(), r.region.lower.size());
  for (size_t i = 0; i < inside.size(); ++i) out.row(i) = inside[i].transpose();
  return out;
}

// Keeps the feasible rows; returns how many were dropped.
int drop_infeasible(Eigen::MatrixXd& x, const UnitFeasible& feasible) {
  Eigen::MatrixXd kept(x.rows(), x.cols());
  int rows = 0;
  for (int i = 0; i < x.rows(); ++i) {
    if (feasible(x.row(i).transpose())) kept.row(rows++) = x.row(i);
  }
  const int dropped = static_cast<int>(x.rows()) - rows;
  x = kept.topRows(rows);
  return dropped;
}

std::vector<Generator> fractional_generators(const Settings& s, int k) {
  if (!s.generators.empty()) return s.generators;
  if (s.fraction > 0) {
    std::vector<Generator> g = table_generators(k, s.fraction);
    if (g.empty()) {
      throw PlanError("doe.fraction: no 2^(" + std::to_string(k) + "-" +
                      std::to_string(s.fraction) +
                      ") design in the table (Montgomery 8.14, 3 to 11 variables): give "
                      "doe.generators");
    }
    return g;
  }
  // The smallest design of the table of at least the resolution asked for (a full factorial
  // when none is).
  std::vector<Generator> best;
  for (int p = 1; p < k; ++p) {
    std::vector<Generator> g = table_generators(k, p);
    if (!g.empty() && resolution(g) >= s.resolution) best = g;
  }
  return best;
}

Eigen::MatrixXd unit_points(const Request& r, const Eigen::MatrixXd& existing,
                            const UnitFeasible& feasible, Plan& plan) {
  const Settings& s = r.settings;
  const int d = static_cast<int>(r.region.lower.size());
  switch (s.method) {
    case Method::kLatinHypercube: {
      Eigen::MatrixXd x = latin_hypercube(s.points, d, s.seed);
      plan.start_min_distance = min_distance(x, existing);
      if (maximin_search(x, existing, s.iterations, s.seed, feasible) > 0) {
        plan.replaced = replace_infeasible(x, existing, s.seed, feasible);
      }
      return x;
    }
    case Method::kSobol:
      return feasible_sobol(s.points, d, feasible, plan.replaced);
    case Method::kFullFactorial: {
      Eigen::MatrixXd x = full_factorial(s.levels);
      plan.dropped = drop_infeasible(x, feasible);
      return x;
    }
    case Method::kFractionalFactorial: {
      plan.generators = fractional_generators(s, d);
      plan.resolution = resolution(plan.generators);
      Eigen::MatrixXd x = (two_level_design(d, plan.generators).array() + 1.0) / 2.0;
      plan.dropped = drop_infeasible(x, feasible);
      return x;
    }
    case Method::kDOptimal: {
      const int n = s.candidates > 0 ? s.candidates : std::max(20 * s.points, 500);
      Eigen::MatrixXd c = latin_hypercube(n, d, s.seed);
      plan.replaced = replace_infeasible(c, Eigen::MatrixXd(0, d), s.seed, feasible);
      // The exchange of the metamodel library, on the unit cube; the stored points inside the
      // region are in the design already (fixed), so the new ones complete them.
      const metamodel::PolynomialBasis basis({Eigen::VectorXd::Zero(d), Eigen::VectorXd::Ones(d)},
                                             order_of(s.polynomial));
      metamodel::DOptimalSettings exchange;
      exchange.seed = static_cast<std::uint32_t>(s.seed ^ (s.seed >> 32));
      std::vector<int> rows;
      try {
        rows = metamodel::d_optimal(c, basis, s.points, existing, exchange).chosen;
      } catch (const std::invalid_argument& e) {
        throw PlanError(std::string("doe: d_optimal: ") + e.what());
      }
      Eigen::MatrixXd x(rows.size(), d);
      for (size_t i = 0; i < rows.size(); ++i) x.row(i) = c.row(rows[i]);
      return x;
    }
  }
  return {};
}

}  // namespace

const char* method_name(Method method) {
  for (const Named& m : kMethods) {
    if (m.method == method) return m.name;
  }
  return "?";
}

bool method_from_name(const std::string& name, Method& method) {
  for (const Named& m : kMethods) {
    if (name == m.name) {
      method = m.method;
      return true;
    }
  }
  return false;
}

const char* polynomial_name(Polynomial polynomial) {
  switch (polynomial) {
    case Polynomial::kLinear:
      return "linear";
    case Polynomial::kInteraction:
      return "interaction";
    case Polynomial::kQuadratic:
      return "quadratic";
  }
  return "?";
}

bool polynomial_from_name(const std::string& name, Polynomial& polynomial) {
  for (Polynomial p : {Polynomial::kLinear, Polynomial::kInteraction, Polynomial::kQuadratic}) {
    if (name == polynomial_name(p)) {
      polynomial = p;
      return true;
    }
  }
  return false;
}

Eigen::VectorXd Region::to_unit(const Eigen::VectorXd& x) const {
  return ((x - lower).array() / (upper - lower).array()).matrix();
}

Eigen::VectorXd Region::from_unit(const Eigen::VectorXd& u) const {
  Eigen::VectorXd x = lower + (u.array() * (upper - lower).array()).matrix();
  // The ends exactly (a factorial's corners are the bounds, not a rounding away from them).
  for (int j = 0; j < x.size(); ++j) {
    if (u(j) == 0.0) x(j) = lower(j);
    if (u(j) == 1.0) x(j) = upper(j);
  }
  return x;
}

bool Region::contains(const Eigen::VectorXd& x) const {
  return x.size() == lower.size() && (x.array() >= lower.array()).all() &&
         (x.array() <= upper.array()).all();
}

Plan make_plan(const Request& request) {
  const Region& region = request.region;
  if (region.lower.size() == 0 || region.lower.size() != region.upper.size() ||
      !(region.lower.array() < region.upper.array()).all()) {
    throw PlanError("doe.region: an empty region (each variable needs lower < upper)");
  }
  Plan plan;
  const Eigen::MatrixXd inside = existing_inside(request);
  // A Latin hypercube keeps away from the stored points; a D-optimal plan completes them.
  const Method method = request.settings.method;
  const Eigen::MatrixXd existing = method == Method::kLatinHypercube || method == Method::kDOptimal
                                       ? inside
                                       : Eigen::MatrixXd(0, region.lower.size());
  plan.existing = static_cast<int>(inside.rows());
  const UnitFeasible feasible = [&](const Eigen::VectorXd& u) {
    return !request.feasible || request.feasible(region.from_unit(u));
  };
  const Eigen::MatrixXd unit = unit_points(request, existing, feasible, plan);
  if (unit.rows() == 0) {
    throw PlanError(
        "doe: every point of the plan violates the explicit constraints (constraints "
        "of design variables only), none is left to analyse");
  }
  plan.min_distance = min_distance(unit, inside);
  plan.points.resize(unit.rows(), unit.cols());
  for (int i = 0; i < unit.rows(); ++i) {
    plan.points.row(i) = region.from_unit(unit.row(i).transpose()).transpose();
  }
  return plan;
}

}  // namespace sao::doe
