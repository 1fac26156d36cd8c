// The units a study declares (Annotation::unit, study.hpp), in the JSON documents the program
// writes: result.json, the --json outputs of the commands and the service's answers (issue 49;
// docs/study-format.md, "Units in the JSON outputs"). One convention for all of them:
//   - an object that names one value ({"name": ..., "value": ...}, a constraint, a response, a
//     variable) carries "unit" beside it, only when the study declares one (no empty string);
//   - a map of values by name ({"b1": 0.6, "b2": 1.2}) keeps its type: the document carries a
//     sibling "units" object keyed as the document is ({"design": {"b1": "N/m"}, "objective":
//     "m/s^2"}), with the names that declare a unit only.
// Every unit comes from the study's Annotation of the element named; nothing is guessed.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sao/study/study.hpp"

namespace sao {

// Sets entry["unit"] to `unit`, unless it is empty (the study declares none).
void put_unit(nlohmann::ordered_json& entry, const std::string& unit);
void put_unit(nlohmann::json& entry, const std::string& unit);

// Name -> unit of each design variable that declares one, in study order (auxiliary variables
// have none: they bound the objective's quantity).
nlohmann::ordered_json design_units(const Study& study);

// The "units" of a document with designs by variable name and objective figures (result.json,
// the cycle records' b0, b_opt, F0, F_opt, F_approx): {"design": design_units, "objective":
// the objective's unit, when declared}.
nlohmann::ordered_json units_of(const Study& study);

// Key -> unit of each scalar response (`histories`: each history response) the study declares
// with a unit, by the key an analysis holds it under (response_key, sao/report/evaluate.hpp:
// the simulator's name, or a derived response's).
nlohmann::ordered_json response_units(const Study& study, bool histories);

}  // namespace sao
