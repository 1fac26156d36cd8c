// The one JSON form of a CycleRecord: the cycles of result.json, the records of the study
// store and the `--json` progress lines all use it.
//
// Variables are named (b0 and b_opt are objects keyed by the study's variable names, design
// then auxiliaries); move actions are their names. The form is exact: finite doubles are
// written with enough digits to read back bit for bit, and NaN and infinities, which JSON
// lacks, as the strings "nan", "inf" and "-inf".
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sao/optimizer/driver.hpp"
#include "sao/seam/json_reader.hpp"
#include "sao/study/study.hpp"

namespace sao {

// The names of x = (design, auxiliaries), in order.
std::vector<std::string> variable_names(const Study& study);

// `variables` names every entry of x0 and x_opt (variable_names of the record's study).
nlohmann::json cycle_record_to_json(const CycleRecord& record,
                                    const std::vector<std::string>& variables);
// The inverse, bit for bit. A vector's length is the number of leading names it holds. A null
// number (as older result.json files hold for NaN) reads as NaN. Throws std::invalid_argument
// naming the first key that is missing or of the wrong type.
CycleRecord cycle_record_from_json(const nlohmann::json& json,
                                   const std::vector<std::string>& variables);

// Numbers are written with exact_number (sao/seam/json_reader.hpp).
// A count: an integer that fits in int (nlohmann's get<int> converts a float or an
// out-of-range number unchecked, which is undefined behaviour). Throws std::invalid_argument.
int int_from(const nlohmann::json& value);

}  // namespace sao
