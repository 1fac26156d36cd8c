// The quarter truck of seed 003, chapter 7: the pieces of the model that tests check against
// hand calculation (the model itself is `quarter_car_model()` in model.hpp).
#pragma once

#include <cmath>

#include "simulators/models/damper_law.hpp"

namespace sao::sim::quarter_car {

// Masses [kg] and stiffnesses [N/m] (PROBLEMS.md).
constexpr double kChassis = 5076.0, kAxle = 748.0, kSpring = 600e3, kTyre = 2000e3;
// The original damper's stages B0 [Ns^2/m^2], B1 [N], B2 [Ns/m], B3 [Ns^2/m^2].
constexpr double kCompression[4] = {26.0e6, 8.73e3, 7.11e3, 0.0276e3};
constexpr double kRebound[4] = {11.2e6, 18.3e3, 9.62e3, 3.52e3};

// The damper law: damper_stage (damper_law.hpp).

// Weight of the extra damper against the deflection d (inward < 0): 0 above -0.04 m, linear
// to 1 at -0.05 m, 1 beyond.
template <class S>
S extra_weight(const S& d) {
  if (d <= -0.05) return S(1.0);
  if (d < -0.04) return S((-0.04 - d) / 0.01);
  return S(0.0);
}

// Road kinds (the load-case parameter `road`) and their default speeds [km/h].
enum Road { kHump = 1, kWave = 2, kCrossing = 3 };
double default_speed(int road);
// Road height [m] at distance x [m] from the start of the obstacle.
//   hump: 4.25 m long, 0.25 m high over its middle 2.25 m, 1 m raised-cosine ramps;
//   wave: 0.5 sin^2(pi x / 25) over 25 m;
//   crossing (synthetic: the seed's measured profile is not available): two rails of
//   0.03 m, each a 0.3 m raised-cosine bump, 1.5 m apart, on a 0.01 m raised plank of 3 m.
double road_height(int road, double x);

}  // namespace sao::sim::quarter_car
