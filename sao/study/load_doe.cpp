// Reading the "doe" section of a study file (docs/doe.md): the plan's method and its settings,
// each key checked against the method it applies to, and the region resolved against the design
// variables' bounds. Also the explicit constraints the plans respect (study.hpp).
#include <cmath>
#include <map>
#include <set>

#include "sao/study/criteria.hpp"
#include "sao/study/load_sections.hpp"

namespace sao::loading {
namespace {

using nlohmann::json;

constexpr long kMaxPoints = 100000;  // of any plan

// The keys each method takes besides "method", "region" and "batch".
const std::map<std::string, std::set<std::string>> kMethodKeys = {
    {"lhs", {"points", "seed", "iterations"}},
    {"sobol", {"points"}},
    {"full_factorial", {"levels"}},
    {"fractional_factorial", {"generators", "fraction", "resolution"}},
    {"d_optimal", {"points", "seed", "polynomial", "candidates"}},
};

int variable_named(const Study& study, const std::string& name) {
  for (int i = 0; i < study.n_design(); ++i) {
    if (study.design[i].name == name) return i;
  }
  return -1;
}

std::string design_names(const Study& study) {
  std::vector<std::string> names;
  for (const DesignVariable& v : study.design) names.push_back(v.name);
  return joined(names);
}

// A number for every design variable: `node` a number (all of them) or an object of design
// variable names (the others keep `values`' entries).
void read_per_variable(const json& node, const std::string& path, const Study& study,
                       std::vector<double>& values, Problems& problems) {
  if (node.is_number()) {
    std::fill(values.begin(), values.end(), node.get<double>());
    return;
  }
  if (!node.is_object()) {
    problems.add(path, "expected a number or an object of design variable names, got " +
                           json_type_name(node));
    return;
  }
  for (const auto& [name, value] : node.items()) {
    const int i = variable_named(study, name);
    if (i < 0) {
      problems.add(path + "." + name,
                   "not a design variable (design variables: " + design_names(study) + ")");
    } else if (!value.is_number() || !std::isfinite(value.get<double>())) {
      problems.add(path + "." + name, "expected a number, got " + json_type_name(value));
    } else {
      values[i] = value.get<double>();
    }
  }
}

// The region from centre and size (fractions of each variable's range), or from explicit lower
// and upper values; the design variables' bounds (or characteristic intervals) by default.
void read_region(JsonReader& top, const Study& study, doe::Region& region, Problems& problems) {
  const int n = study.n_design();
  std::vector<double> lo(n), hi(n);
  for (int i = 0; i < n; ++i) {
    std::tie(lo[i], hi[i]) = study.design[i].interval(study.design[i].initial);
  }
  std::vector<double> lower = lo, upper = hi;
  if (top.has("region") && expect_object(top.raw("region"), "doe.region", problems)) {
    JsonReader r(top.raw("region"), "doe.region", problems);
    const bool fractions = r.has("center") || r.has("size");
    if (fractions && (r.has("lower") || r.has("upper"))) {
      problems.add("doe.region",
                   "either center and size (fractions of the ranges) or lower and "
                   "upper (values), not both");
    }
    if (fractions) {
      std::vector<double> center(n, 0.5), size(n, 1.0);
      bool initial = false;
      if (r.has("center")) {
        initial = r.raw("center") == "initial";
        if (!initial)
          read_per_variable(r.raw("center"), "doe.region.center", study, center, problems);
      }
      if (r.has("size")) read_per_variable(r.raw("size"), "doe.region.size", study, size, problems);
      for (int i = 0; i < n; ++i) {
        const std::string name = study.design[i].name;
        if (!initial && !(center[i] >= 0 && center[i] <= 1)) {
          problems.add("doe.region.center",
                       name + ": expected a fraction in [0, 1], got " + number_text(center[i]));
        }
        if (!(size[i] > 0 && size[i] <= 1)) {
          problems.add("doe.region.size",
                       name + ": expected a fraction in (0, 1], got " + number_text(size[i]));
        }
        const double c = initial ? study.design[i].initial : lo[i] + center[i] * (hi[i] - lo[i]);
        const double half = 0.5 * size[i] * (hi[i] - lo[i]);
        lower[i] = std::max(lo[i], c - half);
        upper[i] = std::min(hi[i], c + half);
      }
    } else {
      if (r.has("lower"))
        read_per_variable(r.raw("lower"), "doe.region.lower", study, lower, problems);
      if (r.has("upper"))
        read_per_variable(r.raw("upper"), "doe.region.upper", study, upper, problems);
      for (int i = 0; i < n; ++i) {
        const std::string name = study.design[i].name;
        if (lower[i] < lo[i] || upper[i] > hi[i]) {
          problems.add("doe.region", name + ": [" + number_text(lower[i]) + ", " +
                                         number_text(upper[i]) + "] leaves the variable's range [" +
                                         number_text(lo[i]) + ", " + number_text(hi[i]) + "]");
        }
      }
    }
    r.finish();
  }
  region.lower = Eigen::Map<Eigen::VectorXd>(lower.data(), n);
  region.upper = Eigen::Map<Eigen::VectorXd>(upper.data(), n);
  for (int i = 0; i < n; ++i) {
    if (!(lower[i] < upper[i])) {
      problems.add("doe.region", study.design[i].name + ": an empty range [" +
                                     number_text(lower[i]) + ", " + number_text(upper[i]) + "]");
    }
  }
}

// "b4=b1*b2*b3": b4 the product of b1, b2 and b3 (in -1/+1).
void read_generators(const json& node, const Study& study, std::vector<doe::Generator>& out,
                     Problems& problems) {
  if (!expect_array(node, "doe.generators", problems)) return;
  std::set<int> generated;
  for (size_t g = 0; g < node.size(); ++g) {
    const std::string path = indexed("doe.generators", g);
    if (!node[g].is_string()) {
      problems.add(path,
                   "expected a string such as \"b4=b1*b2*b3\", got " + json_type_name(node[g]));
      continue;
    }
    std::string text;
    for (char c : node[g].get<std::string>()) {
      if (c != ' ') text += c;
    }
    const size_t eq = text.find('=');
    doe::Generator gen;
    gen.generated = eq == std::string::npos ? -1 : variable_named(study, text.substr(0, eq));
    std::string rest = eq == std::string::npos ? "" : text.substr(eq + 1) + "*";
    bool ok = gen.generated >= 0 && rest.size() > 1;
    for (size_t at = 0, star; ok && (star = rest.find('*', at)) != std::string::npos;
         at = star + 1) {
      const int f = variable_named(study, rest.substr(at, star - at));
      ok = f >= 0 && f != gen.generated;
      gen.factors.push_back(f);
    }
    if (!ok) {
      problems.add(path, "expected \"GENERATED=F1*F2*...\" of design variable names (" +
                             design_names(study) + "), got \"" + node[g].get<std::string>() + "\"");
    } else if (!generated.insert(gen.generated).second) {
      problems.add(path, study.design[gen.generated].name + " is generated twice");
    } else {
      out.push_back(gen);
    }
  }
  for (size_t g = 0; g < out.size(); ++g) {
    for (int f : out[g].factors) {
      if (generated.count(f)) {
        problems.add(
            indexed("doe.generators", g),
            study.design[f].name + " is generated itself: a factor must be a base variable");
      }
    }
  }
}

}  // namespace

namespace {

// The settings of the method's own keys (the others are refused by read_doe).
void read_method_keys(JsonReader& r, const Study& study, const std::string& method,
                      doe::Settings& s, Problems& problems) {
  if (method == "lhs" || method == "sobol" || method == "d_optimal") {
    s.points = static_cast<int>(r.integer("points", 1, kMaxPoints).value_or(0));
    if (!r.has("points")) problems.add("doe.points", "missing (method \"" + method + "\")");
  }
  if (r.has("seed"))
    s.seed = static_cast<std::uint64_t>(r.integer("seed", 0, 2147483647L).value_or(1));
  if (r.has("iterations"))
    s.iterations = static_cast<int>(r.integer("iterations", 0, 10000000).value_or(0));
  if (r.has("candidates"))
    s.candidates = static_cast<int>(r.integer("candidates", 1, kMaxPoints).value_or(0));
  if (r.has("polynomial")) {
    const auto word = r.choice("polynomial", {"linear", "interaction", "quadratic"});
    if (word) doe::polynomial_from_name(*word, s.polynomial);
  }
  if (method == "full_factorial") {
    std::vector<double> levels(study.n_design(), 3.0);
    if (r.has("levels")) read_per_variable(r.raw("levels"), "doe.levels", study, levels, problems);
    double points = 1.0;
    for (int i = 0; i < study.n_design(); ++i) {
      if (levels[i] != std::floor(levels[i]) || levels[i] < 2 || levels[i] > kMaxPoints) {
        problems.add("doe.levels", study.design[i].name + ": expected an integer >= 2, got " +
                                       number_text(levels[i]));
        levels[i] = 2;
      }
      s.levels.push_back(static_cast<int>(levels[i]));
      points *= levels[i];
    }
    if (points > kMaxPoints) {
      problems.add("doe.levels",
                   number_text(points) + " points, more than " + std::to_string(kMaxPoints));
    }
  }
  if (method == "fractional_factorial") {
    const int given = r.has("generators") + r.has("fraction") + r.has("resolution");
    if (given > 1) {
      problems.add("doe", "give one of generators, fraction and resolution (fractional_factorial)");
    }
    if (r.has("generators")) read_generators(r.raw("generators"), study, s.generators, problems);
    const int k = study.n_design();
    if (r.has("fraction"))
      s.fraction = static_cast<int>(r.integer("fraction", 1, std::max(1, k - 1)).value_or(0));
    if (r.has("resolution"))
      s.resolution = static_cast<int>(r.integer("resolution", 3, 5).value_or(4));
    if (k < 2 || k > 30) {
      problems.add("doe.method",
                   "fractional_factorial needs 2 to 30 design variables, the study has " +
                       std::to_string(k));
    } else if (static_cast<int>(s.generators.size()) >= k) {
      problems.add("doe.generators", "at least one design variable must be a base variable");
    }
  }
}

std::string generator_text(const Study& study, const doe::Generator& g) {
  std::string text = study.design[g.generated].name + "=";
  for (size_t f = 0; f < g.factors.size(); ++f) {
    text += (f ? "*" : "") + study.design[g.factors[f]].name;
  }
  return text;
}

// What makes the plan, in one canonical form (defaults filled, the region resolved).
json plan_json(const Study& study, const std::string& method, const DoeSection& d) {
  const doe::Settings& s = d.settings;
  json plan = {{"method", method}};
  if (s.points > 0) plan["points"] = s.points;
  if (method == "lhs" || method == "d_optimal") plan["seed"] = s.seed;
  if (method == "lhs") plan["iterations"] = s.iterations;
  if (method == "d_optimal") {
    plan["polynomial"] = doe::polynomial_name(s.polynomial);
    plan["candidates"] = s.candidates;
  }
  if (method == "full_factorial") plan["levels"] = s.levels;
  if (method == "fractional_factorial") {
    json generators = json::array();
    for (const doe::Generator& g : s.generators) generators.push_back(generator_text(study, g));
    plan["generators"] = generators;
    plan["fraction"] = s.fraction;
    plan["resolution"] = s.resolution;
  }
  json lower = json::array(), upper = json::array();
  for (int i = 0; i < d.region.lower.size(); ++i) {
    lower.push_back(exact_number(d.region.lower(i)));
    upper.push_back(exact_number(d.region.upper(i)));
  }
  plan["region"] = {{"lower", lower}, {"upper", upper}};
  return plan;
}

}  // namespace

void read_doe(const json& node, LoadedStudy& study, Problems& problems) {
  if (!expect_object(node, "doe", problems)) return;
  JsonReader r(node, "doe", problems);
  DoeSection section;
  const size_t before = problems.size();
  std::string method;
  if (const auto word = r.string("method", true)) {
    if (!doe::method_from_name(*word, section.settings.method)) {
      problems.add("doe.method",
                   "expected \"lhs\", \"sobol\", \"full_factorial\", "
                   "\"fractional_factorial\" or \"d_optimal\", got \"" +
                       *word + "\"");
    } else {
      method = *word;
    }
  }
  if (r.has("batch"))
    section.batch = static_cast<int>(r.integer("batch", 0, kMaxPoints).value_or(0));
  // A key of another method is an error naming it (a mistyped method would otherwise ignore it).
  std::set<std::string> method_keys;
  for (const auto& entry : kMethodKeys)
    method_keys.insert(entry.second.begin(), entry.second.end());
  for (const std::string& key : method_keys) {
    if (!node.contains(key)) continue;
    if (method.empty() || !kMethodKeys.at(method).count(key)) r.known({key.c_str()});
    if (method.empty() || kMethodKeys.at(method).count(key)) continue;
    std::string methods;
    for (const auto& [m, keys] : kMethodKeys) {
      if (keys.count(key)) methods += (methods.empty() ? "" : ", ") + m;
    }
    problems.add("doe." + key, "applies to " + methods + ", not to method \"" + method + "\"");
  }
  if (study.n_design() > 0 && !method.empty()) {
    read_method_keys(r, study, method, section.settings, problems);
    read_region(r, study, section.region, problems);
  }
  r.known({"region"});
  r.finish();
  if (problems.size() != before || method.empty()) return;
  section.plan = plan_json(study, method, section);
  study.doe = std::move(section);
}

}  // namespace sao::loading

namespace sao {

std::vector<int> explicit_constraints(const Study& study) {
  std::vector<int> out;
  for (size_t j = 0; j < study.constraints.size(); ++j) {
    const Constraint& c = study.constraints[j];
    if (c.bound_auxiliary >= 0 || !c.g.program || c.g.program->uses_responses()) continue;
    bool auxiliary = false;
    for (int v : expr::variables_read(*c.g.program)) auxiliary = auxiliary || v >= study.n_design();
    if (!auxiliary) out.push_back(static_cast<int>(j));
  }
  return out;
}

namespace {
// A response model for relations that read none (explicit constraints).
class NoResponses final : public ResponseModel {
 public:
  double value(int, int, int, const Eigen::VectorXd&) const override {
    throw std::logic_error("an explicit constraint reads no response");
  }
  void add_gradient(int, int, int, const Eigen::VectorXd&, double,
                    Eigen::Ref<Eigen::VectorXd>) const override {
    throw std::logic_error("an explicit constraint reads no response");
  }
};
}  // namespace

bool holds_explicit_constraints(const Study& study, const std::vector<int>& which,
                                const Eigen::VectorXd& design, std::vector<std::string>* violated) {
  Eigen::VectorXd x(study.n_total());
  x.head(study.n_design()) = design;
  for (int a = 0; a < study.n_aux(); ++a) x(study.n_design() + a) = study.auxiliaries[a].initial;
  const NoResponses none;
  bool holds = true;
  for (int j : which) {
    const Constraint& c = study.constraints[j];
    const Eigen::VectorXd g = criterion_values(study, c.g, x, none);
    // The same tolerance for every point: a design on the bound holds it.
    const double slack = 1e-12 * std::max(1.0, std::abs(c.bound));
    const bool ok = c.sense == Sense::kLessEqual ? (g.array() <= c.bound + slack).all()
                                                 : (g.array() >= c.bound - slack).all();
    if (!ok && violated) violated->push_back(c.name);
    holds = holds && ok;
  }
  return holds;
}

}  // namespace sao
