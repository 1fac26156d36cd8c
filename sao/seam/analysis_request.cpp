#include "sao/seam/analysis_request.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include "sao/seam/json_reader.hpp"

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
  if (!j.is_array()) throw std::invalid_argument(path + ": expected an array of numbers");
  Eigen::VectorXd out(static_cast<Eigen::Index>(j.size()));
  for (size_t i = 0; i < j.size(); ++i) {
    out(static_cast<Eigen::Index>(i)) = read_number(j[i], path + "[" + std::to_string(i) + "]");
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
                                ", " + std::to_string(highest) + "], got " + j.dump());
  }
  return static_cast<long>(d);
}

// The format tag of a document, "" when it has none (or not a string).
std::string format_of(const json& d) {
  return d.is_object() && d.contains("format") && d["format"].is_string()
             ? d["format"].get<std::string>()
             : std::string();
}

const json& at(const json& j, const char* key, const std::string& path) {
  if (!j.is_object() || !j.contains(key)) {
    throw std::invalid_argument(path + "." + key + ": missing");
  }
  return j.at(key);
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
          {"values", request.values ? evaluation_document(*request.values) : json()}};
}

void read_request_document(const json& document, SimulatorSetup& setup, EvaluationRequest& request,
                           Evaluation& values) {
  const std::string p = "request";
  if (format_of(document) != "sao-analysis-request") {
    throw std::invalid_argument(p +
                                ": not an analysis request (\"format\": "
                                "\"sao-analysis-request\" missing)");
  }
  try {
    const json& s = at(document, "setup", p);
    setup.section = at(s, "section", p + ".setup");
    // The worker runs the request here (as request_document writes it), never as a job again.
    if (setup.section.is_object()) setup.section.erase("executor");
    setup.design_names = at(s, "design_names", p + ".setup").get<std::vector<std::string>>();
    setup.study_directory = at(s, "study_directory", p + ".setup").get<std::string>();
    setup.load_cases.clear();
    for (const json& c : at(s, "load_cases", p + ".setup")) {
      LoadCaseSpec spec;
      spec.name = c.at("name").get<std::string>();
      const json& g = c.at("grid");
      spec.grid.start = read_number(g.at("start"), p + ".setup.load_cases.grid.start");
      spec.grid.end = read_number(g.at("end"), p + ".setup.load_cases.grid.end");
      spec.grid.points = static_cast<int>(
          read_integer(g.at("points"), p + ".setup.load_cases.grid.points", 0, kMaxGridPoints));
      const Eigen::VectorXd v = read_vector(g.at("values"), p + ".setup.load_cases.grid.values");
      spec.grid.values.assign(v.data(), v.data() + v.size());
      spec.parameters = c.at("parameters").get<std::map<std::string, double>>();
      setup.load_cases.push_back(std::move(spec));
    }
    request.design = read_vector(at(document, "design", p), p + ".design");
    request.derivatives.clear();
    const long cases = static_cast<long>(setup.load_cases.size());
    for (const json& d : at(document, "derivatives", p)) {
      const std::string q = p + ".derivatives";
      DerivativeRequest r;
      r.load_case = static_cast<int>(
          read_integer(d.at("load_case"), q + ".load_case", 0, std::max(cases - 1, 0L)));
      r.response = d.at("response").get<std::string>();
      for (const json& point : d.at("points")) {
        r.time_indices.push_back(
            static_cast<int>(read_integer(point, q + ".points", 0, kMaxGridPoints - 1)));
      }
      request.derivatives.push_back(std::move(r));
    }
    request.values = nullptr;
    if (document.contains("values") && !document["values"].is_null()) {
      values = read_evaluation_document(document["values"]);
      request.values = &values;
    }
  } catch (const json::exception& e) {
    throw std::invalid_argument(p + ": " + e.what());
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
                     {"gradient_method", c.gradient_method}});
  }
  return {{"format", "sao-evaluation"},
          {"ok", e.ok},
          {"message", e.message},
          {"has_gradients", e.has_gradients},
          {"runs", e.cost.runs},
          {"wall_seconds", exact_number(e.cost.wall_seconds)},
          {"cases", cases}};
}

Evaluation read_evaluation_document(const json& d) {
  const std::string p = "evaluation";
  if (format_of(d) != "sao-evaluation") {
    throw std::invalid_argument(p + ": not an evaluation (\"format\": \"sao-evaluation\" missing)");
  }
  try {
    Evaluation e;
    e.ok = d.at("ok").get<bool>();
    e.message = d.at("message").get<std::string>();
    e.has_gradients = d.at("has_gradients").get<bool>();
    e.cost.runs = static_cast<int>(read_integer(d.at("runs"), p + ".runs", 0, 1L << 30));
    e.cost.wall_seconds = read_number(d.at("wall_seconds"), p + ".wall_seconds");
    for (const json& c : d.at("cases")) {
      CaseResult r;
      for (const auto& [name, v] : c.at("scalars").items()) r.scalars[name] = read_number(v, p);
      for (const auto& [name, h] : c.at("histories").items()) r.histories[name] = read_vector(h, p);
      for (const auto& [name, g] : c.at("gradients").items()) {
        const Eigen::VectorXd v = read_vector(g.at("values"), p + ".gradients." + name);
        // Bounded so that their product cannot overflow; it must then be the values' count.
        const auto rows =
                       read_integer(g.at("rows"), p + ".gradients." + name + ".rows", 0, 1L << 30),
                   cols =
                       read_integer(g.at("cols"), p + ".gradients." + name + ".cols", 0, 1L << 30);
        if (rows * cols != v.size())
          throw std::invalid_argument(p + ".gradients." + name + ": size");
        r.gradients[name] = Eigen::Map<const Eigen::MatrixXd>(v.data(), rows, cols);
      }
      r.gradient_method = c.value("gradient_method", "");  // absent in older workers' files
      e.cases.push_back(std::move(r));
    }
    return e;
  } catch (const json::exception& e) {
    throw std::invalid_argument(p + ": " + e.what());
  }
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
               document["derivatives"].dump() + (batch[r].values ? ":values" : "");
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
      std::ifstream in(dir / "evaluation.json");
      e = read_evaluation_document(json::parse(in));
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
