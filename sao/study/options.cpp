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
  return broken;
}

bool parse_approximation_form(const std::string& word, ApproximationForm& form) {
  for (ApproximationForm f :
       {ApproximationForm::kLinear, ApproximationForm::kConservative, ApproximationForm::kQuadratic,
        ApproximationForm::kQuasiNewton, ApproximationForm::kAuto}) {
    if (word == approximation_form_name(f)) {
      form = f;
      return true;
    }
  }
  return false;
}

const char* approximation_form_name(ApproximationForm form) {
  switch (form) {
    case ApproximationForm::kConservative:
      return "conservative";
    case ApproximationForm::kQuadratic:
      return "quadratic";
    case ApproximationForm::kQuasiNewton:
      return "quasi_newton";
    case ApproximationForm::kAuto:
      return "auto";
    case ApproximationForm::kLinear:
      break;
  }
  return "linear";
}

}  // namespace sao
