// Reading the objective and the constraints: each quantity (an expression, or the
// {"response", "case", "factor", "abs"} shorthand) expanded over |.| and load cases into
// criteria; "minimize_max" becomes the bound formulation.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "sao/reliability/distribution.hpp"
#include "sao/study/load_sections.hpp"

namespace sao::loading {
namespace {

using nlohmann::json;

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
  return joined(names, ", ");
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
    problems.add(path,
                 "expected an expression (a string) or an object, got " + json_type_name(node));
    return std::nullopt;
  }
  JsonReader r(node, path, problems);
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

// Expands one quantity with |.| and load cases into constraints `g <sense> bound`; false when
// its criterion could not be made (reported in `problems`).
bool add_constraints(const Quantity& q, const std::string& name, const std::string& path,
                     Sense sense, double bound, int bound_aux, double scale, const Annotation& note,
                     Study& study, Problems& problems) {
  const std::vector<int> cases = cases_of(q, study);
  for (int lc : cases) {
    for (double sign : q.abs ? std::vector<double>{1.0, -1.0} : std::vector<double>{1.0}) {
      Constraint c;
      c.name = part_name(name, study, lc, cases.size(), q.abs ? (sign > 0 ? "[+]" : "[-]") : "");
      c.path = path;
      auto g = make_criterion(q, lc, sign, study, problems);
      if (!g) return false;  // reported once, not per case and sign
      c.g = *g;
      c.sense = sense;
      c.bound = bound;
      c.bound_auxiliary = bound_aux;
      c.scale = scale;
      c.note = note;
      study.constraints.push_back(c);
    }
  }
  return true;
}

// The constraints from `first` on are an equality's two sides, each expanded alike (the <=
// parts, then the >= parts in the same order): each part is paired with its other side.
void pair_equality_sides(std::vector<Constraint>& constraints, size_t first) {
  const size_t count = constraints.size() - first;
  for (size_t i = 0; i < count / 2; ++i) {
    const size_t a = first + i, b = first + count / 2 + i;
    constraints[a].equality_partner = static_cast<int>(b);
    constraints[b].equality_partner = static_cast<int>(a);
  }
}

int auxiliary_index(const Study& study, const std::string& name) {
  for (size_t i = 0; i < study.auxiliaries.size(); ++i) {
    if (study.auxiliaries[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

namespace {

// One objective object at `path` ("objective", "objectives[1]") into `obj`; `several`: an entry
// of "objectives" (its "name" required).
void read_one_objective(const json& node, const std::string& path, bool several, Objective& obj,
                        Study& study, Problems& problems) {
  if (!expect_object(node, path, problems)) return;
  JsonReader r(node, path, problems);
  obj.path = path;
  obj.name = r.string("name", several).value_or("F");
  obj.note = read_annotation(r);
  const char* kinds[] = {"minimize", "maximize", "minimize_max"};
  std::vector<std::string> given;
  for (const char* k : kinds) {
    if (r.has(k)) given.push_back(k);
  }
  const double scale = r.number_or("scale", 0.0);
  std::optional<std::string> aux_name;
  if (given.size() == 1 && given[0] == "minimize_max") aux_name = r.string("auxiliary", true);
  if (given.size() != 1) {
    problems.add(path, "give exactly one of \"minimize\", \"maximize\" or \"minimize_max\"");
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
        problems.add(path + ".auxiliary", "unknown auxiliary variable \"" + *aux_name + "\"");
      return;
    }
    // Bound formulation (2.18-2.19): minimise b_aux subject to q(t) <= b_aux for every t
    // (and every load case, and both signs for |q|).
    add_constraints(*q, "objective:" + obj.name, r.at(kind), Sense::kLessEqual, 0.0, aux, scale,
                    obj.note, study, problems);
    obj.bound_formulation = true;
    Quantity bound;
    bound.ast = expr::name_node(study.auxiliaries[aux].name);
    bound.text = study.auxiliaries[aux].name;
    bound.path = r.at("auxiliary");
    if (auto f = make_criterion(bound, -1, 1.0, study, problems)) obj.f = *f;
    return;
  }
  if (q->abs) problems.add(r.at(kind) + ".abs", "not allowed in a minimize/maximize objective");
  const std::vector<int> cases = cases_of(*q, study);
  if (cases.empty()) return;  // no load case: reported where the load cases are read
  if (cases.size() > 1) {
    problems.add(r.at(kind),
                 "names a response without its load case and the study has several: write "
                 "name@case, or give \"case\"");
    return;
  }
  obj.maximize = kind == "maximize";
  auto f = make_criterion(*q, cases[0], obj.maximize ? -1.0 : 1.0, study, problems);
  if (!f) return;
  if (f->time_dependent()) {
    problems.add(r.at(kind),
                 "is a history: use \"minimize_max\" (bound formulation) or a reduction (sum, "
                 "mean, trapz)");
    return;
  }
  obj.f = *f;
}

}  // namespace

void read_objective(const json& node, Study& study, Problems& problems) {
  read_one_objective(node, "objective", false, study.objective, study, problems);
}

void read_objectives(const json& node, Study& study, Problems& problems) {
  if (!node.is_array()) {
    problems.add("objectives", "expected an array of objectives, got " + json_type_name(node));
    return;
  }
  if (node.size() < 2) {
    problems.add("objectives", "needs at least two objectives (got " + std::to_string(node.size()) +
                                   "): a study of one objective gives it as \"objective\"");
  }
  for (size_t i = 0; i < node.size(); ++i) {
    const std::string path = indexed("objectives", i);
    Objective obj;
    read_one_objective(node[i], path, true, obj, study, problems);
    for (const Objective& other : study.objectives) {
      if (!obj.name.empty() && other.name == obj.name) {
        problems.add(path + ".name",
                     "duplicate objective name \"" + obj.name + "\" (also " + other.path + ")");
      }
      // Each bound formulation bounds its own maximum: one auxiliary cannot be two maxima.
      if (obj.bound_formulation && other.bound_formulation && obj.f.text == other.f.text) {
        problems.add(path + ".auxiliary", "auxiliary variable \"" + obj.f.text +
                                              "\" already bounds " + other.path +
                                              " (each \"minimize_max\" needs its own)");
      }
    }
    study.objectives.push_back(obj);
  }
  // The single-objective code paths read study.objective: the first objective, never optimised
  // alone (require_single_objective refuses a multi-objective study where one is optimised).
  if (!study.objectives.empty()) study.objective = study.objectives.front();
}

namespace {

// A constraint's "reliability" object (docs/robustness.md, "Reliability-based design"): one of
// "probability" (of violation, in (0, 0.5)) or "k" (standard deviations, > 0).
Constraint::Reliability read_reliability(JsonReader& parent, Problems& problems) {
  Constraint::Reliability target;
  if (!parent.has("reliability")) return target;
  JsonReader r = parent.object("reliability");
  const bool probability = r.has("probability"), k = r.has("k");
  if (probability == k) {
    problems.add(r.path(), std::string(probability ? "give only one" : "missing: give one") +
                               " of \"probability\" (of violating the constraint, e.g. 1e-3) or "
                               "\"k\" (mean + k sd within the bound)");
  } else if (probability) {
    const std::optional<double> p = r.number("probability");
    if (p && !(*p > 0.0 && *p < 0.5)) {
      problems.add(r.at("probability"), "must be in (0, 0.5), got " + number_text(*p));
    } else if (p) {
      target.probability = *p;
      target.k = reliability::normal_quantile(1.0 - *p);
    }
  } else {
    target.k = r.positive("k").value_or(0.0);
  }
  r.finish();
  return target;
}

}  // namespace

void read_constraints(const json& node, Study& study, Problems& problems) {
  for_each_object(
      node, "constraints", problems, [&](const json& entry, const std::string& path, size_t i) {
        JsonReader r(entry, path, problems);
        std::string numbered = "g";  // g1, g2, ... when unnamed
        numbered += std::to_string(i + 1);
        const std::string name = r.string("name", false).value_or(numbered);
        std::optional<Quantity> q;
        if (r.has("of")) {
          q = read_quantity(r.raw("of"), r.at("of"), study, problems);
        } else {
          problems.add(r.at("of"), "missing (the quantity constrained)");
        }
        const double scale = r.number_or("scale", 0.0);
        if (scale < 0) problems.add(r.at("scale"), "must be > 0");
        const Annotation note = read_annotation(r);
        const Constraint::Reliability reliability = read_reliability(r, problems);
        const size_t first = study.constraints.size();
        // "equals": c is the pair c <= q <= c; the subproblem holds both rows (at a feasible
        // design both are active, and their multipliers make one of free sign).
        struct Side {
          const char* key;
          std::vector<Sense> senses;
        };
        if (r.has("equals") && (r.has("upper") || r.has("lower"))) {
          problems.add(r.at("equals"), "not with \"upper\" or \"lower\" (an equality is both)");
        }
        int sides = 0;
        bool made = true;  // the quantity's criterion, reported once when it cannot be made
        for (const Side& side :
             {Side{"upper", {Sense::kLessEqual}}, Side{"lower", {Sense::kGreaterEqual}},
              Side{"equals", {Sense::kLessEqual, Sense::kGreaterEqual}}}) {
          if (!r.has(side.key)) continue;
          ++sides;
          const json& b = r.raw(side.key);
          double bound = 0.0;
          int aux = -1;
          const auto constant =
              b.is_string() ? study.constants.find(b.get<std::string>()) : study.constants.end();
          if (constant != study.constants.end() && auxiliary_index(study, constant->first) < 0) {
            bound = constant->second;  // a constant of the study as the bound
            if (bound == 0.0 && scale <= 0.0) {
              problems.add(r.at("scale"),
                           "missing: the bound is 0, so a scale (> 0) must normalise it");
            }
          } else if (b.is_string()) {
            aux = auxiliary_index(study, b.get<std::string>());
            if (aux < 0) {
              problems.add(r.at(side.key), "unknown auxiliary variable or constant \"" +
                                               b.get<std::string>() + "\"");
              continue;
            }
          } else if (b.is_number() && std::isfinite(b.get<double>())) {
            bound = b.get<double>();
            if (bound == 0.0 && scale <= 0.0) {
              problems.add(r.at("scale"),
                           "missing: the bound is 0, so a scale (> 0) must normalise it");
            }
          } else {
            problems.add(
                r.at(side.key),
                "expected a number, an auxiliary variable name or a constant's name, got " +
                    json_type_name(b));
            continue;
          }
          if (!q) continue;
          if (q->abs && side.senses.back() == Sense::kGreaterEqual) {
            problems.add(r.at(side.key),
                         "not allowed with \"abs\" (|q| >= c is not a single constraint)");
            continue;
          }
          if (!made) continue;
          const size_t before = study.constraints.size();
          for (const Sense sense : side.senses) {
            made = made &&
                   add_constraints(*q, name, path, sense, bound, aux, scale, note, study, problems);
          }
          if (made && side.senses.size() == 2) pair_equality_sides(study.constraints, before);
        }
        if (sides == 0) problems.add(path, "give \"upper\", \"lower\", both, or \"equals\"");
        for (size_t j = first; j < study.constraints.size(); ++j) {
          study.constraints[j].reliability = reliability;
        }
        if (reliability.k > 0 &&
            std::any_of(study.constraints.begin() + first, study.constraints.end(),
                        [](const Constraint& c) { return c.bound_auxiliary >= 0; })) {
          problems.add(path + ".reliability",
                       "not with a bound given by an auxiliary variable (the bound formulation)");
        }
        if (reliability.k > 0 && r.has("equals")) {
          problems.add(path + ".reliability",
                       "not with \"equals\" (an equality cannot hold with a margin on both sides)");
        }
        r.finish();
      });
}

}  // namespace sao::loading
