// The benchmark suite (problems/suite/): constrained problems with known optima, each one study
// of the "functions" model, run with the SAO driver and with NLopt or IPOPT coupled directly
// (bench/compare/direct_coupling.hpp), in-process or through the external-code adapter with
// one process of sao_functions_eval per evaluation. Used by sao_suite (the table of
// docs/benchmarks.md) and by the tests of tests/suite/.
//
// Counting is the same for every method: every simulator execution, perturbations included
// (CountingSimulator), each method with its own cache of analyses by design (the driver's, or
// the direct coupling's).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "sao/study/study.hpp"

namespace sao::suite {

// One entry of problems/suite/optima.json.
struct Known {
  std::string problem;  // the study file is <dir>/<problem>.json
  int n = 0, m = 0;     // variables; inequality rows (an equality is two)
  double f = 0;         // f* = f(x*)
  std::vector<double> x;
  bool ci = false;  // in the fast subset
  std::vector<std::string> tags;
  // Other local minima, from the literature or found by a run and checked by
  // tests/suite/optima_check.cpp (first-order points that SLSQP started next to them does
  // not leave): "converged" at one is honest (its first-order conditions hold) but not solved.
  struct Local {
    double f = 0;
    std::vector<double> x;
  };
  std::vector<Local> local_minima;
};

// Test output names a problem by its name.
inline std::ostream& operator<<(std::ostream& out, const Known& k) {
  return out << k.problem;
}

// A problem's name as an identifier ('-' becomes '_'), e.g. for test names.
std::string identifier(const Known& known);

// Throws std::runtime_error when the manifest is missing or malformed.
std::vector<Known> read_optima(const std::string& directory);

// The accuracy a run must reach: |f - f*| <= 1e-4 max(1, |f*|) and violation <= 0.01 %, or
// the looser accuracy its study asks for (objacc, vioacc in %: f error <= objacc / 100,
// violation <= vioacc), so a run told to stop at 0.1 % is not called dishonest at 0.05 %. The
// suite's own studies ask for 0.001 %: the table's accuracy judges them.
struct Accuracy {
  double f_error = 1e-4;
  double violation = 0.01;  // %
};
Accuracy accuracy_asked(double objacc, double vioacc);
double f_error(double f, double f_star);
bool solved(double f, double violation_percent, double f_star, const Accuracy& accuracy = {});

// The study document with its internal "functions" simulator replaced by the external adapter
// running `evaluator` (sao_functions_eval) once per evaluation: the template it needs is written
// into `directory`, which is also the study's folder (pass `directory`/<problem>.json as its
// source) and holds the run directories. Gradient settings are kept.
nlohmann::json external_variant(const nlohmann::json& internal, const std::string& evaluator,
                                const std::string& directory);

enum class Path { kInternal, kAdapter };

struct Outcome {
  std::string method, status;
  double f = NAN, violation = NAN, seconds = 0;  // violation in %
  int runs = 0;
  bool solved = false, honest = true;  // honest: "converged" only when solved or at a known
  bool local = false;                  // local minimum; local: at one of those, not solved
  int b0_again = 0;  // SAO: cycles whose subproblem proposed the cycle start again (logged)
  // SAO, where the runs go: cycles, of them rejected, and designs analysed (one run each; the
  // other runs are the sensitivities' finite differences).
  int cycles = 0, rejected = 0, analyses = 0;
  Accuracy accuracy;  // the accuracy the run was judged at
};

struct RunSettings {
  int max_evals = 500;                 // NLopt and IPOPT evaluation limit per run
  double max_time = 120;               // NLopt and IPOPT time limit per run, s
  std::string evaluator;               // sao_functions_eval, for the adapter path
  std::string scratch;                 // folder for the adapter path's studies and runs
  std::vector<std::string> overrides;  // "path.to.key=value", applied to every study
  std::vector<double> start;           // non-empty: the design variables' start instead
};

// A start violating the problem's constraints `fold`-fold (largest g_hat >= fold), inside the
// bounds: from x* along deterministic directions (16 sign patterns over all variables, then
// each variable alone both ways), the distance doubled from 1 % of (1 + |x*|) until the violation
// is reached. When no such start lies inside the bounds (the box itself limits the violation,
// e.g. HS 71), the most violating start seen; empty when none violates at all. The violation
// of the start returned, in %, through `violation`.
std::vector<double> infeasible_start(const std::string& directory, const Known& known, double fold,
                                     double* violation);

// A random start inside the bounds: x* + u (w / 2) per variable, u uniform in [-1, 1] from a
// generator seeded by `seed` and the problem's name (the same starts wherever the same standard
// library is: std::hash and the distribution are its own), w the variable's range where it is
// finite and at most 10 (1 + |x*|), else 1 + |x*|; clamped to the bounds (a variable with a
// relative move limit clamped to 0 starts 1 % of w inside), drawn again (at most 50 times) where
// the analysis fails. Empty when every draw failed. Its violation (%) through `violation`.
std::vector<double> random_start(const std::string& directory, const Known& known, unsigned seed,
                                 double* violation);

// One problem with one method ("sao", "sao-metamodel", "slsqp", "mma", "cobyla", "ipopt") on one
// path. "sao-metamodel": the SAO driver with "strategy": "metamodel" (quadratic SRSM, no
// sensitivities) and every variable's move limit 0.5 (the region half the range); problems of
// more than 10 variables are skipped with it (status "skipped (n > 10)", not solved).
Outcome run_problem(const std::string& directory, const Known& known, const std::string& method,
                    Path path, const RunSettings& settings);

}  // namespace sao::suite
