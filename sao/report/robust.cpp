#include "sao/report/robust.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "sao/doe/plan.hpp"
#include "sao/metamodel/polynomial.hpp"
#include "sao/study/random_design.hpp"
#include "sao/study/study_loader.hpp"

namespace sao::report {
namespace {

using reliability::Distribution;
using reliability::RandomVector;

[[noreturn]] void fail(const std::string& message) {
  throw std::invalid_argument("robust: " + message);
}

// The analyses of a set of points: a stored DOE with `settings` (found again when the store has
// one with the same settings, else added), the points the store lacks analysed by the DOE
// runner. Returns the successful stored analysis of each point (evaluation.ok false where none).
std::vector<StoredAnalysis> analyse_points(
    StudySession& session, const nlohmann::json& settings, const Eigen::MatrixXd& points,
    const std::string& purpose, const RobustRequest& request, std::vector<AnalysisSet>& sets,
    const std::function<void(const DoeProgress&)>& progress) {
  StudyStore& store = session.store();
  std::optional<StoredDoe> doe;
  for (const StoredDoe& d : store.does()) {
    if (d.settings == settings && d.points.rows() == points.rows()) doe = d;
  }
  if (!doe) {
    const int id =
        store.add_doe(session.branch(), settings, points,
                      nlohmann::json{{"purpose", "sao robust: " + robust_purpose_title(purpose)}});
    for (const StoredDoe& d : store.does()) {
      if (d.id == id) doe = d;
    }
  }
  const DoeProgress end = run_doe(session, *doe, request.batch, progress, purpose);
  sets.push_back({doe->id, end});
  std::vector<StoredAnalysis> out;
  for (int i = 0; i < doe->points.rows(); ++i) {
    StoredAnalysis a;
    a.design = doe->points.row(i).transpose();
    a.evaluation.ok = false;
    for (const Evaluation& e : store.lookup(a.design, false)) {
      if (e.ok && !e.has_gradients) a.evaluation = e;
    }
    out.push_back(std::move(a));
  }
  return out;
}

// The points of the random variables (rows of `x`, k columns) as full designs.
Eigen::MatrixXd full_designs(const Eigen::VectorXd& design, const std::vector<int>& which,
                             const Eigen::MatrixXd& x) {
  Eigen::MatrixXd out = design.transpose().replicate(x.rows(), 1);
  for (size_t i = 0; i < which.size(); ++i) out.col(which[i]) = x.col(static_cast<Eigen::Index>(i));
  return out;
}

nlohmann::json vector_json(const Eigen::VectorXd& v) {
  nlohmann::json out = nlohmann::json::array();
  for (double x : v) out.push_back(x);
  return out;
}

// What identifies a set of samples: everything that makes its points.
nlohmann::json sample_settings(const std::string& method, const RandomVector& rv,
                               const Eigen::VectorXd& design, int count,
                               const std::string& sampling, std::uint64_t seed) {
  nlohmann::json random = nlohmann::json::array();
  for (int i = 0; i < rv.size(); ++i) {
    random.push_back({{"name", rv.names()[i]}, {"distribution", rv.distributions()[i].describe()}});
  }
  nlohmann::json correlation = nlohmann::json::array();
  for (int i = 0; i < rv.size(); ++i) correlation.push_back(vector_json(rv.correlation().row(i)));
  return {{"method", method},
          {"sampling", sampling},
          {"seed", seed},
          {"count", count},
          {"design", vector_json(design)},
          {"random", random},
          {"correlation", correlation}};
}

int default_points(const std::string& model, int k) {
  if (model == "quadratic") {
    return metamodel::PolynomialBasis::term_count(k, metamodel::PolynomialOrder::quadratic) + 2;
  }
  return std::max(2 * k + 1, 10);
}

}  // namespace

bool robust_method_from_name(const std::string& name, RobustMethod& method) {
  if (name == "mc")
    method = RobustMethod::kMonteCarlo;
  else if (name == "lhs")
    method = RobustMethod::kLatinHypercube;
  else if (name == "mc-analyses")
    method = RobustMethod::kAnalyses;
  else if (name == "form")
    method = RobustMethod::kForm;
  else
    return false;
  return true;
}

const char* robust_method_name(RobustMethod method) {
  switch (method) {
    case RobustMethod::kMonteCarlo:
      return "mc";
    case RobustMethod::kLatinHypercube:
      return "lhs";
    case RobustMethod::kAnalyses:
      return "mc-analyses";
    case RobustMethod::kForm:
      return "form";
  }
  return "?";
}

namespace {

struct Context {
  StudySession& session;
  const Study& study;
  const RandomSection& random;
  const RandomVector& rv;
  std::vector<int> which;  // the design variable of each random variable
  const RobustRequest& request;
  RobustResult& result;
  const std::function<void(const DoeProgress&)>& progress;
};

// The constraint a "constraint.NAME" value is of (null for other values).
const Constraint* constraint_of(const Study& study, const ModelledValue& v) {
  if (v.kind != ValueKind::kConstraint) return nullptr;
  for (const Constraint& c : study.constraints) {
    if (c.name == v.response) return &c;
  }
  return nullptr;
}

bool violates(const Constraint& c, double worst) {
  return c.sense == Sense::kLessEqual ? worst > c.bound : worst < c.bound;
}

// Statistics (and the violation probability of a constraint) of `values`.
void statistics_of(const Context& c, const Constraint* constraint, const Eigen::VectorXd& values,
                   std::optional<reliability::SampleStatistics>& stats,
                   std::optional<reliability::FailureProbability>& violation, std::string& note) {
  int finite = 0, failures = 0;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    ++finite;
    if (constraint && violates(*constraint, v)) ++failures;
  }
  if (finite < 2) {
    note = "fewer than 2 values";
    return;
  }
  stats = reliability::sample_statistics(values, c.request.quantiles, c.request.confidence);
  if (constraint) {
    violation = reliability::failure_probability(failures, finite, c.request.confidence);
  }
}

RobustValue value_entry(const Context& c, const ModelledValue& v) {
  RobustValue out;
  out.name = v.name;
  out.kind = v.kind;
  out.unit = v.unit;
  if (const Constraint* k = constraint_of(c.study, v)) {
    out.sense = k->sense == Sense::kLessEqual ? "<=" : ">=";
    out.bound = k->bound;
    out.target_k = k->reliability.k;
    out.target_probability = k->reliability.probability;
  }
  return out;
}

// Values the robustness reports: all of the metamodel report's but the times of maxima.
bool reported(const ModelledValue& v) {
  return v.kind != ValueKind::kHistoryTimeOfMax;
}

// "mc-analyses": the samples analysed.
void analysed_samples(Context& c) {
  const RobustRequest& r = c.request;
  const Eigen::MatrixXd x = c.rv.sample(r.samples, reliability::Sampling::kMonteCarlo, r.seed);
  const Eigen::MatrixXd points = full_designs(c.result.design, c.which, x);
  const nlohmann::json settings =
      sample_settings("robust_samples", c.rv, c.result.design, r.samples, "mc", r.seed);
  const std::vector<StoredAnalysis> analyses =
      analyse_points(c.session, settings, points, "samples", r, c.result.analyses, c.progress);
  c.result.samples = r.samples;
  for (const ModelledValue& v : analysis_values(c.study, analyses)) {
    if (!reported(v)) continue;
    RobustValue out = value_entry(c, v);
    statistics_of(c, constraint_of(c.study, v), v.values, out.statistics, out.violation, out.note);
    c.result.values.push_back(std::move(out));
  }
}

// The local DOE's box: mean +- 3 sd, inside the distribution's support and the variable's
// bounds (a frozen variable, lower == upper, carries a model parameter: its bounds do not cut).
void local_box(Context& c) {
  const int k = c.rv.size();
  c.result.box_lower.resize(k);
  c.result.box_upper.resize(k);
  for (int i = 0; i < k; ++i) {
    const Distribution& d = c.rv.distributions()[i];
    const DesignVariable& v = c.study.design[c.which[i]];
    double lo = std::max(d.lower(), d.mean() - 3 * d.sd());
    double hi = std::min(d.upper(), d.mean() + 3 * d.sd());
    if (v.lower < v.upper) {
      lo = std::max(lo, v.lower);
      hi = std::min(hi, v.upper);
    }
    if (!(lo < hi)) {
      fail(c.random.variables[i].path + ": the box mean +- 3 sd of \"" + c.rv.names()[i] +
           "\" leaves nothing inside the bounds of " + v.name);
    }
    c.result.box_lower(i) = lo;
    c.result.box_upper(i) = hi;
  }
}

}  // namespace

namespace {

// The local DOE analysed, and the model asked fitted to its successful analyses (by the
// metamodel report).
MetamodelReport local_model(Context& c) {
  local_box(c);
  const RobustRequest& r = c.request;
  const int k = c.rv.size();
  const int points = r.points > 0 ? r.points : default_points(r.metamodel, k);
  doe::Request plan_request;
  plan_request.settings.method = doe::Method::kLatinHypercube;
  plan_request.settings.points = points;
  plan_request.settings.seed = r.seed;
  plan_request.region.lower = c.result.box_lower;
  plan_request.region.upper = c.result.box_upper;
  doe::Plan plan;
  try {
    plan = doe::make_plan(plan_request);
  } catch (const doe::PlanError& e) {
    fail(std::string("the local DOE: ") + e.what());
  }
  const Eigen::MatrixXd full = full_designs(c.result.design, c.which, plan.points);
  const nlohmann::json settings = {
      {"method", "robust_local_doe"},
      {"points", points},
      {"seed", r.seed},
      {"design", vector_json(c.result.design)},
      {"region",
       {{"lower", vector_json(c.result.box_lower)}, {"upper", vector_json(c.result.box_upper)}}}};
  // The model is fitted to the local DOE's analyses only: the verification's analyses (and
  // others in the box) stay out of it, so that they check it and a second call fits the same.
  std::vector<StoredAnalysis> analysed;
  for (StoredAnalysis& a :
       analyse_points(c.session, settings, full, "doe", r, c.result.analyses, c.progress)) {
    if (a.evaluation.ok) analysed.push_back(std::move(a));
  }
  if (analysed.empty()) {
    throw std::runtime_error(
        "robust: every analysis of the local DOE failed (the warnings above "
        "name why)");
  }
  MetamodelRequest model_request;
  model_request.models = {r.metamodel};
  model_request.sobol_model = "none";
  model_request.seed = static_cast<std::uint32_t>(r.seed);
  return metamodel_report(c.study, analysed, model_request);
}

// The model's predictions of value `v` at the rows of `full` (full designs).
Eigen::VectorXd predict(const MetamodelReport& m, const ModelledValue& v,
                        const Eigen::MatrixXd& full) {
  if (v.constant) return Eigen::VectorXd::Constant(full.rows(), v.values(0));
  if (!v.best_model) {
    return Eigen::VectorXd::Constant(full.rows(), std::numeric_limits<double>::quiet_NaN());
  }
  Eigen::MatrixXd p(full.rows(), static_cast<Eigen::Index>(m.inputs.size()));
  for (size_t i = 0; i < m.inputs.size(); ++i)
    p.col(static_cast<Eigen::Index>(i)) = full.col(m.inputs[i]);
  return v.best_model->predict(p);
}

// Sobol indices of value `v` over the random variables: the unit cube of probabilities u
// mapped to z = Phi^-1(u) and x = rv.to_x(z), predicted by the model at the full designs.
metamodel::SobolIndices sobol_on_model(const Context& c, const MetamodelReport& m,
                                       const ModelledValue& v) {
  const int k = c.rv.size();
  const metamodel::BatchFunction f = [&](const Eigen::MatrixXd& u) {
    Eigen::MatrixXd x(u.rows(), k);
    Eigen::VectorXd z(k);
    for (Eigen::Index row = 0; row < u.rows(); ++row) {
      for (int i = 0; i < k; ++i) z(i) = reliability::normal_quantile(u(row, i));
      x.row(row) = c.rv.to_x(z).transpose();
    }
    return predict(m, v, full_designs(c.result.design, c.which, x));
  };
  // The cube's faces map to infinite z: the sample keeps 1e-9 inside them.
  const metamodel::Bounds cube{Eigen::VectorXd::Constant(k, 1e-9),
                               Eigen::VectorXd::Constant(k, 1.0 - 1e-9)};
  metamodel::SobolSettings settings;
  settings.samples = c.request.sobol;
  settings.confidence = c.request.confidence;
  settings.seed = static_cast<std::uint32_t>(c.request.seed);
  return metamodel::sobol_indices(f, cube, settings);
}

// FORM on the model of a constraint's worst value: g = bound - value (<=) or value - bound
// (>=), its gradient by central differences of the model (steps 1e-4 of the box).
void form_on_model(const Context& c, const MetamodelReport& m, const ModelledValue& v,
                   const Constraint& k, RobustValue& out) {
  if (v.constant || !v.best_model) {
    out.note = v.constant ? "constant over the box: no FORM" : "no model: no FORM";
    return;
  }
  const double sign = k.sense == Sense::kLessEqual ? 1.0 : -1.0;
  const int n = c.rv.size();
  const Eigen::VectorXd step = 1e-4 * (c.result.box_upper - c.result.box_lower);
  const reliability::LimitState g = [&](const Eigen::VectorXd& x, Eigen::VectorXd& grad) {
    Eigen::MatrixXd xs = x.transpose().replicate(2 * n + 1, 1);
    for (int i = 0; i < n; ++i) {
      xs(1 + 2 * i, i) += step(i);
      xs(2 + 2 * i, i) -= step(i);
    }
    const Eigen::VectorXd p = predict(m, v, full_designs(c.result.design, c.which, xs));
    grad.resize(n);
    for (int i = 0; i < n; ++i) grad(i) = -sign * (p(1 + 2 * i) - p(2 + 2 * i)) / (2 * step(i));
    return sign * (k.bound - p(0));
  };
  try {
    out.form = reliability::form(c.rv, g);
  } catch (const std::invalid_argument& e) {
    out.note = std::string("no FORM: ") + e.what();
  }
}

// The verification: the first `verify` samples analysed, predicted against computed.
void verify(Context& c, const MetamodelReport& m, const Eigen::MatrixXd& full,
            const std::string& sampling) {
  const RobustRequest& r = c.request;
  const int count = std::min(r.verify, static_cast<int>(full.rows()));
  nlohmann::json settings =
      sample_settings("robust_verify", c.rv, c.result.design, count, sampling, r.seed);
  settings["of_samples"] = r.samples;
  const std::vector<StoredAnalysis> analyses = analyse_points(
      c.session, settings, full.topRows(count), "verification", r, c.result.analyses, c.progress);
  for (const ModelledValue& computed : analysis_values(c.study, analyses)) {
    auto out = std::find_if(c.result.values.begin(), c.result.values.end(),
                            [&](const RobustValue& v) { return v.name == computed.name; });
    auto model = std::find_if(m.values.begin(), m.values.end(),
                              [&](const ModelledValue& v) { return v.name == computed.name; });
    if (out == c.result.values.end() || model == m.values.end()) continue;
    Eigen::MatrixXd at(computed.rows.size(), full.cols());
    for (size_t k = 0; k < computed.rows.size(); ++k)
      at.row(static_cast<Eigen::Index>(k)) = full.row(computed.rows[k]);
    out->verify_computed = computed.values;
    out->verify_predicted = predict(m, *model, at);
    if (computed.values.size() > 0) {
      out->verify_rms = std::sqrt((out->verify_predicted - computed.values).squaredNorm() /
                                  static_cast<double>(computed.values.size()));
    }
    std::string ignored;
    statistics_of(c, constraint_of(c.study, computed), computed.values, out->verified,
                  out->verified_violation, ignored);
  }
}

void check_request(const RobustRequest& r) {
  if (r.samples < 2) fail("--samples must be at least 2");
  if (r.verify < 0) fail("--verify must be >= 0");
  if (r.metamodel != "kriging" && r.metamodel != "quadratic") {
    fail("--metamodel must be kriging or quadratic, got \"" + r.metamodel + "\"");
  }
  for (double p : r.quantiles) {
    if (!(p > 0 && p < 1)) fail("a quantile must be in (0, 1), got " + std::to_string(p));
  }
  if (!(r.confidence > 0 && r.confidence < 1)) fail("--confidence must be in (0, 1)");
  if (r.sobol != 0 && r.sobol < 64) fail("--sobol must be at least 64 (base points), or 0");
  if (r.sobol != 0 && r.method == RobustMethod::kAnalyses) {
    fail("--sobol needs a metamodel (method lhs, mc or form), not mc-analyses");
  }
}

}  // namespace

std::optional<Eigen::VectorXd> reported_design(const Study& study, const std::string& dir) {
  std::ifstream in(std::filesystem::path(dir) / "result.json");
  if (!in) return std::nullopt;
  const nlohmann::json result = nlohmann::json::parse(in, nullptr, false);
  if (!result.is_object() || !result.contains("design") || !result["design"].is_object()) {
    return std::nullopt;
  }
  const nlohmann::json& d = result["design"];
  Eigen::VectorXd x(study.n_design());
  for (int i = 0; i < study.n_design(); ++i) {
    const std::string& name = study.design[i].name;
    if (!d.contains(name) || !d[name].is_number()) return std::nullopt;
    x(i) = d[name].get<double>();
  }
  return x;
}

RobustResult robust_analysis(StudySession& session, const RandomSection& random,
                             const Eigen::VectorXd& design, const RobustRequest& request,
                             const std::function<void(const DoeProgress&)>& progress) {
  check_request(request);
  const Study& study = session.study();
  RobustResult result;
  result.request = request;
  result.store = session.store().path();
  for (const DesignVariable& d : study.design) result.variables.push_back(d.name);
  result.design = design;
  const RandomVector rv = [&] {
    try {
      return random_vector_at(study, random, design);
    } catch (const std::invalid_argument& e) {
      fail(e.what());
    }
  }();
  Context c{session, study, random, rv, {}, request, result, progress};
  for (int i = 0; i < rv.size(); ++i) {
    c.which.push_back(random.variables[i].variable);
    result.random.push_back(rv.names()[i]);
    result.random_of.push_back(study.design[random.variables[i].variable].name);
    result.distributions.push_back(rv.distributions()[i].describe());
  }
  result.correlation = rv.correlation();
  if (request.method == RobustMethod::kAnalyses) {
    analysed_samples(c);
    return result;
  }
  const MetamodelReport m = local_model(c);
  result.model = request.metamodel;
  const bool mc = request.method == RobustMethod::kMonteCarlo;
  const Eigen::MatrixXd x =
      rv.sample(request.samples,
                mc ? reliability::Sampling::kMonteCarlo : reliability::Sampling::kLatinHypercube,
                request.seed);
  const Eigen::MatrixXd full = full_designs(design, c.which, x);
  result.samples = request.samples;
  for (const ModelledValue& v : m.values) {
    if (!reported(v)) continue;
    RobustValue out = value_entry(c, v);
    out.constant = v.constant;
    if (v.constant) out.constant_value = v.values(0);
    if (v.best >= 0) out.loo_rms = v.fits[v.best].accuracy.loo_rms;
    if (!v.constant && !v.best_model) out.note = "no model: " + v.fits.front().skipped;
    const Constraint* k = constraint_of(study, v);
    if (v.constant || v.best_model) {
      statistics_of(c, k, predict(m, v, full), out.statistics, out.violation, out.note);
    }
    if (request.method == RobustMethod::kForm && k) form_on_model(c, m, v, *k, out);
    if (request.sobol > 0 && !v.constant && v.best_model) {
      try {
        out.sobol = sobol_on_model(c, m, v);
      } catch (const std::invalid_argument& e) {
        out.note += std::string(out.note.empty() ? "" : "; ") + "no Sobol indices: " + e.what();
      }
    }
    result.values.push_back(std::move(out));
  }
  if (request.verify > 0) verify(c, m, full, mc ? "mc" : "lhs");
  return result;
}

}  // namespace sao::report

namespace sao::report {

Eigen::VectorXd directory_design(const Study& study, const std::string& dir,
                                 const std::map<std::string, double>& values, std::string& source) {
  Eigen::VectorXd x(study.n_design());
  for (int i = 0; i < study.n_design(); ++i) x(i) = study.design[i].initial;
  source = "initial design";
  if (const auto reported = reported_design(study, dir)) {
    x = *reported;
    source = "design reported in result.json";
  }
  for (const auto& [name, value] : values) {
    int found = -1;
    for (int i = 0; i < study.n_design(); ++i) {
      if (study.design[i].name == name) found = i;
    }
    if (found < 0) {
      throw std::invalid_argument("robust: design: \"" + name.substr(0, 40) +
                                  "\" is not a design variable");
    }
    x(found) = value;
  }
  if (!values.empty()) source += ", with the design values given";
  return x;
}

const RandomSection& random_section(const StudySession& session) {
  const std::optional<RandomSection>& random = session.study().random;
  if (!random) {
    throw StudyError(session.source(),
                     {"random_variables: the study has none (docs/robustness.md)"});
  }
  return *random;
}

RobustResult robust_of_directory(StudySession& session, const std::string& dir,
                                 const RobustRequest& request,
                                 const std::map<std::string, double>& values,
                                 const std::function<void(const DoeProgress&)>& progress) {
  const RandomSection& random = random_section(session);
  std::string source;
  const Eigen::VectorXd x = directory_design(session.study(), dir, values, source);
  RobustResult result = robust_analysis(session, random, x, request, progress);
  result.design_source = source;
  return result;
}

}  // namespace sao::report
