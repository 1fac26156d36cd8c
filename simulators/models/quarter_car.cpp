// The quarter truck of seed 003, chapter 7 (PROBLEMS.md): chassis m_c = 5076 kg on the
// suspension spring k_s = 600 kN/m and the original nonlinear damper, axle m_a = 748 kg on the
// tyre k_t = 2000 kN/m (the tyre stays on the road), plus an extra damper in parallel that
// acts only in compression beyond 0.04 m: weight 0 above -0.04 m of deflection, linear to 1
// at -0.05 m, 1 beyond. Coordinates from static equilibrium (gravity cancels).
//
// Damper law per stage (bleed, blow-off, port), v the relative velocity (rebound v > 0):
//   F(v) = sign(v) [B0 v^2 (B1 + B2 |v|) / (B0 v^2 + B1 + B2 |v|) + B3 v^2]
// with B = (B0, B1, B2, B3) of compression (v < 0) or rebound (v > 0). The seed's equation
// was lost in extraction; this reconstruction follows its description (PROBLEMS.md).
//
// Parameters: the extra damper's compression B0 [1e6 Ns^2/m^2], B1 [1e3 N], B2 [1e3 Ns/m]
// (`bleed_c`, `preload_c`, `blowoff_c`) and the same for rebound (`bleed_r`, `preload_r`,
// `blowoff_r`); its B3 are the original's. Load-case parameters: `road` (1 hump, 2 wave,
// 3 railway crossing), `speed` [km/h] (defaults 15, 80, 25 by road), `start` [m] (distance
// to the obstacle at t = 0, default 1 m).
//   hump: 4.25 m long, 0.25 m high over its middle 2.25 m, 1 m raised-cosine ramps;
//   wave: 0.5 sin^2(pi x / 25) over 25 m;
//   crossing (synthetic: the seed's measured profile is not available): two rails of
//   0.03 m, each a 0.3 m raised-cosine bump, 1.5 m apart, on a 0.01 m raised plank of 3 m.
// Histories: deflection y_c - y_a (inward < 0), chassis acceleration, tyre deflection
// y_a - y_road, road height, damper force; scalar: the largest inward deflection.
#include "simulators/models/quarter_car.hpp"

#include <cmath>
#include <numbers>

#include "simulators/models/model.hpp"

namespace sao::sim {
namespace {

// Raised-cosine step from 0 (x <= 0) to 1 (x >= w).
double ramp(double x, double w) {
  if (x <= 0) return 0;
  if (x >= w) return 1;
  return 0.5 * (1 - std::cos(std::numbers::pi * x / w));
}

double bump(double x, double w) {  // raised-cosine bump of unit height and width w
  if (x <= 0 || x >= w) return 0;
  return 0.5 * (1 - std::cos(2 * std::numbers::pi * x / w));
}

using namespace quarter_car;

class QuarterCar final : public TemplatedOdeModel<QuarterCar> {
 public:
  std::string name() const override { return "quarter-car"; }
  std::vector<std::string> parameters() const override {
    return {"bleed_c", "preload_c", "blowoff_c", "bleed_r", "preload_r", "blowoff_r"};
  }
  std::map<std::string, double> load_parameters() const override {
    return {{"road", 1.0}, {"speed", 0.0}, {"start", 1.0}, {"extra", 1.0}};
  }
  int state_size() const override { return 4; }  // y_c, v_c, y_a, v_a
  std::vector<std::string> history_outputs() const override {
    return {"deflection", "chassis_acceleration", "tyre_deflection", "road", "damper_force"};
  }
  std::vector<std::string> history_scalars() const override { return {"max_inward_deflection"}; }
  void scalars_from_histories(CaseResult& out) const override {
    out.scalars["max_inward_deflection"] = -out.histories["deflection"].minCoeff();
  }

  // The shortest road feature is a 0.3 m rail: at most 0.05 m of travel per step.
  double max_step(const LoadCaseSpec& lc) const override { return 0.05 / (speed(lc) / 3.6); }

  double speed(const LoadCaseSpec& lc) const {
    const double v = load_parameter(lc, "speed");
    return v > 0 ? v : default_speed(static_cast<int>(load_parameter(lc, "road")));
  }

  // Road height under the tyre at time t.
  double road(double t, const LoadCaseSpec& lc) const {
    const int kind = static_cast<int>(load_parameter(lc, "road"));
    return road_height(kind, t * speed(lc) / 3.6 - load_parameter(lc, "start"));
  }

  template <class S>
  void initial(const S*, S* x0, const LoadCaseSpec&) const {
    for (int i = 0; i < 4; ++i) x0[i] = S(0.0);
  }
  template <class S>
  void equations(double t, const S* x, S* xdot, const S* p, const LoadCaseSpec& lc) const {
    const S force = suspension(x, p, lc);  // on the chassis
    xdot[0] = x[1];
    xdot[1] = force / kChassis;
    xdot[2] = x[3];
    xdot[3] = (-force - kTyre * (x[2] - road(t, lc))) / kAxle;
  }
  template <class S>
  S out(int k, double t, const S* x, const S* p, const LoadCaseSpec& lc) const {
    switch (k) {
      case 0:
        return x[0] - x[2];
      case 1:
        return suspension(x, p, lc) / kChassis;
      case 2:
        return x[2] - road(t, lc);
      case 3:
        return S(road(t, lc));
      default:
        return -(suspension(x, p, lc) + kSpring * (x[0] - x[2]));  // the dampers' force
    }
  }

 private:
  // Spring and dampers' force on the chassis.
  template <class S>
  S suspension(const S* x, const S* p, const LoadCaseSpec& lc) const {
    const S d = x[0] - x[2], v = x[1] - x[3];
    const bool rebound = v > 0.0;
    const double* b = rebound ? kRebound : kCompression;
    const S original = damper_stage(v, S(b[0]), S(b[1]), S(b[2]), b[3]);
    const int o = rebound ? 3 : 0;  // the extra damper's stage
    const S extra = damper_stage(v, S(p[o] * 1e6), S(p[o + 1] * 1e3), S(p[o + 2] * 1e3), b[3]);
    // `extra` = 0 gives the original truck (no extra damper), for reference runs.
    return -kSpring * d - original - load_parameter(lc, "extra") * extra_weight(d) * extra;
  }
};

}  // namespace

namespace quarter_car {

double default_speed(int road) {
  return road == kHump ? 15.0 : (road == kWave ? 80.0 : 25.0);
}

double road_height(int road, double x) {
  switch (road) {
    case kHump:  // ramps of 1 m up and down around a 2.25 m plateau
      return 0.25 * (ramp(x, 1.0) - ramp(x - 3.25, 1.0));
    case kWave: {
      if (x <= 0 || x >= 25) return 0;
      const double s = std::sin(std::numbers::pi * x / 25);
      return 0.5 * s * s;
    }
    default:  // crossing
      return 0.01 * (ramp(x, 0.2) - ramp(x - 2.8, 0.2)) + 0.03 * bump(x - 0.6, 0.3) +
             0.03 * bump(x - 2.1, 0.3);
  }
}

}  // namespace quarter_car

const OdeModel& quarter_car_model() {
  static const QuarterCar model;
  return model;
}

}  // namespace sao::sim
