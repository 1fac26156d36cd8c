#include "sao/report/units_json.hpp"

#include "sao/report/evaluate.hpp"

namespace sao {

void put_unit(nlohmann::ordered_json& entry, const std::string& unit) {
  if (!unit.empty()) entry["unit"] = unit;
}

void put_unit(nlohmann::json& entry, const std::string& unit) {
  if (!unit.empty()) entry["unit"] = unit;
}

nlohmann::ordered_json design_units(const Study& study) {
  nlohmann::ordered_json design = nlohmann::ordered_json::object();
  for (const DesignVariable& v : study.design) {
    if (!v.note.unit.empty()) design[v.name] = v.note.unit;
  }
  return design;
}

nlohmann::ordered_json units_of(const Study& study) {
  nlohmann::ordered_json units = {{"design", design_units(study)}};
  if (!study.objective.note.unit.empty()) units["objective"] = study.objective.note.unit;
  return units;
}

nlohmann::ordered_json response_units(const Study& study, bool histories) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const ResponseDef& r : study.responses) {
    if (r.history == histories && !r.note.unit.empty()) out[response_key(r)] = r.note.unit;
  }
  return out;
}

}  // namespace sao
