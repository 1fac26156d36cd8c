// The nonlinear damper law of seed 003, chapter 7 (PROBLEMS.md), shared by the quarter-car
// model and the multibody "damper" force element. Templated on the scalar type, so sensitivities
// come from automatic differentiation of this one definition.
#pragma once

#include <cmath>

namespace sao::sim {

// One stage of the damper law, v the relative velocity (rebound, extension: v > 0):
//   F(v) = sign(v) [B0 v^2 (B1 + B2 |v|) / (B0 v^2 + B1 + B2 |v|) + B3 v^2]
// bleed B0 v^2 at small |v|, blow-off B1 + B2 |v| (+ the port's B3 v^2) at large |v|.
template <class S, class B3>
S damper_stage(const S& v, const S& b0, const S& b1, const S& b2, const B3& b3) {
  using std::abs;
  const S v2 = v * v;
  const S low = b1 + b2 * abs(v);
  const S magnitude = v2 * b0 * low / (b0 * v2 + low) + b3 * v2;
  return v < 0.0 ? S(-magnitude) : magnitude;
}

}  // namespace sao::sim
