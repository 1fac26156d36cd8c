// The CVODES boundary of the internal simulator: one call integrates an ODE over a grid.
//
// The InternalSimulator (internal_simulator.hpp) turns a model and a design into a
// right-hand side x' = f(t, x) and calls integrate(), which returns the state at every point
// of the load case's TimeGrid. All SUNDIALS handles live inside that call (RAII), each call
// owns its own SUNContext, so integrations run in parallel threads. CVODES return flags
// become a status value here, never an exception. The right-hand side follows the CVODES
// contract: return 0 when fine, > 0 for a recoverable failure (CVODES retries with a smaller
// step), < 0 to stop; an exception thrown by it counts as < 0.
#pragma once

#include <Eigen/Dense>
#include <functional>
#include <memory>
#include <string>

#include "sao/seam/time_grid.hpp"

namespace sao::sim {

enum class Multistep {
  kBdf,    // backward differentiation formulas, orders 1-5: stiff problems
  kAdams,  // Adams-Moulton, orders 1-12: non-stiff problems
};

struct IntegratorSettings {
  Multistep method = Multistep::kBdf;  // both use Newton iterations with a dense solver
  double rtol = 1e-8;                  // relative tolerance (> 0)
  double atol = 1e-10;                 // absolute tolerance, in the units of the state (> 0)
  long max_steps = 100000;             // internal steps allowed between two grid points
  double max_step = 0.0;               // largest internal step; 0: no limit. Set it when an
                                       // input (a road) has features shorter than the steps
                                       // the integrator would take, so it cannot step over them
  // Adjoint method: forward steps between two checkpoints. CVODES keeps the state and its
  // derivative at every step of one interval (2 n values per step, allocated up front) and
  // integrates the forward problem again over every earlier interval during the backward
  // solve: a run of up to this many steps is integrated once, a longer one up to twice.
  long checkpoint_steps = 500;
  // Adjoint method with more than one functional: one shared backward sweep carrying a block of
  // adjoint vectors (true) or one backward solve per functional (false); see adjoint_system.
  bool shared_sweep = true;
};

// f(t, x, xdot): x and xdot hold state_size values; returns 0 ok, > 0 recoverable, < 0 fatal.
using RightHandSide = std::function<int(double t, const double* x, double* xdot)>;

// What one forward integration cost: CVODES's counters (the profile of an analysis).
struct IntegratorStats {
  long steps = 0;            // internal steps
  long rhs = 0;              // right-hand side calls (Newton iterations included)
  long jacobians = 0;        // Jacobian evaluations
  long setups = 0;           // Newton matrix factorisations (linear solver set-ups)
  long newton = 0;           // Newton iterations (each one linear solve)
  long newton_failures = 0;  // steps whose Newton iteration did not converge
  long error_failures = 0;   // steps rejected by the local error test
};

struct IntegrationResult {
  bool ok = false;
  std::string message;     // when !ok: the CVODES flag, the time reached and CVODES's text
  Eigen::MatrixXd states;  // when ok: rows = grid points, cols = state components
  long steps = 0;          // internal steps taken
};

// Integrates from grid.start, where x = x0, to grid.end. Throws std::invalid_argument only
// for a caller's mistake (empty x0, grid with fewer than 2 points or end <= start).
IntegrationResult integrate(const RightHandSide& rhs, const Eigen::VectorXd& x0,
                            const TimeGrid& grid, const IntegratorSettings& settings);

// --- Sensitivities (seed 000; seed 003, 4.3-4.5) -----------------------------------------
//
// A parametrised system x' = f(t, x; p), x(t0) = x0(p), with quadratures q_k = integral of
// g_k(t, x; p) over the grid's span, and the exact Jacobians the model computes (by automatic
// differentiation of its equations, model.hpp):
struct OdeSystem {
  int parameters = 0;   // np
  int quadratures = 0;  // nq
  RightHandSide rhs;
  // g(t, x) -> q' (nq values)
  std::function<void(double t, const double* x, double* qdot)> quadrature;
  // Why `rhs` fails at (t, x), for the error message ("" or absent: no reason given).
  std::function<std::string(double t, const double* x)> diagnose;
  // [df/dx | df/dp] at (t, x): n x (n + np)
  std::function<void(double t, const double* x, Eigen::MatrixXd& jacobian)> jacobian;
  // lambda' [df/dx | df/dp] at (t, x): n + np values, for the adjoint right-hand sides; when
  // absent, lambda' times `jacobian`. A system that forms it without the full Jacobian
  // makes every backward step cheaper.
  std::function<void(double t, const double* x, const double* lambda, Eigen::VectorXd& out)>
      vector_jacobian;
  // The same for the n x m block Lambda of the shared backward sweep, transposed: (n + np) x m;
  // when absent, Lambda' times `jacobian` (formed once per point). A system whose Jacobian costs
  // more than its products (the sparse multibody path, whose dense Jacobian takes a solve per
  // column) keeps the sweep's steps in proportion to the model.
  std::function<void(double t, const double* x, const Eigen::Ref<const Eigen::MatrixXd>& lambda,
                     Eigen::MatrixXd& out)>
      block_vector_jacobian;
  // f_x S + f_p at (t, x) for the n x np matrix S of the sensitivities: the forward
  // sensitivity right-hand sides of every parameter at once (n x np); when absent, from
  // `jacobian`. A system that forms them without the full Jacobian makes every step of the
  // direct method cheaper.
  std::function<void(double t, const double* x, const Eigen::MatrixXd& S, Eigen::MatrixXd& out)>
      sensitivity_rhs;
  // [dg/dx | dg/dp] at (t, x): nq x (n + np)
  std::function<void(double t, const double* x, Eigen::MatrixXd& jacobian)> quadrature_jacobian;
  Eigen::VectorXd x0;
  Eigen::MatrixXd x0_p;   // dx0/dp: n x np
  double max_step = 0.0;  // the model's largest internal step (0: none); the settings' wins
  // The oldest Jacobian (and Newton matrix) CVODES may use, in steps; 0: its defaults (51 and
  // 20 steps, and whenever Newton fails). A model whose stiffness turns with its motion sets 1.
  long jacobian_age = 0;
  // The state's error tolerances at x (one per component, > 0) for the given rtol and atol,
  // when the model needs others than CVODES's rtol |x_i| + atol; absent: those. Beams
  // (multibody) tighten their nodes' so that their elastic deformation is resolved.
  std::function<void(const double* x, double rtol, double atol, double* tolerance)> tolerances;
  // x = (q, v) with q' = v (n even): the Newton matrices are factored through their half-size
  // Schur complement (second_order_solver.hpp) instead of SUNDIALS's dense LU.
  bool second_order = false;
  // The forward problem's Newton matrices I - gamma f_x formed and factored by the system itself
  // (a model whose linearisation is sparse: multibody/augmented_solver.hpp), without the dense
  // f_x; absent: `jacobian` and a dense factorisation. newton_setup(t, x, gamma, relinearize)
  // linearises at (t, x) when `relinearize` (else keeps the last linearisation, as CVODES keeps
  // its Jacobian) and factors: 0 when fine, > 0 singular (CVODES retries with a smaller step).
  // newton_solve(b) overwrites b (n values) with the solution. The direct method's corrector
  // solves with them too. The adjoint's backward problem has its own (newton_b_setup,
  // newton_b_solve): I + gamma f_x' at the forward state x, for `blocks` adjoint vectors (n x
  // blocks values, column after column: the shared sweep's).
  std::function<int(double t, const double* x, double gamma, bool relinearize)> newton_setup;
  std::function<void(double* b)> newton_solve;
  std::function<int(double t, const double* x, double gamma, bool relinearize)> newton_b_setup;
  std::function<void(double* b, int blocks)> newton_b_solve;
};

struct SystemResult {
  bool ok = false;
  std::string message;
  Eigen::MatrixXd states;     // rows = grid points
  Eigen::VectorXd integrals;  // q at the end of the grid
  // Direct differentiation (CVODES forward sensitivities), when asked for:
  std::vector<Eigen::MatrixXd> state_sensitivities;  // per grid point: dx/dp, n x np
  Eigen::MatrixXd integral_sensitivities;            // dq/dp, nq x np
  long steps = 0;
  IntegratorStats stats;  // of the forward integration
};

// f_x S + f_p from [f_x | f_p] (n x (n + np)) for the n x np sensitivities S: the direct
// method's right-hand sides of every parameter at once.
inline void sensitivity_rhs_from_jacobian(const Eigen::MatrixXd& jacobian, const Eigen::MatrixXd& S,
                                          Eigen::MatrixXd& out) {
  out.noalias() = jacobian.leftCols(S.rows()) * S;
  out += jacobian.rightCols(S.cols());
}

// Integrates the system (with its quadratures); with `direct`, also the forward sensitivity
// equations s' = f_x s + f_p and, with `integral_sensitivities`, the quadrature sensitivities,
// under error control. A caller that wants no integral's derivative leaves them out: they
// cost a Jacobian of the integrands per step and, under error control, more steps (the
// impact absorber's comfort study: 915 and 842 steps in its first two cycles with them, 773 and
// 726 without; `sao run ... --log debug`).
SystemResult integrate_system(const OdeSystem& system, const TimeGrid& grid,
                              const IntegratorSettings& settings, bool direct,
                              bool integral_sensitivities = true);

// One response functional for the adjoint method: a function h(x(t_k)) of the state at grid
// point k, given by its gradient h_x there, or the quadrature q_k (integral over the grid).
struct AdjointFunctional {
  int point = -1;                // grid point of a point functional
  Eigen::VectorXd state_weight;  // h_x at that point
  int quadrature = -1;           // or: index of a quadrature
};

namespace detail {
struct CvodesSession;
}

// The forward pass of the adjoint method, kept (integrate_keeping) for a later backward solve
// (adjoint_system): CVODES's memory with its checkpoints, the system its callbacks reach, and
// the forward solution on the grid. Owns all of it; freed with it.
class ForwardPass {
 public:
  ForwardPass();
  ~ForwardPass();
  ForwardPass(const ForwardPass&) = delete;
  ForwardPass& operator=(const ForwardPass&) = delete;

  Eigen::MatrixXd states;                          // on the grid
  Eigen::VectorXd integrals;                       // at the end
  IntegratorStats stats;                           // of the forward pass
  int checkpoints = 0;                             // after the start
  std::unique_ptr<OdeSystem> system;               // the forward pass's callbacks' system
  std::unique_ptr<detail::CvodesSession> session;  // CVODES's memory, its checkpoints
};

struct AdjointResult {
  bool ok = false;
  std::string message;
  // Per functional, d psi/dp through the state: lambda(t0)' x0_p + integral of
  // (lambda' f_p + g_p). The caller adds a point functional's explicit h_p.
  Eigen::MatrixXd gradients;  // functionals x np
  Eigen::MatrixXd states;     // the forward solution on the grid (for h_x, values)
  Eigen::VectorXd integrals;
  int backward_solves = 0;
  long forward_steps = 0;
  IntegratorStats forward_stats;  // of the forward pass
  int checkpoints = 0;            // after the start; > 0: the backward solve integrated the forward
                                  // problem again between them
  bool forward_kept = false;      // the forward pass was an analysis's (integrate_keeping)
  bool shared = false;            // the shared backward sweep ran (backward_solves is 1)
  int sweep_stops = 0;            // its (re-)starts: the distinct times where functionals join
  long backward_steps = 0;        // internal steps of the backward solves (or of the sweep)
};

// The adjoint method with CVODES checkpointing: one forward solve (a checkpoint every
// settings.checkpoint_steps steps, Hermite interpolation between the steps), then the backward
// integration of lambda' = -f_x' lambda (- g_x' for a quadrature) for every functional.
// `functionals` is called with the forward states to get the point functionals' h_x first.
//
// One functional, or settings.shared_sweep false: one backward solve per functional, each from
// its own time to t0. Else the shared backward sweep: ONE backward problem whose state is the
// block of all adjoint vectors (n x functionals), ordered by the time they start; a vector is 0
// until the sweep reaches its functional's grid point, where it is set to h_x and the problem
// re-initialised (CVodeReInitB; one stop per distinct time). Each step evaluates the Jacobian
// [f_x | f_p] once for every vector and factors ONE n x n Newton matrix (block_solver,
// second_order_solver.hpp) for all of them; the forward problem is recomputed between
// checkpoints once, not once per functional. Its error test takes the RMS norm over the joined
// vectors (tolerances scaled by sqrt(joined / all)); the gradients agree with the per-functional
// ones to the integration tolerance (tests/simulators/adjoint_sweep_test.cpp).
//
// With `kept` (a forward pass of an analysis at the same parameters, integrate_keeping) the
// forward pass is not integrated again: its checkpoints serve the backward solve, and
// `system` (the same model and parameters, with the active parameters) takes over its
// callbacks. A kept pass serves one backward solve: it is consumed.
AdjointResult adjoint_system(
    const OdeSystem& system, const TimeGrid& grid, const IntegratorSettings& settings,
    const std::function<std::vector<AdjointFunctional>(const Eigen::MatrixXd& states)>& functionals,
    std::unique_ptr<ForwardPass> kept = nullptr);

// An analysis that keeps its forward pass for an adjoint gradient at the same design next
// (issue 25: the driver analyses a design, screens, then asks for the gradients there). It
// integrates `system` (no sensitivities) as CVODES's adjoint forward pass, with checkpoints:
// the same steps and states as integrate_system, and a few per cent more work (2-5 % on the
// 10-link chain) for the Hermite data. On success the pass (CVODES's memory and `system`,
// moved in) goes to `kept`; on failure `kept` is left empty.
SystemResult integrate_keeping(OdeSystem system, const TimeGrid& grid,
                               const IntegratorSettings& settings,
                               std::unique_ptr<ForwardPass>& kept);

const char* to_string(Multistep method);

}  // namespace sao::sim
