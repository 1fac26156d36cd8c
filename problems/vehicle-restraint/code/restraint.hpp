// restraint-sled: a small occupant crash code (frontal sled test of a driver with a 3-point
// belt and an airbag), written to behave like the black-box crash codes users wrap with the
// external adapter: it reads a keyword input deck, integrates explicitly with contact events,
// and writes SAE J211-filtered time histories and a log (docs/vehicle-restraint.md).
//
// It does not link the sao library: this header is its own small library (restraint_core),
// linked by its main program and by its unit tests (tests/restraint/).
#pragma once

#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

namespace restraint {

// A deck that cannot be run: the message names the line (0: the deck as a whole).
class DeckError : public std::runtime_error {
 public:
  DeckError(const std::string& message, int line);
  int line() const { return line_; }

 private:
  int line_;
};

// The input deck: the six design quantities and the run controls.
struct Deck {
  std::string title;
  // *CONTROL
  double end_time = 0.15;       // s
  double time_step = 1.0e-5;    // s, explicit integration step
  double output_step = 2.5e-4;  // s, spacing of the written histories
  // *PULSE: a_v = A sin^2(pi t / T), delta_v = A T / 2
  double delta_v = 13.89;   // m/s
  double duration = 0.085;  // s
  // *AIRBAG
  double diameter = 0.6;        // m (b1)
  double vent_diameter = 0.04;  // m (b2)
  double inflator_mass = 0.04;  // kg (b3)
  double fire_time = 0.012;     // s
  int face_nodes = 21;          // nodes across the bag face (the contact mesh)
  // *BELT
  double webbing_strain = 0.09;   // strain at 10 kN (b4)
  double pretensioner = 0.05;     // m of webbing pulled in at most (b5)
  double load_limiter = 4.0;      // kN, retractor-side force of the load limiter (b6)
  double lock_stiffness = 2.4e6;  // N/m of webbing, the pawl's hold on the spool (Retractor)
};

// Reads a deck (keywords *TITLE, *CONTROL, *PULSE, *AIRBAG, *BELT, *END; `name value` lines;
// `$` comments); throws DeckError for anything it does not understand or cannot run.
Deck read_deck(std::istream& in);
// Checks the values (ranges, consistency); throws DeckError.
void check_deck(const Deck& deck);

// --- the parts, each testable on its own ----------------------------------------------------

// The sled deceleration [m/s^2] at time t (positive: the vehicle slows down).
double pulse_deceleration(const Deck& deck, double t);

// Seat belt webbing: tension [N] of a belt stretched by `strain` (0 when slack).
double webbing_tension(double strain, double strain_at_10kN);

// The retractor: vehicle-sensitive lock at t = 0, pretensioner from 10 ms, load limiter, and
// the ratchet that locks the spool on a tooth. The spool is a mass of its own (its inertia at
// the webbing radius): when the pretensioner stops, the belt pulls it back freely until the pawl
// meets the ratchet tooth behind it, and the pawl stops it through a stiff contact (the pawl,
// the tooth and the torsion bar's elastic twist, with damping). The torsion bar (the load
// limiter) yields when that contact force exceeds its limit: the anchor of the contact moves
// out and never winds back. `payout` > 0 is webbing given out. The spool's mass: J = 4.8e-5
// kg m^2 (core, torsion bar and wound webbing) at a 20 mm webbing radius; the contact's
// stiffness: the torsion bar's elastic twist in series with the much stiffer pawl and tooth
// (a 10 mm steel bar 80 mm long, 973 N m/rad: 2.43e6 N/m at the 20 mm webbing radius of the
// spool's mass; with pawl and tooth 2.4e6, the deck's default `lock_stiffness`, the reasoning
// in docs/vehicle-restraint.md).
struct Retractor {
  static constexpr double kFireTime = 0.010;    // s
  static constexpr double kPullSpeed = 8.0;     // m/s of webbing
  static constexpr double kStopForce = 2500.0;  // N
  static constexpr double kTooth = 0.004;       // m of webbing per ratchet tooth
  static constexpr double kDringFactor = 1.2;   // occupant-side / retractor-side tension
  static constexpr double kSpoolMass = 0.12;    // kg, the spool's inertia at the webbing
  static constexpr double kLockDamping = 0.1;   // of critical (spool mass on that stiffness)
  enum class State { kLocked, kPulling, kLimited };
  State state = State::kLocked;
  double payout = 0.0;  // m, the spool's position (webbing out)
  double speed = 0.0;   // m/s, the spool's payout rate
  double anchor = 0.0;  // m, where the pawl holds the unloaded spool: the tooth plus the yield
  bool fired = false;
  double pull_in = 0.05;                          // m, the pretensioner's stroke (b5)
  double limit_force = 4000.0;                    // N, retractor side (b6)
  double lock_stiffness = Deck{}.lock_stiffness;  // N/m of webbing: torsion bar, pawl, tooth
  double stop_payout = 0.0;  // m, where the pretensioner stopped (0: it has not)
  double lock_speed = 0.0;   // m/s, the spool's speed when the pawl met the tooth
  double lock_time = -1.0;   // s, when the pawl met the tooth after the pretensioner (-1: not)

  // Occupant-side tension cap of the load limiter [N] (quasi-static: the spool's inertia lets
  // the tension pass it while the spool is accelerated).
  double cap() const { return limit_force * kDringFactor; }
  // The pawl's contact force on the spool [N] (retractor side), before the torsion bar yields.
  double lock_force() const;
  // Advances by dt at time t with the belt path length `length` [m], its unloaded length
  // `free_length` (without payout) and the webbing law; returns the occupant-side tension.
  double step(double t, double dt, double length, double free_length, double strain_at_10kN);
};

// Inflator mass flow [kg/s] at time t and the mass delivered by then [kg]: a gamma-shaped tank
// curve of total `mass` fired at `fire_time`.
double inflator_flow(double mass, double fire_time, double t);
double inflator_delivered(double mass, double fire_time, double t);

// Isentropic orifice: mass flow [kg/s] of gas at pressure p [Pa], temperature T [K] through
// area A [m^2] into ambient pressure pa (0 when p <= pa).
double orifice_flow(double p, double temperature, double area, double pa);

// The airbag's gas: a control volume with the inflator's mass and enthalpy in, the vent's out.
struct Gas {
  static constexpr double kR = 296.0;  // J/(kg K), nitrogen-like
  static constexpr double kGamma = 1.4;
  static constexpr double kAmbient = 101325.0;         // Pa
  static constexpr double kInflowTemperature = 700.0;  // K
  double mass = 0.0;                                   // kg
  double energy = 0.0;                                 // J, internal energy
  double vented = 0.0;                                 // kg, total out of the vent
  double injected = 0.0;                               // kg, total in from the inflator
  double cv() const { return kR / (kGamma - 1.0); }
  double temperature() const { return energy / (mass * cv()); }
  double pressure(double volume) const { return mass * kR * temperature() / volume; }
  // Fills the volume with ambient air at 295 K.
  void fill(double volume);
  // Advances by dt: `in` kg/s from the inflator, the vent of area `vent`, volume change dV.
  void step(double dt, double in, double vent, double volume, double new_volume);
};

// SAE J211 channel frequency class filter (4-pole phaseless Butterworth: a 2-pole filter run
// forward and backward) of a signal sampled every dt.
std::vector<double> cfc_filter(const std::vector<double>& x, double dt, double cfc);

// Injury criteria on a uniformly sampled history (the log's summary): the expression engine's
// hic() and clip3ms() (sao/expr/injury.hpp, header-only: included, the sao library not linked),
// so the log and the studies compute them alike.
double hic(const std::vector<double>& a, double dt, double window);
double level_exceeded(const std::vector<double>& a, double dt, double duration);

// --- the simulation --------------------------------------------------------------------------

struct Histories {
  std::vector<double> time;        // s, at the output step
  std::vector<double> head_acc;    // g, resultant, CFC 1000
  std::vector<double> chest_acc;   // g, resultant (spine), CFC 180
  std::vector<double> chest_defl;  // mm, CFC 180
  std::vector<double> belt_force;  // kN, shoulder belt occupant side, CFC 60
  std::vector<double> head_hub;    // mm, head to steering-wheel hub, CFC 180
  // Summary for the log
  int steps = 0;
  int contact_changes = 0;  // face nodes entering or leaving contact
  int folds_opened = 0;
  double pretension_pulled = 0.0;  // m
  double limiter_payout = 0.0;     // m
  // The spool's lock after the pretensioner: free travel back to the tooth [m], the speed at
  // which the pawl met it [m/s] and when [s] (0, 0, -1 without a pretensioner).
  double lock_travel = 0.0, lock_speed = 0.0, lock_time = -1.0;
  double gas_initial = 0.0, gas_injected = 0.0, gas_vented = 0.0, gas_final = 0.0;  // kg
  double peak_pressure = 0.0;                                                       // Pa, gauge
};

// Runs the sled test; throws std::runtime_error when the solution diverges.
Histories simulate(const Deck& deck);

// Writes the column file (header line of names, one row per output time) and the log.
void write_histories(std::ostream& out, const Histories& h);
void write_log(std::ostream& out, const Deck& deck, const Histories& h, double seconds);

}  // namespace restraint
