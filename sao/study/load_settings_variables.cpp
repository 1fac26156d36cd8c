// Reading the settings, the design and auxiliary variables and the alternative starts of a
// study file.
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <tuple>

#include "sao/study/load_sections.hpp"

namespace sao::loading {
namespace {

using nlohmann::json;
constexpr double kInf = std::numeric_limits<double>::infinity();

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

// A word choice of "settings" (options.hpp: the first word is its enum's first value): the
// value of the word given; any other word is a problem, naming every word, and gives the first.
template <typename Choice>
void read_choice(JsonReader& r, const char* key, bool (*parse)(const std::string&, Choice&),
                 const char* (*name)(Choice), Choice& target) {
  const auto word = r.string(key, false);
  if (!word || parse(*word, target)) return;
  // name() gives the first word again past the last value.
  std::vector<std::string> words{name(static_cast<Choice>(0))};
  for (int i = 1; i < 16 && name(static_cast<Choice>(i)) != words.front(); ++i) {
    words.push_back(name(static_cast<Choice>(i)));
  }
  std::string expected;
  for (size_t i = 0; i < words.size(); ++i) {
    expected += (i == 0 ? "" : (i + 1 == words.size() ? " or " : ", ")) + ("\"" + words[i] + "\"");
  }
  r.problems().add(r.at(key), "expected " + expected + ", got \"" + *word + "\"");
  target = static_cast<Choice>(0);
}

// "values" (a catalogue) or "step" of a discrete variable (docs/study-format.md, "Discrete
// variables"): sets v.values / v.step and, for a catalogue, the bounds its ends imply (bounds
// given beside it must be those ends).
void read_discrete(JsonReader& r, DesignVariable& v, std::optional<double>& lower,
                   std::optional<double>& upper, Problems& problems) {
  const bool has_values = r.has("values"), has_step = r.has("step");
  if (has_values && has_step) {
    problems.add(r.at("step"), "give \"values\" or \"step\", not both");
    r.known({"step"});
    return;
  }
  if (has_step) {
    if (auto step = r.positive("step")) v.step = *step;
    if (v.step > 0.0 && !(lower && std::isfinite(*lower)))
      problems.add(r.at("step"), "needs a finite lower bound (the values are lower + k step)");
    if (v.step > 0.0 && lower && upper && std::isfinite(*upper) && *upper - *lower < v.step)
      problems.add(r.at("step"), "allows one value only (upper - lower < step)");
    return;
  }
  if (!has_values) return;
  const json& list = r.array("values");
  for (size_t k = 0; k < list.size(); ++k) {
    const std::string at = r.at("values") + "[" + std::to_string(k) + "]";
    if (!list[k].is_number() || !std::isfinite(list[k].get<double>())) {
      problems.add(at, "expected a finite number, got " + json_excerpt(list[k]));
      return;
    }
    const double value = list[k].get<double>();
    if (!v.values.empty() && !(value > v.values.back())) {
      problems.add(at, number_text(value) + " after " + number_text(v.values.back()) +
                           ": the values must be strictly increasing");
      v.values.clear();
      return;
    }
    v.values.push_back(value);
  }
  if (v.values.size() < 2) {
    problems.add(r.at("values"), "needs at least two values");
    v.values.clear();
    return;
  }
  for (auto [bound, key, end] : {std::tuple{&lower, "lower", v.values.front()},
                                 std::tuple{&upper, "upper", v.values.back()}}) {
    if (r.has(key) && *bound && **bound != end) {
      problems.add(r.at(key), number_text(**bound) + " is not the " +
                                  (end == v.values.front() ? "first" : "last") + " value " +
                                  number_text(end) + " (with \"values\" the bounds are its ends)");
    }
    *bound = end;
  }
}

// The allowed values next to a discrete variable's x, in words: "0.33 or 0.39".
std::string allowed_near(const DesignVariable& v, double x) {
  const auto [lo, hi] = v.neighbours(x);
  return lo == hi ? number_text(lo) : number_text(lo) + " or " + number_text(hi);
}

}  // namespace

void read_settings(const json& node, Options& options, double& default_move, Problems& problems) {
  if (!expect_object(node, "settings", problems)) return;
  JsonReader r(node, "settings", problems);
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
      {"move_limit", &default_move}, {"min_move_limit", &options.min_move_factor},
  };
  for (const auto& f : numbers) *f.target = r.number_or(f.key, *f.target);
  // A cutoff given screens the trust region's scalar constraints too (Options::scalar_cutoff).
  if (r.has("cutoff")) options.scalar_cutoff = options.cutoff;
  // The first-order tolerance follows the objective accuracy unless given: the residual is the
  // first-order gain of a step of one characteristic size per variable, relative to the
  // objective's scale (optimality.hpp), so it is held below objacc as a fraction (objacc is in
  // %): 0.1 % (the default) gives 1e-3.
  options.kkt_tolerance = r.number_or("kkt_tolerance", options.objacc / 100.0);
  if (auto v = r.integer("neighbours")) options.neighbours = *v;
  if (auto v = r.integer("max_cycles")) options.max_cycles = *v;
  if (auto v = r.integer("max_failures")) options.max_failures = *v;
  if (auto v = r.boolean("regionalisation")) options.regionalisation = *v;
  if (auto v = r.boolean("converge_on_violation_change")) options.converge_on_violation_change = *v;
  options.alpha = r.number_or("alpha", options.alpha);
  options.reuse_radius = r.number_or("reuse_radius", options.reuse_radius);
  if (auto v = r.boolean("noise_from_data")) options.noise_from_data = *v;
  read_choice(r, "approximation", parse_approximation_source, approximation_source_name,
              options.approximation);
  read_choice(r, "fit", parse_fit_method, fit_method_name, options.fit);
  read_choice(r, "subproblem", parse_subproblem_solver, subproblem_solver_name, options.subproblem);
  read_choice(r, "nlp_algorithm", parse_nlp_algorithm, nlp_algorithm_name, options.nlp_algorithm);
  const bool multipoint = options.approximation == ApproximationSource::kMultipoint;
  options.strategy = multipoint ? Strategy::kSeed : Strategy::kTrustRegion;
  read_choice(r, "strategy", parse_strategy, strategy_name, options.strategy);
  options.feasibility_first = options.strategy != Strategy::kSeed;
  // A metamodel's auxiliary is a prediction: the analysis of b* sets it unless told otherwise.
  options.repair_auxiliary = options.strategy == Strategy::kMetamodel;
  if (auto v = r.boolean("repair_auxiliary")) options.repair_auxiliary = *v;
  read_choice(r, "metamodel", parse_metamodel_kind, metamodel_kind_name, options.metamodel);
  read_choice(r, "infill", parse_infill, infill_name, options.infill);
  if (auto v = r.integer("metamodel_points")) options.metamodel_points = *v;
  options.design_tolerance = r.number_or("design_tolerance", options.design_tolerance);
  if (auto v = read_form(r)) options.form = *v;
  options.min_curvature = r.number_or("min_curvature", options.min_curvature);
  if (auto v = r.boolean("lagrangian_curvature")) options.lagrangian_curvature = *v;
  if (auto v = r.boolean("second_order_correction")) options.second_order_correction = *v;
  if (auto v = r.boolean("central_differences_on_stall")) {
    options.central_differences_on_stall = *v;
  }
  if (auto v = r.boolean("central_differences_to_confirm")) {
    options.central_differences_to_confirm = *v;
  }
  if (auto v = r.integer("extend_steps")) options.extend_steps = *v;
  if (auto v = r.integer("secant_cycles")) options.secant_cycles = *v;
  options.max_curvature = r.number_or("max_curvature", options.max_curvature);
  options.require_free_move_limits = multipoint;
  if (auto v = r.boolean("require_free_move_limits")) options.require_free_move_limits = *v;
  r.finish();
  if (!valid_move_factor(default_move))
    problems.add("settings.move_limit", move_factor_rule(default_move));
}

std::optional<ApproximationForm> read_form(JsonReader& r) {
  const auto word = r.string("form", false);
  if (!word) return std::nullopt;
  ApproximationForm form = ApproximationForm::kLinear;
  if (!parse_approximation_form(*word, form)) {
    r.problems().add(r.at("form"),
                     "expected \"auto\", \"linear\", \"conservative\", \"quadratic\" or "
                     "\"quasi_newton\", got \"" +
                         *word + "\"");
    return std::nullopt;
  }
  return form;
}

// A bound: a number, or the name of one of the study's constants (read before the variables);
// `absent` when the key is missing or null.
static std::optional<double> bound_value(JsonReader& r, const char* key, const Study& study,
                                         Problems& problems, double absent) {
  if (!r.has(key)) return absent;
  const json& b = r.raw(key);
  if (!b.is_string()) return r.number(key);
  const auto it = study.constants.find(b.get<std::string>());
  if (it != study.constants.end()) return it->second;
  std::string names;
  for (const auto& [name, value] : study.constants) names += (names.empty() ? "" : ", ") + name;
  problems.add(r.at(key), "expected a number, got a string (\"" + b.get<std::string>() +
                              "\"): a bound may also name one of the study's constants (" +
                              (names.empty() ? std::string("none declared") : names) + ")");
  return std::nullopt;
}

void read_design(const json& node, Study& study, double default_move, Problems& problems) {
  if (node.empty()) problems.add("design_variables", "at least one design variable is needed");
  for_each_object(
      node, "design_variables", problems, [&](const json& entry, const std::string& path, size_t) {
        JsonReader r(entry, path, problems);
        DesignVariable v;
        v.name = r.string("name", true).value_or("");
        // A bound may be omitted (or null): the variable is unbounded on that side.
        auto lower = bound_value(r, "lower", study, problems, -kInf);
        auto upper = bound_value(r, "upper", study, problems, kInf);
        auto initial = r.number("initial", true);
        if (auto size = r.number("size")) {
          v.size = *size;
          if (!(*size > 0.0)) problems.add(r.at("size"), "must be > 0, got " + number_text(*size));
        }
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
                             json_excerpt(im));
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
        read_discrete(r, v, lower, upper, problems);
        v.lower = lower.value_or(0);  // the allowed values of a step start at lower
        v.upper = upper.value_or(0);
        if (v.discrete() && initial && !v.allowed(*initial)) {
          problems.add(r.at("initial"), number_text(*initial) + " is not an allowed value (" +
                                            allowed_near(v, *initial) + ")");
        }
        v.note = read_annotation(r);
        r.finish();
        if (!valid_move_factor(v.move_factor))
          problems.add(r.at("move_limit"), move_factor_rule(v.move_factor));
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
          problems.add(r.at("lower"), "must be given and > 0 with the intermediate variable b^" +
                                          number_text(v.intermediate.power));
        }
        const bool finite = lower && upper && std::isfinite(*lower) && std::isfinite(*upper);
        if (v.intermediate.expression && !finite) {
          problems.add(r.at("intermediate"),
                       "an intermediate expression needs both bounds (its monotonicity is checked "
                       "on [lower, upper])");
        } else if (v.intermediate.expression && lower && upper && *lower <= *upper) {
          check_monotone(v.intermediate, *lower, *upper, r.at("intermediate"), problems);
        }
        if (finite && v.size > 0.0) {
          problems.add(r.at("size"),
                       "only for a variable without both bounds (the range sizes this one)");
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
        JsonReader r(entry, path, problems);
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

void read_starts(const json& node, Study& study, Problems& problems) {
  for_each_object(
      node, "starts", problems, [&](const json& entry, const std::string& path, size_t) {
        std::map<std::string, double> start;
        for (const auto& [name, value] : entry.items()) {
          const std::string at = path + "." + name;
          if (!value.is_number()) {
            problems.add(at, "expected a number, got " + json_type_name(value));
            continue;
          }
          const double v = value.get<double>();
          bool known = false;
          for (const auto& d : study.design) {
            if (d.name != name) continue;
            known = true;
            if (v < d.lower || v > d.upper) {
              problems.add(at, number_text(v) + " outside the bounds");
            } else if (d.discrete() && !d.allowed(v)) {
              problems.add(
                  at, number_text(v) + " is not an allowed value (" + allowed_near(d, v) + ")");
            }
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

}  // namespace sao::loading
