// Closed-form kinematics of the slider-crank of the path-synthesis problem (seed 003, 2.5.2;
// Paradis & Willmert), standing in for the multibody kinematic analysis until the multibody
// models exist. Body 1 is the crank (length r, pivot (x0, y0), angle gamma0 + dgamma), body 2
// the coupler (length l) from the crank pin to the slider, which runs along the line y = e.
// The coupler point P sits at distance d and angle alpha from the crank pin in the coupler's
// frame.
//
// The load case's grid is the crank rotation dgamma in degrees (e.g. explicit times
// 0, 22, 44, ...); at every grid point:
//   x2 = r cos(gamma0 + dgamma) + x0,  y2 = r sin(gamma0 + dgamma) + y0   (crank pin)
//   theta2 = asin((e - y2) / l)                                            (coupler angle)
//   xP = x2 + d cos(alpha + theta2),  yP = y2 + d sin(alpha + theta2)
// The analysis fails (the mechanism does not assemble) where |e - y2| > l.
#include <cmath>
#include <numbers>
#include <sstream>

#include "simulators/models/model.hpp"

namespace sao::sim {
namespace {

class SliderCrankPath final : public Model {
 public:
  std::string name() const override { return "slider-crank-path"; }
  std::vector<std::string> parameters() const override {
    return {"crank",   "coupler", "offset",      "point_distance",
            "pivot_x", "pivot_y", "point_angle", "crank_angle"};
  }
  std::map<std::string, double> load_parameters() const override { return {}; }
  std::vector<ResponseInfo> responses() const override {
    return {{"x2", true}, {"y2", true}, {"theta2", true}, {"xP", true}, {"yP", true}};
  }
  std::string analyse(const Eigen::VectorXd& p, const LoadCaseSpec& lc, const IntegratorSettings&,
                      CaseResult& out) const override {
    const double r = p(0), l = p(1), e = p(2), d = p(3), x0 = p(4), y0 = p(5), alpha = p(6),
                 gamma0 = p(7);
    const int n = lc.grid.points;
    Eigen::VectorXd x2(n), y2(n), theta2(n), xp(n), yp(n);
    for (int k = 0; k < n; ++k) {
      const double dgamma = lc.grid.at(k) * std::numbers::pi / 180.0;
      x2(k) = r * std::cos(gamma0 + dgamma) + x0;
      y2(k) = r * std::sin(gamma0 + dgamma) + y0;
      const double s = (e - y2(k)) / l;
      if (!(std::abs(s) <= 1.0)) {
        std::ostringstream why;
        why << "the mechanism does not assemble at crank rotation " << lc.grid.at(k)
            << " deg: the coupler (length " << l << ") cannot reach the slider line y = " << e
            << " from the crank pin at y = " << y2(k);
        return why.str();
      }
      theta2(k) = std::asin(s);
      xp(k) = x2(k) + d * std::cos(alpha + theta2(k));
      yp(k) = y2(k) + d * std::sin(alpha + theta2(k));
    }
    out.histories["x2"] = x2;
    out.histories["y2"] = y2;
    out.histories["theta2"] = theta2;
    out.histories["xP"] = xp;
    out.histories["yP"] = yp;
    return "";
  }
};

}  // namespace

const Model& slider_crank_path_model() {
  static const SliderCrankPath model;
  return model;
}

}  // namespace sao::sim
