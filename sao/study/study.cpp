// The Study's own queries (the rest of the Study is data filled by the loader).
#include "sao/study/study.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>

namespace sao {

bool valid_move_factor(double m) {
  return m > 0.0 && m <= 1.0;
}

std::string move_factor_rule(double m) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", m);
  return std::string(
             "must be in (0, 1] (a fraction of |b0|, or of the range with sizing "
             "\"range\"), got ") +
         text;
}

namespace {

// The one variable of an intermediate-variable expression.
class OneVariable final : public expr::Inputs {
 public:
  explicit OneVariable(double b) : b_(b) {}
  double variable(int) const override { return b_; }
  double response(int, int, int) const override {
    throw std::logic_error("an intermediate variable has no responses");
  }
  int gradient_size() const override { return 1; }

 private:
  double b_;
};

}  // namespace

double Intermediate::value(double b) const {
  if (expression) return expr::Evaluator(*expression, OneVariable(b)).value();
  return power == 1.0 ? b : std::pow(b, power);
}

double Intermediate::slope(double b) const {
  if (expression) {
    Eigen::VectorXd d(1);
    expr::Evaluator(*expression, OneVariable(b)).value(0, d);
    return d(0);
  }
  return power == 1.0 ? 1.0 : power * std::pow(b, power - 1.0);
}

std::string Annotation::title(const std::string& name) const {
  const std::string head = label.empty() ? name : label;
  return unit.empty() ? head : head + " " + bracketed_unit();
}

std::string Study::time_title(int load_case) const {
  const bool known = load_case >= 0 && load_case < static_cast<int>(time_notes.size());
  return known ? time_notes[load_case].title("t") : "t";
}

std::string Annotation::bracketed_unit() const {
  return unit.empty() ? unit : "[" + unit + "]";
}

void Study::variable_bounds(Eigen::VectorXd& lower, Eigen::VectorXd& upper) const {
  lower.resize(n_total());
  upper.resize(n_total());
  for (int i = 0; i < n_design(); ++i) {
    lower(i) = design[i].lower;
    upper(i) = design[i].upper;
  }
  for (int a = 0; a < n_aux(); ++a) {
    lower(n_design() + a) = auxiliaries[a].lower;
    upper(n_design() + a) = auxiliaries[a].upper;
  }
}

double DesignVariable::span() const {
  if (bounded()) return upper - lower;
  return 2.0 * (size > 0.0 ? size : std::max(std::abs(initial), 1.0));
}

std::pair<double, double> DesignVariable::interval(double at) const {
  if (bounded()) return {lower, upper};
  const double half = 0.5 * span();
  return {std::max(lower, at - half), std::min(upper, at + half)};
}

std::pair<double, double> DesignVariable::neighbours(double x) const {
  if (step > 0.0) {
    const double last = std::isfinite(upper)
                            ? lower + std::floor((upper - lower) / step + 1e-9) * step
                            : std::numeric_limits<double>::infinity();
    const double k = (x - lower) / step;
    const double near = std::round(k);
    if (std::abs(k - near) <= 1e-9) {
      const double v = std::clamp(lower + near * step, lower, last);
      return {v, v};
    }
    return {std::clamp(lower + std::floor(k) * step, lower, last),
            std::clamp(lower + std::ceil(k) * step, lower, last)};
  }
  if (values.empty()) return {x, x};
  const auto above = std::lower_bound(values.begin(), values.end(), x);
  if (above == values.end()) return {values.back(), values.back()};
  if (above == values.begin()) return {values.front(), values.front()};
  const double hi = *above, lo = *(above - 1);
  const double tolerance = 1e-9 * (hi - lo);
  if (hi - x <= tolerance) return {hi, hi};
  if (x - lo <= tolerance) return {lo, lo};
  return {lo, hi};
}

double DesignVariable::nearest(double x) const {
  const auto [lo, hi] = neighbours(x);
  return hi - x < x - lo ? hi : lo;
}

int Study::response_index(const std::string& name) const {
  for (size_t i = 0; i < responses.size(); ++i) {
    if (responses[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

int Study::variable_index(const std::string& name) const {
  for (int i = 0; i < n_design(); ++i) {
    if (design[i].name == name) return i;
  }
  for (int a = 0; a < n_aux(); ++a) {
    if (auxiliaries[a].name == name) return n_design() + a;
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

bool Study::bounds_maxima() const {
  if (objective.bound_formulation) return true;
  for (const Objective& o : objectives) {
    if (o.bound_formulation) return true;
  }
  return false;
}

}  // namespace sao
