#include "sao/seam/analysis_request.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include "sao/seam/json_reader.hpp"
#include "sao/seam/json_text.hpp"

namespace sao {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// A number in the exact form (json_reader.hpp), its path named in the error.
double read_number(const json& j, const std::string& path) {
  try {
    return exact_number_from(j);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(path + ": " + e.what());
  }
}

json numbers(const double* v, Eigen::Index n) {
  json out = json::array();
  for (Eigen::Index i = 0; i < n; ++i) out.push_back(exact_number(v[i]));
  return out;
}

Eigen::VectorXd read_vector(const json& j, const std::string& path) {
  if (!j.is_array())
    throw std::invalid_argument(path + ": " + json_expected("an array of numbers", j));
  Eigen::VectorXd out(static_cast<Eigen::Index>(j.size()));
  for (size_t i = 0; i < j.size(); ++i) {
    out(static_cast<Eigen::Index>(i)) = read_number(j[i], json_index_path(path, i));
  }
  return out;
}

// An integer in [lowest, highest] (an integral JSON number), its path named in the error:
// nlohmann's get<int> wraps 1e308 and truncates 0.5.
long read_integer(const json& j, const std::string& path, long lowest, long highest) {
  const double d = j.is_number() ? j.get<double>() : NAN;
  if (!(d >= static_cast<double>(lowest) && d <= static_cast<double>(highest)) ||
      d != std::floor(d)) {
    throw std::invalid_argument(path + ": expected an integer in [" + std::to_string(lowest) +
                                ", " + std::to_string(highest) + "], got " + json_excerpt(j));
  }
  return static_cast<long>(d);
}

// The format tag of a document, "" when it has none (or not a string).
std::string format_of(const json& d) {
  return d.is_object() && d.contains("format") && d["format"].is_string()
             ? d["format"].get<std::string>()
             : std::string();
}

// One load case of a request's setup: its name, time grid and parameters.
LoadCaseSpec read_load_case(const json& c, const std::string& path) {
  LoadCaseSpec spec;
  spec.name = json_string(json_member(c, "name", path), path + ".name");
  const std::string gp = path + ".grid";
  const json& g = json_member(c, "grid", path);
  spec.grid.start = read_number(json_member(g, "start", gp), gp + ".start");
  spec.grid.end = read_number(json_member(g, "end", gp), gp + ".end");
  spec.grid.points = static_cast<int>(
      read_integer(json_member(g, "points", gp), gp + ".points", 0, kMaxGridPoints));
  const Eigen::VectorXd v = read_vector(json_member(g, "values", gp), gp + ".values");
  spec.grid.values.assign(v.data(), v.data() + v.size());
  const std::string pp = path + ".parameters";
  for (const auto& [name, value] : json_object(json_member(c, "parameters", path), pp).items()) {
    spec.parameters[name] = read_number(value, json_key_path(pp, name));
  }
  return spec;
}

// One case of an evaluation document: its scalars, histories and gradients by name.
CaseResult read_case_result(const json& c, const std::string& path) {
  CaseResult r;
  const std::string sp = path + ".scalars", hp = path + ".histories", gp = path + ".gradients";
  for (const auto& [name, v] : json_object(json_member(c, "scalars", path), sp).items()) {
    r.scalars[name] = read_number(v, json_key_path(sp, name));
  }
  for (const auto& [name, h] : json_object(json_member(c, "histories", path), hp).items()) {
    r.histories[name] = read_vector(h, json_key_path(hp, name));
  }
  for (const auto& [name, g] : json_object(json_member(c, "gradients", path), gp).items()) {
    const std::string q = json_key_path(gp, name);
    const Eigen::VectorXd v = read_vector(json_member(g, "values", q), q + ".values");
    // Bounded so that their product cannot overflow; it must then be the values' count.
    const auto rows = read_integer(json_member(g, "rows", q), q + ".rows", 0, 1L << 30),
               cols = read_integer(json_member(g, "cols", q), q + ".cols", 0, 1L << 30);
    if (rows * cols != v.size()) {
      throw std::invalid_argument(q + ": " + std::to_string(rows) + " rows and " +
                                  std::to_string(cols) + " columns, but " +
                                  std::to_string(v.size()) + " values");
    }
    r.gradients[name] = Eigen::Map<const Eigen::MatrixXd>(v.data(), rows, cols);
  }
  if (c.contains("gradient_method")) {  // absent in older workers' files
    r.gradient_method = json_string(c["gradient_method"], path + ".gradient_method");
  }
  if (c.contains("difference_step")) {  // absent in older workers' files
    r.difference_step = read_number(c["difference_step"], path + ".difference_step");
    if (!(std::isfinite(r.difference_step) && r.difference_step >= 0.0)) {
      throw std::invalid_argument(path + ".difference_step: expected a step >= 0, got " +
                                  json_excerpt(c["difference_step"]));
    }
  }
  return r;
}

}  // namespace

json request_document(const SimulatorSetup& setup, const EvaluationRequest& request) {
  json cases = json::array();
  for (const LoadCaseSpec& c : setup.load_cases) {
    cases.push_back({{"name", c.name},
                     {"grid",
                      {{"start", exact_number(c.grid.start)},
                       {"end", exact_number(c.grid.end)},
                       {"points", c.grid.points},
                       {"values", numbers(c.grid.values.data(),
                                          static_cast<Eigen::Index>(c.grid.values.size()))}}},
                     {"parameters", c.parameters}});
  }
  json section = setup.section;
  if (section.is_object()) section.erase("executor");  // the worker runs the request locally
  json derivatives = json::array();
  for (const DerivativeRequest& d : request.derivatives) {
    derivatives.push_back(
        {{"load_case", d.load_case}, {"response", d.response}, {"points", d.time_indices}});
  }
  return {{"format", "sao-analysis-request"},
          {"setup",
           {{"section", section},
            {"design_names", setup.design_names},
            {"load_cases", cases},
            {"study_directory", setup.study_directory}}},
          {"design", numbers(request.design.data(), request.design.size())},
          {"derivatives", derivatives},
          {"difference_order", static_cast<int>(request.differences)},
          {"lower", numbers(request.lower.data(), request.lower.size())},
          {"upper", numbers(request.upper.data(), request.upper.size())},
          {"values", request.values ? evaluation_document(*request.values) : json()}};
}

void read_request_document(const json& document, SimulatorSetup& setup, EvaluationRequest& request,
                           Evaluation& values) {
  const std::string p;  // the document's own paths: "setup.load_cases[0].name"
  if (format_of(document) != "sao-analysis-request") {
    throw std::invalid_argument(
        "not an analysis request (\"format\": \"sao-analysis-request\" missing)");
  }
  const std::string sp = "setup";
  const json& s = json_member(document, "setup", p);
  setup.section = json_member(s, "section", sp);
  // The worker runs the request here (as request_document writes it), never as a job again.
  if (setup.section.is_object()) setup.section.erase("executor");
  setup.design_names.clear();
  const json& names = json_array(json_member(s, "design_names", sp), sp + ".design_names");
  for (size_t i = 0; i < names.size(); ++i) {
    setup.design_names.push_back(json_string(names[i], json_index_path(sp + ".design_names", i)));
  }
  setup.study_directory =
      json_string(json_member(s, "study_directory", sp), sp + ".study_directory");
  setup.load_cases.clear();
  const json& cases = json_array(json_member(s, "load_cases", sp), sp + ".load_cases");
  for (size_t i = 0; i < cases.size(); ++i) {
    setup.load_cases.push_back(read_load_case(cases[i], json_index_path(sp + ".load_cases", i)));
  }
  request.design = read_vector(json_member(document, "design", p), "design");
  request.derivatives.clear();
  const long n_cases = static_cast<long>(setup.load_cases.size());
  const json& derivatives = json_array(json_member(document, "derivatives", p), "derivatives");
  for (size_t i = 0; i < derivatives.size(); ++i) {
    const json& d = derivatives[i];
    const std::string q = json_index_path("derivatives", i);
    DerivativeRequest r;
    r.load_case = static_cast<int>(read_integer(json_member(d, "load_case", q), q + ".load_case", 0,
                                                std::max(n_cases - 1, 0L)));
    r.response = json_string(json_member(d, "response", q), q + ".response");
    const json& points = json_array(json_member(d, "points", q), q + ".points");
    for (size_t k = 0; k < points.size(); ++k) {
      r.time_indices.push_back(static_cast<int>(
          read_integer(points[k], json_index_path(q + ".points", k), 0, kMaxGridPoints - 1)));
    }
    request.derivatives.push_back(std::move(r));
  }
  request.differences = DifferenceOrder::kForward;
  if (document.contains("difference_order")) {
    const json& c = document["difference_order"];
    if (c != 1 && c != 2 && c != 4) {
      throw std::invalid_argument("difference_order: expected 1, 2 or 4, got " + c.dump());
    }
    request.differences = static_cast<DifferenceOrder>(c.get<int>());
  }
  request.lower.resize(0);
  request.upper.resize(0);
  if (document.contains("lower")) request.lower = read_vector(document["lower"], "lower");
  if (document.contains("upper")) request.upper = read_vector(document["upper"], "upper");
  request.values = nullptr;
  if (document.contains("values") && !document["values"].is_null()) {
    values = read_evaluation_document(document["values"], "values");
    request.values = &values;
  }
}

json evaluation_document(const Evaluation& e) {
  json cases = json::array();
  for (const CaseResult& c : e.cases) {
    json scalars = json::object(), histories = json::object(), gradients = json::object();
    for (const auto& [name, v] : c.scalars) scalars[name] = exact_number(v);
    for (const auto& [name, h] : c.histories) histories[name] = numbers(h.data(), h.size());
    for (const auto& [name, g] : c.gradients) {  // column-major
      gradients[name] = {
          {"rows", g.rows()}, {"cols", g.cols()}, {"values", numbers(g.data(), g.size())}};
    }
    cases.push_back({{"scalars", scalars},
                     {"histories", histories},
                     {"gradients", gradients},
                     {"gradient_method", c.gradient_method},
                     {"difference_step", exact_number(c.difference_step)}});
  }
  return {{"format", "sao-evaluation"},
          {"ok", e.ok},
          {"message", e.message},
          {"has_gradients", e.has_gradients},
          {"runs", e.cost.runs},
          {"wall_seconds", exact_number(e.cost.wall_seconds)},
          {"cases", cases}};
}

Evaluation read_evaluation_document(const json& d, const std::string& p) {
  if (format_of(d) != "sao-evaluation") {
    throw std::invalid_argument((p.empty() ? "" : p + ": ") +
                                "not an evaluation (\"format\": \"sao-evaluation\" missing)");
  }
  Evaluation e;
  e.ok = json_boolean(json_member(d, "ok", p), json_key_path(p, "ok"));
  e.message = json_string(json_member(d, "message", p), json_key_path(p, "message"));
  e.has_gradients =
      json_boolean(json_member(d, "has_gradients", p), json_key_path(p, "has_gradients"));
  e.cost.runs = static_cast<int>(
      read_integer(json_member(d, "runs", p), json_key_path(p, "runs"), 0, 1L << 30));
  e.cost.wall_seconds =
      read_number(json_member(d, "wall_seconds", p), json_key_path(p, "wall_seconds"));
  const json& cases = json_array(json_member(d, "cases", p), json_key_path(p, "cases"));
  for (size_t i = 0; i < cases.size(); ++i) {
    e.cases.push_back(read_case_result(cases[i], json_index_path(json_key_path(p, "cases"), i)));
  }
  return e;
}

std::vector<Evaluation> evaluate_as_jobs(const std::vector<EvaluationRequest>& batch,
                                         const SimulatorSetup& setup, const fs::path& worker,
                                         const fs::path& folder, BatchExecutor& executor,
                                         JobLedger* ledger) {
  static std::atomic<long> counter{0};
  std::vector<Evaluation> out(batch.size());
  std::vector<JobSpec> specs;
  std::vector<size_t> submitted;
  for (size_t r = 0; r < batch.size(); ++r) {
    const json document = request_document(setup, batch[r]);
    JobSpec spec;
    spec.directory = folder / ("request-" + std::to_string(++counter));
    // The key: the run's design and what is asked of it, exactly.
    spec.key = "request:" + run_key(batch[r].design, 0, -1, 0.0) + ":" +
               document["derivatives"].dump() + (batch[r].values ? ":values" : "") +
               (batch[r].differences == DifferenceOrder::kCentral     ? ":central"
                : batch[r].differences == DifferenceOrder::kFivePoint ? ":five-point"
                                                                      : "");
    spec.command = {worker.string(), "analyse", "request.json", "evaluation.json"};
    spec.stdout_file = spec.directory / "stdout.txt";
    spec.stderr_file = spec.directory / "stderr.txt";
    try {
      fs::create_directories(spec.directory);
      std::ofstream file(spec.directory / "request.json");
      file << document.dump();
      if (!file)
        throw std::runtime_error("cannot write " + (spec.directory / "request.json").string());
    } catch (const std::exception& e) {
      out[r].ok = false;
      out[r].message = e.what();
      continue;
    }
    specs.push_back(std::move(spec));
    submitted.push_back(r);
  }
  const std::vector<JobOutcome> outcomes = executor.execute(specs, ledger);
  for (size_t k = 0; k < submitted.size(); ++k) {
    Evaluation& e = out[submitted[k]];
    const JobOutcome& o = outcomes[k];
    const fs::path dir = o.directory.empty() ? specs[k].directory : o.directory;
    std::error_code ec;
    if (dir != specs[k].directory) fs::remove_all(specs[k].directory, ec);
    const std::string where = "analysis job " + o.job_id + " in " + dir.string() + ": ";
    if (!o.ran) {
      e.ok = false;
      e.message = where + o.message;
      continue;
    }
    try {
      e = read_evaluation_document(read_json_file((dir / "evaluation.json").string()));
      fs::remove_all(dir, ec);
    } catch (const std::exception& x) {
      e = Evaluation{};
      e.ok = false;
      e.message = where + "sao analyse: exit status " + std::to_string(o.exit_code) +
                  " (job ended " + o.state + "), no evaluation read (" + x.what() + ")";
    }
  }
  std::error_code ec;
  fs::remove(folder, ec);  // when empty: every job's folder was read and removed
  return out;
}

}  // namespace sao
