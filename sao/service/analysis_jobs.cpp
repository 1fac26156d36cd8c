// The jobs of analyses a hosted study runs beside its cycles (study_host.hpp): a Pareto front
// (`sao pareto DIR`) and a robustness estimate (`sao robust DIR --json`), each by the command's
// own functions, on the run's thread (start_job), their results written into the study's folder.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <type_traits>

#include "sao/report/chart.hpp"
#include "sao/report/pareto_files.hpp"
#include "sao/report/robust.hpp"
#include "sao/service/study_host.hpp"
#include "sao/store/atomic_file.hpp"
#include "sao/store/pareto_run.hpp"

namespace sao::service {
namespace {

// DIR/NAME as JSON; 404 when the file is not there (nothing computed yet: `what` says what).
nlohmann::json read_result(const std::filesystem::path& file, const std::string& what) {
  std::ifstream in(file);
  if (!in) throw ApiError(404, "no " + what + " computed for this study yet");
  nlohmann::json document = nlohmann::json::parse(in, nullptr, false);
  if (document.is_discarded()) {
    throw ApiError(500, file.filename().string() + ": not JSON (written by another program?)");
  }
  return document;
}

// Number `key` of `body` into `to` when given: an integer in [lo, hi] (400 otherwise).
void integer_of(const nlohmann::json& body, const char* key, long long lo, long long hi, auto& to) {
  if (!body.contains(key) || body[key].is_null()) return;
  const nlohmann::json& v = body[key];
  if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi) {
    throw ApiError(400, std::string(key) + ": expected an integer " + std::to_string(lo) + ".." +
                            std::to_string(hi) + ", got " + v.dump().substr(0, 40));
  }
  to = static_cast<std::remove_reference_t<decltype(to)>>(v.get<long long>());
}

// The request of `sao robust` from a body (robust.hpp's RobustRequest), and the design values.
report::RobustRequest robust_request(const nlohmann::json& body,
                                     std::map<std::string, double>& design) {
  static const std::vector<std::string> known = {"method",    "samples",   "points",     "verify",
                                                 "metamodel", "quantiles", "confidence", "seed",
                                                 "sobol",     "design"};
  for (const auto& [key, value] : body.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      throw ApiError(400, "unknown setting \"" + key.substr(0, 40) +
                              "\" (known: " + fmt::format("{}", fmt::join(known, ", ")) + ")");
    }
  }
  report::RobustRequest request;
  if (body.contains("method") &&
      (!body["method"].is_string() ||
       !report::robust_method_from_name(body["method"].get<std::string>(), request.method))) {
    throw ApiError(400, "method: expected lhs, mc, mc-analyses or form");
  }
  if (body.contains("metamodel")) {
    if (!body["metamodel"].is_string()) throw ApiError(400, "metamodel: expected a word");
    request.metamodel = body["metamodel"].get<std::string>();
  }
  integer_of(body, "samples", 2, 10000000, request.samples);
  integer_of(body, "points", 2, 100000, request.points);
  integer_of(body, "verify", 0, 100000, request.verify);
  integer_of(body, "seed", 0, std::numeric_limits<std::uint32_t>::max(), request.seed);
  integer_of(body, "sobol", 0, 10000000, request.sobol);  // >= 64 or 0: robust_analysis checks
  try {
    if (body.contains("quantiles"))
      request.quantiles = body["quantiles"].get<std::vector<double>>();
    if (body.contains("confidence")) request.confidence = body["confidence"].get<double>();
    if (body.contains("design")) design = body["design"].get<std::map<std::string, double>>();
  } catch (const nlohmann::json::exception&) {
    throw ApiError(400,
                   "quantiles: a list of probabilities, confidence: a number, design: {name: "
                   "value}");
  }
  return request;
}

}  // namespace

nlohmann::json StudyHost::start_pareto(const nlohmann::json& body) {
  ParetoOptions options;
  try {
    options = pareto_options(body);
  } catch (const std::invalid_argument& e) {
    throw ApiError(400, e.what());
  }
  Claim claim(*this, "pareto");
  std::unique_ptr<StudySession> analyses;
  PreparedDoe prepared;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    analyses = analyses_session();
    if (!analyses->study().multi_objective()) {
      throw ApiError(400,
                     "the study has one objective: a front needs two or more "
                     "(\"objectives\", docs/pareto.md); step or run it instead");
    }
    prepared = prepare_pareto_doe(*analyses);
  }
  const nlohmann::json out = {{"doe", prepared.doe.id},
                              {"resumed", prepared.resumed},
                              {"points", prepared.doe.points.rows()},
                              {"settings", pareto_settings_json(options)}};
  hub_.publish("pareto", out);
  start_job(claim, std::move(analyses), "pareto",
            [this, doe = prepared.doe, options](StudySession& session, const Progress& progress) {
              const ParetoResult result =
                  run_pareto(session, doe, options, progress, [this](const ParetoRound& r) {
                    hub_.publish("pareto_round", {{"round", r.round},
                                                  {"front_points", r.points},
                                                  {"verified", r.verified},
                                                  {"analysed", r.analysed},
                                                  {"disagreeing", r.disagreeing},
                                                  {"max_error", r.max_error}});
                  });
              write_pareto(dir_.string(), session.study(), result, options);
              return nlohmann::json({{"front_points", result.front.size()},
                                     {"rounds", result.rounds.size()},
                                     {"agreed", result.agreed},
                                     {"analysed", result.analysed},
                                     {"reused", result.reused},
                                     {"balanced", balanced_point(session.study(), result) + 1}});
            });
  return out;
}

nlohmann::json StudyHost::pareto() const {
  const nlohmann::json document = read_result(dir_ / "pareto.json", "Pareto front");
  StudySession session(store_path(), StoreAccess::kReadOnly);
  session.open_for_analyses();
  nlohmann::json charts = nlohmann::json::array();
  try {
    for (const Plot& p :
         pareto_charts(session.study(), read_pareto_front(document, session.study())))
      charts.push_back(chart_spec(p));
  } catch (const std::invalid_argument& e) {
    throw ApiError(409, e.what());  // a front of another study (restarted since)
  }
  return {{"pareto", document}, {"charts", charts}};
}

nlohmann::json StudyHost::front_point_study(const nlohmann::json& body) const {
  for (const auto& [key, value] : body.items()) {
    if (key != "point" && key != "objective") {
      throw ApiError(400, "unknown key \"" + key.substr(0, 40) + "\" (known: point, objective)");
    }
  }
  const nlohmann::json document = read_result(dir_ / "pareto.json", "Pareto front");
  StudySession session(store_path(), StoreAccess::kReadOnly);
  session.open_for_analyses();
  const Study& study = session.study();
  size_t points = 0;
  try {
    points = read_pareto_front(document, study).front.size();
  } catch (const std::invalid_argument& e) {
    throw ApiError(409, e.what());  // a front of another study (restarted since)
  }
  const nlohmann::json& point = body.contains("point") ? body["point"] : nlohmann::json();
  if (!point.is_number_integer() || point < 1 || point > points) {
    throw ApiError(400, "point: expected a front point number 1.." + std::to_string(points) +
                            ", got " + point.dump().substr(0, 40));
  }
  const nlohmann::json& objective =
      body.contains("objective") ? body["objective"] : nlohmann::json("");
  if (!objective.is_string()) throw ApiError(400, "objective: expected an objective's name");
  FrontPointStudy start;
  try {
    start = sao::front_point_study(document, session.document(), study, point.get<int>(),
                                   objective.get<std::string>());
  } catch (const std::invalid_argument& e) {
    throw ApiError(400, e.what());  // an unknown objective, the study's named
  }
  return {{"study", start.study},
          {"from",
           {{"study", id_},
            {"point", point},
            {"objective", study.objectives[static_cast<size_t>(start.objective)].name},
            {"verified", start.verified}}}};
}

nlohmann::json StudyHost::start_robust(const nlohmann::json& body) {
  std::map<std::string, double> values;
  const report::RobustRequest request = robust_request(body, values);
  Claim claim(*this, "robust");
  std::unique_ptr<StudySession> analyses;
  RandomSection random;
  Eigen::VectorXd design;
  std::string source;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    analyses = analyses_session();
    random = report::random_section(*analyses);
    try {
      design = report::directory_design(analyses->study(), dir_.string(), values, source);
    } catch (const std::invalid_argument& e) {
      throw ApiError(400, e.what());
    }
  }
  nlohmann::json shown = nlohmann::json::object();
  for (int i = 0; i < analyses->study().n_design(); ++i)
    shown[analyses->study().design[i].name] = design(i);
  const nlohmann::json out = {{"method", report::robust_method_name(request.method)},
                              {"design", shown},
                              {"design_source", source}};
  hub_.publish("robust", out);
  start_job(
      claim, std::move(analyses), "robust",
      [this, random, design, request, source](StudySession& session, const Progress& progress) {
        report::RobustResult result;
        try {
          result = report::robust_analysis(session, random, design, request, progress);
        } catch (const std::invalid_argument& e) {
          throw ApiError(400, e.what());  // settings, too few successful analyses
        }
        result.design_source = source;
        const nlohmann::ordered_json document = report::robust_json(result);
        write_file_atomically((dir_ / "robust.json").string(), document.dump(2) + "\n");
        return nlohmann::json({{"values", result.values.size()},
                               {"samples", result.samples},
                               {"file", "robust.json"}});
      });
  return out;
}

nlohmann::json StudyHost::robust() const {
  return read_result(dir_ / "robust.json", "robustness estimate");
}

}  // namespace sao::service
