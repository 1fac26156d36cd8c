// The Study: everything one SAO run needs, immutable after loading.
//
// First box of the flow in ARCHITECTURE.md: study.json --load+validate--> Study. The loader
// (study_loader.hpp) fills every default, expands the conveniences of the file format (|r|,
// "minimize_max" -> bound formulation, one criterion over several load cases) into plain
// constraints, and reports every problem with its JSON path; nothing runs on a bad file.
//
// Criteria are kept as `Criterion` objects: a function of responses and variables with a
// value and a gradient. Here they are linear combinations of single quantities (a response
// of a load case, a design variable, an auxiliary variable); the explicit relations of the
// intermediate-responses work replace the LinearForm by an expression without changing
// how the driver or the subproblem use them.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sao/options.hpp"
#include "sao/simulator.hpp"

namespace sao {

struct DesignVariable {
  std::string name;
  double lower = 0.0;
  double upper = 0.0;
  double initial = 0.0;
  double move_factor = 0.4;  // m_i, initial move-limit factor
  // false: s_i = 2 m_i |b0_i| (3.20); true: s_i = m_i (bu_i - bl_i) (3.27), for variables
  // that may be zero.
  bool range_sizing = false;
  int direction = 1;  // initial direction d_i of the multi-point subregion (+1 or -1)
  // Intermediate design variable b' = b^a (3.14): 1 identity, -1 reciprocal, 2 area of a
  // diameter. Responses are approximated linearly in b' (SPEC 4).
  double intermediate_power = 1.0;
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
};

// One quantity of a criterion: coef * (response of a load case | design variable |
// auxiliary variable). Histories make the criterion time-dependent.
struct Term {
  enum class Kind { kResponse, kDesign, kAuxiliary };
  Kind kind = Kind::kResponse;
  int index = 0;      // into Study::responses / design / auxiliaries
  int load_case = 0;  // for responses
  double coef = 1.0;
};

// A criterion function g(x) of the full variable vector x = (design, auxiliaries) and the
// responses. Linear in its terms.
struct Criterion {
  std::vector<Term> terms;
  double constant = 0.0;
  bool time_dependent = false;  // involves a history response
  int grid_case = -1;           // load case whose grid it lives on, when time-dependent
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
};

struct Objective {
  std::string name;
  std::string path;
  Criterion f;                     // the function minimised (internal sign: always minimised)
  bool maximize = false;           // user asked to maximise: reported value is -f
  bool bound_formulation = false;  // f is an auxiliary variable bounding a max value
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
  std::vector<Constraint> constraints;
  Options options;
  // Alternative start designs ("starts" in the file): variable name -> initial value.
  std::vector<std::map<std::string, double>> starts;
  nlohmann::json simulator;  // the "simulator" section, handed to the factory

  int n_design() const { return static_cast<int>(design.size()); }
  int n_aux() const { return static_cast<int>(auxiliaries.size()); }
  int n_total() const { return n_design() + n_aux(); }
  int response_index(const std::string& name) const;  // -1 if unknown
  SimulatorSetup simulator_setup() const;
};

}  // namespace sao
