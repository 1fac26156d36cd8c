#include "sao/store/pareto_run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <type_traits>

#include "sao/metamodel/log_inputs.hpp"
#include "sao/optimizer/discrete.hpp"
#include "sao/store/pareto_models.hpp"
#include "sao/store/sweep.hpp"
#include "sao/study/criteria.hpp"
#include "sao/study/options.hpp"
#include "sao/study/study_loader.hpp"

namespace sao {
namespace {

// The full variable vector of a design on `model`: auxiliaries at their initial values, and an
// objective's auxiliary ("minimize_max") at the largest value it bounds, its objective's value.
Eigen::VectorXd full(const Study& study, const Eigen::VectorXd& design,
                     const ResponseModel& model) {
  Eigen::VectorXd x(study.n_total());
  x.head(study.n_design()) = design;
  for (int a = 0; a < study.n_aux(); ++a) x(study.n_design() + a) = study.auxiliaries[a].initial;
  return study.bounds_maxima() ? with_bounded_maxima(study, x, model) : x;
}

// The training set of a round: the successful analyses (values only, every load case) of the
// DOE's points and of the points verified in the rounds before, each design once (designs within
// 1e-8 of the box in every variable are one point, as in the metamodel strategy's fits). Only
// this run's own designs: a second `sao pareto` with the same settings repeats every round and
// re-uses every analysis, and a killed one resumes in the round it was in.
struct Training {
  std::vector<Eigen::VectorXd> designs;  // DOE points, then the verified points so far
  std::vector<Evaluation> kept;
  Eigen::MatrixXd points;
  std::vector<const Evaluation*> analyses;
};

void collect(StudySession& session, const metamodel::Bounds& box, Training& t) {
  const Study& study = session.study();
  const Eigen::ArrayXd width = (box.upper - box.lower).array();
  t.kept.clear();
  std::vector<Eigen::VectorXd> at;
  for (const Eigen::VectorXd& d : t.designs) {
    const bool repeated = std::any_of(at.begin(), at.end(), [&](const Eigen::VectorXd& o) {
      return (((d - o).array().abs() / width) < 1e-8).all();
    });
    if (repeated) continue;
    for (const Evaluation& e : session.store().lookup(d, false)) {
      if (!e.ok || e.has_gradients || e.cases.size() != study.load_cases.size()) continue;
      t.kept.push_back(e);
      at.push_back(d);
      break;
    }
  }
  t.points.resize(static_cast<Eigen::Index>(at.size()), study.n_design());
  t.analyses.clear();
  for (size_t r = 0; r < at.size(); ++r) {
    t.points.row(static_cast<Eigen::Index>(r)) = at[r].transpose();
    t.analyses.push_back(&t.kept[r]);
  }
}

metamodel::Bounds design_box(const Study& study) {
  metamodel::Bounds box{Eigen::VectorXd(study.n_design()), Eigen::VectorXd(study.n_design())};
  std::vector<std::string> open;
  for (int i = 0; i < study.n_design(); ++i) {
    const DesignVariable& v = study.design[i];
    if (!v.bounded()) open.push_back(v.name);
    box.lower(i) = v.lower;
    box.upper(i) = v.upper;
  }
  if (!open.empty()) {
    std::string names;
    for (const auto& n : open) names += (names.empty() ? "" : ", ") + n;
    throw StudyError(study.file, {"design_variables: sao pareto needs finite lower and upper "
                                  "bounds of every variable (the front is searched in their "
                                  "box); without: " +
                                  names});
  }
  return box;
}

// The study's objectives `f` as the search minimises them: a maximised one negated.
Eigen::VectorXd minimised_objectives(const Study& study, const Eigen::VectorXd& f) {
  Eigen::VectorXd out = f;
  for (size_t k = 0; k < study.objectives.size(); ++k)
    if (study.objectives[k].maximize) out(static_cast<Eigen::Index>(k)) *= -1.0;
  return out;
}

// The pagmo problem on `models`: each objective minimised (minimised_objectives), one
// constraint per study constraint (its largest g_hat over its points, <= 0).
pareto::Problem search_problem(const Study& study, const metamodel::Bounds& box,
                               const FrontModels& models) {
  pareto::Problem p;
  p.lower = box.lower;
  p.upper = box.upper;
  p.objectives = static_cast<int>(study.objectives.size());
  p.constraints = static_cast<int>(study.constraints.size());
  p.evaluate = [&study, &models](const Eigen::VectorXd& design, Eigen::VectorXd& f,
                                 Eigen::VectorXd& g) {
    // Discrete variables at their nearest allowed values: the search sees the allowed designs.
    const ParetoValues v = models.values(nearest_allowed(study, design));
    f = minimised_objectives(study, v.objectives);
    g = v.normalised;
  };
  return p;
}

// `design` with every variable within `near` of a bound moved onto that bound: the distance a
// fraction of the box, on the log scale for a variable of positive lower bound (`logged`, as the
// log-input models see it), else on the linear one; discrete variables then at their nearest
// allowed values.
Eigen::VectorXd onto_faces(const Study& study, const metamodel::Bounds& box,
                           const std::vector<bool>& logged, const Eigen::VectorXd& design,
                           double near) {
  Eigen::VectorXd out = design;
  for (Eigen::Index i = 0; i < design.size(); ++i) {
    const double lo = box.lower(i), hi = box.upper(i);
    const double u = logged[static_cast<size_t>(i)] ? std::log(design(i) / lo) / std::log(hi / lo)
                                                    : (design(i) - lo) / (hi - lo);
    if (u < near) out(i) = lo;
    if (u > 1.0 - near) out(i) = hi;
  }
  return nearest_allowed(study, out);
}

bool same_design(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return (a - b).cwiseAbs().maxCoeff() == 0.0;
}

// The face points of a round's verified designs `verified` (onto_faces), each once and none a
// design of the training `t` so far.
std::vector<Eigen::VectorXd> face_points(const Study& study, const metamodel::Bounds& box,
                                         double near, const Training& t,
                                         const std::vector<Eigen::VectorXd>& verified) {
  std::vector<Eigen::VectorXd> out;
  const std::vector<bool> logged = metamodel::log_scaled_variables(box);
  for (const Eigen::VectorXd& v : verified) {
    const Eigen::VectorXd q = onto_faces(study, box, logged, v, near);
    const auto is_q = [&q](const Eigen::VectorXd& o) { return same_design(q, o); };
    if (std::any_of(t.designs.begin(), t.designs.end(), is_q) ||
        std::any_of(out.begin(), out.end(), is_q))
      continue;
    out.push_back(q);
  }
  return out;
}

// Analyses `designs` as one batch of `purpose` in round `r` through the DOE runner (stored; a
// design analysed before is re-used), adds them to the training and counts them into `result`.
DoeProgress analyse(StudySession& session, const std::vector<Eigen::VectorXd>& designs,
                    const ParetoOptions& options,
                    const std::function<void(const DoeProgress&)>& on_batch,
                    const std::string& purpose, int r, Training& t, ParetoResult& result) {
  StoredDoe batch;
  batch.points.resize(static_cast<Eigen::Index>(designs.size()), session.study().n_design());
  for (size_t k = 0; k < designs.size(); ++k) {
    batch.points.row(static_cast<Eigen::Index>(k)) = designs[k].transpose();
    t.designs.push_back(designs[k]);
  }
  const DoeProgress done = run_doe(session, batch, options.batch, on_batch, purpose, r);
  result.analysed += done.analysed;
  result.reused += done.reused;
  return done;
}

// The analysed points' values and errors; counts the disagreeing ones into `round`.
void compare(const Study& study, StudyStore& store, const Eigen::VectorXd& ranges, double tolerance,
             std::vector<ParetoPoint>& front, const std::vector<int>& chosen, ParetoRound& round) {
  for (int i : chosen) {
    ParetoPoint& p = front[static_cast<size_t>(i)];
    for (const Evaluation& e : store.lookup(p.design, false)) {
      if (!e.ok || e.has_gradients || e.cases.size() != study.load_cases.size()) continue;
      const ExactResponses exact(study, e);
      p.computed = pareto_values(study, p.design, exact);
      p.error =
          ((p.predicted.objectives - p.computed.objectives).array() / ranges.array()).matrix();
      p.verified = true;
      p.agrees =
          p.error.cwiseAbs().maxCoeff() <= tolerance && p.computed.violation <= 100.0 * tolerance;
      round.max_error = std::max(round.max_error, p.error.cwiseAbs().maxCoeff());
      round.disagreeing += p.agrees ? 0 : 1;
      ++round.verified;
      break;
    }
  }
}

// Removes the auxiliary variable `name` from a study document (and its "starts" entries).
void drop_auxiliary(nlohmann::json& document, const nlohmann::json& name) {
  if (document.contains("auxiliary_variables")) {
    nlohmann::json& list = document["auxiliary_variables"];
    for (size_t i = list.size(); i-- > 0;) {
      if (list[i].value("name", "") == name) list.erase(i);
    }
    if (list.empty()) document.erase("auxiliary_variables");
  }
  if (document.contains("starts") && name.is_string()) {
    for (nlohmann::json& s : document["starts"]) s.erase(name.get<std::string>());
  }
}

// The round's models over `t`; the first round resolves the automatic modelling into `result`.
std::unique_ptr<FrontModels> round_models(const Study& study, const ParetoOptions& options,
                                          const Training& t, const metamodel::Bounds& box,
                                          ParetoResult& result) {
  if (t.kept.empty()) {
    throw std::runtime_error("pareto: no successful analysis to fit the metamodels on");
  }
  result.response_values = response_value_count(study, t.kept.front());
  result.modelling = options.modelling;
  if (result.modelling == ParetoModelling::kAuto) {
    result.modelling = result.response_values > kParetoCriteriaAbove ? ParetoModelling::kCriteria
                                                                     : ParetoModelling::kValues;
  }
  try {
    return fit_front_models(study, result.modelling, options.model, t.points, t.analyses, box);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(
        fmt::format("pareto: the metamodels over {} analyses: {}", t.kept.size(), e.what()));
  }
}

// Each verified, disagreeing point of `result.front` (the last round's) in the place of the
// analysed design of the run (`t`, collected after the last round) nearest its prediction
// (objectives scaled by the front's ranges) among the feasible analyses (V <= 100 T %)
// nondominated among themselves; dropped when that design is on the front already, kept when it
// is the point itself. The front is then sorted by the first objective again.
void replace_disagreeing(const Study& study, const FrontModels& model, double tolerance,
                         const Training& t, ParetoResult& result) {
  std::vector<Eigen::VectorXd> designs, minimised;
  std::vector<ParetoValues> analysed;
  for (size_t r = 0; r < t.kept.size(); ++r) {
    const Eigen::VectorXd d = t.points.row(static_cast<Eigen::Index>(r)).transpose();
    const ParetoValues v = pareto_values(study, d, ExactResponses(study, t.kept[r]));
    if (!(v.violation <= 100.0 * tolerance) || !v.objectives.allFinite()) continue;
    designs.push_back(d);
    analysed.push_back(v);
    minimised.push_back(minimised_objectives(study, v.objectives));
  }
  std::vector<size_t> nondominated;
  for (size_t i = 0; i < designs.size(); ++i) {
    const bool dominated = std::any_of(minimised.begin(), minimised.end(), [&](const auto& o) {
      return pareto::dominates(o, minimised[i]);
    });
    if (!dominated) nondominated.push_back(i);
  }
  std::vector<ParetoPoint> kept;
  for (const ParetoPoint& p : result.front) {
    if (!p.verified || p.agrees || nondominated.empty()) {
      kept.push_back(p);
      continue;
    }
    size_t best = nondominated.front();
    double best_d = std::numeric_limits<double>::infinity();
    for (size_t i : nondominated) {
      const double d =
          ((analysed[i].objectives - p.predicted.objectives).array() / result.ranges.array())
              .matrix()
              .squaredNorm();
      if (d < best_d) best_d = d, best = i;
    }
    if (same_design(designs[best], p.design)) {
      kept.push_back(p);
      continue;
    }
    ++result.replaced;
    const auto taken = [&](const ParetoPoint& o) { return same_design(o.design, designs[best]); };
    if (std::any_of(kept.begin(), kept.end(), taken) ||
        std::any_of(result.front.begin(), result.front.end(), taken))
      continue;  // on the front already
    ParetoPoint q;
    q.design = designs[best];
    q.predicted = model.values(q.design);
    q.computed = analysed[best];
    q.error =
        ((q.predicted.objectives - q.computed.objectives).array() / result.ranges.array()).matrix();
    q.verified = q.replaced = true;
    q.agrees =
        q.error.cwiseAbs().maxCoeff() <= tolerance && q.computed.violation <= 100.0 * tolerance;
    kept.push_back(std::move(q));
  }
  std::stable_sort(kept.begin(), kept.end(), [&](const ParetoPoint& a, const ParetoPoint& b) {
    return minimised_objectives(study, a.predicted.objectives)(0) <
           minimised_objectives(study, b.predicted.objectives)(0);
  });
  result.front = std::move(kept);
}

// The index of the objective `name` of `study` ("": the first). Throws StudyError for another.
int objective_index(const Study& study, const std::string& name) {
  if (name.empty()) return 0;
  std::string names;
  for (size_t k = 0; k < study.objectives.size(); ++k) {
    if (study.objectives[k].name == name) return static_cast<int>(k);
    names += (names.empty() ? "" : ", ") + study.objectives[k].name;
  }
  throw StudyError(study.file, {"refine_objective (--objective): no objective \"" +
                                name.substr(0, 60) + "\" (the study's: " + names + ")"});
}

// The best design the refinement `run` analysed (the start and proposal of each cycle, and its
// final design: rounded to allowed values when the study has discrete variables) that dominates
// `start` (a verified point's analysed values) with no larger violation than it has (or none):
// the least value of objective `keep`. False when none does. Dominates: better in objective
// `keep` by more than kRefineSlack of its range over the front (`ranges`), and worse in none by
// more than that (a bound the run met is met to rounding: 1 ulp above it is no worse). Only
// allowed designs: a discrete variable's front points take its allowed values.
constexpr double kRefineSlack = 1e-9;
bool dominating_design(const Study& study, StudyStore& store, const RunSummary& run,
                       const ParetoValues& start, int keep, const Eigen::VectorXd& ranges,
                       Eigen::VectorXd& design, ParetoValues& values) {
  const Eigen::VectorXd from = minimised_objectives(study, start.objectives);
  const Eigen::VectorXd slack = kRefineSlack * ranges;
  const auto no_worse = [&](const Eigen::VectorXd& m) {
    return ((m - from).array() <= slack.array()).all();
  };
  const double allowed = std::max(start.violation, 0.0);
  bool found = false;
  double best = std::numeric_limits<double>::infinity();
  std::vector<const Eigen::VectorXd*> tried = {&run.x};
  for (const CycleRecord& c : run.history) tried.insert(tried.end(), {&c.x0, &c.x_opt});
  for (const Eigen::VectorXd* x : tried) {
    if (x->size() < study.n_design()) continue;
    const Eigen::VectorXd d = x->head(study.n_design());
    if (!same_design(nearest_allowed(study, d), d)) continue;
    for (const Evaluation& e : store.lookup(d, false)) {
      if (!e.ok || e.cases.size() != study.load_cases.size()) continue;
      const ParetoValues v = pareto_values(study, d, ExactResponses(study, e));
      const Eigen::VectorXd m = minimised_objectives(study, v.objectives);
      if (m.allFinite() && v.violation <= allowed && no_worse(m) &&
          m(keep) < from(keep) - slack(keep) && m(keep) < best) {
        best = m(keep);
        design = d;
        values = v;
        found = true;
      }
      break;
    }
  }
  return found;
}

// Step 8: each verified point of `result.front` as the start of the study's own SAO (the
// epsilon-constraint study of objective options.refine_objective, run by the sweep's member
// driver on the store for options.refine cycles); the best analysed design of the run that
// dominates the point takes its place (`refined`, its prediction the last models'). A refined
// design already on the front is dropped there, not repeated.
void refine_verified(StudySession& session, const FrontModels& model, const ParetoOptions& options,
                     ParetoResult& result) {
  const Study& study = session.study();
  const int keep = objective_index(study, options.refine_objective);
  ParetoResult::Refinement& r = result.refinement;
  std::vector<ParetoPoint> kept;
  for (ParetoPoint p : result.front) {
    if (p.verified) {
      RunSummary run;
      try {  // the study at the point may be one the loader refuses (a relative move limit at 0)
        const LoadedStudy single = load_study(
            single_objective_study(session.document(), study, p, keep), session.source());
        run = run_member_driver(single, session.simulator(), options.refine, &session.store());
      } catch (const StudyError& e) {
        if (r.refused++ == 0) r.reason = fmt::format("{}", fmt::join(e.problems(), "; "));
      }
      ++r.started;
      r.cycles += run.cycles;
      r.analyses += run.analyses;
      r.sensitivities += run.sensitivity_analyses;
      r.simulator_runs += run.simulator_runs;
      r.reused += run.reused_analyses;
      Eigen::VectorXd design;
      ParetoValues values;
      if (dominating_design(study, session.store(), run, p.computed, keep, result.ranges, design,
                            values)) {
        ++r.improved;
        p.design = design;
        p.computed = values;
        p.predicted = model.values(design);
        p.error = ((p.predicted.objectives - p.computed.objectives).array() / result.ranges.array())
                      .matrix();
        p.agrees = p.error.cwiseAbs().maxCoeff() <= options.tolerance &&
                   p.computed.violation <= 100.0 * options.tolerance;
        p.refined = true;
      }
    }
    const auto same = [&p](const ParetoPoint& o) { return same_design(o.design, p.design); };
    if (std::none_of(kept.begin(), kept.end(), same)) kept.push_back(std::move(p));
  }
  std::stable_sort(kept.begin(), kept.end(), [&](const ParetoPoint& a, const ParetoPoint& b) {
    return minimised_objectives(study, a.predicted.objectives)(0) <
           minimised_objectives(study, b.predicted.objectives)(0);
  });
  result.front = std::move(kept);
  result.analysed += r.analyses;
  result.reused += r.reused;
}

}  // namespace

bool parse_pareto_modelling(const std::string& word, ParetoModelling& modelling) {
  if (word == "auto")
    modelling = ParetoModelling::kAuto;
  else if (word == "values")
    modelling = ParetoModelling::kValues;
  else if (word == "criteria")
    modelling = ParetoModelling::kCriteria;
  else
    return false;
  return true;
}

const char* pareto_modelling_name(ParetoModelling modelling) {
  switch (modelling) {
    case ParetoModelling::kValues:
      return "values";
    case ParetoModelling::kCriteria:
      return "criteria";
    case ParetoModelling::kAuto:
      break;
  }
  return "auto";
}

DoeSection pareto_doe_section(const nlohmann::json& document, const std::string& source) {
  LoadedStudy loaded = load_study(document, source);
  if (loaded.doe) return *loaded.doe;
  nlohmann::json with = document;
  const int points = std::max(10 * loaded.n_design(), 20);
  with["doe"] = {{"method", "lhs"}, {"points", points}};
  LoadedStudy again = load_study(with, source);
  return *again.doe;
}

ParetoValues pareto_values(const Study& study, const Eigen::VectorXd& design,
                           const ResponseModel& model) {
  const Eigen::VectorXd x = full(study, design, model);
  ParetoValues v;
  v.objectives.resize(static_cast<Eigen::Index>(study.objectives.size()));
  for (size_t k = 0; k < study.objectives.size(); ++k)
    v.objectives(static_cast<Eigen::Index>(k)) =
        objective_value(study, study.objectives[k], x, model);
  v.normalised.resize(static_cast<Eigen::Index>(study.constraints.size()));
  for (size_t j = 0; j < study.constraints.size(); ++j)
    v.normalised(static_cast<Eigen::Index>(j)) =
        normalised_history(study, study.constraints[j], x, model).maxCoeff();
  finish_pareto_values(study, x, v);
  return v;
}

void finish_pareto_values(const Study& study, const Eigen::VectorXd& x, ParetoValues& v) {
  v.constraints.resize(v.normalised.size());
  for (size_t j = 0; j < study.constraints.size(); ++j) {
    const Constraint& c = study.constraints[j];
    const auto i = static_cast<Eigen::Index>(j);
    const double s = c.sense == Sense::kLessEqual ? 1.0 : -1.0;
    v.constraints(i) =
        constraint_bound(study, c, x) + s * v.normalised(i) * constraint_normaliser(study, c, x);
  }
  v.violation = study.constraints.empty() ? -100.0 : 100.0 * v.normalised.maxCoeff();
}

nlohmann::json single_objective_study(const nlohmann::json& document, const Study& study,
                                      const ParetoPoint& point, int keep) {
  nlohmann::json out = document;
  const nlohmann::json entries = out["objectives"];
  out.erase("objectives");
  const ParetoValues& at = point.verified ? point.computed : point.predicted;
  nlohmann::json constraints = out.value("constraints", nlohmann::json::array());
  for (size_t k = 0; k < entries.size(); ++k) {
    const nlohmann::json& e = entries[k];
    if (static_cast<int>(k) == keep) {
      out["objective"] = e;
      continue;
    }
    const bool maximize = e.contains("maximize");
    const char* kind = maximize                     ? "maximize"
                       : e.contains("minimize_max") ? "minimize_max"
                                                    : "minimize";
    const double value = at.objectives(static_cast<Eigen::Index>(k));
    nlohmann::json c = {{"name", e.value("name", "objective" + std::to_string(k + 1))},
                        {"of", e[kind]},
                        {maximize ? "lower" : "upper", value}};
    if (e.contains("auxiliary")) drop_auxiliary(out, e["auxiliary"]);  // bounds nothing now
    if (value == 0.0) c["scale"] = 1.0;  // a zero bound needs a normaliser
    for (const char* key : {"unit", "label"}) {
      if (e.contains(key)) c[key] = e[key];
    }
    constraints.push_back(c);
  }
  out["constraints"] = constraints;
  for (int i = 0; i < study.n_design(); ++i)
    out["design_variables"][static_cast<size_t>(i)]["initial"] = point.design(i);
  return out;
}

ParetoResult run_pareto(StudySession& session, const StoredDoe& doe, const ParetoOptions& options,
                        const std::function<void(const DoeProgress&)>& on_batch,
                        const std::function<void(const ParetoRound&)>& on_round) {
  const Study& study = session.study();
  if (!study.multi_objective()) {
    throw StudyError(study.file, {"objective: sao pareto needs a study of two objectives or "
                                  "more (\"objectives\", docs/pareto.md); this one has one"});
  }
  const metamodel::Bounds box = design_box(study);
  (void)objective_index(study, options.refine_objective);  // before any analysis
  ParetoResult result;
  result.doe = run_doe(session, doe, options.batch, on_batch);
  result.analysed = result.doe.analysed;
  result.reused = result.doe.reused;
  Training t;
  for (int i = 0; i < doe.points.rows(); ++i) t.designs.push_back(doe.points.row(i).transpose());
  std::unique_ptr<FrontModels> model;
  for (int r = 1; r <= options.rounds; ++r) {
    ParetoRound round;
    round.round = r;
    collect(session, box, t);
    round.training = static_cast<int>(t.kept.size());
    model = round_models(study, options, t, box, result);
    round.model = model->description();
    round.worst_loo = model->worst_loo_percent();
    round.errors = model->errors();
    const std::vector<pareto::Point> found =
        pareto::front(search_problem(study, box, *model), options.search);
    if (found.empty()) {
      throw std::runtime_error(
          "pareto: no feasible point in the final population on the metamodels (round " +
          std::to_string(r) + "): the constraints may admit none in the bounds");
    }
    std::vector<ParetoPoint> front;
    std::vector<Eigen::VectorXd> objectives;
    for (const pareto::Point& p : found) {
      ParetoPoint q;
      q.design = nearest_allowed(study, p.x);  // what the search evaluated
      q.predicted = model->values(q.design);
      objectives.push_back(p.f);
      front.push_back(q);
    }
    round.points = static_cast<int>(front.size());
    Eigen::VectorXd lo = objectives.front(), hi = objectives.front();
    for (const auto& f : objectives) lo = lo.cwiseMin(f), hi = hi.cwiseMax(f);
    result.ranges = (hi - lo).cwiseMax(1e-12);
    const std::vector<int> chosen = pareto::spread(objectives, options.verify);
    std::vector<Eigen::VectorXd> verify;
    for (int c : chosen) verify.push_back(front[static_cast<size_t>(c)].design);
    const DoeProgress verified =
        analyse(session, verify, options, on_batch, "verification", r, t, result);
    round.analysed = verified.analysed;
    round.failed = verified.failed;
    compare(study, session.store(), result.ranges, options.tolerance, front, chosen, round);
    result.agreed = round.disagreeing == 0 && round.failed == 0;
    if (!result.agreed && options.faces > 0.0) {  // for the next round's models
      const std::vector<Eigen::VectorXd> faces = face_points(study, box, options.faces, t, verify);
      round.faces = static_cast<int>(faces.size());
      if (!faces.empty())
        round.analysed +=
            analyse(session, faces, options, on_batch, "faces", r, t, result).analysed;
    }
    result.front = std::move(front);
    result.rounds.push_back(round);
    if (on_round) on_round(round);
    if (result.agreed) break;
  }
  if (!result.agreed && model) {
    collect(session, box, t);  // with the last round's analyses
    replace_disagreeing(study, *model, options.tolerance, t, result);
  }
  if (options.refine > 0 && model) refine_verified(session, *model, options, result);
  return result;
}

}  // namespace sao

namespace sao {
namespace {

// settings[key] as an integer in [lo, hi] (kept when absent).
void integer_setting(const nlohmann::json& settings, const char* key, long long lo, long long hi,
                     auto& to) {
  if (!settings.contains(key) || settings[key].is_null()) return;
  const nlohmann::json& v = settings[key];
  if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi) {
    throw std::invalid_argument(
        fmt::format("pareto: {}: expected an integer {}..{}, got {}", key, lo, hi, v.dump()));
  }
  to = static_cast<std::remove_reference_t<decltype(to)>>(v.get<long long>());
}

}  // namespace

ParetoOptions pareto_options(const nlohmann::json& settings) {
  if (!settings.is_object()) {
    throw std::invalid_argument("pareto: expected an object of settings, got " + settings.dump());
  }
  static const std::vector<std::string> known = {
      "algorithm", "population", "generations", "seed",  "metamodel", "model",
      "verify",    "rounds",     "tolerance",   "faces", "refine",    "refine_objective"};
  for (const auto& [key, value] : settings.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      throw std::invalid_argument("pareto: unknown setting \"" + key.substr(0, 40) +
                                  "\" (known: " + fmt::format("{}", fmt::join(known, ", ")) + ")");
    }
  }
  ParetoOptions o;
  auto word = [&](const char* key, const char* expected, auto parse) {
    if (!settings.contains(key) || settings[key].is_null()) return;
    if (!settings[key].is_string() || !parse(settings[key].get<std::string>())) {
      throw std::invalid_argument(
          fmt::format("pareto: {}: expected {}, got {}", key, expected, settings[key].dump()));
    }
  };
  word("algorithm", "nsga2 or moead",
       [&o](const std::string& w) { return pareto::parse_algorithm(w, o.search.algorithm); });
  word("metamodel", "kriging, quadratic or linear",
       [&o](const std::string& w) { return parse_metamodel_kind(w, o.model); });
  word("model", "auto, values or criteria",
       [&o](const std::string& w) { return parse_pareto_modelling(w, o.modelling); });
  integer_setting(settings, "population", 8, 100000, o.search.population);
  integer_setting(settings, "generations", 1, 1000000, o.search.generations);
  integer_setting(settings, "seed", 0, std::numeric_limits<std::uint32_t>::max(), o.search.seed);
  integer_setting(settings, "verify", 1, 10000, o.verify);
  integer_setting(settings, "rounds", 1, 1000, o.rounds);
  if (settings.contains("tolerance") && !settings["tolerance"].is_null()) {
    const nlohmann::json& t = settings["tolerance"];
    if (!t.is_number() || !(t.get<double>() >= 1e-9 && t.get<double>() <= 10.0)) {
      throw std::invalid_argument("pareto: tolerance: expected a number 1e-9..10, got " + t.dump());
    }
    o.tolerance = t.get<double>();
  }
  integer_setting(settings, "refine", 0, 100, o.refine);
  if (settings.contains("refine_objective") && !settings["refine_objective"].is_null()) {
    if (!settings["refine_objective"].is_string()) {
      throw std::invalid_argument("pareto: refine_objective: expected an objective's name, got " +
                                  settings["refine_objective"].dump());
    }
    o.refine_objective = settings["refine_objective"].get<std::string>();
  }
  if (settings.contains("faces") && !settings["faces"].is_null()) {
    const nlohmann::json& f = settings["faces"];
    if (!f.is_number() || !(f.get<double>() >= 0.0 && f.get<double>() <= 0.5)) {
      throw std::invalid_argument("pareto: faces: expected a number 0..0.5, got " + f.dump());
    }
    o.faces = f.get<double>();
  }
  return o;
}

size_t stored_objectives(StudySession& session) {
  StudyStore& store = session.store();
  const int branch = store.current_branch();
  if (branch == 0) return 0;
  const nlohmann::json document = store.study(store.branch(branch).study).document;
  return document.is_object() && document.contains("objectives") &&
                 document["objectives"].is_array()
             ? document["objectives"].size()
             : 0;
}

PreparedDoe prepare_pareto_doe(StudySession& session) {
  return prepare_doe(session, pareto_doe_section(session.document(), session.source()));
}

}  // namespace sao
