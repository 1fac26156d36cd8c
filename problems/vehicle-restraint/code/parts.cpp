// The parts of restraint-sled that are laws of their own: pulse, webbing and retractor,
// inflator, vent orifice, gas, SAE J211 filter and the injury criteria of the log.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "restraint.hpp"
#include "sao/expr/injury.hpp"

namespace restraint {

double pulse_deceleration(const Deck& deck, double t) {
  if (t < 0 || t > deck.duration) return 0.0;
  const double amplitude = 2.0 * deck.delta_v / deck.duration;  // delta_v = A T / 2
  const double s = std::sin(std::numbers::pi * t / deck.duration);
  return amplitude * s * s;
}

double webbing_tension(double strain, double strain_at_10kN) {
  return strain > 0 ? 1.0e4 / strain_at_10kN * strain : 0.0;
}

double Retractor::lock_force() const {
  const double penetration = payout - anchor;
  if (penetration <= 0) return 0.0;
  const double damping = 2.0 * kLockDamping * std::sqrt(lock_stiffness * kSpoolMass);
  return std::max(0.0, lock_stiffness * penetration + damping * speed);
}

double Retractor::step(double t, double dt, double length, double free_length,
                       double strain_at_10kN) {
  auto tension = [&](double pay) {
    const double unloaded = free_length + pay;
    return webbing_tension((length - unloaded) / unloaded, strain_at_10kN);
  };
  if (!fired && t >= kFireTime && pull_in > 0) {
    fired = true;
    state = State::kPulling;
  }
  if (state == State::kPulling) {
    // The piston drives the spool; the pawl ratchets over the teeth.
    payout -= kPullSpeed * dt;
    speed = -kPullSpeed;
    if (-payout >= pull_in || tension(payout) >= kStopForce) {
      // The piston stops (end of stroke or stalled on its force) and so does the spool; the
      // pawl will catch the tooth behind it.
      payout = std::max(payout, -pull_in);
      speed = 0.0;
      stop_payout = payout;
      anchor = kTooth * std::ceil(payout / kTooth - 1e-9);
      state = State::kLocked;
    }
    return tension(payout);
  }
  const double before = payout - anchor;
  double contact = lock_force();
  if (contact > limit_force) {
    // The torsion bar yields: the anchor moves out until the contact carries the limit.
    const double damping = 2.0 * kLockDamping * std::sqrt(lock_stiffness * kSpoolMass);
    anchor = payout - (limit_force - damping * speed) / lock_stiffness;
    contact = limit_force;
    state = State::kLimited;
  }
  // The spool: the belt pulls it out (retractor side), the pawl holds it.
  speed += dt * (tension(payout) / kDringFactor - contact) / kSpoolMass;
  payout += dt * speed;
  if (stop_payout < 0 && lock_time < 0 && before <= 0 && payout > anchor) {
    lock_time = t;
    lock_speed = speed;
  }
  return tension(payout);
}

namespace {
constexpr double kInflatorTime = 0.004;  // s, time constant of the tank curve
}

double inflator_flow(double mass, double fire_time, double t) {
  const double s = t - fire_time;
  if (s <= 0) return 0.0;
  return mass * s / (kInflatorTime * kInflatorTime) * std::exp(-s / kInflatorTime);
}

double inflator_delivered(double mass, double fire_time, double t) {
  const double s = (t - fire_time) / kInflatorTime;
  if (s <= 0) return 0.0;
  return mass * (1.0 - (1.0 + s) * std::exp(-s));
}

double orifice_flow(double p, double temperature, double area, double pa) {
  if (p <= pa || area <= 0) return 0.0;
  constexpr double kCd = 0.8, g = Gas::kGamma, r = Gas::kR;
  const double ratio = pa / p;
  const double critical = std::pow(2.0 / (g + 1.0), g / (g - 1.0));
  const double density_term = p / std::sqrt(r * temperature);
  if (ratio <= critical) {  // choked
    return kCd * area * density_term * std::sqrt(g) *
           std::pow(2.0 / (g + 1.0), (g + 1.0) / (2.0 * (g - 1.0)));
  }
  const double psi = std::pow(ratio, 2.0 / g) - std::pow(ratio, (g + 1.0) / g);
  return kCd * area * density_term * std::sqrt(2.0 * g / (g - 1.0) * psi);
}

void Gas::fill(double volume) {
  constexpr double kAirTemperature = 295.0;
  mass = kAmbient * volume / (kR * kAirTemperature);
  energy = mass * cv() * kAirTemperature;
  vented = 0.0;
  injected = 0.0;
}

void Gas::step(double dt, double in, double vent, double volume, double new_volume) {
  const double temp = temperature();
  const double p = pressure(volume);
  const double out = orifice_flow(p, temp, vent, kAmbient);
  const double cp = kGamma * cv();
  mass += dt * (in - out);
  energy += dt * (in * cp * kInflowTemperature - out * cp * temp) - p * (new_volume - volume);
  vented += dt * out;
  injected += dt * in;
}

std::vector<double> cfc_filter(const std::vector<double>& x, double dt, double cfc) {
  if (x.empty()) return x;
  // SAE J211-1: 2-pole Butterworth at the design frequency 2.0775 CFC, run forward and back.
  const double wd = 2.0 * std::numbers::pi * cfc * 2.0775;
  const double wa = std::tan(wd * dt / 2.0);
  const double den = 1.0 + std::sqrt(2.0) * wa + wa * wa;
  const double a0 = wa * wa / den, a1 = 2.0 * a0, a2 = a0;
  const double b1 = -2.0 * (wa * wa - 1.0) / den;
  const double b2 = (-1.0 + std::sqrt(2.0) * wa - wa * wa) / den;
  const size_t pad = static_cast<size_t>(std::ceil(0.02 / dt));
  std::vector<double> y(x.size() + 2 * pad);
  for (size_t k = 0; k < y.size(); ++k) {
    y[k] = k < pad ? x.front() : (k >= pad + x.size() ? x.back() : x[k - pad]);
  }
  auto pass = [&](std::vector<double>& v) {
    double x1 = v[0], x2 = v[0], y1 = v[0], y2 = v[0];
    for (double& value : v) {
      const double out = a0 * value + a1 * x1 + a2 * x2 + b1 * y1 + b2 * y2;
      x2 = x1;
      x1 = value;
      y2 = y1;
      y1 = out;
      value = out;
    }
  };
  pass(y);
  std::reverse(y.begin(), y.end());
  pass(y);
  std::reverse(y.begin(), y.end());
  return {y.begin() + static_cast<long>(pad), y.begin() + static_cast<long>(pad + x.size())};
}

namespace {

// The sample times of a history sampled every dt from 0.
std::vector<double> sample_times(size_t n, double dt) {
  std::vector<double> t(n);
  for (size_t k = 0; k < n; ++k) t[k] = static_cast<double>(k) * dt;
  return t;
}

double plain(double v) {
  return v;
}

}  // namespace

double hic(const std::vector<double>& a, double dt, double window) {
  if (a.size() < 2) return 0.0;
  return sao::expr::injury::hic(a, sample_times(a.size(), dt), window, plain);
}

double level_exceeded(const std::vector<double>& a, double dt, double duration) {
  if (a.empty()) return 0.0;
  return sao::expr::injury::exceeded_level(a, sample_times(a.size(), dt), duration, plain);
}

}  // namespace restraint
