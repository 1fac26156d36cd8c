// The Study: everything one SAO run needs, immutable after loading.
//
// First box of the flow in docs/architecture.md: study.json --load+validate--> Study. The loader
// (study_loader.hpp) fills every default, expands the conveniences of the file format (|r|,
// "minimize_max" -> bound formulation, one criterion over several load cases) into plain
// constraints, and reports every problem with its JSON path; nothing runs on a bad file.
//
// Criteria are kept as `Criterion` objects: an explicit relation (expression.hpp) of
// responses and variables, with a value and an exact gradient. The quantity shorthand of the
// file format ({"response": "y", "abs": true}) is turned into the same expressions.
#pragma once

#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sao/doe/plan.hpp"
#include "sao/expr/expression.hpp"
#include "sao/seam/simulator.hpp"
#include "sao/study/options.hpp"

namespace sao {

// What a quantity means to a reader: the optional "unit" (free text, "m/s^2") and "label"
// ("Head acceleration") of a design variable, response, relation, constraint or the objective.
// Tables and plots show title(): "label [unit]", the name where no label is given.
struct Annotation {
  std::string unit;
  std::string label;

  // "label [unit]", "name [unit]", "label" or `name`.
  std::string title(const std::string& name) const;
  // "[unit]", or "" without a unit (a column's units line, a value's suffix).
  std::string bracketed_unit() const;
};

// phi(b) of an intermediate design variable: b^power (1 identity, -1 reciprocal, 2 area of a
// diameter), or an expression of that one variable.
struct Intermediate {
  double power = 1.0;
  expr::ProgramPtr expression;  // bound with the variable as x(0); null: the power
  std::string text;             // the expression as written

  bool identity() const { return !expression && power == 1.0; }
  double value(double b) const;  // phi(b)
  double slope(double b) const;  // phi'(b), exact
};

// A move-limit factor (settings.move_limit, design_variables[].move_limit, `sao set
// move_limit=...`) is a fraction in (0, 1]: of |b0| with relative sizing, of the range with
// sizing "range". move_factor_rule says so for a value that is not.
bool valid_move_factor(double m);
std::string move_factor_rule(double m);

struct DesignVariable {
  std::string name;
  double lower = 0.0;  // -infinity: no lower bound
  double upper = 0.0;  // +infinity: no upper bound
  double initial = 0.0;
  // Characteristic size for a variable without both bounds (0: not given, max(|initial|, 1)).
  double size = 0.0;
  double move_factor = 0.4;  // m_i, initial move-limit factor
  // false: s_i = 2 m_i |b0_i| (3.20); true: s_i = m_i (bu_i - bl_i) (3.27), for variables
  // that may be zero.
  bool range_sizing = false;
  int direction = 1;  // initial direction d_i of the multi-point subregion (+1 or -1)
  // Intermediate design variable b' = phi(b) (3.14) in which responses are approximated
  // linearly (SPEC 4).
  Intermediate intermediate;
  Annotation note;  // "unit", "label"
  // Discrete variables (docs/study-format.md, "Discrete variables"): the allowed values are
  // `values` (a catalogue, strictly increasing; lower and upper are its ends) or, with step > 0,
  // lower + k step (k = 0, 1, ...; up to upper). Both empty/0: a continuous variable.
  std::vector<double> values;
  double step = 0.0;

  bool bounded() const { return std::isfinite(lower) && std::isfinite(upper); }
  bool discrete() const { return !values.empty() || step > 0.0; }
  // The allowed values next to x: the largest <= x and the smallest >= x (one value twice when
  // x is allowed, to 1e-9 of the spacing; the end value beyond either end). x itself for a
  // continuous variable.
  std::pair<double, double> neighbours(double x) const;
  // The allowed value nearest to x (either of a tie); x for a continuous variable.
  double nearest(double x) const;
  bool allowed(double x) const { return nearest(x) == x; }
  // The range that sizes move limits, subregion floors and scales: upper - lower, or, for a
  // variable without both bounds, 2 x its characteristic size.
  double span() const;
  // The interval the variable is scaled on: [lower, upper], or, without both bounds, span()
  // around `at`, cut by the bound that exists.
  std::pair<double, double> interval(double at) const;
};

// An auxiliary variable b_{n+1} of the bound formulation: exactly linear, never passed to a
// simulator, no move limit.
struct AuxiliaryVariable {
  std::string name;
  double lower = -std::numeric_limits<double>::infinity();
  double upper = std::numeric_limits<double>::infinity();
  double initial = 0.0;
};

struct ResponseDef {
  std::string name;    // name used in criteria
  std::string source;  // name the simulator knows (defaults to name)
  bool history = false;
  // A derived response: an explicit relation of simulator responses and design variables,
  // computed after each analysis (values and gradients) and then approximated like a simulator
  // response (derived_responses.hpp). One program per load case; empty for simulator responses.
  std::vector<expr::ProgramPtr> derived;
  std::string expression;
  // Shape of this response's approximation ("form"); none: the study's settings.form.
  std::optional<ApproximationForm> form;
  Annotation note;  // "unit", "label"
};

// A criterion function g(x) of the full variable vector x = (design, auxiliaries) and the
// responses: an explicit relation (expression.hpp) bound to one load case. A series-valued
// relation (a history, or a data array) is time-dependent: one constraint per point.
struct Criterion {
  expr::ProgramPtr program;
  std::string text;  // as written (or generated from the quantity shorthand), for messages

  int points() const { return program->points(); }
  bool time_dependent() const { return program->is_series(); }
  bool linear() const { return program->degree() != expr::Degree::kNonlinear; }
};

enum class Sense { kLessEqual, kGreaterEqual };

struct Constraint {
  std::string name;  // user name, with a suffix for generated parts ("displacement[-]")
  std::string path;  // JSON path of its definition, for messages
  Criterion g;
  Sense sense = Sense::kLessEqual;
  double bound = 0.0;        // c, when bound_auxiliary < 0
  int bound_auxiliary = -1;  // c = x[n + bound_auxiliary] (bound formulation)
  double scale = 0.0;        // normaliser when the bound is zero (0: not given)
  Annotation note;           // "unit", "label" of the constraint entry (every part shares it)
  // "reliability" (docs/robustness.md, "Reliability-based design"): the constraint is to hold
  // with a margin of k standard deviations of its value under the random variables; k > 0
  // when given (as "k", or as "probability" p of violation: k = Phi^-1(1 - p)).
  struct Reliability {
    double k = 0.0;            // 0: an ordinary constraint
    double probability = 0.0;  // the target probability of violation, when given as one
  } reliability;
  // The margin the optimiser holds this constraint with, in its units: g + margin <= c (or
  // g - margin >= c). 0 as loaded; the driver sets it each cycle for a reliability target
  // (reliability_margins.hpp), and every g_hat (normalised_constraint_points) includes it.
  double margin = 0.0;
  // The other side of an "equals" (c <= q and q >= c, each its own constraint): its index in
  // Study::constraints, -1 for an inequality. Screening keeps the two sides together.
  int equality_partner = -1;
};

struct Objective {
  std::string name;
  std::string path;
  Criterion f;                     // the function minimised (internal sign: always minimised)
  bool maximize = false;           // user asked to maximise: reported value is -f
  bool bound_formulation = false;  // f is an auxiliary variable bounding a max value
  Annotation note;                 // "unit", "label"
};

// One entry of the "random_variables" section (docs/robustness.md): a random variable acting on a
// design variable (a tolerance, or a model parameter held by a frozen design variable). Its
// distribution is centred on the design variable's value at the design analysed: the mean
// (normal, lognormal), the centre of the offsets (uniform, truncated_normal's bounds). The
// spread is given as read (NaN where not given); sao/report/robust.cpp builds the distribution.
struct RandomVariableSpec {
  std::string name;
  std::string path;          // "random_variables[i]", for messages
  int variable = -1;         // the design variable it acts on
  std::string distribution;  // "normal", "lognormal", "uniform", "truncated_normal"
  double sd = std::numeric_limits<double>::quiet_NaN();     // absolute standard deviation
  double cov = std::numeric_limits<double>::quiet_NaN();    // sd relative to |value|
  double sigma = std::numeric_limits<double>::quiet_NaN();  // lognormal: sd of ln x
  double lower = std::numeric_limits<double>::quiet_NaN();  // offsets from the value
  double upper = std::numeric_limits<double>::quiet_NaN();
};

// The "random_variables" and "correlations" sections: the correlation matrix (in standard normal
// space) of the variables in their order, identity where no pair is given.
struct RandomSection {
  std::vector<RandomVariableSpec> variables;
  Eigen::MatrixXd correlation;
};

struct Study {
  std::string name;
  std::string description;
  std::string file;  // where it was loaded from ("" for in-memory studies)
  std::vector<DesignVariable> design;
  std::vector<AuxiliaryVariable> auxiliaries;
  std::vector<LoadCaseSpec> load_cases;
  std::vector<ResponseDef> responses;
  Objective objective;
  // A multi-objective study ("objectives", docs/pareto.md): every objective, in file order;
  // `objective` is then the first, shown by the commands that only analyse. Empty for a study
  // of one objective.
  std::vector<Objective> objectives;
  std::vector<Constraint> constraints;
  // "random_variables" (and "correlations"), when given: what `sao robust` samples and what a
  // constraint's "reliability" target is held against.
  std::optional<RandomSection> random;
  // Alternative start designs ("starts" in the file): variable name -> initial value.
  std::vector<std::map<std::string, double>> starts;
  nlohmann::json simulator;  // the "simulator" section, handed to the factory
  // Names explicit relations may use beyond variables and responses.
  std::map<std::string, double> constants;
  std::map<std::string, std::vector<double>> data;
  std::map<std::string, std::string> relations;      // name -> expression text
  std::map<std::string, Annotation> relation_notes;  // name -> "unit", "label" (when given)
  // Per load case: its time grid's "unit" and "label" (the time axis: time_title()).
  std::vector<Annotation> time_notes;
  // "label [unit]" of load case c's time grid ("t [s]"; "t" where the study gives neither).
  std::string time_title(int load_case) const;
  expr::Symbols symbols;  // what names mean in this study's expressions

  bool multi_objective() const { return objectives.size() > 1; }
  // Whether an objective (the one, or one of several) is a bound formulation's auxiliary: its
  // value at a design is the largest value it bounds (with_bounded_maxima, criteria.hpp).
  bool bounds_maxima() const;
  int n_design() const { return static_cast<int>(design.size()); }
  int n_aux() const { return static_cast<int>(auxiliaries.size()); }
  int n_total() const { return n_design() + n_aux(); }
  int response_index(const std::string& name) const;  // -1 if unknown
  // The position in x (design variables, then auxiliaries) of the variable `name`; -1 if unknown.
  int variable_index(const std::string& name) const;
  SimulatorSetup simulator_setup() const;
  // The bounds of the full variable vector (design variables, then auxiliaries; an open side
  // is infinite).
  void variable_bounds(Eigen::VectorXd& lower, Eigen::VectorXd& upper) const;
};

// A study file as loaded: the problem (Study) and the settings its "settings" section gives.
// The two part at the driver (sao/optimizer/driver.hpp): it copies the Study and owns the
// Options, which `sao set`, the service and Python replace between cycles, so no part of the
// optimizer can read a setting from the problem (it is given only a Study).
// The study file's "doe" section (docs/doe.md), read and resolved against the design
// variables: the plan's settings, its region in absolute values, the batch size, and the
// canonical JSON of what makes the plan (the region resolved, defaults filled, the batch size
// left out), which a DOE stored in a study store is compared with to resume it.
struct DoeSection {
  doe::Settings settings;
  doe::Region region;
  int batch = 0;  // analyses per simulator batch (0: the simulator's workers, or all on a cluster)
  nlohmann::json plan;
};

struct LoadedStudy : Study {
  Options options;
  std::optional<DoeSection> doe;  // the "doe" section, when the file has one
};

// The explicit constraints (docs/doe.md): the indices of the study's constraints that read no
// response and no auxiliary variable, so that a design's values decide them before any analysis.
std::vector<int> explicit_constraints(const Study& study);
// Whether `design` (design variables only) satisfies those constraints (`which`, from
// explicit_constraints); the names of those it violates go to `violated` when given.
bool holds_explicit_constraints(const Study& study, const std::vector<int>& which,
                                const Eigen::VectorXd& design,
                                std::vector<std::string>* violated = nullptr);

}  // namespace sao
