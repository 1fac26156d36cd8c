// The impact absorber of seed 003 (2.5.1): a mass m = 1 kg on a linear spring k [N/m] and a
// linear damper c [Ns/m], hit with velocity v0: y'' + c y' + k y = 0, y(0) = y0, y'(0) = v0.
// State x = (y [m], y' [m/s]); parameters p = (k, c); load-case parameters y0 (default 0),
// v0 (default 1 m/s) and noise (default 0): the artificial noise of seed 003, 3.7.1,
// noise (sin(200 pi k) + sin(200 pi c)) added to y and y'' to make them non-smooth in the
// design.
#include <cmath>
#include <numbers>

#include "simulators/model.hpp"

namespace sao::sim {
namespace {

class ImpactAbsorber final : public OdeModel {
 public:
  std::string name() const override { return "impact-absorber"; }
  std::vector<std::string> parameters() const override { return {"k", "c"}; }
  std::map<std::string, double> load_parameters() const override {
    return {{"y0", 0.0}, {"v0", 1.0}, {"noise", 0.0}};
  }
  std::vector<ResponseInfo> responses() const override {
    return {{"y", true},
            {"ydot", true},
            {"yddot", true},
            {"max_abs_y", false},
            {"max_abs_yddot", false}};
  }
  int state_size() const override { return 2; }
  Eigen::VectorXd initial_state(const Eigen::VectorXd&, const LoadCaseSpec& lc) const override {
    return Eigen::Vector2d(load_parameter(lc, "y0"), load_parameter(lc, "v0"));
  }
  int rhs(double, const double* x, double* xdot, const Eigen::VectorXd& p,
          const LoadCaseSpec&) const override {
    xdot[0] = x[1];
    xdot[1] = -p(1) * x[1] - p(0) * x[0];
    return 0;
  }
  void outputs(const Eigen::MatrixXd& states, const Eigen::VectorXd& p, const LoadCaseSpec& lc,
               CaseResult& out) const override {
    const double noise = load_parameter(lc, "noise") * (std::sin(200.0 * std::numbers::pi * p(0)) +
                                                        std::sin(200.0 * std::numbers::pi * p(1)));
    const Eigen::VectorXd y = states.col(0), v = states.col(1);
    const Eigen::VectorXd a = -p(1) * v - p(0) * y;  // the equation of motion, m = 1
    out.histories["y"] = y.array() + noise;
    out.histories["ydot"] = v;
    out.histories["yddot"] = a.array() + noise;
    out.scalars["max_abs_y"] = out.histories["y"].cwiseAbs().maxCoeff();
    out.scalars["max_abs_yddot"] = out.histories["yddot"].cwiseAbs().maxCoeff();
  }
};

}  // namespace

const OdeModel& impact_absorber_model() {
  static const ImpactAbsorber model;
  return model;
}

}  // namespace sao::sim
