// Reading the "random_variables" section of a study file and its "correlations"
// (docs/robustness.md): each entry's distribution and spread checked against the distribution it
// applies to, the design variable it acts on, the correlation matrix checked by the reliability
// library.
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "sao/reliability/random_vector.hpp"
#include "sao/study/load_sections.hpp"

namespace sao::loading {
namespace {

using nlohmann::json;

// The spread keys each distribution takes.
const std::map<std::string, std::set<std::string>> kSpreadKeys = {
    {"normal", {"sd", "cov"}},
    {"lognormal", {"sd", "cov", "sigma"}},
    {"uniform", {"lower", "upper"}},
    {"truncated_normal", {"sd", "cov", "lower", "upper"}},
};

int design_named(const Study& study, const std::string& name) {
  for (int i = 0; i < study.n_design(); ++i) {
    if (study.design[i].name == name) return i;
  }
  return -1;
}

// The spread of one entry (the keys of its distribution; a key of another is named).
void read_spread(JsonReader& r, const json& node, RandomVariableSpec& v, const Study& study,
                 Problems& problems) {
  const std::set<std::string>& keys = kSpreadKeys.at(v.distribution);
  for (const char* key : {"sd", "cov", "sigma", "lower", "upper"}) {
    if (!node.contains(key) || keys.count(key)) continue;
    r.known({key});
    problems.add(r.at(key), "does not apply to distribution \"" + v.distribution + "\" (it takes " +
                                joined(std::vector<std::string>(keys.begin(), keys.end())) + ")");
  }
  if (keys.count("sd") && r.has("sd")) v.sd = r.positive("sd").value_or(v.sd);
  if (keys.count("cov") && r.has("cov")) v.cov = r.positive("cov").value_or(v.cov);
  if (keys.count("sigma") && r.has("sigma")) v.sigma = r.positive("sigma").value_or(v.sigma);
  if (keys.count("lower") && r.has("lower")) v.lower = r.number("lower").value_or(v.lower);
  if (keys.count("upper") && r.has("upper")) v.upper = r.number("upper").value_or(v.upper);
  const int spreads = node.contains("sd") + node.contains("cov") +
                      (v.distribution == "lognormal" && node.contains("sigma"));
  if (keys.count("sd") && spreads != 1) {
    problems.add(r.path(), std::string(spreads ? "give only one" : "missing the spread: give one") +
                               " of \"sd\" (absolute), \"cov\" (relative to the design value)" +
                               (v.distribution == "lognormal" ? " or \"sigma\" (of ln x)" : ""));
  }
  if (v.distribution == "uniform" && (!node.contains("lower") || !node.contains("upper"))) {
    problems.add(r.path(), "uniform needs \"lower\" and \"upper\" (offsets from the design value)");
  }
  if (!(std::isnan(v.lower) || std::isnan(v.upper)) && !(v.lower < v.upper)) {
    problems.add(r.path(), "lower " + number_text(v.lower) + " must be below upper " +
                               number_text(v.upper) + " (offsets from the design value)");
  }
  if (v.variable >= 0 && v.distribution == "lognormal" && !(study.design[v.variable].initial > 0)) {
    problems.add(r.at("of"), "a lognormal needs a positive value; \"" +
                                 study.design[v.variable].name + "\" starts at " +
                                 number_text(study.design[v.variable].initial));
  }
  if (v.variable >= 0 && node.contains("cov") && study.design[v.variable].initial == 0.0) {
    problems.add(r.at("cov"), "relative to the design value, which is 0 at the start of \"" +
                                  study.design[v.variable].name + "\": give \"sd\"");
  }
}

RandomVariableSpec read_entry(const json& node, const std::string& path, const Study& study,
                              Problems& problems) {
  JsonReader r(node, path, problems);
  RandomVariableSpec v;
  v.path = path;
  v.name = r.string("name", true).value_or("");
  if (const auto of = r.string("of", true)) {
    v.variable = design_named(study, *of);
    if (v.variable < 0) {
      std::vector<std::string> names;
      for (const DesignVariable& d : study.design) names.push_back(d.name);
      problems.add(r.at("of"), "\"" + *of + "\" is not a design variable (design variables: " +
                                   joined(names) + ")");
    }
  }
  if (const auto d =
          r.choice("distribution", {"normal", "lognormal", "uniform", "truncated_normal"})) {
    v.distribution = *d;
    read_spread(r, node, v, study, problems);
  } else if (!node.contains("distribution")) {
    problems.add(r.at("distribution"), "missing (normal, lognormal, uniform or truncated_normal)");
  }
  r.finish();
  return v;
}

// "correlations": [{"between": ["a", "b"], "rho": 0.3}, ...] into the matrix.
void read_correlations(const json& node, RandomSection& section, Problems& problems) {
  const int n = static_cast<int>(section.variables.size());
  auto index = [&](const std::string& name) {
    for (int i = 0; i < n; ++i) {
      if (section.variables[i].name == name) return i;
    }
    return -1;
  };
  for_each_object(
      node, "correlations", problems, [&](const json& entry, const std::string& path, size_t) {
        JsonReader r(entry, path, problems);
        const json& between = r.array("between", true);
        const auto rho = r.number("rho", true);
        r.finish();
        if (!between.is_array() || between.size() != 2 || !between[0].is_string() ||
            !between[1].is_string()) {
          if (entry.contains("between"))
            problems.add(r.at("between"), "expected two random variable names, [\"a\", \"b\"]");
          return;
        }
        const std::string a = between[0].get<std::string>(), b = between[1].get<std::string>();
        const int i = index(a), j = index(b);
        for (const std::string& name : {a, b}) {
          if (index(name) < 0)
            problems.add(r.at("between"), "\"" + name + "\" is not a random variable");
        }
        if (i < 0 || j < 0 || !rho) return;
        if (i == j) {
          problems.add(r.at("between"), "a variable with itself (\"" + a + "\")");
        } else if (!(std::abs(*rho) < 1.0)) {
          problems.add(r.at("rho"), "must be in (-1, 1), got " + number_text(*rho));
        } else if (section.correlation(i, j) != 0.0) {
          problems.add(path, "the pair \"" + a + "\", \"" + b + "\" is given twice");
        } else {
          section.correlation(i, j) = section.correlation(j, i) = *rho;
        }
      });
}

}  // namespace

void read_random(const json& variables, const json* correlations, LoadedStudy& study,
                 Problems& problems) {
  const size_t before = problems.size();
  RandomSection section;
  std::set<std::string> names;
  std::map<int, std::string> acted_on;
  for_each_object(variables, "random_variables", problems,
                  [&](const json& node, const std::string& path, size_t) {
                    RandomVariableSpec v = read_entry(node, path, study, problems);
                    if (!v.name.empty() && !names.insert(v.name).second) {
                      problems.add(path + ".name", "\"" + v.name + "\" is used twice");
                    }
                    if (v.variable >= 0 && acted_on.count(v.variable)) {
                      problems.add(path + ".of", "\"" + study.design[v.variable].name +
                                                     "\" already has random variable \"" +
                                                     acted_on[v.variable] + "\"");
                    }
                    if (v.variable >= 0) acted_on.emplace(v.variable, v.name);
                    section.variables.push_back(std::move(v));
                  });
  if (variables.is_array() && variables.empty()) {
    problems.add("random_variables", "empty: give at least one random variable or leave it out");
  }
  const int n = static_cast<int>(section.variables.size());
  section.correlation = Eigen::MatrixXd::Identity(n, n);
  if (correlations) read_correlations(*correlations, section, problems);
  if (problems.size() != before) return;
  std::vector<std::string> list;
  for (const RandomVariableSpec& v : section.variables) list.push_back(v.name);
  try {
    reliability::check_correlation(section.correlation, list);
  } catch (const std::invalid_argument& e) {
    problems.add("correlations", e.what());
    return;
  }
  study.random = std::move(section);
}

}  // namespace sao::loading
