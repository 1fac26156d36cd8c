// The reader of a "multibody" section (parser.hpp), shared by its source files: parser.cpp
// (symbols, bodies, beams, joints, settings, points, integrals) and parser_forces.cpp (force
// elements). Every problem is recorded with its path, and reading goes on.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "sao/seam/json_reader.hpp"
#include "sao/seam/json_text.hpp"
#include "simulators/multibody/model.hpp"

namespace sao::sim::multibody::parsing {

using nlohmann::json;

// One problem of the section, thrown by the reader of one element and recorded by `guarded`.
struct Problem {
  std::string path, what;
};

[[noreturn]] inline void bad(const std::string& path, const std::string& what) {
  throw Problem{path, what};
}

inline const json& array_at(const json& o, const std::string& key, const std::string& path,
                            bool required = false) {
  static const json empty = json::array();
  if (!o.is_object() || !o.contains(key)) {
    if (required) bad(path + "." + key, "missing");
    return empty;
  }
  if (!o.at(key).is_array())
    bad(path + "." + key, "expected an array, got " + json_excerpt(o.at(key)));
  return o.at(key);
}

// A string entry of the object `o` at `path` (a name, a type): `fallback` when absent; a
// problem when `o` is not an object or the entry not a string.
inline std::string string_at(const json& o, const char* key, const std::string& path,
                             const std::string& fallback = "") {
  if (!o.is_object()) bad(path, "expected an object, got " + json_excerpt(o));
  const auto it = o.find(key);
  if (it == o.end()) return fallback;
  if (!it->is_string()) bad(path + "." + key, "expected a string, got " + json_excerpt(*it));
  return it->get<std::string>();
}

// A number entry of the object `o` at `path`: `fallback` when absent; a problem when it is not
// a finite number.
inline double number_at(const json& o, const char* key, const std::string& path, double fallback) {
  const auto it = o.find(key);
  if (it == o.end()) return fallback;
  if (!it->is_number() || !std::isfinite(it->get<double>()))
    bad(path + "." + key, "expected a finite number, got " + json_excerpt(*it));
  return it->get<double>();
}

inline std::string at(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

class Parser {
 public:
  Parser(MultibodyModel& model, Problems& problems) : model_(model), problems_(problems) {}

  void read(const json& m, const std::string& path);

 private:
  // Runs read(); a problem it throws is recorded, and reading goes on with the next element.
  // A JSON library exception (a value of a kind no check expected) is recorded at `path`, the
  // element read, with the library's message without its own prefix.
  template <class Read>
  void guarded(const std::string& path, Read read) {
    try {
      read();
    } catch (const Problem& p) {
      problems_.add(p.path, p.what);
    } catch (const json::exception& e) {
      problems_.add(path, json_error_text(e));
    }
  }
  // read(entry, i, "PATH.KEY[i]") for each entry of the list m[key] (none when it is absent),
  // each guarded: every problem of every entry is reported.
  template <class Read>
  void for_each_entry(const json& m, const char* key, const std::string& path, Read read) {
    const json* list = nullptr;
    guarded(path, [&] { list = &array_at(m, key, path); });
    if (!list) return;
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string entry_path = at(path + "." + key, i);
      guarded(entry_path, [&] { read((*list)[i], i, entry_path); });
    }
  }
  // An object with no keys but `known` (each other key is a problem).
  void only_keys(const json& o, std::initializer_list<const char*> known, const std::string& path) {
    if (!o.is_object()) bad(path, "expected an object, got " + json_excerpt(o));
    JsonReader reader(o, path, problems_);
    reader.known(known);
    reader.finish();
  }
  // An expression of the symbols (parameters, t, load-case parameters) and `extra` names.
  Quantity quantity(const json& v, const std::string& path, bool time = false,
                    const std::vector<std::string>& extra = {});
  // The expression of a number or a string, checked on its own, in parentheses: to compose.
  std::string text(const json& v, const std::string& path) {
    quantity(v, path);
    return v.is_number() ? "(" + v.dump() + ")" : "(" + v.get<std::string>() + ")";
  }
  // A quantity of a point force or torque: of t, the symbols and the states of its own
  // bodies a and b (<body>_x|y|theta|vx|vy|omega, force_states in elements.hpp).
  Quantity state_quantity(const json& v, const std::string& path, int a, int b);
  void read_applied(const json& f, const std::string& fp, const std::string& type, Force& force);
  Motion motion(const json& v, const std::string& path);
  void read_integrator(const json& m, const std::string& path);
  int body_index(const json& v, const std::string& path) const;
  Point point(int body, const json& v, const std::string& path);
  // "bodies": [first, second] and "points": [[u, v], [u, v]] (default: the reference points).
  void bodies_and_points(const json& o, const std::string& path, int& a, int& b, Point& pa,
                         Point& pb);

  void read_symbols(const json& m, const std::string& path);
  void read_bodies(const json& m, const std::string& path);
  void read_centre(const json& b, const std::string& bp, const json& pos, const json& vel,
                   Body& body);
  void read_beam(const json& b, size_t i, const std::string& bp);
  double at_defaults(const Quantity& q) const;
  void read_joint(const json& j, size_t i, const std::string& jp);
  void read_force(const json& f, size_t i, const std::string& fp);
  void read_settings(const json& m, const std::string& path);
  void read_initial(const json& m, const std::string& path);
  void check_counts(const json& m, const std::string& path);
  void read_points(const json& m, const std::string& path);
  void read_integrals(const json& m, const std::string& path);
  void record_reads();

  MultibodyModel& model_;
  Problems& problems_;
  // Per body, its centre of mass (u, v) in its reference frame as expressions; empty at [0, 0].
  std::vector<std::pair<std::string, std::string>> centre_;
};

}  // namespace sao::sim::multibody::parsing
