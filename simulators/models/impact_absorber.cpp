// The impact absorber of seed 003 (2.5.1): a mass m = 1 kg on a linear spring k [N/m] and a
// linear damper c [Ns/m], hit with velocity v0: y'' + c y' + k y = 0, y(0) = y0, y'(0) = v0.
// State x = (y [m], y' [m/s]); parameters p = (k, c); load-case parameters y0 (default 0),
// v0 (default 1 m/s) and noise (default 0): the artificial noise of seed 003, 3.7.1,
// noise (sin(200 pi k) + sin(200 pi c)) added to y and y'' to make them non-smooth in the
// design. Integral output `comfort`: the mean of y''^2 over the grid's span, (1/T) integral of
// y''^2 dt (seed 003, 2.5.1 and table 4.3).
#include <cmath>
#include <numbers>

#include "simulators/models/model.hpp"

namespace sao::sim {
namespace {

class ImpactAbsorber final : public TemplatedOdeModel<ImpactAbsorber> {
 public:
  std::string name() const override { return "impact-absorber"; }
  std::vector<std::string> parameters() const override { return {"k", "c"}; }
  std::map<std::string, double> load_parameters() const override {
    return {{"y0", 0.0}, {"v0", 1.0}, {"noise", 0.0}};
  }
  int state_size() const override { return 2; }
  std::vector<std::string> history_outputs() const override { return {"y", "ydot", "yddot"}; }
  std::vector<std::string> integral_outputs() const override { return {"comfort"}; }
  std::vector<std::string> history_scalars() const override {
    return {"max_abs_y", "max_abs_yddot"};
  }
  void scalars_from_histories(CaseResult& out) const override {
    out.scalars["max_abs_y"] = out.histories["y"].cwiseAbs().maxCoeff();
    out.scalars["max_abs_yddot"] = out.histories["yddot"].cwiseAbs().maxCoeff();
  }

  template <class S>
  void initial(const S*, S* x0, const LoadCaseSpec& lc) const {
    x0[0] = S(load_parameter(lc, "y0"));
    x0[1] = S(load_parameter(lc, "v0"));
  }
  template <class S>
  void equations(double, const S* x, S* xdot, const S* p, const LoadCaseSpec&) const {
    xdot[0] = x[1];
    xdot[1] = acceleration(x, p);  // the equation of motion, m = 1
  }
  template <class S>
  S out(int k, double, const S* x, const S* p, const LoadCaseSpec& lc) const {
    using std::sin;
    const double amplitude = load_parameter(lc, "noise");
    const S noise =
        amplitude * (sin(200.0 * std::numbers::pi * p[0]) + sin(200.0 * std::numbers::pi * p[1]));
    switch (k) {
      case 0:
        return x[0] + noise;
      case 1:
        return x[1];
      case 2:
        return acceleration(x, p) + noise;
      default: {  // comfort integrand: y''^2 / T
        const S a = acceleration(x, p);
        return a * a / (lc.grid.end - lc.grid.start);
      }
    }
  }

 private:
  template <class S>
  static S acceleration(const S* x, const S* p) {
    return -p[1] * x[1] - p[0] * x[0];
  }
};

}  // namespace

const OdeModel& impact_absorber_model() {
  static const ImpactAbsorber model;
  return model;
}

}  // namespace sao::sim
