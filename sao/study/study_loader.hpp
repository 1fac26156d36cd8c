// Loading and validating study files (JSON; the format is docs/study-format.md).
//
// First box of the flow: study.json -> Study. Every problem found is reported with its JSON
// path ("design_variables[1].lower: ..."), all of them at once, and nothing runs on a bad
// file. check_against_simulator() adds the checks that need the simulator (are the response
// sources ones it can deliver?).
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "sao/study/study.hpp"

namespace sao {

// A study that cannot run: every problem, each "path: what is wrong".
class StudyError : public std::runtime_error {
 public:
  StudyError(std::string source, std::vector<std::string> problems);
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  std::vector<std::string> problems_;
};

// Reads and validates a study file; throws StudyError (file unreadable, JSON syntax error
// with line and column, or the list of problems).
LoadedStudy load_study_file(const std::string& path);

// Validates an already parsed document; `source` names it in messages.
LoadedStudy load_study(const nlohmann::json& document, const std::string& source = "<study>");
// A model file for `sao simulate`: a study's sections without the optimisation problem (no
// "design_variables" or "objective" needed; "simulator" and "load_cases" are), validated like
// a study. Throws StudyError.
LoadedStudy load_model(const nlohmann::json& document, const std::string& source = "<model>");

// A command that optimises one objective (`sao run`, `step`, `sweep`, the service's run, the
// Python Session, the Driver itself) refuses a multi-objective study ("objectives",
// docs/pareto.md): a StudyError (exit 2) naming the alternatives, `sao pareto` and the
// epsilon-constraint `sao sweep` of a study with all but one objective made constraints. The
// document form is checked before a store is created; the Study form by the Driver.
void require_single_objective(const Study& study, const std::string& source);
void require_single_objective(const nlohmann::json& document, const std::string& source);

// Reads a study file as JSON (StudyError when unreadable or not JSON, with line and column).
nlohmann::json read_study_document(const std::string& path);
// The same with the command line's --set assignments applied in order (apply_override below).
nlohmann::json read_study_document(const std::string& path,
                                   const std::vector<std::string>& overrides);

// The segments of a dotted study path ("constraints.displacement.upper") with every array
// element named by its index: an element is named by its index or by its "name"
// ("design_variables.b1.initial" = "design_variables.0.initial"). A key missing from an
// object is allowed (an override may add it), below it nothing is resolved. Throws StudyError
// (`source` names the path's origin, e.g. "--set") for a name no element has or an index out
// of range, listing the element names, and for a key below a number or a string.
std::vector<std::string> resolve_study_path(const nlohmann::json& document,
                                            const std::string& dotted, const std::string& source);

// How a plot names the value a path sets: for a key of a named list element, its
// "label [unit]" and the key with the path ("Chassis acceleration [m/s^2]: upper
// (constraints.0.upper)"); otherwise the path. The path must resolve (resolve_study_path).
std::string study_path_title(const nlohmann::json& document, const std::string& dotted);
// The unit of the value a path sets: the element's "unit" for a key in the quantity's unit
// (a design variable's lower, upper, initial, size; a constraint's lower, upper, equals,
// scale), "" for any other path or when the element declares none.
std::string study_path_unit(const nlohmann::json& document, const std::string& dotted);

// Applies "path.to.key=value" to a study document (value parsed as JSON, else taken as a
// string), e.g. "settings.noise=2.5" or "constraints.displacement.upper=0.9" (paths as
// resolve_study_path). Throws StudyError (named by `source`: "--set", "--vary") for a
// malformed assignment or path.
void apply_override(nlohmann::json& document, const std::string& assignment,
                    const std::string& source = "--set");

// Makes start k (1-based, from the study's "starts") the initial design. Throws StudyError
// when there is no such start.
void use_start(Study& study, int k);

// Checks that every response source is one the simulator delivers, with the right kind.
// Throws StudyError naming "responses[i].source".
void check_against_simulator(const Study& study, const Simulator& simulator);

}  // namespace sao
