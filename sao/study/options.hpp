// Options of one SAO run (SPEC sections 2-3), with the defaults of seed 003 appendix A.
//
// Parsed once from the study's "settings" object (load_settings_variables.cpp); every field has its
// default in-class, and validate() names the rule a combination breaks. Percentages are in
// percent, as in the seed.
#pragma once

#include <string>
#include <vector>

namespace sao {

// Shape of the approximation of one response value (sao/optimizer/approximation_forms.hpp):
// linear in the intermediate variables, conservative convex separable (CCSA/MMA-type), or
// diagonal quadratic with curvature from the previous cycle; or auto (the default): quadratic
// for scalar responses and linear for histories with the trust-region strategy (a time point's
// curvature from one earlier design is unreliable where peaks move in time), linear with the
// seed's strategy and for multi-point studies (response_form resolves it).
enum class ApproximationForm { kLinear, kConservative, kQuadratic, kQuasiNewton, kAuto };
// "linear" | "conservative" | "quadratic" | "quasi_newton" | "auto"; false for any other word.
bool parse_approximation_form(const std::string& word, ApproximationForm& form);
const char* approximation_form_name(ApproximationForm form);

// The other word choices of "settings", one enum each, with its words in the order of its
// values (the first is the default): parse_* gives false for any other word, *_name the word.
// "approximation": where the data of the approximations comes from: the sensitivities at b0
// (local) or a fit over plan points (multipoint, SPEC 5).
enum class ApproximationSource { kLocal, kMultipoint };
bool parse_approximation_source(const std::string& word, ApproximationSource& source);
const char* approximation_source_name(ApproximationSource source);
// "fit" of a multi-point approximation: "interpolation" (n + 1 points) | "least_squares".
enum class FitMethod { kInterpolation, kLeastSquares };
bool parse_fit_method(const std::string& word, FitMethod& fit);
const char* fit_method_name(FitMethod fit);
// "strategy": the move-limit strategy, "trust_region" | "seed" | "metamodel" (Options::strategy).
enum class Strategy { kTrustRegion, kSeed, kMetamodel };
bool parse_strategy(const std::string& word, Strategy& strategy);
const char* strategy_name(Strategy strategy);
// "metamodel": the global model of the metamodel strategy (metamodel_strategy.hpp), fitted per
// response value over the analyses in and near the region: "quadratic" | "linear" | "kriging".
enum class MetamodelKind { kQuadratic, kLinear, kKriging };
bool parse_metamodel_kind(const std::string& word, MetamodelKind& kind);
const char* metamodel_kind_name(MetamodelKind kind);
// "infill": the design the metamodel strategy analyses each cycle: "optimum" (the metamodel's
// constrained optimum in the region: a sequential response surface method) | "expected_improvement"
// (the region's point of largest constrained expected improvement on kriging models of the
// objective and the constraints: efficient global optimisation).
enum class Infill { kOptimum, kExpectedImprovement };
bool parse_infill(const std::string& word, Infill& infill);
const char* infill_name(Infill infill);
// "subproblem": "auto" (LP when the approximate problem is linear, else NLP) | "nlp".
enum class SubproblemSolver { kAuto, kNlp };
bool parse_subproblem_solver(const std::string& word, SubproblemSolver& solver);
const char* subproblem_solver_name(SubproblemSolver solver);
// "nlp_algorithm": the NLopt algorithm of the NLP path, "slsqp" | "mma".
enum class NlpAlgorithm { kSlsqp, kMma };
bool parse_nlp_algorithm(const std::string& word, NlpAlgorithm& algorithm);
const char* nlp_algorithm_name(NlpAlgorithm algorithm);

struct Options {
  // --- screening (SPEC 2.2) ---
  double cutoff = 0.7;  // retain a constraint when g_hat >= -(1 - cutoff)
  // With the trust region, scalar constraints are screened by this instead (screen_study): by
  // default every one between its zero and its bound or beyond (g_hat >= -1); a `cutoff` given
  // sets it too. A constraint screened out is invisible to the subproblem, whose proposal may
  // then violate it and be rejected (HS 76's first proposal: a linear constraint at 67 % of its
  // bound, violated by 13 %), and with finite differences or the direct method its gradient
  // costs no run: the seed's 0.7 cost the suite's 14 matrices of starts 6 solved problems.
  // Histories keep `cutoff` for their time points (time-point deletion: with 0, the quarter
  // car's reliability study, whose constraints are histories, reached the cycle limit).
  double scalar_cutoff = 0.0;
  int neighbours = 2;           // time points kept before and after each critical maximum
  bool regionalisation = true;  // false: keep every time point above the cutoff

  // --- move-limit strategy, percent (SPEC 3) ---
  double objacc = 0.1;
  double vioacc = 0.1;
  double errsml = 10.0;
  double errlrg = 25.0;
  double errmax = 40.0;
  double viosml = 5.0;
  double violrg = 7.5;
  double viomax = 10.0;
  double noise = 0.0;        // noise estimate N, added to the eight percentages above
  double beta1 = 0.5;        // reject: shrink every factor
  double beta2 = 4.0;        // oscillation test: Fchg < beta2 * objacc
  double beta3 = 0.5;        // oscillation: halve
  double beta4 = 0.75;       // worse objective / large error: shrink
  double beta5 = 4.0 / 3.0;  // accurate and on the move limit: enlarge

  // --- driver ---
  int max_cycles = 30;  // every cycle counts, rejected ones included
  // Failed analyses (start, b*, sensitivities, plan points) after which the run stops with
  // status failed; 0: no limit (a failed b* only rejects its cycle).
  int max_failures = 0;
  // Use |V_q - V_{q-1}| < vioacc instead of V < vioacc in the convergence test, for
  // problems without a feasible design (SPEC 3, last paragraph).
  bool converge_on_violation_change = false;
  // Relaxation weight beta of (3.5-3.8), multiplied by max(|F0|, 1): large, so that the
  // relaxed problem only relaxes what nothing else can satisfy.
  double relaxation_weight = 1e4;

  // --- multi-point approximations (SPEC 5) ---
  ApproximationSource approximation = ApproximationSource::kLocal;  // "approximation"
  double alpha = 0.2;                         // extrapolation factor of the subregion, [0, 1)
  FitMethod fit = FitMethod::kInterpolation;  // "fit"
  double reuse_radius = 0.5;      // earlier analyses up to this many subregion widths outside count
  bool repair_auxiliary = false;  // bound formulation: set the auxiliary of b* to the largest
                                  // value it bounds, from the analysis (no simulator run)
  bool noise_from_data = false;   // noise = 2 x the fit's residual RMS (%) when `noise` is 0
  // Converge only when no move limit is active at b* (the approximate optimum lies inside the
  // subregion). Beyond the seed: with noise-raised accuracies a step pinned on its move limit
  // can change F by less than the noise and would otherwise stop the run far from the optimum.
  // Default: on for multi-point studies, off for local ones ("require_free_move_limits").
  bool require_free_move_limits = false;

  // --- strategy (beyond the seed: issue 17) ---
  // "strategy": "trust_region" (default for local approximations): steps judged by a merit
  // function, the region sized from actual / predicted improvement (trust_region.hpp), runs
  // converged only where the first-order residual (optimality.hpp) is below kkt_tolerance;
  // "seed" (default for multi-point studies): appendix A of seed 003 (move_limits.hpp).
  Strategy strategy = Strategy::kTrustRegion;
  double kkt_tolerance = 1e-3;    // "kkt_tolerance": converged when the residual is below it
  double min_move_factor = 1e-6;  // "min_move_limit": stalled when every factor is below it
  // An infeasible subproblem is solved in two stages (phase 1): the least violation the
  // subregion allows, then the best objective at that violation. Off: the seed's relaxed
  // problem with the weight relaxation_weight. On unless the strategy is "seed".
  bool feasibility_first = true;

  // --- the metamodel strategy (issue 50; sao/optimizer/metamodel_strategy.hpp) ---
  MetamodelKind metamodel = MetamodelKind::kQuadratic;  // "metamodel"
  Infill infill = Infill::kOptimum;                     // "infill"
  // "metamodel_points": analyses the fit wants in and near the region each cycle (plan points
  // are added up to it); 0: the model's own count (coefficients + 1; kriging 2 n + 1).
  int metamodel_points = 0;
  // "design_tolerance", percent of each variable's range: a metamodel run converges when an
  // analysed feasible proposal moved no variable further than this and changed F by less than
  // objacc.
  double design_tolerance = 1.0;

  // --- subproblem solver ---
  SubproblemSolver subproblem = SubproblemSolver::kAuto;  // "subproblem"
  NlpAlgorithm nlp_algorithm = NlpAlgorithm::kSlsqp;      // "nlp_algorithm"

  // --- approximation forms (issue 17.4; sao/optimizer/approximation_forms.hpp) ---
  // "form": the shape of every response's approximation unless responses[i].form says
  // otherwise. Independent of `approximation` (where the data comes from).
  ApproximationForm form = ApproximationForm::kAuto;
  // Quadratic form: each curvature, normalised as c_k w_k^2 / S (w_k the range of the
  // intermediate variable, S the response's scale), is kept in [min_curvature, max_curvature].
  double min_curvature = 0.0;
  // Trust region with sensitivities: the subproblem's objective carries the curvature of the
  // Lagrangian that the approximations of the scalar constraints and objective miss
  // (sao/optimizer/lagrangian_curvature.hpp; "lagrangian_curvature").
  bool lagrangian_curvature = true;
  // Trust region with sensitivities: a proposal rejected for a violation of scalar constraints
  // gets one second-order correction (Driver::correct_step; "second_order_correction").
  bool second_order_correction = true;
  // Trust region with sensitivities: a run that stalls with forward-difference gradients takes
  // them by central differences from then on, and one that stalls with central ones by
  // five-point differences, each with the move limits of its last accepted cycle, instead of
  // ending (Driver::raise_difference_order; "central_differences_on_stall").
  bool central_differences_on_stall = true;
  // Trust region with sensitivities: a cycle that converges with forward-difference gradients
  // whose error may hide an improvement above kkt_tolerance (difference_error.hpp) does not end
  // the run, which goes on with central differences (Driver::doubt_convergence;
  // "central_differences_to_confirm").
  bool central_differences_to_confirm = true;
  // Trust region with sensitivities: how many times an accepted proposal held by its move
  // limits and predicted well may be extended in the enlarged subregion with the same
  // approximations, one analysis each (Driver::extend_step; "extend_steps"; 0: never).
  int extend_steps = 3;
  // Trust region with sensitivities that cost analyses: at most this many cycles in a row take
  // their gradients at b0 from the last cycle's approximation, corrected by its error at b0,
  // instead of a sensitivity analysis, when that cycle's proposal (now b0) was accepted with a
  // ratio within 0.2 of 1 while held by a move limit (Driver::secant_start; "secant_cycles";
  // 0: never).
  int secant_cycles = 2;
  double max_curvature = 1e3;

  // Adds `noise` to each percentage (call once, after loading).
  Options with_noise_applied() const;
  // Every field equal (tests: the settings in force after `sao set` are those a study file with
  // the same key gives).
  bool operator==(const Options&) const = default;
  // Every rule the values break, each "settings.<key>: <rule>"; empty when valid.
  std::vector<std::string> validate() const;
};

}  // namespace sao
