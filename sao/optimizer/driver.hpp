// The SAO driver: owns the cycle loop of SPEC 2 (the big box of ARCHITECTURE.md).
//
// Each cycle: analyse b0 (cached by design), screen the constraints and time points,
// request the sensitivities the retained rows and the objective need, build the linear
// approximation and the subproblem inside the move limits, solve it (relaxed if needed),
// analyse b*, compute Ef, Eg, V, and let the move-limit strategy accept, converge or shrink.
// A rejected cycle repeats from b0 with its analysis and sensitivities.
//
// The study is immutable; the settings the driver follows are its own Options, given at
// construction and replaceable between cycles (set_options: `sao set`, `--max-cycles`).
// step() runs one cycle (for interactive, cycle-by-cycle use); run() loops it. Run-time
// failures never throw out of step()/run(): they end in the summary with status `failed`.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sao/optimizer/approximation.hpp"
#include "sao/optimizer/approximation_forms.hpp"
#include "sao/optimizer/best_design.hpp"
#include "sao/optimizer/lagrangian_curvature.hpp"
#include "sao/optimizer/move_limit_strategy.hpp"
#include "sao/optimizer/move_limits.hpp"
#include "sao/optimizer/optimality.hpp"
#include "sao/optimizer/subproblem.hpp"
#include "sao/seam/analysis_store.hpp"
#include "sao/seam/simulator.hpp"
#include "sao/study/study.hpp"

namespace sao {

class MetamodelResponses;  // metamodel_responses.hpp

// One cycle, with everything the seed's history tables show.
struct CycleRecord {
  int cycle = 0;  // 1-based; every cycle counts, rejected ones included
  bool accepted = false;
  bool converged = false;
  bool relaxed = false;
  std::string subproblem;  // optimal | relaxed | failed
  int active_move_limits = 0;
  int retained_constraints = 0;                 // constraints with at least one retained point
  int retained_rows = 0;                        // retained (constraint, time point) rows
  Eigen::VectorXd x0;                           // cycle start (design + auxiliaries)
  Eigen::VectorXd x_opt;                        // proposed optimum b*
  double F0 = 0.0;                              // F(b0), as the user sees it
  double F_opt = 0.0;                           // F(b*), analysed
  double F_approx = 0.0;                        // F~(b*)
  double Ef = 0.0, Eg = 0.0, E = 0.0, V = 0.0;  // percent
  double Fchg = 0.0;                            // percent
  Eigen::VectorXd factors;                      // move-limit factors used in this cycle
  Eigen::VectorXd next_factors;                 // after the strategy
  std::vector<MoveAction> actions;
  int analyses = 0;              // designs analysed so far
  int fit_points = 0;            // multi-point: designs in the fit (b0 + plan points + re-used)
  double noise_estimate = -1.0;  // multi-point: noise from the fit's residuals, %; < 0: none
  std::string message;           // anything unusual in this cycle
  double kkt_residual = -1.0;    // first-order residual at b0 (optimality.hpp); < 0: none
  double ratio = 0.0;            // trust region: actual / predicted merit improvement
  // How the simulator computed this cycle's sensitivities (Evaluation's cases, one per load
  // case where they differ: "steady: direct (auto)"); "" without sensitivities or not said.
  std::string gradient_method;
  // How well the approximation predicted the analysis at b*: per retained constraint part, at
  // its retained point of the largest computed g_hat, g_hat in percent (0: on the bound).
  struct Prediction {
    std::string constraint;  // the part's name
    int point = 0;
    double predicted = 0.0, computed = 0.0;
  };
  std::vector<Prediction> predictions;
};

// The key of the driver's analyses: the design variables of x (auxiliaries left out), bit for bit.
std::vector<double> design_key(const Study& study, const Eigen::VectorXd& x);

// What became of a cycle, in one word: "converged" (the run ends with it), "accepted",
// "rejected", or "failed" (nothing was proposed or analysable). Every output that shows a cycle
// (the cycle table, the report, the workbench, `sao step`) says it with this word or its first
// letter.
const char* cycle_outcome(const CycleRecord& r);

// The design the cycle after `last` starts from: its proposal when accepted, else its start.
Eigen::VectorXd design_after(const CycleRecord& last);

// kStalled: the run cannot go on usefully (move limits collapsed, or no predicted
// improvement) at a design that does not satisfy the first-order conditions.
enum class RunStatus { kRunning, kConverged, kCycleLimit, kInfeasible, kFailed, kStalled };
const char* to_string(RunStatus status);

// "" when the analysis e of x (design and auxiliary variables) has finite responses, objective
// and constraints, else which one is NaN or infinite first: the driver takes such an analysis
// as failed (a NaN compares false with every bound), and `sao evaluate` says so too.
std::string unusable_analysis(const Study& study, const Eigen::VectorXd& x, const Evaluation& e);

// Whether a gradient method (a load case's, or a cycle record's list of them) names forward
// differences (kForwardDifferences, with or without words after it).
bool by_forward_differences(const std::string& method);
// The order of the finite differences a gradient method names (forward, central, five-point);
// nullopt for any other method (analytic, provided, none).
std::optional<DifferenceOrder> differences_of(const std::string& method);
// True when e has gradients (of differences of at least `order`, if differences) of every value
// `wanted` asks for.
bool covers(const Study& study, const Evaluation& e, const std::vector<DerivativeRequest>& wanted,
            DifferenceOrder order);

// The first-order optimality measured last (optimality.hpp), as result.json reports it.
struct FinalOptimality {
  bool computed = false;
  double residual = 0.0;
  double tolerance = 0.0;
  int cycle = 0;                 // measured at the start design of this cycle
  bool at_final_design = false;  // that design is the final one
  struct Active {
    std::string name;         // constraint name
    int point = 0;            // time point
    double g_hat = 0.0;       // normalised value there
    double multiplier = 0.0;  // lambda (units of F per unit of g_hat)
  };
  std::vector<Active> constraints;
  std::vector<std::string> at_lower, at_upper;  // variables on a bound
  std::vector<std::string> on_move_limit;       // design variables on a move limit (last b*)
};

struct RunSummary {
  RunStatus status = RunStatus::kRunning;
  std::string message;
  Eigen::VectorXd x;           // final design (design + auxiliaries)
  double objective = 0.0;      // F at x (user sign)
  double max_violation = 0.0;  // V at x, percent
  int cycles = 0;
  int analyses = 0;              // designs analysed (each once; cache hits not counted)
  int sensitivity_analyses = 0;  // gradient evaluations
  int simulator_runs = 0;        // every simulator execution, perturbations included
  int reused_analyses = 0;       // analyses (values or sensitivities) taken from the store
  double simulator_seconds = 0.0;
  // At the start design, with the bound formulation's auxiliaries at the maxima they bound (the
  // real objective, not the auxiliary's initial guess); meaningful only when start_analysed.
  double start_objective = 0.0;
  double start_violation = 0.0;
  bool start_analysed = false;  // false: the run ended before its start design was analysed
  // Sets the three above from the analysis `exact` of the start design x0 (at_bounded_maxima),
  // and the constraints' scales (note_scales).
  void set_start(const Study& study, const Eigen::VectorXd& x0, const ResponseModel& exact);
  // The `scale` each of the study's constraints is measured with (constraint_normaliser): the
  // study's, or, with the trust region, the size the run gave a zero bound at its start (its
  // value, terms or gradient there: docs/study-format.md). V, `vioacc` and the report's
  // `normalised` figures are in these units (report/evaluate.hpp's as_measured).
  std::vector<double> constraint_scales;
  void note_scales(const Study& study);
  std::vector<CycleRecord> history;
  FinalOptimality optimality;
  // Discrete variables with a strategy that optimises them as continuous ones: the run's
  // design rounded to allowed values at its end (docs/study-format.md, "Discrete variables").
  struct Rounding {
    bool done = false;                  // x, objective, max_violation are the rounded design's
    Eigen::VectorXd continuous;         // the design the run reached before rounding
    double continuous_objective = 0.0;  // its F (user sign) and V (percent)
    double continuous_violation = 0.0;
    int candidates = 0;     // allowed designs analysed (the combinations of the neighbours)
    int failed = 0;         // of them, analyses that failed
    bool feasible = false;  // the reported one satisfies the constraints (V <= vioacc)
  } rounding;
  // Constraints with a reliability target (docs/robustness.md, "Reliability-based design"): the
  // margin each was held with in the last cycle that measured it (reliability_margins.hpp).
  struct Margin {
    std::string constraint;    // the constraint part's name
    double k = 0.0;            // the target in standard deviations
    double probability = 0.0;  // the target probability of violation, when given as one
    int point = 0;             // the point whose standard deviation set the margin
    double sd = 0.0;           // that standard deviation (first order), constraint units
    double margin = 0.0;       // k sd
    int cycle = 0;             // measured at the start of this cycle
  };
  std::vector<Margin> reliability;
};

// A second proposal of a cycle (b*'s second-order correction or its extension), analysed and
// judged (Driver::judge_second).
struct SecondProposal {
  Eigen::VectorXd x;  // as analysed (auxiliaries repaired)
  const Evaluation* analysis = nullptr;
  CycleFacts facts;
  StepJudgement judgement;
  double F_approx = 0.0;
};

class Driver {
 public:
  // The study and the simulator must outlive the driver. `options` are the settings to follow
  // (usually study.options, with --max-cycles applied); the noise is applied here.
  Driver(const Study& study, Simulator& simulator, const Options& options);
  ~Driver();

  // Runs one cycle; returns its record. Call only while !finished().
  const CycleRecord& step();
  bool finished() const { return summary_.status != RunStatus::kRunning; }
  // Runs cycles until converged, failed or the cycle limit; calls on_cycle after each.
  const RunSummary& run(const std::function<void(const CycleRecord&)>& on_cycle = {});
  const RunSummary& summary() const { return summary_; }

  // --- study store and interactive use (store.hpp, `sao step/set/restart`) ---
  // Analyses are looked up in `store` before the simulator runs, and saved to it as they
  // arrive. The store must outlive the driver; nullptr: in-memory caches only.
  void set_store(AnalysisStore* store) { store_ = store; }
  // Replaces the settings for the next cycles (as given to the constructor). Reopens a run that
  // ended on the cycle limit when the new limit allows more cycles.
  void set_options(const Options& options);
  // Whether set_options(options) reopens the run: it ended on the cycle limit (or infeasible at
  // it) and `options` allow more cycles.
  bool reopened_by(const Options& options) const;
  const Options& options() const { return options_; }
  // Move-limit factors for the next cycle (size n_design).
  void set_move_factors(const Eigen::VectorXd& factors);
  // The factors of the next cycle (before the run starts: those set, else empty).
  const Eigen::VectorXd& move_factors() const { return started_ ? factors_ : pending_factors_; }
  // The design variables' bounds (and initial values, used before the first cycle only) for
  // the next cycles (`sao set design_variables.b1.upper=..`); the caller keeps the current
  // design inside them.
  void set_design_bounds(const std::vector<DesignVariable>& design);
  // The constraints' bounds (`sao set constraints.NAME.upper=..`): `constraints` are the
  // study's with other numeric bounds (same constraints, same order). A constraint normalised by
  // its bound is normalised by the new one from the next cycle on.
  void set_constraint_bounds(const std::vector<Constraint>& constraints);
  // A run that has ended (converged, stalled, cycle limit, ...) goes on: the next step() runs a
  // cycle from the current design (the last accepted one) with the factors the strategy chose
  // last, keeping everything the run has learnt. For a branch that continues its parent after
  // the cycle the parent ended with (`sao restart --from-cycle K`). std::logic_error for a run
  // that ended before its first cycle.
  void reopen();
  // The design variables of the design the next cycle starts from: the current cycle start once
  // the run has started, else the study's initial design.
  Eigen::VectorXd next_start() const;
  // Starts from x0 (design + auxiliaries) with the given factors instead of the study's
  // initial values, numbering cycles from first_cycle (a branch restarted after a cycle);
  // `previous` is the last accepted cycle before it, for the oscillation tests.
  // Call before the first step().
  void start_at(const Eigen::VectorXd& x0, const Eigen::VectorXd& factors, int first_cycle,
                const std::optional<PreviousCycle>& previous = std::nullopt);
  // The design (design + auxiliaries) a run ending now with `status` reports: the last
  // accepted one, or the best feasible design analysed where the rule of best_design.hpp
  // applies (what summary().x holds once the run has ended with that status). For a run
  // reopened by a higher cycle limit, reported_design(kCycleLimit) is what it had reported.
  Eigen::VectorXd reported_design(RunStatus status) const;

 private:
  // Analyses a design (design part of x), with derivatives when asked; cached by design.
  // Analyses several designs in one simulator batch; nullptr where an analysis failed.
  std::vector<const Evaluation*> analyse_batch(const std::vector<Eigen::VectorXd>& xs,
                                               const std::vector<DerivativeRequest>& derivatives);
  const Evaluation* analyse(const Eigen::VectorXd& x,
                            const std::vector<DerivativeRequest>& derivatives);
  void start();
  void analyse_start();  // analyses x0_ and fills the start values of the summary
  // Takes the analysis of x from the store into the caches; false when none applies.
  bool reuse_stored(const std::vector<double>& key, const Eigen::VectorXd& x,
                    const std::vector<DerivativeRequest>& derivatives);
  void finish(RunStatus status, const std::string& message);
  // A run ended without convergence (cycle limit, infeasible, stalled): reports the best
  // feasible design analysed instead of the last accepted one where that is better or the
  // last is infeasible (best_design.hpp), with the status and message saying so.
  void report_best_analysed();
  // Discrete variables (driver_discrete.cpp): the reported design rounded to allowed values,
  // each combination of the neighbours analysed (at most 8, else the nearest alone), the best
  // feasible one reported (else the least violation), and the message saying so.
  void round_to_allowed();
  // Reliability targets (driver_reliability.cpp): measures each target's margin at b0 from the
  // cycle's approximation and holds the constraint with it in this cycle (study_'s
  // Constraint::margin); records them in summary_.reliability. "" or why it failed.
  std::string set_reliability_margins(const ApproximateProblem& problem, const CycleRecord& rec);
  // The run's message says which margins the reliability targets were held with.
  void note_reliability();
  // Whether a run ending with `status` reports the best feasible design analysed where that
  // beats the last accepted one (cycle limit, infeasible, stalled; converged multi-point).
  bool reports_best_analysed(RunStatus status) const;
  // That design, when it beats the last accepted one (feasible, or a lower objective).
  std::optional<AnalysedDesign> better_than_last_accepted() const;
  // Where the design of `key` was analysed first, in words ("a plan point of cycle 4").
  std::string where_analysed(const std::vector<double>& key) const;
  // Multi-point: analyses the plan points of this cycle (one batch) and fits the responses
  // over them (and, for least squares, earlier analyses near the subregion).
  bool fit_plan_points(ApproximateProblem& problem, const Evaluation& e0, CycleRecord& rec,
                       Evaluation& fitted, std::string& failure);
  // The metamodel strategy (driver_metamodel.cpp, metamodel_strategy.hpp).
  bool metamodel_strategy() const;
  // The analysed designs inside [lower, upper] (design variables): rows of points, and theirs.
  void metamodel_fit_set(const Eigen::VectorXd& lower, const Eigen::VectorXd& upper,
                         Eigen::MatrixXd& points, std::vector<const Evaluation*>& analyses) const;
  // Adds the cycle's plan points, fits the metamodel of the `wanted` values over the analyses in
  // and near the region and sets it as problem.model, with every analysed design in the region
  // as a start of the subproblem's search. False with `failure` when the fit failed.
  bool fit_metamodel(ApproximateProblem& problem, const std::vector<DerivativeRequest>& wanted,
                     CycleRecord& rec, std::string& failure);
  // infill "expected_improvement": the proposal of the largest constrained expected improvement
  // in the region (infill.hpp), as a subproblem result (objective: the metamodel's F~ there).
  SubproblemResult propose_by_infill(const ApproximateProblem& problem, CycleRecord& rec);
  // Discrete variables: the allowed design the metamodel strategy analyses instead of the
  // continuous proposal x_opt. With the optimum as infill, the subproblem solved again with the
  // discrete variables fixed at each combination of their allowed neighbours (at most 16, else
  // at the nearest allowed design alone: allowed_neighbours), the others (auxiliaries included)
  // following, the best on the metamodel taken; with expected improvement,
  // best_allowed_neighbour (discrete.hpp).
  Eigen::VectorXd allowed_proposal(const ApproximateProblem& problem, const Eigen::VectorXd& x_opt);
  // The steps of one cycle (step()), in order.
  // Screening at b0 and the subregion; `derivatives`: the sensitivities the rows need.
  ApproximateProblem screened_problem(const ExactResponses& exact0, CycleRecord& rec,
                                      std::vector<DerivativeRequest>& derivatives) const;
  // Sets problem.model: exact0 when nothing is approximated, else the cycle's Approximation
  // (approximation_forms.hpp) from the sensitivities at b0 or (multi-point) the fit. False with
  // `failure` when that failed.
  // `secant`: the gradients may be the last approximation's, updated (secant_start).
  bool approximate(ApproximateProblem& problem, const Evaluation& e0, const ExactResponses& exact0,
                   const std::vector<DerivativeRequest>& derivatives, CycleRecord& rec,
                   std::unique_ptr<Approximation>& approximation, Evaluation& fitted,
                   std::string& failure, bool secant);
  // After the approximation at b0: constraints the start left unsized sized by its gradients,
  // and reliability targets' margins measured at b0 (they hold in this cycle's subproblem and
  // in the judgement of its proposal). False with `failure` when the margins failed.
  bool size_and_margin(ApproximateProblem& problem, bool approximated, CycleRecord& rec,
                       std::string& failure);
  // Secant cycles (settings' secant_cycles): true when this cycle's gradients at b0 may be taken
  // from the last cycle's approximation instead of a sensitivity analysis: the trust region,
  // gradients that cost analyses, the last cycle's proposal (now b0) accepted on a move limit
  // with a ratio near 1, scalar responses only, the last approximation carrying every value
  // asked for, and fewer secant cycles in a row than the setting allows.
  bool secant_start(const std::vector<DerivativeRequest>& derivatives) const;
  // The analysis e0 of b0 with gradients: the last approximation's at b0, each corrected along
  // the step (in the variables scaled by their sizes) by twice the approximation's error at b0.
  Evaluation secant_evaluation(const Evaluation& e0,
                               const std::vector<DerivativeRequest>& derivatives) const;
  // Keeps the cycle's approximation (and the secant evaluation it refers to) for the next.
  void keep_approximation(std::unique_ptr<Approximation> approximation,
                          std::unique_ptr<Evaluation> owned);
  // What measure_optimality keeps from b0 to b0 (besides the record): a copy of it lets a b0
  // be measured again (a secant cycle's, with the analysis' gradients).
  struct MeritState {
    // ||s (.) dF/dx||_inf at the first feasible b0 (until one, at the first measured b0; taken
    // again after one poorly predicted step took |F| down 1e9-fold): the reference of the
    // residual's floor (optimality.hpp, measure_optimality).
    double gradient_reference = 0.0;
    bool reference_feasible = false;  // gradient_reference was taken at a feasible b0
    double start_reference = 0.0;     // ||s (.) dF/dx||_inf at the first measured b0
    double last_slope = 0.0;          // ||s (.) dF/dx||_inf at the last measured b0
    double merit_scale = 0.0;  // D against start_reference: the penalty's floor, curvature's cap
    // mu of the merit function (trust_region.hpp): raised by measure_optimality at each b0
    // whatever the strategy, so that a run switched to the trust region keeps it; taken anew at
    // the first feasible b0 (penalty_feasible from then on).
    double penalty = 0.0;
    bool penalty_feasible = false;
  };
  // The residual measured at b0 is within reach of convergence (kSecantConfirm).
  bool near_first_order() const;
  // Move limits and bounds active at b* (counted in rec.active_move_limits).
  CycleFacts active_limits(const ApproximateProblem& problem, const Eigen::VectorXd& x_opt,
                           CycleRecord& rec) const;
  // Analyses b*, measures Ef, Eg, V and applies the move-limit strategy's judgement (accept,
  // converge, resize); a failed analysis rejects the cycle. Where the strategy converges on the
  // prediction alone (converged_on_prediction), b* is not analysed: the cycle converges at b0.
  // F_approx: the objective's approximation at b* (without the Lagrangian's curvature term).
  void judge(const ApproximateProblem& problem, const SubproblemResult& sub, double F_approx,
             Eigen::VectorXd& x_opt, CycleFacts& facts, CycleRecord& rec);
  // A second-order correction (trust region, local approximations, settings'
  // second_order_correction; Fletcher's, in the approximations' terms): when the strategy
  // rejected a proposal b* that violates the constraints by more than a tenth of vioacc, a row
  // the subproblem carried among them, and every retained row is a scalar constraint's, the
  // subproblem is solved again in the same subregion with each row's approximation shifted by
  // its error at b* (value moved onto the analysis, gradient and curvature kept), and its
  // proposal analysed (one more analysis, no gradients) and judged against the predicted
  // improvement of the step it corrects (Nocedal & Wright, 18.3). A step along a curved active
  // constraint violates it by its second-order change, which the approximation at b0 cannot see;
  // the merit then rejects a step whose objective gain was right (the Maratos effect), and the
  // region shrinks each time it grows (the spring: 100 cycles at a region of 1e-3). True, with
  // x_opt, e_opt, facts, rec and j those of the corrected proposal, when the strategy accepted it;
  // else everything is left as it was.
  bool correct_step(const ApproximateProblem& problem, Eigen::VectorXd& x_opt,
                    const Evaluation*& e_opt, CycleFacts& facts, CycleRecord& rec,
                    StepJudgement& j);
  // Internal doubling (Dennis & Schnabel, 6.4.2; settings' extend_steps): when the strategy
  // accepted b* with its actual improvement within 10 % of the predicted one and enlarged the
  // move limits that held it, the same approximations (no new gradients) are solved again in the
  // enlarged subregion around the same b0, and that proposal analysed (one more analysis) and
  // judged from b0. It replaces b* when accepted with a larger actual improvement, and the doubling
  // goes on (at most extend_steps times) while each try is held by a move limit and predicted well;
  // the first try that fails leaves the last good proposal as the cycle's b*. A step held by
  // a move limit of 0.2 of a range that the approximation predicts right would otherwise cost
  // a cycle (gradients included) per doubling. Tried only where a cycle's gradients cost at
  // least kExtensionCost analyses (finite differences in that many variables): with cheaper
  // gradients a try costs about what a cycle does. Returns the number of extensions kept.
  int extend_step(const ApproximateProblem& problem, const SubproblemResult& sub,
                  Eigen::VectorXd& x_opt, const Evaluation*& e_opt, CycleFacts& facts,
                  CycleRecord& rec, StepJudgement& j);
  // `x`, found by `sub` in `problem`'s subregion (set from `factors`), analysed and judged from
  // b0 like b* (`first`: b*'s facts, whose F0 and V0 it shares). False when its analysis failed
  // (rec then as it was, its analyses counted: restore_record); else rec holds its analysis.
  bool judge_second(const ApproximateProblem& problem, const SubproblemResult& sub,
                    const Eigen::VectorXd& x, double F_approx, const Eigen::VectorXd& factors,
                    const CycleFacts& first, CycleRecord& rec, SecondProposal& out,
                    const std::optional<StepPrediction>& judged_against = std::nullopt);
  // A nonlinear subproblem whose local solver stayed at b0 although b0 is not a first-order
  // point (its residual above kkt_tolerance: a stationary point of the approximate problem that
  // is not its minimum, or the solver's stop) is solved again with a further start: b0 moved
  // along the approximate objective's steepest descent, scaled by the subregion's half-widths,
  // halfway to the subregion's edge. `sub` is replaced when that found a proposal.
  void retry_from_descent(ApproximateProblem& problem, SubproblemResult& sub) const;
  // With the trust region and gradients: learns the Lagrangian's curvature the approximations
  // miss from the pair (previous b0, b0) and sets it on the cycle's problem; `rows`: the rows'
  // values and gradients at b0 (measure_optimality's).
  void learn_lagrangian_curvature(ApproximateProblem& problem, const RowsAtStart& rows);
  // First-order optimality at b0 from the cycle's gradients (the approximation is exact in
  // value and gradient there); updates the penalty of the merit function. Returns the rows'
  // values and gradients at b0 it used.
  RowsAtStart measure_optimality(const ApproximateProblem& problem, double V0, CycleRecord& rec);
  // When the strategy converges at b0 (the trust region: b0 feasible, its residual below
  // kkt_tolerance), fills `rec` as the converged cycle (no proposal, no analysis); true then.
  bool converged_at_b0(double V0, CycleRecord& rec);
  // Fills `rec` as a cycle converged at b0 (b* = b0, nothing analysed), with `message`.
  void converge_at_b0(double V0, const std::string& message, CycleRecord& rec);
  // Records the finished cycle and ends the run if it is done; returns the stored record.
  const CycleRecord& close_cycle(const CycleRecord& rec);
  // After a judged proposal, either strategy: a rejected one's violated (constraint, time
  // point) rows are kept by the screening of the cycles from the same b0; an accepted one
  // clears the rows of histories (with the seed's strategy, all), while a scalar constraint
  // stays retained for the rest of a trust-region run.
  void remember_rejection(bool accepted, const Eigen::VectorXd& x_opt, const Evaluation& e_opt);
  // Analyses b* and fills F_opt, Ef, Eg, V of the record and facts; null when it failed
  // (the cycle is then rejected and the factors shrunk).
  const Evaluation* analyse_proposal(const ApproximateProblem& problem, double F_approx,
                                     Eigen::VectorXd& x_opt, CycleFacts& facts, CycleRecord& rec);
  // --log debug: the subproblem's solver, status, active rows and step; a proposal equal to
  // b0 is logged as a warning with the subproblem's status, and noted in the record.
  void log_subproblem(const ApproximateProblem& problem, const SubproblemResult& sub,
                      const Eigen::VectorXd& x_opt, CycleRecord& rec) const;
  // Why the run stopped where it did, in words: residual, active constraints and limits.
  std::string describe_optimality() const;
  // Every move limit below min_move_limit (not with the seed strategy, which has no floor).
  bool stalled() const { return strategy_->stalled(noisy_, factors_); }
  // A stall while the run's latest gradients are forward or central differences
  // (central_differences_on_stall): from the next cycle on they are taken by differences of the
  // next order (forward to central, central to five-point), and the move limits go back to
  // those of the last accepted cycle. False when the setting is off, the run already raised
  // the order past its latest gradients', those are not such differences, or the strategy is
  // not the trust region's with sensitivities.
  bool raise_difference_order(const CycleRecord& rec);
  // The order of the run's latest finite differences (rec's, or an earlier cycle's gradients)
  // when the run may still raise it: the trust region with sensitivities, and the order not
  // raised past them yet; nullopt otherwise.
  std::optional<DifferenceOrder> raisable_differences(const CycleRecord& rec) const;
  // From the cycle after `cycle` on, the run's gradients are differences of at least `order`;
  // `reason` for its end message (difference_words). Shared by the switches.
  void begin_differences(int cycle, DifferenceOrder order, std::string reason);
  // A cycle that converged (at b0, or with no design of the subregion better than b0) with
  // forward-difference gradients (central_differences_to_confirm): where the improvement their
  // error may hide (difference_error.hpp) exceeds kkt_tolerance D, rec is not converged and the
  // run goes on from b0 with central differences (its move limits as they are).
  void doubt_convergence(const ApproximateProblem& problem, CycleRecord& rec);
  // A cycle from a feasible b0 (V0 within vioacc) whose subproblem was not relaxed and that did
  // not converge, with forward-difference gradients, after which every move limit is within
  // kSmallRegion of its range (central_differences_to_confirm): where the
  // improvement their error may hide exceeds both kkt_tolerance D and the objective's gain its
  // subproblem predicted (`predicted`, F0 - F~(b*)), the gradients, not the region, hold the run
  // back (a crawl: HS 46 at step 1e-3 ran to the cycle limit), and it goes on with central
  // differences (its move limits as they are).
  void doubt_progress(const ApproximateProblem& problem, double predicted, double V0,
                      CycleRecord& rec);
  // What both doubts weigh: the forward differences' relative step at the cycle's b0, the
  // improvement their error may hide there (difference_error.hpp) and kkt_tolerance D; nullopt
  // when the setting is off or the cycle's gradients are not forward differences the run may
  // still raise.
  struct DifferenceDoubt {
    double step = 0.0, hidden = 0.0, allowed = 0.0;
  };
  std::optional<DifferenceDoubt> difference_doubt(const ApproximateProblem& problem,
                                                  const CycleRecord& rec) const;
  // "; gradients by central differences from cycle K on (why)", and the same for five-point
  // ones, for the run's end message, or "".
  std::string difference_words() const;
  // The words of the two ends short of convergence, shared by end_run_if_done and
  // report_best_analysed: "every move limit shrank below min_move_limit (f)" and
  // "cycle limit N reached".
  std::string stall_words() const;
  std::string cycle_limit_words() const;
  // Ends the run after a cycle: too many failures, converged, or the cycle limit.
  void end_run_if_done(const CycleRecord& rec);
  // Ends the run as failed inside a cycle, keeping the cycle's record.
  const CycleRecord& fail_cycle(CycleRecord& record, const std::string& message);
  double violation(const Eigen::VectorXd& x, const Evaluation& evaluation) const;
  // x as a run that ends short of convergence reports it (and the start): with the bound
  // formulation's auxiliaries at the maxima they bound in the analysis (with_bounded_maxima),
  // where every auxiliary bounds a constraint; x itself otherwise. A converged run reports the
  // design it converged at as it is (its auxiliaries within vioacc of those maxima).
  Eigen::VectorXd as_reported(const Eigen::VectorXd& x, const ResponseModel& exact) const;
  // V of the current design as reported (as_reported).
  double reported_violation() const;
  // settings.repair_auxiliary: auxiliaries of the bound formulation set from the analysis.
  void repair_auxiliaries(Eigen::VectorXd& x, const ResponseModel& exact) const;

  // A copy: the strategy adapts it to the start design (MoveLimitStrategy::prepare: the trust
  // region raises the normaliser `scale` of each constraint with a zero bound to its size there,
  // and size_by_gradients at the first approximation those the start did not size: unsized_).
  Study study_;
  Simulator& simulator_;
  Options options_;  // as given
  Options noisy_;    // options_ with the noise applied
  // The move-limit strategy of noisy_.strategy (chosen again by set_options).
  const MoveLimitStrategy* strategy_;
  std::map<std::vector<double>, Evaluation> values_;     // analyses by design
  std::map<std::vector<double>, Evaluation> gradients_;  // analyses with sensitivities
  std::map<std::vector<double>, int> analysed_in_;       // the cycle each design was analysed in
  Eigen::VectorXd x0_;
  Eigen::VectorXd factors_;
  Eigen::VectorXd pending_factors_;  // set_move_factors before the run started
  Eigen::VectorXi direction_;        // multi-point direction d
  std::optional<PreviousCycle> previous_;
  std::vector<UnsizedConstraint> unsized_;  // prepare's, until the first approximation
  RunSummary summary_;
  bool started_ = false;
  std::string last_failure_;  // message of the last failed analysis
  // The order of finite differences the run asks for (begin_differences raised it), and each
  // raise: from which cycle, to which order, why (for the end message).
  DifferenceOrder differences_ = DifferenceOrder::kForward;
  struct DifferenceRaise {
    int from = 0;
    DifferenceOrder order = DifferenceOrder::kCentral;
    std::string reason;
  };
  std::vector<DifferenceRaise> raises_;
  int failures_ = 0;      // failed analyses so far (settings.max_failures)
  CycleRecord no_cycle_;  // returned by step() when the run ended before a cycle
  AnalysisStore* store_ = nullptr;
  double last_noise_estimate_ = -1.0;  // multi-point: the last fit's noise estimate, %
  int cycle_offset_ = 0;  // cycles before the first one of this driver (a restarted branch)
  MeritState merit_;      // the residual's references and the merit's penalty (measure_optimality)
  // The simulator runs of the last sensitivity analysis of b0 per load case, i.e. what one
  // cycle's gradients cost in analyses (extend_step; 0 before any).
  double gradient_cost_ = 0.0;
  Optimality optimality_;           // measured at the start of the last cycle
  int optimality_cycle_ = 0;        // the cycle it was measured in
  ApproximationMemory memory_;      // what the approximation forms learnt from earlier cycles
  LagrangianCurvature lagrangian_;  // the Lagrangian's curvature the approximations miss
  // The (constraint -> time points) a rejected proposal violated; screening keeps them: the
  // points of histories (and, with the seed's strategy, every row) until a step is accepted, the
  // scalar constraints for the rest of the run (trust region).
  std::map<int, std::set<int>> violated_by_rejected_;
  std::vector<std::string> on_move_limit_;  // design variables on a move limit at the last b*
  std::unique_ptr<MetamodelResponses> metamodel_;  // the metamodel strategy's, of this cycle
  // Secant cycles: the last cycle's approximation (and the evaluation it refers to when that
  // was a secant cycle's), this cycle's secant evaluation, whether this cycle is one, how many
  // in a row, and what the last sensitivity analysis of b0 cost (per load case).
  std::unique_ptr<Approximation> last_approximation_;
  std::unique_ptr<Evaluation> last_owned_, secant_owned_;
  bool secant_cycle_ = false;
  int secant_run_ = 0;
  double measured_gradient_cost_ = 0.0;
};

}  // namespace sao
