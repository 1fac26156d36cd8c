// The move-limit strategy of seed 003, appendix A (SPEC 3), as a pure function.
//
// Last box of a cycle: after b* is analysed and the errors Ef, Eg and the violation V are
// known, decide whether b* is accepted, whether the run has converged and what the move-limit
// factors m_i of the next cycle are. No state, no I/O: the driver passes this cycle and the
// previous accepted one, and every branch is tested on its own.
#pragma once

#include <Eigen/Dense>
#include <optional>
#include <string>
#include <vector>

#include "sao/study/options.hpp"

namespace sao {

// What happened to one design variable's factor, for reports and tests.
enum class MoveAction {
  kKept,         // no rule applied
  kRejected,     // cycle rejected: m := beta1 m
  kOscillation,  // bdrchg and (Fdrchg or small Fchg): m := beta3 m
  kWorse,        // objective got worse: m := beta4 m
  kEnlarged,     // accurate, on the move limit: m := beta5 m
  kShrunk,       // large error or violation: m := beta4 m
  kConverged,    // run converged: factors unchanged
};
const char* to_string(MoveAction action);

// This cycle, as the strategy sees it. Percentages in percent.
struct CycleFacts {
  double F0 = 0.0;    // F(b0)
  double Fopt = 0.0;  // F(b*), analysed
  double Ef = 0.0;
  double Eg = 0.0;
  double V = 0.0;                       // max violation over all constraints, percent
  double V0 = 0.0;                      // the same at b0 (the trust-region strategy's merit)
  bool approximated = true;             // false: no approximated function, E = 0
  bool relax = false;                   // the subproblem was relaxed
  Eigen::VectorXd delta_b;              // b* - b0, design variables only
  std::vector<bool> move_limit_active;  // per design variable, at b*
  std::vector<bool> bound_active;       // per design variable, at b*
  // Per design variable: b* on a bound that held the step (the step went towards it, or none
  // was taken there). Unlike bound_active, false for a variable that rests on a bound and
  // presses away from it against a move limit narrower than the bound tolerance.
  std::vector<bool> held_by_bound;
};

// The previous accepted cycle (for the direction-change tests and the V-change test).
struct PreviousCycle {
  double dF = 0.0;          // Fopt - F0 of that cycle
  Eigen::VectorXd delta_b;  // its b* - b0
  double V = 0.0;
  int cycle = 0;  // its number (0: unknown)

  // Whether a step of variable i reverses this cycle's step of it (the seed's bdrchg; the
  // trust region uses reversed_steps, which ignores rounding-sized steps).
  bool reversed_by(const Eigen::VectorXd& step, Eigen::Index i) const {
    return step(i) * delta_b(i) < 0.0;
  }
};

struct MoveDecision {
  bool accept = false;
  bool converged = false;
  double Fchg = 0.0;                // |Fopt - F0| / |F0| * 100
  double E = 0.0;                   // max(Ef, Eg), 0 when nothing was approximated
  Eigen::VectorXd factors;          // m for the next cycle
  std::vector<MoveAction> actions;  // per design variable
};

// `options` must already carry the noise-raised percentages (Options::with_noise_applied).
// `factors` are this cycle's m_i. F0 and Fopt are in the internal, minimised sign.
// E = max(Ef, Eg); when !cycle.approximated, Ef, Eg and E all count as 0 (in the convergence
// test too). Fchg is |Fopt - F0| * 100 when |F0| < 1e-300. Without `previous` there is no
// direction change (Fdrchg, bdrchg false) and the convergence test uses V itself.
// Throws std::invalid_argument when cycle.delta_b, cycle.move_limit_active,
// cycle.bound_active or previous->delta_b does not have one entry per factor.
MoveDecision decide_move_limits(const Options& options, const CycleFacts& cycle,
                                const std::optional<PreviousCycle>& previous,
                                const Eigen::VectorXd& factors);

}  // namespace sao
