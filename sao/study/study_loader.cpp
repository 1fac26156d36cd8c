#include "sao/study/study_loader.hpp"

#include "sao/seam/json_reader.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace sao {
namespace {

using nlohmann::json;
constexpr double kInf = std::numeric_limits<double>::infinity();

using ObjectReader = JsonReader;

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  return joined(items, sep);
}
std::string type_name(const json& v) { return json_type_name(v); }

std::string number_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}


bool expect_object(const json& v, const std::string& path, Problems& problems) {
  if (v.is_object()) return true;
  problems.add(path, "expected an object, got " + type_name(v));
  return false;
}

bool expect_array(const json& v, const std::string& path, Problems& problems) {
  if (v.is_array()) return true;
  problems.add(path, "expected an array, got " + type_name(v));
  return false;
}

std::string indexed(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

// Calls each(entry, path, index) for every object of the array `node` found at `key`;
// reports the array or an entry that is not what it should be.
template <typename Each>
void for_each_object(const json& node, const std::string& key, Problems& problems, Each each) {
  if (!expect_array(node, key, problems)) return;
  for (size_t i = 0; i < node.size(); ++i) {
    const std::string path = indexed(key, i);
    if (expect_object(node[i], path, problems)) each(node[i], path, i);
  }
}

// ---------------------------------------------------------------------------------------
// Settings

void read_settings(const json& node, Options& options, double& default_move, Problems& problems) {
  if (!expect_object(node, "settings", problems)) return;
  ObjectReader r(node, "settings", problems);
  struct NumberField {
    const char* key;
    double* target;
  };
  const NumberField numbers[] = {
      {"cutoff", &options.cutoff},   {"objacc", &options.objacc},
      {"vioacc", &options.vioacc},   {"errsml", &options.errsml},
      {"errlrg", &options.errlrg},   {"errmax", &options.errmax},
      {"viosml", &options.viosml},   {"violrg", &options.violrg},
      {"viomax", &options.viomax},   {"noise", &options.noise},
      {"beta1", &options.beta1},     {"beta2", &options.beta2},
      {"beta3", &options.beta3},     {"beta4", &options.beta4},
      {"beta5", &options.beta5},     {"relaxation_weight", &options.relaxation_weight},
      {"move_limit", &default_move},
  };
  for (const auto& f : numbers) *f.target = r.number_or(f.key, *f.target);
  if (auto v = r.integer("neighbours")) options.neighbours = *v;
  if (auto v = r.integer("max_cycles")) options.max_cycles = *v;
  if (auto v = r.integer("max_failures")) options.max_failures = *v;
  if (auto v = r.boolean("regionalisation")) options.regionalisation = *v;
  if (auto v = r.boolean("converge_on_violation_change")) options.converge_on_violation_change = *v;
  options.alpha = r.number_or("alpha", options.alpha);
  options.reuse_radius = r.number_or("reuse_radius", options.reuse_radius);
  if (auto v = r.boolean("noise_from_data")) options.noise_from_data = *v;
  if (auto v = r.boolean("repair_auxiliary")) options.repair_auxiliary = *v;
  // Two-way choices: true when the second word is given.
  auto choice = [&](const char* key, const char* first, const char* second, bool& target) {
    const auto v = r.string(key, false);
    if (!v) return;
    if (*v != first && *v != second) {
      problems.add(r.at(key), std::string("expected \"") + first + "\" or \"" + second +
                                  "\", got \"" + *v + "\"");
    }
    target = *v == second;
  };
  choice("approximation", "local", "multipoint", options.multipoint);
  choice("fit", "interpolation", "least_squares", options.least_squares);
  choice("subproblem", "auto", "nlp", options.force_nlp);
  choice("nlp_algorithm", "slsqp", "mma", options.use_mma);
  options.require_free_move_limits = options.multipoint;
  if (auto v = r.boolean("require_free_move_limits")) options.require_free_move_limits = *v;
  r.finish();
  if (default_move <= 0)
    problems.add("settings.move_limit", "must be > 0, got " + number_text(default_move));
}

// ---------------------------------------------------------------------------------------
// Variables, load cases, responses

// Parses and binds an expression, reporting a syntax or name error at `path` (or at the
// relation it came from). Returns null on error.
expr::ProgramPtr compile(const expr::AstPtr& ast, const expr::Symbols& symbols, int load_case,
                         const std::string& path, Problems& problems) {
  try {
    return expr::bind(ast, symbols, load_case);
  } catch (const expr::Error& e) {
    problems.add(e.origin().empty() ? path : "relations." + e.origin(), e.what());
    return nullptr;
  }
}

expr::AstPtr parse_at(const std::string& text, const std::string& path, Problems& problems) {
  try {
    return expr::parse(text);
  } catch (const expr::Error& e) {
    problems.add(path, e.what());
    return nullptr;
  }
}

void read_intermediate_expression(const std::string& text, DesignVariable& v, const Study& study,
                                  const std::string& path, Problems& problems) {
  const expr::AstPtr ast = parse_at(text, path, problems);
  if (!ast) return;
  expr::Symbols one;
  one.variables = {v.name};
  one.constants = study.constants;
  try {
    v.intermediate.expression = expr::bind(ast, one, -1);
  } catch (const expr::Error& e) {
    problems.add(path, std::string(e.what()) + " (an intermediate variable is an expression of " +
                           v.name + " and constants only)");
    return;
  }
  v.intermediate.text = text;
  if (v.intermediate.expression->is_series()) {
    problems.add(path, "must be a scalar expression of " + v.name);
    v.intermediate.expression = nullptr;
  }
}

// phi must be finite and strictly monotone on [lower, upper], or the linearisation in phi(b)
// cannot be mapped back to b: checked on 101 points.
void check_monotone(const Intermediate& phi, double lower, double upper, const std::string& path,
                    Problems& problems) {
  int sign = 0;
  for (int i = 0; i <= 100; ++i) {
    const double b = lower + (upper - lower) * i / 100.0;
    const double value = phi.value(b), slope = phi.slope(b);
    const int s = slope > 0 ? 1 : (slope < 0 ? -1 : 0);
    if (!std::isfinite(value) || !std::isfinite(slope) || s == 0 || (sign != 0 && s != sign)) {
      problems.add(path, "\"" + phi.text + "\" is not finite and strictly monotone on [" +
                             number_text(lower) + ", " + number_text(upper) + "] (at " +
                             number_text(b) + ": value " + number_text(value) + ", slope " +
                             number_text(slope) + ")");
      return;
    }
    sign = s;
  }
}

void read_design(const json& node, Study& study, double default_move, Problems& problems) {
  if (node.empty()) problems.add("design_variables", "at least one design variable is needed");
  for_each_object(
      node, "design_variables", problems, [&](const json& entry, const std::string& path, size_t) {
        ObjectReader r(entry, path, problems);
        DesignVariable v;
        v.name = r.string("name", true).value_or("");
        auto lower = r.number("lower", true);
        auto upper = r.number("upper", true);
        auto initial = r.number("initial", true);
        v.move_factor = r.number_or("move_limit", default_move);
        if (r.has("intermediate")) {
          const json& im = r.raw("intermediate");
          if (im == "identity") {
            v.intermediate.power = 1.0;
          } else if (im == "reciprocal") {
            v.intermediate.power = -1.0;
          } else if (im == "area") {
            v.intermediate.power = 2.0;
          } else if (im.is_object() && im.size() == 1 && im.contains("power") &&
                     im["power"].is_number() && im["power"].get<double>() != 0.0) {
            v.intermediate.power = im["power"].get<double>();
          } else if (im.is_object() && im.size() == 1 && im.contains("expression") &&
                     im["expression"].is_string()) {
            read_intermediate_expression(im["expression"].get<std::string>(), v, study,
                                         r.at("intermediate") + ".expression", problems);
          } else {
            problems.add(r.at("intermediate"),
                         "expected \"identity\", \"reciprocal\", \"area\", {\"power\": a} with a "
                         "!= 0 or {\"expression\": \"...\"} of the variable, got " +
                             im.dump());
          }
        }
        if (auto d = r.integer("direction")) {
          if (*d != 1 && *d != -1)
            problems.add(r.at("direction"), "expected 1 or -1, got " + std::to_string(*d));
          v.direction = *d < 0 ? -1 : 1;
        }
        if (auto sizing = r.string("sizing", false)) {
          if (*sizing == "range") {
            v.range_sizing = true;
          } else if (*sizing != "relative") {
            problems.add(
                r.at("sizing"),
                "expected \"relative\" (3.20) or \"range\" (3.27), got \"" + *sizing + "\"");
          }
        }
        r.finish();
        if (v.move_factor <= 0)
          problems.add(r.at("move_limit"), "must be > 0, got " + number_text(v.move_factor));
        if (lower && upper && *lower > *upper) {
          problems.add(path, "lower " + number_text(*lower) + " > upper " + number_text(*upper));
        } else if (lower && upper && initial && (*initial < *lower || *initial > *upper)) {
          problems.add(r.at("initial"), number_text(*initial) + " outside the bounds [" +
                                            number_text(*lower) + ", " + number_text(*upper) + "]");
        }
        if (initial && *initial == 0.0 && !v.range_sizing) {
          problems.add(
              r.at("initial"),
              "is 0 with relative move limits (s = 2 m |b0| = 0, it could never move): set "
              "\"sizing\": \"range\"");
        }
        if (!v.intermediate.expression && v.intermediate.power != 1.0 && lower && *lower <= 0.0) {
          problems.add(r.at("lower"), "must be > 0 with the intermediate variable b^" +
                                          number_text(v.intermediate.power));
        }
        if (v.intermediate.expression && lower && upper && *lower <= *upper) {
          check_monotone(v.intermediate, *lower, *upper, r.at("intermediate"), problems);
        }
        v.lower = lower.value_or(0);
        v.upper = upper.value_or(0);
        v.initial = initial.value_or(0);
        study.design.push_back(v);
      });
}

void read_auxiliaries(const json& node, Study& study, Problems& problems) {
  for_each_object(
      node, "auxiliary_variables", problems,
      [&](const json& entry, const std::string& path, size_t) {
        ObjectReader r(entry, path, problems);
        AuxiliaryVariable a;
        a.name = r.string("name", true).value_or("");
        a.lower = r.number_or("lower", -kInf);
        a.upper = r.number_or("upper", kInf);
        auto initial = r.number("initial", true);
        r.finish();
        if (a.lower > a.upper) {
          problems.add(path, "lower " + number_text(a.lower) + " > upper " + number_text(a.upper));
        } else if (initial && (*initial < a.lower || *initial > a.upper)) {
          problems.add(r.at("initial"), number_text(*initial) + " outside the bounds");
        }
        a.initial = initial.value_or(0);
        study.auxiliaries.push_back(a);
      });
}

// {"start": 0, "end": T, "points": N} or {"values": [t1, t2, ...]} (strictly increasing).
void read_time_grid(const json& node, const std::string& path, TimeGrid& grid, Problems& problems) {
  ObjectReader t(node, path, problems);
  if (t.has("values")) {
    const json& values = t.raw("values");
    if (t.has("start") || t.has("end") || t.has("points")) {
      problems.add(path, "give either \"values\" or \"start\"/\"end\"/\"points\", not both");
    }
    if (expect_array(values, t.at("values"), problems)) {
      for (size_t i = 0; i < values.size(); ++i) {
        if (!values[i].is_number() || !std::isfinite(values[i].get<double>())) {
          problems.add(indexed(t.at("values"), i),
                       "expected a number, got " + type_name(values[i]));
          return;
        }
        grid.values.push_back(values[i].get<double>());
        if (i > 0 && !(grid.values[i] > grid.values[i - 1])) {
          problems.add(indexed(t.at("values"), i), "times must increase strictly");
          return;
        }
      }
      grid.points = static_cast<int>(grid.values.size());
      if (grid.points < 2) {
        problems.add(t.at("values"), "expected at least 2 times");
        return;
      }
      grid.start = grid.values.front();
      grid.end = grid.values.back();
    }
  } else {
    grid.start = t.number_or("start", 0.0);
    grid.end = t.number("end", true).value_or(1.0);
    grid.points = t.integer("points").value_or(0);
    if (grid.points < 2) problems.add(t.at("points"), "expected an integer >= 2");
    if (!(grid.end > grid.start)) problems.add(t.at("end"), "must be > start");
  }
  t.finish();
}

void read_load_cases(const json& node, Study& study, Problems& problems) {
  if (node.empty()) problems.add("load_cases", "at least one load case is needed");
  for_each_object(node, "load_cases", problems,
                  [&](const json& entry, const std::string& path, size_t) {
                    ObjectReader r(entry, path, problems);
                    LoadCaseSpec lc;
                    lc.name = r.string("name", true).value_or("");
                    if (r.has("time") && expect_object(r.raw("time"), r.at("time"), problems)) {
                      read_time_grid(r.raw("time"), r.at("time"), lc.grid, problems);
                    }
                    if (r.has("parameters") &&
                        expect_object(r.raw("parameters"), r.at("parameters"), problems)) {
                      for (const auto& [key, value] : r.raw("parameters").items()) {
                        if (value.is_number()) {
                          lc.parameters[key] = value.get<double>();
                        } else {
                          problems.add(r.at("parameters") + "." + key,
                                       "expected a number, got " + type_name(value));
                        }
                      }
                    }
                    r.finish();
                    study.load_cases.push_back(lc);
                  });
}

void read_responses(const json& node, Study& study, Problems& problems) {
  for_each_object(
      node, "responses", problems, [&](const json& entry, const std::string& path, size_t) {
        ObjectReader r(entry, path, problems);
        ResponseDef d;
        d.name = r.string("name", true).value_or("");
        d.source = r.string("source", false).value_or(d.name);
        if (r.has("expression")) {
          d.expression = r.string("expression", true).value_or("");
          if (r.has("source")) {
            problems.add(r.at("source"),
                         "not with \"expression\": a derived response is computed, not read");
          }
        }
        const std::string kind = r.string("kind", true).value_or("scalar");
        if (kind == "history") {
          d.history = true;
        } else if (kind != "scalar") {
          problems.add(r.at("kind"), "expected \"scalar\" or \"history\", got \"" + kind + "\"");
        }
        r.finish();
        study.responses.push_back(d);
      });
}

// ---------------------------------------------------------------------------------------
// Names for explicit relations: constants, data arrays, relations

bool identifier(const std::string& name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

void read_constants(const json& node, Study& study, Problems& problems) {
  if (!expect_object(node, "constants", problems)) return;
  for (const auto& [name, value] : node.items()) {
    const std::string at = "constants." + name;
    if (value.is_number() && std::isfinite(value.get<double>())) {
      study.constants[name] = value.get<double>();
    } else {
      problems.add(at, "expected a number, got " + type_name(value));
    }
  }
}

void read_data(const json& node, Study& study, Problems& problems) {
  if (!expect_object(node, "data", problems)) return;
  for (const auto& [name, value] : node.items()) {
    const std::string at = "data." + name;
    if (!expect_array(value, at, problems)) continue;
    if (value.empty()) problems.add(at, "expected at least one number");
    std::vector<double> values;
    for (size_t i = 0; i < value.size(); ++i) {
      if (value[i].is_number() && std::isfinite(value[i].get<double>())) {
        values.push_back(value[i].get<double>());
      } else {
        problems.add(indexed(at, i), "expected a number, got " + type_name(value[i]));
      }
    }
    study.data[name] = values;
  }
}

void read_relations(const json& node, Study& study, Problems& problems) {
  if (!expect_object(node, "relations", problems)) return;
  for (const auto& [name, value] : node.items()) {
    const std::string at = "relations." + name;
    if (!value.is_string()) {
      problems.add(at, "expected an expression (a string), got " + type_name(value));
      continue;
    }
    study.relations[name] = value.get<std::string>();
    // A relation that does not parse is reported here once; its uses see a placeholder.
    const expr::AstPtr ast = parse_at(value.get<std::string>(), at, problems);
    study.symbols.relations[name] = ast ? ast : expr::number_node(0.0);
  }
}

// What names mean in the study's expressions (symbols.relations is filled by read_relations).
void build_symbols(Study& study) {
  expr::Symbols& s = study.symbols;
  s.variables.clear();
  for (const auto& v : study.design) s.variables.push_back(v.name);
  for (const auto& a : study.auxiliaries) s.variables.push_back(a.name);
  for (const auto& r : study.responses) s.responses.push_back({r.name, r.history});
  for (const auto& lc : study.load_cases) {
    s.cases.push_back({lc.name, lc.grid.points >= 2 ? lc.grid.times() : std::vector<double>{}});
  }
  s.constants = study.constants;
  s.data = study.data;
}

// Derived responses: explicit relations of simulator responses and design variables, one
// program per load case, with the shape their "kind" declares.
void bind_derived(Study& study, Problems& problems) {
  expr::Symbols base = study.symbols;
  base.variables.clear();
  for (const auto& v : study.design) base.variables.push_back(v.name);
  base.responses.clear();
  for (const auto& r : study.responses) {
    if (r.expression.empty()) base.responses.push_back({r.name, r.history});
  }
  for (size_t i = 0; i < study.responses.size(); ++i) {
    ResponseDef& d = study.responses[i];
    if (d.expression.empty()) continue;
    const std::string at = indexed("responses", i) + ".expression";
    const expr::AstPtr ast = parse_at(d.expression, at, problems);
    if (!ast) continue;
    for (size_t c = 0; c < study.load_cases.size(); ++c) {
      auto program = compile(ast, base, static_cast<int>(c), at, problems);
      if (!program) break;
      const int points = study.load_cases[c].grid.points;
      if (d.history && !(program->is_series() && program->points() == points)) {
        problems.add(at, "is declared a history but its value is " +
                             (program->is_series()
                                  ? "a series of " + std::to_string(program->points()) + " points"
                                  : std::string("a scalar")) +
                             ", not one value per point of load case \"" +
                             study.load_cases[c].name + "\"");
        break;
      }
      if (!d.history && program->is_series()) {
        problems.add(at,
                     "is declared a scalar but its value is a series: reduce it (sum, mean, "
                     "trapz, [k])");
        break;
      }
      bool other_case = false;
      expr::for_each_response_read(*program, 0, [&](int, int load_case, int) {
        other_case = other_case || load_case != static_cast<int>(c);
      });
      if (other_case) {
        problems.add(at,
                     "reads another load case (@case): a derived response is computed per "
                     "load case from that case's responses");
        break;
      }
      d.derived.push_back(program);
    }
    if (d.derived.size() != study.load_cases.size()) d.derived.clear();
  }
}

// ---------------------------------------------------------------------------------------
// Criteria

// One quantity of a criterion as written in the file: an expression (a string, or the
// {"response"/"variable"/"expression", "case", "factor", "abs"} object), not yet bound.
struct Quantity {
  expr::AstPtr ast;
  std::string text;
  std::string path;       // of the expression text, for messages
  int load_case = -1;     // the "case" key: the load case of responses without @case
  bool per_case = false;  // uses a response without @case (or t): one criterion per case
  bool abs = false;
};

std::string names_of(const std::vector<ResponseDef>& responses) {
  std::vector<std::string> names;
  for (const auto& d : responses) names.push_back(d.name);
  return join(names, ", ");
}

std::optional<Quantity> read_quantity(const json& node, const std::string& path, const Study& study,
                                      Problems& problems) {
  Quantity q;
  q.path = path;
  if (node.is_string()) {
    q.text = node.get<std::string>();
    q.ast = parse_at(q.text, path, problems);
    if (!q.ast) return std::nullopt;
    q.per_case = expr::needs_case(q.ast, study.symbols);
    return q;
  }
  if (!node.is_object()) {
    problems.add(path, "expected an expression (a string) or an object, got " + type_name(node));
    return std::nullopt;
  }
  ObjectReader r(node, path, problems);
  bool ok = true;
  const int given = r.has("response") + r.has("variable") + r.has("expression");
  if (given != 1) {
    problems.add(path, "give exactly one of \"response\", \"variable\" or \"expression\"");
    ok = false;
  } else if (r.has("response")) {
    q.text = r.string("response", true).value_or("");
    if (study.response_index(q.text) < 0 && !q.text.empty()) {
      problems.add(r.at("response"), "unknown response \"" + q.text +
                                         "\" (declared: " + names_of(study.responses) + ")");
      ok = false;
    }
    q.ast = expr::name_node(q.text);
  } else if (r.has("variable")) {
    q.text = r.string("variable", true).value_or("");
    const auto& vars = study.symbols.variables;
    if (std::find(vars.begin(), vars.end(), q.text) == vars.end()) {
      problems.add(r.at("variable"), "unknown variable \"" + q.text + "\"");
      ok = false;
    }
    q.ast = expr::name_node(q.text);
  } else {
    q.text = r.string("expression", true).value_or("");
    q.path = r.at("expression");
    q.ast = parse_at(q.text, q.path, problems);
    ok = ok && q.ast != nullptr;
  }
  if (r.has("case")) {
    const std::string cname = r.string("case", true).value_or("");
    for (size_t c = 0; c < study.load_cases.size(); ++c) {
      if (study.load_cases[c].name == cname) q.load_case = static_cast<int>(c);
    }
    if (q.load_case < 0) {
      problems.add(r.at("case"), "unknown load case \"" + cname + "\"");
      ok = false;
    }
  }
  const double factor = r.number_or("factor", 1.0);
  q.abs = r.boolean("abs").value_or(false);
  r.finish();
  if (factor == 0.0) {
    problems.add(r.at("factor"), "must not be 0");
    ok = false;
  }
  if (!ok) return std::nullopt;
  if (factor != 1.0) {
    q.ast = expr::product(expr::number_node(factor), q.ast);
    q.text = number_text(factor) + "*(" + q.text + ")";
  }
  q.per_case = expr::needs_case(q.ast, study.symbols);
  return q;
}

// The load cases a quantity expands over (-1: not per case).
std::vector<int> cases_of(const Quantity& q, const Study& study) {
  if (!q.per_case) return {-1};
  if (q.load_case >= 0) return {q.load_case};
  std::vector<int> all;
  for (size_t c = 0; c < study.load_cases.size(); ++c) all.push_back(static_cast<int>(c));
  return all;
}

// The quantity times `sign`, bound to one load case; null (and a problem) when it does not bind.
std::optional<Criterion> make_criterion(const Quantity& q, int load_case, double sign,
                                        const Study& study, Problems& problems) {
  Criterion c;
  const expr::AstPtr ast = sign < 0 ? expr::product(expr::number_node(-1.0), q.ast) : q.ast;
  c.program = compile(ast, study.symbols, load_case, q.path, problems);
  if (!c.program) return std::nullopt;
  c.text = sign < 0 ? "-(" + q.text + ")" : q.text;
  return c;
}

std::string part_name(const std::string& base, const Study& study, int load_case, size_t n_cases,
                      const char* sign_suffix) {
  std::string name = base + sign_suffix;
  if (load_case >= 0 && n_cases > 1) name += "@" + study.load_cases[load_case].name;
  return name;
}

// Expands one quantity with |.| and load cases into constraints `g <sense> bound`.
void add_constraints(const Quantity& q, const std::string& name, const std::string& path,
                     Sense sense, double bound, int bound_aux, double scale, Study& study,
                     Problems& problems) {
  const std::vector<int> cases = cases_of(q, study);
  for (int lc : cases) {
    for (double sign : q.abs ? std::vector<double>{1.0, -1.0} : std::vector<double>{1.0}) {
      Constraint c;
      c.name = part_name(name, study, lc, cases.size(), q.abs ? (sign > 0 ? "[+]" : "[-]") : "");
      c.path = path;
      auto g = make_criterion(q, lc, sign, study, problems);
      if (!g) return;  // reported once, not per case and sign
      c.g = *g;
      c.sense = sense;
      c.bound = bound;
      c.bound_auxiliary = bound_aux;
      c.scale = scale;
      study.constraints.push_back(c);
    }
  }
}

int auxiliary_index(const Study& study, const std::string& name) {
  for (size_t i = 0; i < study.auxiliaries.size(); ++i) {
    if (study.auxiliaries[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

void read_objective(const json& node, Study& study, Problems& problems) {
  if (!expect_object(node, "objective", problems)) return;
  ObjectReader r(node, "objective", problems);
  Objective& obj = study.objective;
  obj.path = "objective";
  obj.name = r.string("name", false).value_or("F");
  const char* kinds[] = {"minimize", "maximize", "minimize_max"};
  std::vector<std::string> given;
  for (const char* k : kinds) {
    if (r.has(k)) given.push_back(k);
  }
  const double scale = r.number_or("scale", 0.0);
  std::optional<std::string> aux_name;
  if (given.size() == 1 && given[0] == "minimize_max") aux_name = r.string("auxiliary", true);
  if (given.size() != 1) {
    problems.add("objective", "give exactly one of \"minimize\", \"maximize\" or \"minimize_max\"");
    r.finish();
    return;
  }
  const std::string kind = given[0];
  auto q = read_quantity(r.raw(kind), r.at(kind), study, problems);
  r.finish();
  if (!q) return;
  if (kind == "minimize_max") {
    const int aux = aux_name ? auxiliary_index(study, *aux_name) : -1;
    if (aux < 0) {
      if (aux_name)
        problems.add("objective.auxiliary", "unknown auxiliary variable \"" + *aux_name + "\"");
      return;
    }
    // Bound formulation (2.18-2.19): minimise b_aux subject to q(t) <= b_aux for every t
    // (and every load case, and both signs for |q|).
    add_constraints(*q, "objective:" + obj.name, r.at(kind), Sense::kLessEqual, 0.0, aux, scale,
                    study, problems);
    obj.bound_formulation = true;
    Quantity bound;
    bound.ast = expr::name_node(study.auxiliaries[aux].name);
    bound.text = study.auxiliaries[aux].name;
    bound.path = r.at("auxiliary");
    if (auto f = make_criterion(bound, -1, 1.0, study, problems)) obj.f = *f;
    return;
  }
  if (q->abs) problems.add(r.at(kind) + ".abs", "not allowed in a minimize/maximize objective");
  if (cases_of(*q, study).size() > 1) {
    problems.add(r.at(kind),
                 "names a response without its load case and the study has several: write "
                 "name@case, or give \"case\"");
    return;
  }
  obj.maximize = kind == "maximize";
  auto f = make_criterion(*q, cases_of(*q, study)[0], obj.maximize ? -1.0 : 1.0, study, problems);
  if (!f) return;
  if (f->time_dependent()) {
    problems.add(r.at(kind),
                 "is a history: use \"minimize_max\" (bound formulation) or a reduction (sum, "
                 "mean, trapz)");
    return;
  }
  obj.f = *f;
}

void read_constraints(const json& node, Study& study, Problems& problems) {
  for_each_object(
      node, "constraints", problems, [&](const json& entry, const std::string& path, size_t i) {
        ObjectReader r(entry, path, problems);
        const std::string name = r.string("name", false).value_or("g" + std::to_string(i + 1));
        std::optional<Quantity> q;
        if (r.has("of")) {
          q = read_quantity(r.raw("of"), r.at("of"), study, problems);
        } else {
          problems.add(r.at("of"), "missing (the quantity constrained)");
        }
        const double scale = r.number_or("scale", 0.0);
        if (scale < 0) problems.add(r.at("scale"), "must be > 0");
        struct Side {
          const char* key;
          Sense sense;
        };
        int sides = 0;
        for (Side side : {Side{"upper", Sense::kLessEqual}, Side{"lower", Sense::kGreaterEqual}}) {
          if (!r.has(side.key)) continue;
          ++sides;
          const json& b = r.raw(side.key);
          double bound = 0.0;
          int aux = -1;
          if (b.is_string()) {
            aux = auxiliary_index(study, b.get<std::string>());
            if (aux < 0) {
              problems.add(r.at(side.key),
                           "unknown auxiliary variable \"" + b.get<std::string>() + "\"");
              continue;
            }
          } else if (b.is_number() && std::isfinite(b.get<double>())) {
            bound = b.get<double>();
            if (bound == 0.0 && scale <= 0.0) {
              problems.add(r.at("scale"),
                           "missing: the bound is 0, so a scale (> 0) must normalise it");
            }
          } else {
            problems.add(r.at(side.key),
                         "expected a number or an auxiliary variable name, got " + type_name(b));
            continue;
          }
          if (!q) continue;
          if (q->abs && side.sense == Sense::kGreaterEqual) {
            problems.add(r.at("lower"),
                         "not allowed with \"abs\" (|q| >= c is not a single constraint)");
            continue;
          }
          add_constraints(*q, name, path, side.sense, bound, aux, scale, study, problems);
        }
        if (sides == 0) problems.add(path, "give \"upper\", \"lower\" or both");
        r.finish();
      });
}

void read_starts(const json& node, Study& study, Problems& problems) {
  for_each_object(node, "starts", problems,
                  [&](const json& entry, const std::string& path, size_t) {
                    std::map<std::string, double> start;
                    for (const auto& [name, value] : entry.items()) {
                      const std::string at = path + "." + name;
                      if (!value.is_number()) {
                        problems.add(at, "expected a number, got " + type_name(value));
                        continue;
                      }
                      const double v = value.get<double>();
                      bool known = false;
                      for (const auto& d : study.design) {
                        if (d.name != name) continue;
                        known = true;
                        if (v < d.lower || v > d.upper)
                          problems.add(at, number_text(v) + " outside the bounds");
                      }
                      for (const auto& a : study.auxiliaries) {
                        if (a.name != name) continue;
                        known = true;
                        if (v < a.lower || v > a.upper)
                          problems.add(at, number_text(v) + " outside the bounds");
                      }
                      if (!known) problems.add(at, "unknown variable \"" + name + "\"");
                      start[name] = v;
                    }
                    study.starts.push_back(start);
                  });
}

void check_names(const Study& study, Problems& problems) {
  std::map<std::string, std::string> seen;
  auto check = [&](const std::string& name, const std::string& path) {
    if (name.empty()) return;
    auto [it, inserted] = seen.emplace(name, path);
    if (!inserted)
      problems.add(path + ".name", "\"" + name + "\" is already used by " + it->second);
  };
  for (size_t i = 0; i < study.design.size(); ++i)
    check(study.design[i].name, indexed("design_variables", i));
  for (size_t i = 0; i < study.auxiliaries.size(); ++i) {
    check(study.auxiliaries[i].name, indexed("auxiliary_variables", i));
  }
  for (const auto& [name, value] : study.constants) check(name, "constants." + name);
  for (const auto& [name, value] : study.data) check(name, "data." + name);
  for (const auto& [name, value] : study.relations) check(name, "relations." + name);
  for (size_t i = 0; i < study.responses.size(); ++i)
    check(study.responses[i].name, indexed("responses", i));
  auto check_identifier = [&](const std::string& name, const std::string& path) {
    if (!name.empty() && !identifier(name)) {
      problems.add(path, "\"" + name +
                             "\" cannot be used in expressions: names are letters, digits and _, "
                             "not starting with a digit");
    }
  };
  for (size_t i = 0; i < study.design.size(); ++i)
    check_identifier(study.design[i].name, indexed("design_variables", i) + ".name");
  for (size_t i = 0; i < study.auxiliaries.size(); ++i)
    check_identifier(study.auxiliaries[i].name, indexed("auxiliary_variables", i) + ".name");
  for (size_t i = 0; i < study.responses.size(); ++i)
    check_identifier(study.responses[i].name, indexed("responses", i) + ".name");
  for (size_t i = 0; i < study.load_cases.size(); ++i)
    check_identifier(study.load_cases[i].name, indexed("load_cases", i) + ".name");
  for (const auto& [name, value] : study.constants) check_identifier(name, "constants." + name);
  for (const auto& [name, value] : study.data) check_identifier(name, "data." + name);
  for (const auto& [name, value] : study.relations) check_identifier(name, "relations." + name);
  std::set<std::string> cases;
  for (size_t i = 0; i < study.load_cases.size(); ++i) {
    if (!cases.insert(study.load_cases[i].name).second) {
      problems.add(indexed("load_cases", i) + ".name",
                   "duplicate load case \"" + study.load_cases[i].name + "\"");
    }
  }
}

}  // namespace

StudyError::StudyError(std::string source, std::vector<std::string> problems)
    : std::runtime_error(source + ": " + std::to_string(problems.size()) + " problem(s):\n  " +
                         join(problems, "\n  ")),
      problems_(std::move(problems)) {}

Study load_study(const nlohmann::json& document, const std::string& source) {
  Problems problems;
  Study study;
  study.file = source;
  if (!document.is_object()) throw StudyError(source, {"(top level): expected an object"});
  ObjectReader top(document, "", problems);
  study.name = top.string("name", false).value_or(source);
  study.description = top.string("description", false).value_or("");

  double default_move = 0.4;
  if (top.has("settings"))
    read_settings(top.raw("settings"), study.options, default_move, problems);
  if (top.has("constants")) read_constants(top.raw("constants"), study, problems);
  if (top.has("data")) read_data(top.raw("data"), study, problems);
  if (top.has("relations")) read_relations(top.raw("relations"), study, problems);
  if (top.has("design_variables")) {
    read_design(top.raw("design_variables"), study, default_move, problems);
  } else {
    problems.add("design_variables", "missing");
  }
  if (top.has("auxiliary_variables"))
    read_auxiliaries(top.raw("auxiliary_variables"), study, problems);
  if (top.has("load_cases")) {
    read_load_cases(top.raw("load_cases"), study, problems);
  } else {
    problems.add("load_cases", "missing");
  }
  if (top.has("responses")) read_responses(top.raw("responses"), study, problems);
  check_names(study, problems);
  for (size_t i = 0; i < study.responses.size(); ++i) {
    if (!study.responses[i].history) continue;
    for (size_t c = 0; c < study.load_cases.size(); ++c) {
      if (study.load_cases[c].grid.points < 2) {
        problems.add(indexed("load_cases", c) + ".time",
                     "missing: response \"" + study.responses[i].name + "\" is a history");
      }
    }
  }
  build_symbols(study);
  bind_derived(study, problems);
  if (top.has("objective")) {
    read_objective(top.raw("objective"), study, problems);
  } else {
    problems.add("objective", "missing");
  }
  if (top.has("constraints")) read_constraints(top.raw("constraints"), study, problems);
  if (top.has("starts")) read_starts(top.raw("starts"), study, problems);
  if (top.has("simulator") && expect_object(top.raw("simulator"), "simulator", problems)) {
    study.simulator = top.raw("simulator");
  } else if (!top.has("simulator")) {
    problems.add("simulator", "missing");
  }
  top.finish();

  const std::string rule = study.options.validate();
  if (!rule.empty()) problems.add("", rule);
  if (!problems.empty()) throw StudyError(source, problems.list());
  return study;
}

nlohmann::json read_study_document(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw StudyError(path, {"cannot open the file"});
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw StudyError(path, {std::string("not valid JSON: ") + e.what()});
  }
}

Study load_study_file(const std::string& path) {
  return load_study(read_study_document(path), path);
}

void apply_override(nlohmann::json& document, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw StudyError("--set", {"\"" + assignment + "\": expected path.to.key=value"});
  }
  std::string pointer;
  std::stringstream path(assignment.substr(0, eq));
  for (std::string part; std::getline(path, part, '.');) pointer += "/" + part;
  const std::string text = assignment.substr(eq + 1);
  nlohmann::json value = nlohmann::json::parse(text, nullptr, false);
  if (value.is_discarded()) value = text;
  document[nlohmann::json::json_pointer(pointer)] = value;
}

void use_start(Study& study, int k) {
  if (k < 1 || k > static_cast<int>(study.starts.size())) {
    throw StudyError(study.file, {"--start " + std::to_string(k) + ": the study has " +
                                  std::to_string(study.starts.size()) + " start(s) in \"starts\""});
  }
  for (const auto& [name, value] : study.starts[k - 1]) {
    for (auto& d : study.design) {
      if (d.name == name) d.initial = value;
    }
    for (auto& a : study.auxiliaries) {
      if (a.name == name) a.initial = value;
    }
  }
}

void check_against_simulator(const Study& study, const Simulator& simulator) {
  std::map<std::string, bool> offered;
  std::vector<std::string> names;
  for (const auto& info : simulator.responses()) {
    offered[info.name] = info.history;
    names.push_back(info.name + (info.history ? " (history)" : " (scalar)"));
  }
  std::vector<std::string> problems;
  for (size_t i = 0; i < study.responses.size(); ++i) {
    const ResponseDef& d = study.responses[i];
    auto it = offered.find(d.source);
    const std::string path = indexed("responses", i);
    if (it == offered.end()) {
      problems.push_back(path + ".source: the simulator has no response \"" + d.source +
                         "\" (it offers: " + join(names, ", ") + ")");
    } else if (it->second != d.history) {
      problems.push_back(path + ".kind: \"" + d.source + "\" is a " +
                         (it->second ? "history" : "scalar") + " in the simulator");
    }
  }
  if (!problems.empty()) throw StudyError(study.file, problems);
}

int Study::response_index(const std::string& name) const {
  for (size_t i = 0; i < responses.size(); ++i) {
    if (responses[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

SimulatorSetup Study::simulator_setup() const {
  SimulatorSetup setup;
  setup.section = simulator;
  for (const auto& v : design) setup.design_names.push_back(v.name);
  setup.load_cases = load_cases;
  if (!file.empty()) {
    setup.study_directory = std::filesystem::absolute(file).parent_path().string();
  }
  return setup;
}

}  // namespace sao
