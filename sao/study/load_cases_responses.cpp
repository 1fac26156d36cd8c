// Reading the load cases (with their time grids), the responses (derived ones bound here),
// and the names explicit relations may use: constants, data arrays, relations.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "sao/study/derived_responses.hpp"
#include "sao/study/load_sections.hpp"

namespace sao::loading {
namespace {

using nlohmann::json;

// The largest |time| of a grid: far beyond any transient's (3e4 years in seconds), far below
// where the integrator's arithmetic on times overflows.
constexpr double kLargestTime = 1e12;

// {"start": 0, "end": T, "points": N} or {"values": [t1, t2, ...]} (strictly increasing), with
// the grid's optional "unit" and "label" (the time axis of plots: "t [s]", "crank angle [rad]").
void read_time_grid(const json& node, const std::string& path, TimeGrid& grid, Annotation& note,
                    Problems& problems) {
  JsonReader t(node, path, problems);
  note = read_annotation(t);
  if (t.has("values")) {
    const json& values = t.raw("values");
    if (t.has("start") || t.has("end") || t.has("points")) {
      problems.add(path, "give either \"values\" or \"start\"/\"end\"/\"points\", not both");
    }
    if (expect_array(values, t.at("values"), problems)) {
      if (values.size() > kMaxGridPoints) {
        problems.add(t.at("values"), "more than " + std::to_string(kMaxGridPoints) +
                                         " times (the limit of one load case's grid)");
        return;
      }
      for (size_t i = 0; i < values.size(); ++i) {
        if (!values[i].is_number() || !std::isfinite(values[i].get<double>())) {
          problems.add(indexed(t.at("values"), i),
                       "expected a number, got " + json_type_name(values[i]));
          return;
        }
        grid.values.push_back(values[i].get<double>());
        if (i > 0 && !(grid.values[i] > grid.values[i - 1])) {
          problems.add(indexed(t.at("values"), i), "times must increase strictly");
          return;
        }
      }
      grid.points = static_cast<int>(grid.values.size());
      if (grid.points < 2) {
        problems.add(t.at("values"), "expected at least 2 times");
        return;
      }
      grid.start = grid.values.front();
      grid.end = grid.values.back();
    }
  } else {
    grid.start = t.number_or("start", 0.0);
    grid.end = t.number("end", true).value_or(1.0);
    if (t.has("points")) {
      grid.points = static_cast<int>(t.integer("points", 2, kMaxGridPoints).value_or(2));
    } else {
      problems.add(t.at("points"), "missing (expected an integer >= 2)");
    }
    if (!(grid.end > grid.start)) problems.add(t.at("end"), "must be > start");
  }
  // Times near the end of the double range (end = 1e308) left CVODES iterating for ever.
  for (const char* key : {"start", "end"}) {
    const double time = key[0] == 's' ? grid.start : grid.end;
    if (std::abs(time) > kLargestTime) {
      std::ostringstream msg;
      msg << "times must lie within -" << kLargestTime << " and " << kLargestTime << ", got "
          << time;
      problems.add(t.has("values") ? t.at("values") : t.at(key), msg.str());
      break;
    }
  }
  t.finish();
}

bool identifier(const std::string& name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

}  // namespace

void read_load_cases(const json& node, Study& study, Problems& problems) {
  if (node.empty()) problems.add("load_cases", "at least one load case is needed");
  for_each_object(node, "load_cases", problems,
                  [&](const json& entry, const std::string& path, size_t) {
                    JsonReader r(entry, path, problems);
                    LoadCaseSpec lc;
                    lc.name = r.string("name", true).value_or("");
                    Annotation time_note;
                    if (r.has("time") && expect_object(r.raw("time"), r.at("time"), problems)) {
                      read_time_grid(r.raw("time"), r.at("time"), lc.grid, time_note, problems);
                    }
                    study.time_notes.push_back(time_note);
                    if (r.has("parameters") &&
                        expect_object(r.raw("parameters"), r.at("parameters"), problems)) {
                      for (const auto& [key, value] : r.raw("parameters").items()) {
                        if (value.is_number()) {
                          lc.parameters[key] = value.get<double>();
                        } else {
                          problems.add(r.at("parameters") + "." + key,
                                       "expected a number, got " + json_type_name(value));
                        }
                      }
                    }
                    r.finish();
                    study.load_cases.push_back(lc);
                  });
}

void read_responses(const json& node, Study& study, Problems& problems) {
  for_each_object(
      node, "responses", problems, [&](const json& entry, const std::string& path, size_t) {
        JsonReader r(entry, path, problems);
        ResponseDef d;
        d.name = r.string("name", true).value_or("");
        d.source = r.string("source", false).value_or(d.name);
        if (r.has("expression")) {
          d.expression = r.string("expression", true).value_or("");
          if (r.has("source")) {
            problems.add(r.at("source"),
                         "not with \"expression\": a derived response is computed, not read");
          }
        }
        const std::string kind = r.string("kind", true).value_or("scalar");
        if (kind == "history") {
          d.history = true;
        } else if (kind != "scalar") {
          problems.add(r.at("kind"), "expected \"scalar\" or \"history\", got \"" + kind + "\"");
        }
        d.form = read_form(r);
        d.note = read_annotation(r);
        r.finish();
        study.responses.push_back(d);
      });
}

void read_constants(const json& node, Study& study, Problems& problems) {
  if (!expect_object(node, "constants", problems)) return;
  for (const auto& [name, value] : node.items()) {
    const std::string at = "constants." + name;
    if (value.is_number() && std::isfinite(value.get<double>())) {
      study.constants[name] = value.get<double>();
    } else {
      problems.add(at, "expected a number, got " + json_type_name(value));
    }
  }
}

void read_data(const json& node, Study& study, Problems& problems) {
  if (!expect_object(node, "data", problems)) return;
  for (const auto& [name, value] : node.items()) {
    const std::string at = "data." + name;
    if (!expect_array(value, at, problems)) continue;
    if (value.empty()) problems.add(at, "expected at least one number");
    std::vector<double> values;
    for (size_t i = 0; i < value.size(); ++i) {
      if (value[i].is_number() && std::isfinite(value[i].get<double>())) {
        values.push_back(value[i].get<double>());
      } else {
        problems.add(indexed(at, i), "expected a number, got " + json_type_name(value[i]));
      }
    }
    study.data[name] = values;
  }
}

void read_relations(const json& node, Study& study, Problems& problems) {
  if (!expect_object(node, "relations", problems)) return;
  for (const auto& [name, value] : node.items()) {
    std::string at = "relations." + name;
    std::string text;
    if (value.is_string()) {
      text = value.get<std::string>();
    } else if (value.is_object()) {
      // {"expression": "...", "unit": "...", "label": "..."}
      JsonReader r(value, at, problems);
      text = r.string("expression", true).value_or("");
      study.relation_notes[name] = read_annotation(r);
      r.finish();
      at = r.at("expression");
      if (text.empty()) continue;
    } else {
      problems.add(at,
                   "expected an expression (a string) or an object {\"expression\", "
                   "\"unit\", \"label\"}, got " +
                       json_type_name(value));
      continue;
    }
    study.relations[name] = text;
    // A relation that does not parse is reported here once; its uses see a placeholder.
    const expr::AstPtr ast = parse_at(text, at, problems);
    study.symbols.relations[name] = ast ? ast : expr::number_node(0.0);
  }
}

void check_names(const Study& study, Problems& problems) {
  std::map<std::string, std::string> seen;
  auto check = [&](const std::string& name, const std::string& path) {
    if (name.empty()) return;
    auto [it, inserted] = seen.emplace(name, path);
    if (!inserted)
      problems.add(path + ".name", "\"" + name + "\" is already used by " + it->second);
  };
  for (size_t i = 0; i < study.design.size(); ++i)
    check(study.design[i].name, indexed("design_variables", i));
  for (size_t i = 0; i < study.auxiliaries.size(); ++i) {
    check(study.auxiliaries[i].name, indexed("auxiliary_variables", i));
  }
  for (const auto& [name, value] : study.constants) check(name, "constants." + name);
  for (const auto& [name, value] : study.data) check(name, "data." + name);
  for (const auto& [name, value] : study.relations) check(name, "relations." + name);
  for (size_t i = 0; i < study.responses.size(); ++i)
    check(study.responses[i].name, indexed("responses", i));
  auto check_identifier = [&](const std::string& name, const std::string& path) {
    if (!name.empty() && !identifier(name)) {
      problems.add(path, "\"" + name +
                             "\" cannot be used in expressions: names are letters, digits and _, "
                             "not starting with a digit");
    }
  };
  for (size_t i = 0; i < study.design.size(); ++i)
    check_identifier(study.design[i].name, indexed("design_variables", i) + ".name");
  for (size_t i = 0; i < study.auxiliaries.size(); ++i)
    check_identifier(study.auxiliaries[i].name, indexed("auxiliary_variables", i) + ".name");
  for (size_t i = 0; i < study.responses.size(); ++i)
    check_identifier(study.responses[i].name, indexed("responses", i) + ".name");
  for (size_t i = 0; i < study.load_cases.size(); ++i)
    check_identifier(study.load_cases[i].name, indexed("load_cases", i) + ".name");
  for (const auto& [name, value] : study.constants) check_identifier(name, "constants." + name);
  for (const auto& [name, value] : study.data) check_identifier(name, "data." + name);
  for (const auto& [name, value] : study.relations) check_identifier(name, "relations." + name);
  std::set<std::string> cases;
  for (size_t i = 0; i < study.load_cases.size(); ++i) {
    if (!cases.insert(study.load_cases[i].name).second) {
      problems.add(indexed("load_cases", i) + ".name",
                   "duplicate load case \"" + study.load_cases[i].name + "\"");
    }
  }
}

// What names mean in the study's expressions (symbols.relations is filled by read_relations).
void build_symbols(Study& study) {
  expr::Symbols& s = study.symbols;
  s.variables.clear();
  for (const auto& v : study.design) s.variables.push_back(v.name);
  for (const auto& a : study.auxiliaries) s.variables.push_back(a.name);
  for (const auto& r : study.responses) s.responses.push_back({r.name, r.history});
  for (const auto& lc : study.load_cases) {
    s.cases.push_back({lc.name, lc.grid.points >= 2 ? lc.grid.times() : std::vector<double>{}});
  }
  s.constants = study.constants;
  s.data = study.data;
}

// Derived responses: explicit relations of simulator responses and design variables, one
// program per load case, with the shape their "kind" declares.
void bind_derived(Study& study, Problems& problems) {
  expr::Symbols base = study.symbols;
  base.variables.clear();
  for (const auto& v : study.design) base.variables.push_back(v.name);
  base.responses.clear();  // every response, derived ones too (chained, in study order)
  for (const auto& r : study.responses) base.responses.push_back({r.name, r.history});
  for (size_t i = 0; i < study.responses.size(); ++i) {
    ResponseDef& d = study.responses[i];
    if (d.expression.empty()) continue;
    const std::string at = indexed("responses", i) + ".expression";
    const expr::AstPtr ast = parse_at(d.expression, at, problems);
    if (!ast) continue;
    for (size_t c = 0; c < study.load_cases.size(); ++c) {
      auto program = compile(ast, base, static_cast<int>(c), at, problems);
      if (!program) break;
      const int points = study.load_cases[c].grid.points;
      if (d.history && !(program->is_series() && program->points() == points)) {
        problems.add(at, "is declared a history but its value is " +
                             (program->is_series()
                                  ? "a series of " + std::to_string(program->points()) + " points"
                                  : std::string("a scalar")) +
                             ", not one value per point of load case \"" +
                             study.load_cases[c].name + "\"");
        break;
      }
      if (!d.history && program->is_series()) {
        problems.add(at,
                     "is declared a scalar but its value is a series: reduce it (sum, mean, "
                     "trapz, [k])");
        break;
      }
      bool other_case = false;
      expr::for_each_response_read(*program, 0, [&](int, int load_case, int) {
        other_case = other_case || load_case != static_cast<int>(c);
      });
      if (other_case) {
        problems.add(at,
                     "reads another load case (@case): a derived response is computed per "
                     "load case from that case's responses");
        break;
      }
      d.derived.push_back(program);
    }
    if (d.derived.size() != study.load_cases.size()) d.derived.clear();
  }
  std::string cycle;
  int where = -1;
  derived_order(study, &cycle, &where);
  if (!cycle.empty()) {
    problems.add(indexed("responses", static_cast<size_t>(where)) + ".expression",
                 "derived responses read one another in a cycle: " + cycle);
  }
}

}  // namespace sao::loading
