#include "sao/store/doe_run.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "sao/optimizer/discrete.hpp"
#include "sao/seam/worker_pool.hpp"
#include "sao/study/study_loader.hpp"

namespace sao {
namespace {

// A usable stored analysis of `design`: successful, values only (the driver's rule: the values
// of an analysis with sensitivities may differ in the last digits), every load case.
bool stored(StudyStore& store, const Study& study, const Eigen::VectorXd& design) {
  for (const Evaluation& e : store.lookup(design, false)) {
    if (e.ok && !e.has_gradients && e.cases.size() == study.load_cases.size()) return true;
  }
  return false;
}

int stored_points(StudyStore& store, const Study& study, const Eigen::MatrixXd& points) {
  int n = 0;
  for (int i = 0; i < points.rows(); ++i) n += stored(store, study, points.row(i).transpose());
  return n;
}

// A setting as a message shows it: its JSON, cut to 80 characters.
std::string excerpt(const nlohmann::json& value) {
  const std::string text = value.dump();
  return text.size() <= 80 ? text : text.substr(0, 77) + "...";
}

// The keys whose values differ between two canonical plan settings, "doe.key a -> b".
std::string differences(const nlohmann::json& stored, const nlohmann::json& wanted) {
  std::string out;
  for (const auto& [key, value] : wanted.items()) {
    if (stored.contains(key) && stored[key] == value) continue;
    out += (out.empty() ? "" : ", ") + std::string("doe.") + key + " " +
           (stored.contains(key) ? excerpt(stored[key]) : "(none)") + " -> " + excerpt(value);
  }
  for (const auto& [key, value] : stored.items()) {
    if (!wanted.contains(key))
      out += std::string(out.empty() ? "" : ", ") + "doe." + key + " dropped";
  }
  return out;
}

nlohmann::json plan_notes(const doe::Plan& plan, const std::vector<std::string>& constraints,
                          const Study& study) {
  auto number = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
  nlohmann::json notes = {{"min_distance", number(plan.min_distance)},
                          {"start_min_distance", number(plan.start_min_distance)},
                          {"replaced", plan.replaced},
                          {"dropped", plan.dropped},
                          {"existing", plan.existing},
                          {"explicit_constraints", constraints}};
  if (!plan.generators.empty() || plan.resolution > 0) {
    nlohmann::json generators = nlohmann::json::array();
    for (const doe::Generator& g : plan.generators) {
      std::string text = study.design[g.generated].name + "=";
      for (size_t f = 0; f < g.factors.size(); ++f) {
        text += (f ? "*" : "") + study.design[g.factors[f]].name;
      }
      generators.push_back(text);
    }
    notes["generators"] = generators;
    notes["resolution"] = plan.resolution;
  }
  return notes;
}

// Discrete variables (docs/study-format.md): every point's at its nearest allowed value, the
// points that then repeat an earlier one dropped. Returns {moved, repeated}.
std::pair<int, int> move_to_allowed(const Study& study, Eigen::MatrixXd& points) {
  int moved = 0;
  std::vector<Eigen::RowVectorXd> kept;
  for (Eigen::Index r = 0; r < points.rows(); ++r) {
    const Eigen::RowVectorXd p = nearest_allowed(study, points.row(r).transpose()).transpose();
    moved += p != points.row(r);
    if (std::find(kept.begin(), kept.end(), p) == kept.end()) kept.push_back(p);
  }
  const int repeated = static_cast<int>(points.rows()) - static_cast<int>(kept.size());
  points.resize(static_cast<Eigen::Index>(kept.size()), points.cols());
  for (size_t r = 0; r < kept.size(); ++r) points.row(static_cast<Eigen::Index>(r)) = kept[r];
  return {moved, repeated};
}

}  // namespace

std::optional<DoeSection> stored_doe_section(StudySession& session,
                                             const std::vector<std::string>& overrides) {
  const std::string source = session.source().empty() ? session.store().path() : session.source();
  for (const std::string& o : overrides) {
    if (o.rfind("doe.", 0) != 0) {
      throw StudyError(source, {o + ": on a stored study only doe.KEY=VALUE (the stored study is "
                                    "not changed by a DOE)"});
    }
  }
  if (overrides.empty() && !session.store().does().empty()) return std::nullopt;  // resume
  nlohmann::json document = session.document();
  for (const std::string& o : overrides) apply_override(document, o);
  LoadedStudy loaded = load_study(document, source);
  if (!loaded.doe) {
    throw StudyError(source, {"doe: the study has no \"doe\" section: give its settings, e.g. "
                              "doe.method=lhs and doe.points=50 (docs/doe.md)"});
  }
  return std::move(loaded.doe);
}

PreparedDoe prepare_stored_doe(StudySession& session, const std::optional<DoeSection>& section) {
  if (section) return prepare_doe(session, *section);
  return PreparedDoe{session.store().does().back(), true, {}};
}

PreparedDoe prepare_doe(StudySession& session, const DoeSection& section) {
  StudyStore& store = session.store();
  const Study& study = session.study();
  PreparedDoe out;
  const std::vector<int> which = explicit_constraints(study);
  for (int j : which) out.explicit_constraints.push_back(study.constraints[j].name);
  const std::vector<StoredDoe> does = store.does();
  if (!does.empty()) {
    const StoredDoe& last = does.back();
    if (last.settings == section.plan) {
      out.doe = last;
      out.resumed = true;
      return out;
    }
    const int done = stored_points(store, study, last.points);
    if (done < last.points.rows()) {
      throw StudyError(
          store.path(),
          {"doe: the store's DOE " + std::to_string(last.id) + " (" +
           last.settings.value("method", "?") + ", " + std::to_string(done) + " of " +
           std::to_string(last.points.rows()) +
           " points analysed) is unfinished and has other "
           "settings (" +
           differences(last.settings, section.plan) +
           "): `sao doe DIR` finishes it; a DOE with other settings starts once it is done, or "
           "in another folder"});
    }
  }
  doe::Request request;
  request.settings = section.settings;
  request.region = section.region;
  request.feasible = [&](const Eigen::VectorXd& x) {
    return holds_explicit_constraints(study, which, x);
  };
  if (section.settings.method == doe::Method::kLatinHypercube) {
    const std::string hash = simulator_inputs_hash(study, session.simulator().fingerprint());
    std::vector<Eigen::VectorXd> designs;
    for (const StoredAnalysis& a : store.analyses()) {
      if (a.inputs_hash == hash && a.design.size() == study.n_design()) designs.push_back(a.design);
    }
    request.existing.resize(static_cast<int>(designs.size()), study.n_design());
    for (size_t i = 0; i < designs.size(); ++i) request.existing.row(i) = designs[i].transpose();
  }
  doe::Plan plan;
  try {
    plan = doe::make_plan(request);
  } catch (const doe::PlanError& e) {
    throw StudyError(study.file, {e.what()});
  }
  nlohmann::json notes = plan_notes(plan, out.explicit_constraints, study);
  if (has_discrete(study)) {
    const auto [moved, repeated] = move_to_allowed(study, plan.points);
    notes["moved_to_allowed_values"] = moved;
    notes["repeated_after_moving"] = repeated;
    if (moved > 0) {
      spdlog::info("doe: {} point(s) moved to the discrete variables' allowed values{}", moved,
                   repeated > 0 ? fmt::format(", {} of them dropped as repeats", repeated) : "");
    }
  }
  const int id = store.add_doe(session.branch(), section.plan, plan.points, notes);
  for (const StoredDoe& d : store.does()) {
    if (d.id == id) out.doe = d;
  }
  return out;
}

std::vector<DoeState> doe_states(StudyStore& store) {
  std::vector<DoeState> out;
  for (const StoredDoe& d : store.does()) {
    store.use_inputs(d.inputs_hash);
    DoeState state{d.id, d.settings.value("method", "?"), static_cast<int>(d.points.rows()), 0};
    for (int i = 0; i < d.points.rows(); ++i) {
      for (const Evaluation& e : store.lookup(d.points.row(i).transpose(), false)) {
        if (e.ok && !e.has_gradients) {
          ++state.done;
          break;
        }
      }
    }
    out.push_back(state);
  }
  return out;
}

int doe_batch_size(const nlohmann::json& document, int batch, int missing) {
  if (batch > 0) return batch;
  const nlohmann::json simulator = document.value("simulator", nlohmann::json::object());
  const nlohmann::json executor = simulator.value("executor", nlohmann::json::object());
  if (executor.is_object() && executor.value("type", "local") != "local") {
    // An array of max_jobs tasks (20 without a limit): a batch's analyses are stored when it
    // returns, and a killed sao re-attaches only to the tasks whose folders it has not read
    // yet, so that one array of the whole plan would lose the finished ones to a kill.
    const int jobs = executor.value("max_jobs", 0);
    return std::max(1, std::min(missing, jobs > 0 ? jobs : 20));
  }
  int workers = 0;
  if (simulator.contains("workers") && simulator["workers"].is_number_integer()) {
    workers = simulator["workers"].get<int>();
  } else if (simulator.contains("threads") && simulator["threads"].is_number_integer()) {
    workers = simulator["threads"].get<int>();
  }
  return workers > 0 ? workers : static_cast<int>(hardware_workers());
}

DoeProgress run_doe(StudySession& session, const StoredDoe& doe, int batch,
                    const std::function<void(const DoeProgress&)>& report,
                    const std::string& purpose, int round) {
  StudyStore& store = session.store();
  const Study& study = session.study();
  const auto started = std::chrono::steady_clock::now();
  DoeProgress p;
  p.purpose = purpose;
  p.round = round;
  p.total = static_cast<int>(doe.points.rows());
  std::vector<Eigen::VectorXd> missing;
  std::vector<int> number;  // of each missing point in the plan, from 1
  for (int i = 0; i < doe.points.rows(); ++i) {
    const Eigen::VectorXd x = doe.points.row(i).transpose();
    if (stored(store, study, x)) {
      ++p.reused;
    } else {
      missing.push_back(x);
      number.push_back(i + 1);
    }
  }
  Simulator& simulator = session.simulator();
  simulator.expect_no_gradients();  // values only: no forward pass kept for a gradient
  const int size = doe_batch_size(session.document(), batch, static_cast<int>(missing.size()));
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  for (size_t first = 0; first < missing.size(); first += size) {
    const size_t end = std::min(missing.size(), first + size);
    std::vector<EvaluationRequest> requests;
    for (size_t k = first; k < end; ++k) requests.push_back({missing[k], {}});
    p.running = static_cast<int>(requests.size());
    p.elapsed_seconds = elapsed();
    if (report) report(p);
    const std::vector<Evaluation> results = simulator.evaluate(requests);
    for (size_t k = 0; k < results.size(); ++k) {
      store.save(requests[k].design, {}, results[k]);  // one transaction each, as it returns
      ++p.analysed;
      if (!results[k].ok) {
        ++p.failed;
        spdlog::warn("doe: the analysis of point {} failed: {}", number[first + k],
                     results[k].message);
      }
    }
    p.running = 0;
    p.elapsed_seconds = elapsed();
    const int left = static_cast<int>(missing.size() - end);
    p.remaining_seconds = p.elapsed_seconds / p.analysed * left;
    if (report) report(p);
  }
  return p;
}

nlohmann::ordered_json progress_json(const char* event, const DoeProgress& p) {
  nlohmann::ordered_json j;
  if (event) j["event"] = event;
  j["purpose"] = p.purpose;
  if (p.round > 0) j["round"] = p.round;
  j["done"] = p.done();
  j["total"] = p.total;
  j["reused"] = p.reused;
  j["analysed"] = p.analysed;
  j["failed"] = p.failed;
  j["elapsed_seconds"] = p.elapsed_seconds;
  j["remaining_seconds"] = p.remaining_seconds < 0 ? nlohmann::ordered_json()
                                                   : nlohmann::ordered_json(p.remaining_seconds);
  return j;
}

}  // namespace sao
