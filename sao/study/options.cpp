#include "sao/study/options.hpp"

#include <cmath>
#include <sstream>

namespace sao {
namespace {

std::string number(double value) {
  std::ostringstream out;
  out.precision(15);
  out << value;
  return out.str();
}

std::string rule(const std::string& key, const std::string& text) {
  return "settings." + key + ": " + text;
}

// The comparisons below are written so that NaN breaks every rule.
bool in_open_unit_interval(double v) {
  return v > 0.0 && v < 1.0;
}

}  // namespace

Options Options::with_noise_applied() const {
  Options raised = *this;
  for (double* p : {&raised.objacc, &raised.vioacc, &raised.errsml, &raised.errlrg, &raised.errmax,
                    &raised.viosml, &raised.violrg, &raised.viomax}) {
    *p += noise;
  }
  return raised;
}

std::vector<std::string> Options::validate() const {
  std::vector<std::string> broken;
  if (!(cutoff >= 0.0 && cutoff < 1.0)) {
    broken.push_back(rule("cutoff", "must be in [0, 1), got " + number(cutoff)));
  }
  if (neighbours < 0) {
    broken.push_back(rule("neighbours", "must be >= 0, got " + std::to_string(neighbours)));
  }
  if (!(kkt_tolerance > 0.0)) {
    broken.push_back(rule("kkt_tolerance", "must be > 0, got " + number(kkt_tolerance)));
  }
  if (!(min_move_factor > 0.0)) {
    broken.push_back(rule("min_move_limit", "must be > 0, got " + number(min_move_factor)));
  }

  struct Field {
    const char* key;
    double value;
  };
  const Field percentages[] = {{"objacc", objacc}, {"vioacc", vioacc}, {"errsml", errsml},
                               {"errlrg", errlrg}, {"errmax", errmax}, {"viosml", viosml},
                               {"violrg", violrg}, {"viomax", viomax}, {"noise", noise}};
  for (const Field& f : percentages) {
    if (!(f.value >= 0.0)) broken.push_back(rule(f.key, "must be >= 0, got " + number(f.value)));
  }

  // The three thresholds of each family must be ordered: small <= large <= max.
  const Field ordered[][3] = {{{"errsml", errsml}, {"errlrg", errlrg}, {"errmax", errmax}},
                              {{"viosml", viosml}, {"violrg", violrg}, {"viomax", viomax}}};
  for (const auto& family : ordered) {
    for (int i = 0; i < 2; ++i) {
      const Field& lo = family[i];
      const Field& hi = family[i + 1];
      if (!(lo.value <= hi.value)) {
        broken.push_back(rule(lo.key, std::string("must be <= ") + hi.key + " (" +
                                          number(hi.value) + "), got " + number(lo.value)));
      }
    }
  }

  const Field shrink[] = {{"beta1", beta1}, {"beta3", beta3}, {"beta4", beta4}};
  for (const Field& f : shrink) {
    if (!in_open_unit_interval(f.value)) {
      broken.push_back(rule(f.key, "must be in (0, 1), got " + number(f.value)));
    }
  }
  if (!(beta5 > 1.0)) broken.push_back(rule("beta5", "must be > 1, got " + number(beta5)));
  if (!(beta2 > 0.0)) broken.push_back(rule("beta2", "must be > 0, got " + number(beta2)));
  if (max_cycles < 1) {
    broken.push_back(rule("max_cycles", "must be >= 1, got " + std::to_string(max_cycles)));
  }
  if (extend_steps < 0) {
    broken.push_back(rule("extend_steps", "must be >= 0, got " + std::to_string(extend_steps)));
  }
  if (secant_cycles < 0) {
    broken.push_back(rule("secant_cycles", "must be >= 0, got " + std::to_string(secant_cycles)));
  }
  if (max_failures < 0) {
    broken.push_back(rule("max_failures", "must be >= 0, got " + std::to_string(max_failures)));
  }
  if (!(alpha >= 0.0 && alpha < 1.0))
    broken.push_back(rule("alpha", "must be in [0, 1), got " + number(alpha)));
  if (!(reuse_radius >= 0.0))
    broken.push_back(rule("reuse_radius", "must be >= 0, got " + number(reuse_radius)));
  if (!(relaxation_weight > 0.0)) {
    broken.push_back(rule("relaxation_weight", "must be > 0, got " + number(relaxation_weight)));
  }
  if (!(max_curvature > 0.0 && std::isfinite(max_curvature)))
    broken.push_back(rule("max_curvature", "must be finite and > 0, got " + number(max_curvature)));
  if (!(min_curvature >= -max_curvature && min_curvature <= max_curvature)) {
    broken.push_back(rule(
        "min_curvature", "must be in [-max_curvature, max_curvature] = [" + number(-max_curvature) +
                             ", " + number(max_curvature) + "], got " + number(min_curvature)));
  }
  if (metamodel_points < 0) {
    broken.push_back(rule("metamodel_points",
                          "must be >= 0 (0: automatic), got " + std::to_string(metamodel_points)));
  }
  if (!(design_tolerance > 0.0)) {
    broken.push_back(rule("design_tolerance", "must be > 0, got " + number(design_tolerance)));
  }
  if (strategy == Strategy::kMetamodel && approximation == ApproximationSource::kMultipoint) {
    broken.push_back(rule("strategy",
                          "\"metamodel\" fits its own global models of the responses: "
                          "it cannot be combined with \"approximation\": \"multipoint\""));
  }
  if (strategy == Strategy::kMetamodel && infill == Infill::kExpectedImprovement &&
      metamodel != MetamodelKind::kKriging) {
    broken.push_back(rule("infill",
                          "\"expected_improvement\" needs the kriging model's standard "
                          "error: set \"metamodel\": \"kriging\" (got \"" +
                              std::string(metamodel_kind_name(metamodel)) + "\")"));
  }
  return broken;
}

namespace {

// The words of each choice, in the order of its enum's values.
constexpr const char* kFormWords[] = {"linear", "conservative", "quadratic", "quasi_newton",
                                      "auto"};
constexpr const char* kSourceWords[] = {"local", "multipoint"};
constexpr const char* kFitWords[] = {"interpolation", "least_squares"};
constexpr const char* kStrategyWords[] = {"trust_region", "seed", "metamodel"};
constexpr const char* kMetamodelWords[] = {"quadratic", "linear", "kriging"};
constexpr const char* kInfillWords[] = {"optimum", "expected_improvement"};
constexpr const char* kSubproblemWords[] = {"auto", "nlp"};
constexpr const char* kNlpAlgorithmWords[] = {"slsqp", "mma"};

template <typename Choice, size_t N>
bool parse_word(const std::string& word, const char* const (&words)[N], Choice& choice) {
  for (size_t i = 0; i < N; ++i) {
    if (word == words[i]) {
      choice = static_cast<Choice>(i);
      return true;
    }
  }
  return false;
}

template <typename Choice, size_t N>
const char* word_of(Choice choice, const char* const (&words)[N]) {
  const auto i = static_cast<size_t>(choice);
  return i < N ? words[i] : words[0];
}

}  // namespace

bool parse_approximation_form(const std::string& word, ApproximationForm& form) {
  return parse_word(word, kFormWords, form);
}
const char* approximation_form_name(ApproximationForm form) {
  return word_of(form, kFormWords);
}

bool parse_approximation_source(const std::string& word, ApproximationSource& source) {
  return parse_word(word, kSourceWords, source);
}
const char* approximation_source_name(ApproximationSource source) {
  return word_of(source, kSourceWords);
}

bool parse_fit_method(const std::string& word, FitMethod& fit) {
  return parse_word(word, kFitWords, fit);
}
const char* fit_method_name(FitMethod fit) {
  return word_of(fit, kFitWords);
}

bool parse_strategy(const std::string& word, Strategy& strategy) {
  return parse_word(word, kStrategyWords, strategy);
}
const char* strategy_name(Strategy strategy) {
  return word_of(strategy, kStrategyWords);
}

bool parse_metamodel_kind(const std::string& word, MetamodelKind& kind) {
  return parse_word(word, kMetamodelWords, kind);
}
const char* metamodel_kind_name(MetamodelKind kind) {
  return word_of(kind, kMetamodelWords);
}

bool parse_infill(const std::string& word, Infill& infill) {
  return parse_word(word, kInfillWords, infill);
}
const char* infill_name(Infill infill) {
  return word_of(infill, kInfillWords);
}

bool parse_subproblem_solver(const std::string& word, SubproblemSolver& solver) {
  return parse_word(word, kSubproblemWords, solver);
}
const char* subproblem_solver_name(SubproblemSolver solver) {
  return word_of(solver, kSubproblemWords);
}

bool parse_nlp_algorithm(const std::string& word, NlpAlgorithm& algorithm) {
  return parse_word(word, kNlpAlgorithmWords, algorithm);
}
const char* nlp_algorithm_name(NlpAlgorithm algorithm) {
  return word_of(algorithm, kNlpAlgorithmWords);
}

}  // namespace sao
