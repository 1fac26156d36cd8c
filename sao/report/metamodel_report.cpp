#include "sao/report/metamodel_report.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "sao/metamodel/kriging.hpp"
#include "sao/metamodel/polynomial.hpp"
#include "sao/metamodel/rbf.hpp"
#include "sao/report/evaluate.hpp"
#include "sao/study/open_study.hpp"

namespace sao::report {
namespace {

using metamodel::Bounds;
using metamodel::Metamodel;

[[noreturn]] void fail(const std::string& message) {
  throw std::invalid_argument("metamodel: " + message);
}

std::string listed(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// The models asked, checked against the known names, each once, in the order given.
std::vector<std::string> resolve_models(const std::vector<std::string>& asked) {
  if (asked.empty()) return default_metamodels();
  std::vector<std::string> out;
  for (const std::string& m : asked) {
    const auto& known = metamodel_names();
    if (std::find(known.begin(), known.end(), m) == known.end()) {
      fail("unknown model \"" + m + "\" (known: " + listed(known) + ")");
    }
    if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
  }
  return out;
}

// Points a model needs for n inputs: its coefficients (kriging: its constant trend and n length
// scales) and one to leave out, so that every leave-one-out residual is defined.
int points_needed(const std::string& model, int n) {
  using metamodel::PolynomialBasis;
  using metamodel::PolynomialOrder;
  if (model == "linear") return PolynomialBasis::term_count(n, PolynomialOrder::linear) + 1;
  if (model == "interactions")
    return PolynomialBasis::term_count(n, PolynomialOrder::interactions) + 1;
  if (model == "quadratic") return PolynomialBasis::term_count(n, PolynomialOrder::quadratic) + 1;
  return n + 2;  // rbf: the cubic kernel's linear tail; kriging: see above
}

std::unique_ptr<Metamodel> fit_model(const std::string& model, const Eigen::MatrixXd& points,
                                     const Eigen::VectorXd& values, const Bounds& box,
                                     std::uint32_t seed) {
  using metamodel::PolynomialModel;
  using metamodel::PolynomialOrder;
  if (model == "linear")
    return std::make_unique<PolynomialModel>(points, values, box, PolynomialOrder::linear);
  if (model == "interactions")
    return std::make_unique<PolynomialModel>(points, values, box, PolynomialOrder::interactions);
  if (model == "quadratic")
    return std::make_unique<PolynomialModel>(points, values, box, PolynomialOrder::quadratic);
  if (model == "rbf") return std::make_unique<metamodel::RbfModel>(points, values, box);
  metamodel::KrigingSettings settings;
  settings.seed = seed;
  return std::make_unique<metamodel::KrigingModel>(points, values, box, settings);
}

// The successful analyses, each design once (a design within 1e-12 of a range of one before
// it counts as the same), as rows; `used` the analyses of those rows.
void collect_points(const Study& study, const std::vector<StoredAnalysis>& analyses,
                    MetamodelReport& report, std::vector<const StoredAnalysis*>& used) {
  const int n = study.n_design();
  Eigen::VectorXd width(n);
  for (int i = 0; i < n; ++i) width(i) = study.design[i].span();
  std::vector<Eigen::VectorXd> rows;
  for (const StoredAnalysis& a : analyses) {
    if (!a.evaluation.ok || a.design.size() != n || !a.design.allFinite()) continue;
    ++report.analyses;
    const bool seen = std::any_of(rows.begin(), rows.end(), [&](const Eigen::VectorXd& r) {
      return ((r - a.design).array().abs() <= 1e-12 * width.array()).all();
    });
    if (seen) {
      ++report.repeated;
      continue;
    }
    rows.push_back(a.design);
    used.push_back(&a);
  }
  report.points.resize(static_cast<Eigen::Index>(rows.size()), n);
  for (size_t r = 0; r < rows.size(); ++r) report.points.row(r) = rows[r].transpose();
  // The inputs: the variables that take more than one value; the box they span.
  std::vector<double> lower, upper;
  for (int i = 0; i < n && !rows.empty(); ++i) {
    const double lo = report.points.col(i).minCoeff(), hi = report.points.col(i).maxCoeff();
    if (!(hi > lo)) continue;
    report.inputs.push_back(i);
    lower.push_back(lo);
    upper.push_back(hi);
  }
  report.box.lower = Eigen::Map<Eigen::VectorXd>(lower.data(), static_cast<int>(lower.size()));
  report.box.upper = Eigen::Map<Eigen::VectorXd>(upper.data(), static_cast<int>(upper.size()));
}

// One value per analysis of `used` (NaN where it has none) into a ModelledValue.
ModelledValue make_value(std::string name, ValueKind kind, std::string response,
                         std::string load_case, std::string unit,
                         const std::vector<double>& at_rows) {
  ModelledValue v;
  v.name = std::move(name);
  v.kind = kind;
  v.response = std::move(response);
  v.load_case = std::move(load_case);
  v.unit = std::move(unit);
  std::vector<double> values;
  for (size_t r = 0; r < at_rows.size(); ++r) {
    if (!std::isfinite(at_rows[r])) continue;
    v.rows.push_back(static_cast<int>(r));
    values.push_back(at_rows[r]);
  }
  v.values = Eigen::Map<Eigen::VectorXd>(values.data(), static_cast<int>(values.size()));
  return v;
}

// Per load case and response: a scalar's value, a history's largest value and its time.
void response_values(const Study& study, const std::vector<const StoredAnalysis*>& used,
                     std::vector<ModelledValue>& out) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (size_t c = 0; c < study.load_cases.size(); ++c) {
    const std::string& lc = study.load_cases[c].name;
    const std::string time_unit = c < study.time_notes.size() ? study.time_notes[c].unit : "";
    for (const ResponseDef& r : study.responses) {
      const std::string key = response_key(r);
      std::vector<double> value(used.size(), nan), time(used.size(), nan);
      for (size_t a = 0; a < used.size(); ++a) {
        const auto& cases = used[a]->evaluation.cases;
        if (c >= cases.size()) continue;
        if (!r.history) {
          if (cases[c].scalars.count(key)) value[a] = cases[c].scalars.at(key);
          continue;
        }
        if (!cases[c].histories.count(key) || cases[c].histories.at(key).size() == 0) continue;
        const HistoryRange h = history_range(study, c, cases[c].histories.at(key));
        value[a] = h.max;
        time[a] = h.time_of_max;
      }
      const std::string base = lc + "." + r.name;
      if (!r.history) {
        out.push_back(make_value(base, ValueKind::kScalar, r.name, lc, r.note.unit, value));
        continue;
      }
      out.push_back(
          make_value(base + ".max", ValueKind::kHistoryMax, r.name, lc, r.note.unit, value));
      out.push_back(
          make_value(base + ".t_max", ValueKind::kHistoryTimeOfMax, r.name, lc, time_unit, time));
    }
  }
}

// The objective and each constraint's worst value (summarise_design, as `sao evaluate`) at
// every design; the parts of a bound formulation's objective (bounded by an auxiliary) are the
// objective's, not constraints of their own.
void criterion_values(const Study& study, const std::vector<const StoredAnalysis*>& used,
                      std::vector<ModelledValue>& out) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const size_t nc = study.constraints.size();
  // A multi-objective study: every objective (study.objective is only the first of them).
  std::vector<Objective> objectives = study.objectives;
  if (objectives.empty()) objectives.push_back(study.objective);
  std::vector<std::vector<double>> objective(objectives.size(),
                                             std::vector<double>(used.size(), nan));
  std::vector<std::vector<double>> worst(nc, std::vector<double>(used.size(), nan));
  for (size_t a = 0; a < used.size(); ++a) {
    Eigen::VectorXd x = initial_variables(study);
    x.head(study.n_design()) = used[a]->design;
    try {
      const DesignSummary s = summarise_design(study, used[a]->evaluation, x);
      objective[0][a] = s.objective;
      for (size_t k = 1; k < objectives.size(); ++k) objective[k][a] = s.objectives[k];
      for (size_t j = 0; j < nc && j < s.constraints.size(); ++j)
        worst[j][a] = s.constraints[j].worst;
    } catch (const std::exception&) {
      // An analysis lacking a response a criterion reads: no criterion values there.
    }
  }
  for (size_t k = 0; k < objectives.size(); ++k) {
    const Objective& o = objectives[k];
    out.push_back(make_value("objective." + o.name, ValueKind::kObjective, o.name, "", o.note.unit,
                             objective[k]));
  }
  for (size_t j = 0; j < nc; ++j) {
    const Constraint& c = study.constraints[j];
    if (c.bound_auxiliary >= 0) continue;
    out.push_back(make_value("constraint." + c.name, ValueKind::kConstraint, c.name, "",
                             c.note.unit, worst[j]));
  }
}

// The name a constraint has in the study file: the loader names the parts it generates from one
// entry NAME[+], NAME[-] (|r|), NAME@CASE (several load cases), NAME[+]@CASE.
std::string entry_name(const std::string& name) {
  return name.substr(0, name.find_first_of("[@"));
}

// The values named in `names` (a value's name, a response's, a constraint's or its entry's, the
// objective's or "objective"), in the report's order; every name must select at least one.
std::vector<ModelledValue> select_values(std::vector<ModelledValue> all,
                                         const std::vector<std::string>& names) {
  if (names.empty()) return all;
  const auto selects = [](const std::string& name, const ModelledValue& v) {
    if (name == v.name || name == v.response) return true;
    if (v.kind == ValueKind::kConstraint && name == entry_name(v.response)) return true;
    return name == "objective" && v.kind == ValueKind::kObjective;
  };
  for (const std::string& name : names) {
    if (std::none_of(all.begin(), all.end(),
                     [&](const ModelledValue& v) { return selects(name, v); })) {
      std::vector<std::string> known;
      const auto add = [&](const std::string& k) {
        if (std::find(known.begin(), known.end(), k) == known.end()) known.push_back(k);
      };
      for (const ModelledValue& v : all) {
        add(v.kind == ValueKind::kConstraint ? entry_name(v.response) : v.response);
      }
      for (const ModelledValue& v : all) known.push_back(v.name);
      fail("unknown response \"" + name + "\" (known: " + listed(known) + ")");
    }
  }
  std::vector<ModelledValue> out;
  for (ModelledValue& v : all) {
    if (std::any_of(names.begin(), names.end(),
                    [&](const std::string& name) { return selects(name, v); })) {
      out.push_back(std::move(v));
    }
  }
  return out;
}

// Too few distinct designs for the cheapest model asked: the error says how many there are,
// how many it needs and how to get more.
void require_points(const Study& study, const MetamodelReport& report) {
  const int n =
      report.points.rows() > 1 ? static_cast<int>(report.inputs.size()) : study.n_design();
  std::string cheapest;
  int fewest = std::numeric_limits<int>::max(), most = 0;
  for (const std::string& m : report.models) {
    const int k = points_needed(m, n);
    if (k < fewest) {
      fewest = k;
      cheapest = m;
    }
    most = std::max(most, k);
  }
  const int m = static_cast<int>(report.points.rows());
  if (m >= fewest) return;
  throw TooFewDesigns(
      "metamodel: the store holds " + std::to_string(report.analyses) +
      " successful analyses of this study (" + std::to_string(m) +
      " distinct designs); the cheapest model asked (" + cheapest + ") needs at least " +
      std::to_string(fewest) + " for " + std::to_string(n) +
      " variables: add analyses with a design of experiments, e.g. `sao doe DIR --set "
      "doe.method=lhs --set doe.points=" +
      std::to_string(std::max(2 * most, 10)) + "` (docs/doe.md)");
}

// Fits every model asked to one value, marks the best, and takes the Sobol indices.
void fit_value(ModelledValue& v, const MetamodelReport& report) {
  const int n = static_cast<int>(report.inputs.size());
  if (v.values.size() > 0) {
    const double lo = v.values.minCoeff(), hi = v.values.maxCoeff();
    if (hi - lo <= 1e-10 * std::max(std::abs(lo), std::abs(hi))) {
      v.constant = true;
      v.note = "the same value at every point: no model, no Sobol indices";
      return;
    }
  }
  Eigen::MatrixXd points(v.rows.size(), n);
  for (size_t r = 0; r < v.rows.size(); ++r) {
    for (int i = 0; i < n; ++i) points(r, i) = report.points(v.rows[r], report.inputs[i]);
  }
  std::vector<std::shared_ptr<Metamodel>> models;
  for (const std::string& name : report.models) {
    ModelFit fit;
    fit.model = name;
    fit.needs = points_needed(name, n);
    std::unique_ptr<Metamodel> model;
    if (static_cast<int>(v.rows.size()) < fit.needs) {
      fit.skipped = "needs " + std::to_string(fit.needs) + " points, " +
                    std::to_string(v.rows.size()) + " available";
    } else {
      try {
        model = fit_model(name, points, v.values, report.box, report.request.seed);
        fit.fitted = true;
        fit.accuracy = model->accuracy();
      } catch (const std::exception& e) {
        fit.skipped = e.what();
      }
    }
    const bool better = fit.fitted && std::isfinite(fit.accuracy.loo_rms) &&
                        (v.best < 0 || fit.accuracy.loo_rms < v.fits[v.best].accuracy.loo_rms);
    if (better) v.best = static_cast<int>(v.fits.size());
    v.fits.push_back(std::move(fit));
    models.push_back(std::move(model));
  }
  if (v.best >= 0) v.best_model = models[v.best];
  const std::string& asked = report.request.sobol_model;
  if (asked == "none") return;
  int chosen = v.best;
  if (!asked.empty()) {
    const auto at = std::find(report.models.begin(), report.models.end(), asked);
    chosen = static_cast<int>(at - report.models.begin());
    if (!v.fits[chosen].fitted) {
      v.note = "no Sobol indices: model " + asked + " not fitted (" + v.fits[chosen].skipped + ")";
      return;
    }
  } else if (chosen < 0) {
    v.note = "no Sobol indices: no model has a leave-one-out error";
    return;
  }
  metamodel::SobolSettings settings;
  settings.samples = report.request.sobol_samples;
  settings.bootstrap = report.request.bootstrap;
  settings.seed = report.request.seed;
  try {
    v.sobol = metamodel::sobol_indices(*models[chosen], report.box, settings);
    v.sobol_model = report.models[chosen];
  } catch (const std::invalid_argument& e) {
    v.note = std::string("no Sobol indices: ") + e.what();
  }
}

void check_request(const MetamodelRequest& request, const std::vector<std::string>& models) {
  if (request.sobol_samples < 64) fail("--sobol-samples must be at least 64");
  if (request.bootstrap < 20) fail("the Sobol bootstrap needs at least 20 resamples");
  const std::string& s = request.sobol_model;
  if (!s.empty() && s != "none" && std::find(models.begin(), models.end(), s) == models.end()) {
    fail("the Sobol model \"" + s + "\" is not among the models asked (" + listed(models) + ")");
  }
}

}  // namespace

const std::vector<std::string>& metamodel_names() {
  static const std::vector<std::string> names = {"linear", "interactions", "quadratic", "rbf",
                                                 "kriging"};
  return names;
}

const std::vector<std::string>& default_metamodels() {
  static const std::vector<std::string> names = {"linear", "quadratic", "rbf", "kriging"};
  return names;
}

std::string to_string(ValueKind kind) {
  switch (kind) {
    case ValueKind::kScalar:
      return "scalar";
    case ValueKind::kHistoryMax:
      return "history max";
    case ValueKind::kHistoryTimeOfMax:
      return "time of history max";
    case ValueKind::kObjective:
      return "objective";
    case ValueKind::kConstraint:
      return "constraint";
  }
  return "?";
}

MetamodelReport metamodel_report(const Study& study, const std::vector<StoredAnalysis>& analyses,
                                 const MetamodelRequest& request) {
  MetamodelReport report;
  report.request = request;
  report.models = resolve_models(request.models);
  check_request(request, report.models);
  for (const DesignVariable& d : study.design) {
    report.variables.push_back(d.name);
    report.variable_units.push_back(d.note.unit);
  }
  std::vector<const StoredAnalysis*> used;
  collect_points(study, analyses, report, used);
  std::vector<ModelledValue> all;
  response_values(study, used, all);
  criterion_values(study, used, all);
  std::vector<ModelledValue> values = select_values(std::move(all), request.responses);
  require_points(study, report);
  for (ModelledValue& v : values) fit_value(v, report);
  report.values = std::move(values);
  return report;
}

std::vector<ModelledValue> analysis_values(const Study& study,
                                           const std::vector<StoredAnalysis>& analyses) {
  std::vector<const StoredAnalysis*> used;
  for (const StoredAnalysis& a : analyses) used.push_back(&a);
  std::vector<ModelledValue> all;
  response_values(study, used, all);
  criterion_values(study, used, all);
  // A failed analysis has no values: its rows are left out as a missing value's are.
  for (ModelledValue& v : all) {
    std::vector<int> rows;
    std::vector<double> values;
    for (size_t k = 0; k < v.rows.size(); ++k) {
      if (!analyses[v.rows[k]].evaluation.ok) continue;
      rows.push_back(v.rows[k]);
      values.push_back(v.values(static_cast<Eigen::Index>(k)));
    }
    v.rows = rows;
    v.values = Eigen::Map<Eigen::VectorXd>(values.data(), static_cast<int>(values.size()));
  }
  return all;
}

MetamodelReport metamodel_report(const StudyStore& store, const Study& study,
                                 const std::string& inputs_hash, const MetamodelRequest& request) {
  std::vector<StoredAnalysis> mine;
  int others = 0;
  for (StoredAnalysis& a : store.analyses()) {
    if (a.inputs_hash == inputs_hash) {
      mine.push_back(std::move(a));
    } else {
      ++others;
    }
  }
  MetamodelReport report = metamodel_report(study, mine, request);
  report.store = store.path();
  report.other_inputs = others;
  return report;
}

MetamodelReport metamodel_report(const std::string& store_path, const MetamodelRequest& request) {
  const StudyStore store(store_path, StoreAccess::kReadOnly);
  const int current = store.current_branch();
  if (current == 0) throw StoreError(store.path() + ": the store holds no study yet");
  const StoredStudy stored = store.study(store.branch(current).study);
  const OpenedStudy opened = open_study_document(stored.document, stored.source, stored.start);
  return metamodel_report(store, opened.study,
                          simulator_inputs_hash(opened.study, opened.simulator->fingerprint()),
                          request);
}

}  // namespace sao::report
