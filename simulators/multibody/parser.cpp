#include "simulators/multibody/parser.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "simulators/multibody/beam.hpp"
#include "simulators/multibody/parser_detail.hpp"

namespace sao::sim::multibody {
namespace parsing {

Quantity Parser::quantity(const json& v, const std::string& path, bool time,
                          const std::vector<std::string>& extra) {
  Quantity q;
  if (v.is_number()) {
    q.constant = v.get<double>();
    if (!std::isfinite(q.constant)) bad(path, "expected a finite number");
    return q;
  }
  if (!v.is_string()) bad(path, "expected a number or an expression, got " + json_excerpt(v));
  expr::Symbols symbols = model_.symbols;
  symbols.variables.insert(symbols.variables.end(), extra.begin(), extra.end());
  try {
    q.program = expr::bind(expr::parse(v.get<std::string>()), symbols, -1);
  } catch (const expr::Error& e) {
    bad(path, e.what());
  }
  if (q.program->is_series()) bad(path, "expected a scalar expression");
  const int n_parameters = static_cast<int>(model_.parameter_names.size());
  const int t_index = n_parameters;  // model_.symbols: parameters, t, load-case parameters
  bool reads_t = false;
  for (int i : expr::variables_read(*q.program)) {
    if (i < n_parameters) q.parameters.push_back(i);
    reads_t = reads_t || i == t_index;
  }
  // Only drivers and point forces may depend on t.
  if (reads_t && !time) bad(path, "may not depend on the time t");
  if (!reads_t && extra.empty()) {  // a function of the parameters only: frozen in a run
    q.frozen = static_cast<int>(model_.frozen.size());
    model_.frozen.push_back(q.program);
  }
  return q;
}

Motion Parser::motion(const json& v, const std::string& path) {
  Motion m;
  if (!v.is_object()) {
    m.value = quantity(v, path, true);
    return m;
  }
  only_keys(v, {"road", "select", "speed", "start"}, path);
  if (!v.contains("road") || !v.at("road").is_array() || v.at("road").empty()) {
    bad(path + ".road",
        "expected a list of road profiles [{\"name\": ..., \"height\": "
        "\"formula of x\"} or {\"name\": ..., \"table\": [[x, h], ...]}]");
  }
  const json& road = v.at("road");
  for (size_t i = 0; i < road.size(); ++i) {
    const std::string rp = path + ".road[" + std::to_string(i) + "]";
    only_keys(road[i], {"name", "height", "table"}, rp);
    Profile profile;
    profile.name = string_at(road[i], "name", rp, "profile" + std::to_string(i + 1));
    if (road[i].contains("height") == road[i].contains("table")) {
      bad(rp, "give either \"height\" (a formula of x) or \"table\" ([[x, h], ...])");
    }
    if (road[i].contains("height")) {
      profile.height = quantity(road[i].at("height"), rp + ".height", false, {"x"});
    } else {
      const json& table = road[i].at("table");
      std::vector<double> xs, hs;
      if (!table.is_array() || table.size() < 4) {
        bad(rp + ".table", "expected at least 4 points [[x, h], ...]");
      }
      for (size_t k = 0; k < table.size(); ++k) {
        const json& row = table[k];
        const std::string kp = rp + ".table[" + std::to_string(k) + "]";
        if (!row.is_array() || row.size() != 2 || !row[0].is_number() || !row[1].is_number()) {
          bad(kp, "expected [x, h], got " + json_excerpt(row));
        }
        xs.push_back(row[0].get<double>());
        hs.push_back(row[1].get<double>());
        if (!std::isfinite(xs.back()) || !std::isfinite(hs.back())) bad(kp, "not finite");
        if (k > 0 && !(xs[k] > xs[k - 1])) bad(kp, "x must increase along the table");
      }
      profile.first = xs.front();
      profile.last = xs.back();
      profile.table = std::make_shared<boost::math::interpolators::pchip<std::vector<double>>>(
          std::move(xs), std::move(hs));
    }
    m.profiles.push_back(std::move(profile));
  }
  if (v.contains("select")) {
    const json& sel = v.at("select");
    if (!sel.is_string() || std::find(model_.load_names.begin(), model_.load_names.end(),
                                      sel.get<std::string>()) == model_.load_names.end()) {
      bad(path + ".select",
          "expected the name of a load-case parameter declared in "
          "\"load_parameters\", got " +
              json_excerpt(sel));
    }
    m.select = sel.get<std::string>();
    m.select_default =
        model_
            .load_defaults[std::find(model_.load_names.begin(), model_.load_names.end(), m.select) -
                           model_.load_names.begin()];
  } else if (m.profiles.size() > 1) {
    bad(path + ".select", "missing: the load-case parameter that picks one of the " +
                              std::to_string(m.profiles.size()) + " profiles (1-based)");
  }
  if (!v.contains("speed")) bad(path + ".speed", "missing (m/s; may be an expression)");
  m.speed = quantity(v.at("speed"), path + ".speed");
  m.start = quantity(v.value("start", json(0.0)), path + ".start");
  return m;
}

int Parser::body_index(const json& v, const std::string& path) const {
  if (!v.is_string()) bad(path, "expected a body name, got " + json_excerpt(v));
  const std::string name = v.get<std::string>();
  if (name == "ground") return -1;
  for (size_t i = 0; i < model_.bodies.size(); ++i) {
    if (model_.bodies[i].name == name) return static_cast<int>(i);
  }
  std::string known = "ground";
  for (const auto& b : model_.bodies) known += ", " + b.name;
  bad(path, "unknown body \"" + name + "\" (bodies: " + known + ")");
}

Point Parser::point(int body, const json& v, const std::string& path) {
  if (!v.is_array() || v.size() != 2) bad(path, "expected [u, v], got " + json_excerpt(v));
  Point pt;
  pt.body = body;
  // From the reference frame to the centre (beam nodes, read after the bodies, have none).
  if (body >= 0 && static_cast<size_t>(body) < centre_.size() && !centre_[body].first.empty()) {
    pt.u = quantity(json(text(v[0], path + "[0]") + "-" + centre_[body].first), path + "[0]");
    pt.v = quantity(json(text(v[1], path + "[1]") + "-" + centre_[body].second), path + "[1]");
    return pt;
  }
  pt.u = quantity(v[0], path + "[0]");
  pt.v = quantity(v[1], path + "[1]");
  return pt;
}

void Parser::bodies_and_points(const json& o, const std::string& path, int& a, int& b, Point& pa,
                               Point& pb) {
  const json& bs = o.value("bodies", json());
  if (!bs.is_array() || bs.size() != 2) bad(path + ".bodies", "expected [first, second]");
  a = body_index(bs[0], path + ".bodies[0]");
  b = body_index(bs[1], path + ".bodies[1]");
  const json pts =
      o.value("points", json::array({json::array({0.0, 0.0}), json::array({0.0, 0.0})}));
  if (!pts.is_array() || pts.size() != 2) bad(path + ".points", "expected [[u, v], [u, v]]");
  pa = point(a, pts[0], path + ".points[0]");
  pb = point(b, pts[1], path + ".points[1]");
}

void Parser::read(const json& m, const std::string& path) {
  guarded(path, [&] {
    only_keys(m,
              {"analysis", "parameters", "load_parameters", "gravity", "bodies", "beams", "joints",
               "forces", "initial", "points", "integrals", "baumgarte", "max_step", "integrator",
               "coordinates", "linear_algebra", "jacobian_age"},
              path);
  });
  read_symbols(m, path);
  read_bodies(m, path);
  for_each_entry(m, "beams", path,
                 [&](const json& e, size_t i, const std::string& p) { read_beam(e, i, p); });
  for_each_entry(m, "joints", path,
                 [&](const json& e, size_t i, const std::string& p) { read_joint(e, i, p); });
  for_each_entry(m, "forces", path,
                 [&](const json& e, size_t i, const std::string& p) { read_force(e, i, p); });
  read_settings(m, path);
  read_initial(m, path);
  if (problems_.empty()) check_counts(m, path);
  read_points(m, path);
  for (const Beam& beam : model_.beams) {
    for (int w = 0; w < beam_output_kinds(beam); ++w) {
      for (int k = 0; k <= beam.elements; ++k) {
        model_.history_names.push_back(beam.name + "." + kBeamOutputs[w] + std::to_string(k));
      }
    }
  }
  read_integrals(m, path);
  record_reads();
}

void Parser::read_symbols(const json& m, const std::string& path) {
  if (!m.is_object()) return;
  guarded(path + ".analysis", [&] {
    if (m.contains("analysis")) {
      if (m.at("analysis") == "kinematic") {
        model_.dynamic = false;
      } else if (m.at("analysis") != "dynamic") {
        bad(path + ".analysis",
            "expected \"dynamic\" or \"kinematic\", got " + json_excerpt(m.at("analysis")));
      }
    }
  });
  guarded(path + ".parameters", [&] {
    if (m.contains("parameters")) {
      if (!m.at("parameters").is_object()) bad(path + ".parameters", "expected an object");
      for (const auto& [name, value] : m.at("parameters").items()) {
        if (!value.is_number())
          bad(path + ".parameters." + name, "expected a number (its default)");
        model_.parameter_names.push_back(name);
        model_.parameter_defaults.push_back(value.get<double>());
      }
    }
  });
  guarded(path + ".load_parameters", [&] {
    if (m.contains("load_parameters")) {
      const json& lp = m.at("load_parameters");
      if (!lp.is_object()) bad(path + ".load_parameters", "expected an object name -> default");
      for (const auto& [name, value] : lp.items()) {
        if (!value.is_number()) {
          bad(path + ".load_parameters." + name, "expected a number (its default)");
        }
        if (std::find(model_.parameter_names.begin(), model_.parameter_names.end(), name) !=
                model_.parameter_names.end() ||
            name == "t") {
          bad(path + ".load_parameters." + name, "already a model parameter or the time");
        }
        model_.load_names.push_back(name);
        model_.load_defaults.push_back(value.get<double>());
      }
    }
  });
  model_.symbols.variables = model_.parameter_names;
  model_.symbols.variables.push_back("t");
  model_.symbols.variables.insert(model_.symbols.variables.end(), model_.load_names.begin(),
                                  model_.load_names.end());
}

void Parser::read_bodies(const json& m, const std::string& path) {
  const json* bodies = nullptr;
  guarded(path + ".bodies", [&] {
    const bool beams = m.is_object() && m.contains("beams");  // a model of beams only
    bodies = &array_at(m, "bodies", path, !beams);
    if (bodies->empty() && !beams) bad(path + ".bodies", "at least one body is needed");
  });
  if (!bodies) return;
  for (size_t i = 0; i < bodies->size(); ++i) {
    guarded(at(path + ".bodies", i), [&] {
      const std::string bp = at(path + ".bodies", i);
      const json& b = (*bodies)[i];
      only_keys(b,
                {"name", "mass", "inertia", "position", "angle", "velocity", "angular_velocity",
                 "centre_of_mass"},
                bp);
      Body body;
      if (!b.contains("name") || !b.at("name").is_string()) bad(bp + ".name", "missing");
      body.name = b.at("name").get<std::string>();
      if (body.name == "ground") bad(bp + ".name", "\"ground\" is the fixed frame");
      for (const Body& other : model_.bodies) {
        if (other.name == body.name) bad(bp + ".name", "duplicate body \"" + body.name + "\"");
      }
      // Kinematic models need masses only for the joint reactions (inverse dynamics).
      if (model_.dynamic && !b.contains("mass"))
        bad(bp + ".mass", "missing (a dynamic model needs it)");
      if (model_.dynamic && !b.contains("inertia")) {
        bad(bp + ".inertia", "missing (a dynamic model needs it)");
      }
      body.mass = quantity(b.value("mass", json(0.0)), bp + ".mass");
      body.inertia = quantity(b.value("inertia", json(0.0)), bp + ".inertia");
      const json pos = b.value("position", json::array({0.0, 0.0}));
      const json vel = b.value("velocity", json::array({0.0, 0.0}));
      if (!pos.is_array() || pos.size() != 2) bad(bp + ".position", "expected [x, y]");
      if (!vel.is_array() || vel.size() != 2) bad(bp + ".velocity", "expected [vx, vy]");
      body.x = quantity(pos[0], bp + ".position[0]");
      body.y = quantity(pos[1], bp + ".position[1]");
      body.angle = quantity(b.value("angle", json(0.0)), bp + ".angle");
      body.vx = quantity(vel[0], bp + ".velocity[0]");
      body.vy = quantity(vel[1], bp + ".velocity[1]");
      body.omega = quantity(b.value("angular_velocity", json(0.0)), bp + ".angular_velocity");
      read_centre(b, bp, pos, vel, body);
      model_.bodies.push_back(body);
    });
  }
}

// "centre_of_mass": [u, v] in the reference frame: the body's coordinates are those of its
// centre, so the given position and velocity (of the reference point) move to it.
void Parser::read_centre(const json& b, const std::string& bp, const json& pos, const json& vel,
                         Body& body) {
  const json c = b.value("centre_of_mass", json::array({0.0, 0.0}));
  const std::string cp = bp + ".centre_of_mass";
  if (!c.is_array() || c.size() != 2) bad(cp, "expected [u, v] in the body's reference frame");
  const std::string u = text(c[0], cp + "[0]"), v = text(c[1], cp + "[1]");
  if (c[0] == 0.0 && c[1] == 0.0) {
    centre_.emplace_back();
    return;
  }
  centre_.emplace_back(u, v);
  const std::string th = text(b.value("angle", json(0.0)), bp + ".angle"),
                    w = text(b.value("angular_velocity", json(0.0)), bp + ".angular_velocity");
  const std::string ax = "(cos" + th + "*" + u + "-sin" + th + "*" + v + ")",  // A c
      ay = "(sin" + th + "*" + u + "+cos" + th + "*" + v + ")";
  body.x = quantity(json(text(pos[0], bp + ".position[0]") + "+" + ax), bp + ".position[0]");
  body.y = quantity(json(text(pos[1], bp + ".position[1]") + "+" + ay), bp + ".position[1]");
  body.vx =
      quantity(json(text(vel[0], bp + ".velocity[0]") + "-" + w + "*" + ay), bp + ".velocity[0]");
  body.vy =
      quantity(json(text(vel[1], bp + ".velocity[1]") + "+" + w + "*" + ax), bp + ".velocity[1]");
}

double Parser::at_defaults(const Quantity& q) const {
  Env<double> env;
  env.symbols = model_.parameter_defaults;
  env.t_index = static_cast<int>(env.symbols.size());
  env.symbols.push_back(0.0);
  env.symbols.insert(env.symbols.end(), model_.load_defaults.begin(), model_.load_defaults.end());
  return q.at(env);
}

// A straight beam of `elements` elements from `start` along `angle`: node bodies <name>_<k>
// (k = 0 .. elements) with the beam elements between them.
void Parser::read_beam(const json& b, size_t i, const std::string& bp) {
  only_keys(b,
            {"name", "elements", "start", "angle", "length", "area", "second_moment",
             "section_modulus", "density", "modulus", "damping", "velocity", "angular_velocity"},
            bp);
  if (!model_.dynamic) bad(bp, "beams need a dynamic analysis");
  Beam beam;
  beam.name = string_at(b, "name", bp, "beam" + std::to_string(i + 1));
  const json& n = b.value("elements", json());
  if (!n.is_number_integer() || n.get<long long>() < 1 || n.get<long long>() > 1000) {
    bad(bp + ".elements",
        "expected a whole number of elements (1 to 1000), got " + json_excerpt(n));
  }
  beam.elements = n.get<int>();
  // A required quantity, positive (or non-negative) at the parameters' defaults.
  auto positive = [&](const char* key, bool zero_allowed) {
    const std::string kp = bp + "." + key;
    if (!b.contains(key)) bad(kp, "missing");
    Quantity q = quantity(b.at(key), kp);
    const double v = at_defaults(q);
    if (!(zero_allowed ? v >= 0.0 : v > 0.0)) {
      bad(kp, std::string(zero_allowed ? "must not be negative" : "must be positive") + ", is " +
                  std::to_string(v) + " at the parameters' defaults");
    }
    return q;
  };
  const Quantity length = positive("length", false);
  BeamElement element;
  element.beam = beam.name;
  element.area = positive("area", false);
  element.second_moment = positive("second_moment", false);
  element.modulus = positive("modulus", false);
  element.density = positive("density", false);
  element.damping = b.contains("damping") ? positive("damping", true) : Quantity();
  if (b.contains("section_modulus")) {
    beam.has_section_modulus = true;
    beam.section_modulus = positive("section_modulus", false);
  }
  const json start = b.value("start", json::array({0.0, 0.0}));
  const json velocity = b.value("velocity", json::array({0.0, 0.0}));
  if (!start.is_array() || start.size() != 2) bad(bp + ".start", "expected [x, y]");
  if (!velocity.is_array() || velocity.size() != 2) bad(bp + ".velocity", "expected [vx, vy]");
  const std::string x0 = text(start[0], bp + ".start[0]"), y0 = text(start[1], bp + ".start[1]");
  const std::string vx = text(velocity[0], bp + ".velocity[0]"),
                    vy = text(velocity[1], bp + ".velocity[1]");
  const std::string angle = text(b.value("angle", json(0.0)), bp + ".angle");
  const std::string omega = text(b.value("angular_velocity", json(0.0)), bp + ".angular_velocity");
  const std::string L = text(b.at("length"), bp + ".length");
  element.length = quantity(json(L + "/" + std::to_string(beam.elements)), bp + ".length");
  beam.first = static_cast<int>(model_.beam_elements.size());
  for (int k = 0; k <= beam.elements; ++k) {
    Body node;
    node.name = beam.name + "_" + std::to_string(k);
    for (const Body& other : model_.bodies) {
      if (other.name == node.name) bad(bp + ".name", "body \"" + node.name + "\" exists already");
    }
    const std::string along =
        "(" + std::to_string(k) + "/" + std::to_string(beam.elements) + "*" + L + ")";
    const std::string dx = along + "*cos" + angle, dy = along + "*sin" + angle;
    node.x = quantity(json(x0 + "+" + dx), bp + ".start[0]");
    node.y = quantity(json(y0 + "+" + dy), bp + ".start[1]");
    node.angle = quantity(json(angle), bp + ".angle");
    node.vx = quantity(json(vx + "-" + omega + "*" + dy), bp + ".velocity[0]");
    node.vy = quantity(json(vy + "+" + omega + "*" + dx), bp + ".velocity[1]");
    node.omega = quantity(json(omega), bp + ".angular_velocity");
    beam.nodes.push_back(static_cast<int>(model_.bodies.size()));
    model_.bodies.push_back(node);
    if (k > 0) {
      element.a = beam.nodes[k - 1];
      element.b = beam.nodes[k];
      model_.beam_elements.push_back(element);
    }
  }
  model_.beams.push_back(beam);
}

void Parser::read_joint(const json& j, size_t i, const std::string& jp) {
  Joint joint;
  joint.name = string_at(j, "name", jp, "joint" + std::to_string(i + 1));
  const std::string type = string_at(j, "type", jp);
  if (type == "driver") {
    only_keys(j, {"type", "name", "body", "coordinate", "motion"}, jp);
    joint.kind = JointKind::kDriver;
    joint.b = body_index(j.value("body", json()), jp + ".body");
    if (joint.b < 0) bad(jp + ".body", "the ground does not move");
    const json c = j.value("coordinate", json());
    joint.coordinate = c == "x" ? 0 : (c == "y" ? 1 : (c == "angle" ? 2 : -1));
    if (joint.coordinate < 0) {
      bad(jp + ".coordinate", "expected \"x\", \"y\" or \"angle\", got " + json_excerpt(c));
    }
    if (!j.contains("motion")) bad(jp + ".motion", "missing: an expression of t or a road");
    joint.motion = motion(j.at("motion"), jp + ".motion");
    model_.joints.push_back(joint);
    return;
  }
  only_keys(j, {"type", "name", "bodies", "points", "axis", "angle", "distance"}, jp);
  if (type == "translational_driver") {
    joint.kind = JointKind::kTranslationalDriver;
    if (!j.contains("distance")) bad(jp + ".distance", "missing: an expression of t");
    if (j.contains("angle")) bad(jp + ".angle", "belongs to an angle driver or a joint");
    joint.distance = quantity(j.at("distance"), jp + ".distance", true);
  } else if (j.contains("distance")) {
    bad(jp + ".distance", "belongs to a translational_driver");
  }
  if (type == "revolute") {
    joint.kind = JointKind::kRevolute;
  } else if (type == "translational") {
    joint.kind = JointKind::kTranslational;
  } else if (type == "angle_driver") {
    joint.kind = JointKind::kAngleDriver;
  } else if (type == "fixed") {
    joint.kind = JointKind::kFixed;
  } else if (type != "translational_driver") {
    bad(jp + ".type",
        "expected \"revolute\", \"translational\", \"angle_driver\", "
        "\"translational_driver\", \"fixed\" or \"driver\", got " +
            json_excerpt(j.value("type", json())));
  }
  bodies_and_points(j, jp, joint.a, joint.b, joint.pa, joint.pb);
  if (joint.a == joint.b) bad(jp + ".bodies", "a joint connects two different bodies");
  joint.axis = quantity(j.value("axis", json(0.0)), jp + ".axis");
  joint.angle =
      quantity(j.value("angle", json(0.0)), jp + ".angle", joint.kind == JointKind::kAngleDriver);
  model_.joints.push_back(joint);
}

void Parser::read_settings(const json& m, const std::string& path) {
  if (!m.is_object()) return;
  guarded(path + ".max_step", [&] {
    if (m.contains("max_step")) {
      model_.has_max_step = true;
      model_.max_step = quantity(m.at("max_step"), path + ".max_step");
    }
  });
  guarded(path + ".gravity", [&] {
    const json g = m.value("gravity", json::array({0.0, -9.81}));
    if (!g.is_array() || g.size() != 2) bad(path + ".gravity", "expected [gx, gy]");
    model_.gx = quantity(g[0], path + ".gravity[0]");
    model_.gy = quantity(g[1], path + ".gravity[1]");
  });
  guarded(path + ".integrator", [&] { read_integrator(m, path); });
  guarded(path + ".coordinates", [&] {
    const json c = m.value("coordinates", json("independent"));
    if (c != "independent" && c != "absolute") {
      bad(path + ".coordinates",
          "expected \"independent\" or \"absolute\", got " + json_excerpt(c));
    }
    model_.reduce = c == "independent";
  });
  guarded(path + ".linear_algebra", [&] {
    const json a = m.value("linear_algebra", json("auto"));
    if (a != "auto" && a != "dense" && a != "sparse") {
      bad(path + ".linear_algebra",
          "expected \"auto\", \"dense\" or \"sparse\", got " + json_excerpt(a));
    }
    using LinearAlgebra = MultibodyModel::LinearAlgebra;
    model_.linear_algebra = a == "dense"    ? LinearAlgebra::kDense
                            : a == "sparse" ? LinearAlgebra::kSparse
                                            : LinearAlgebra::kAuto;
  });
  guarded(path + ".jacobian_age", [&] {
    const json a = m.value("jacobian_age", json("auto"));
    if (a == "auto") return;
    if (!a.is_number_integer() || a.get<long>() < 0) {
      bad(path + ".jacobian_age",
          "expected \"auto\" or a whole number of steps >= 0 (0: CVODES's defaults), got " +
              json_excerpt(a));
    }
    model_.jacobian_age = a.get<long>();
  });
  guarded(path + ".baumgarte", [&] {
    if (m.contains("baumgarte")) {
      only_keys(m.at("baumgarte"), {"alpha", "beta"}, path + ".baumgarte");
      model_.alpha = number_at(m.at("baumgarte"), "alpha", path + ".baumgarte", model_.alpha);
      model_.beta = number_at(m.at("baumgarte"), "beta", path + ".baumgarte", model_.beta);
    }
  });
}

void Parser::read_integrator(const json& m, const std::string& path) {
  if (!m.contains("integrator")) return;
  const std::string ip = path + ".integrator";
  const json& v = m.at("integrator");
  only_keys(v, {"type", "step", "tolerance"}, ip);
  if (v.value("type", json()) != "variational") {
    bad(ip + ".type", "expected \"variational\" (the default is CVODES), got " +
                          json_excerpt(v.value("type", json())));
  }
  auto positive = [&](const char* key, double fallback) {
    if (!v.contains(key) && fallback > 0.0) return fallback;
    const json& x = v.value(key, json());
    if (!x.is_number() || !(x.get<double>() > 0.0)) {
      bad(ip + "." + key, "expected a positive number, got " + json_excerpt(x));
    }
    return x.get<double>();
  };
  model_.variational.step = positive("step", 0.0);
  model_.variational.tolerance = positive("tolerance", model_.variational.tolerance);
  if (!model_.dynamic) bad(ip, "the variational integrator needs \"analysis\": \"dynamic\"");
  model_.variational.on = true;
}

void Parser::read_initial(const json& m, const std::string& path) {
  for_each_entry(m, "initial", path, [&](const json& e, size_t, const std::string& ip) {
    only_keys(e, {"body", "x", "y", "angle"}, ip);
    const int body = body_index(e.value("body", json()), ip + ".body");
    if (body < 0) bad(ip + ".body", "the ground does not move");
    int count = 0;
    for (int c = 0; c < 3; ++c) {
      const char* key = c == 0 ? "x" : (c == 1 ? "y" : "angle");
      if (!e.contains(key)) continue;
      ++count;
      const Body& b = model_.bodies[body];
      model_.initial_conditions.push_back({body, c, quantity(e.at(key), ip + "." + key),
                                           c == 0 ? b.vx : (c == 1 ? b.vy : b.omega)});
    }
    if (count == 0) bad(ip, "give \"x\", \"y\" or \"angle\"");
  });
}

// The counts of equations, coordinates and initial conditions (read without problems).
void Parser::check_counts(const json& m, const std::string& path) {
  const bool has_initial = !array_at(m, "initial", path).empty();
  guarded(path, [&] {
    const int m_eq = model_.n_constraints();
    if (!model_.dynamic && m_eq != model_.nq()) {
      bad(path + ".joints", "a kinematic model must be driven: " + std::to_string(m_eq) +
                                " constraint equations for " + std::to_string(model_.nq()) +
                                " coordinates (add drivers or use \"analysis\": \"dynamic\")");
    }
    if (model_.dynamic && m_eq > model_.nq()) {
      bad(path + ".joints", std::to_string(m_eq) + " constraint equations for " +
                                std::to_string(model_.nq()) + " coordinates: over-constrained");
    }
    if (model_.dynamic && has_initial &&
        m_eq + static_cast<int>(model_.initial_conditions.size()) != model_.nq()) {
      bad(path + ".initial", "assembly needs " + std::to_string(model_.nq() - m_eq) +
                                 " initial conditions (the degrees of freedom), got " +
                                 std::to_string(model_.initial_conditions.size()));
    }
  });
}

void Parser::read_points(const json& m, const std::string& path) {
  for (const Body& b : model_.bodies) {
    for (const char* c : kCoordinates) model_.history_names.push_back(b.name + "." + c);
  }
  for (const Force& f : model_.forces) {
    if (f.kind != ForceKind::kSpringDamper) continue;
    for (const char* c : {"length", "velocity", "force"})
      model_.history_names.push_back(f.name + "." + c);
  }
  for (const Joint& j : model_.joints) {
    for (const char* c : {"fx", "fy", "torque"}) model_.history_names.push_back(j.name + "." + c);
  }
  for_each_entry(m, "points", path, [&](const json& e, size_t, const std::string& mp) {
    only_keys(e, {"name", "body", "at"}, mp);
    Marker marker;
    marker.name = string_at(e, "name", mp);
    if (marker.name.empty()) bad(mp + ".name", "missing");
    if (std::find(model_.history_names.begin(), model_.history_names.end(), marker.name + ".x") !=
        model_.history_names.end()) {
      bad(mp + ".name", "\"" + marker.name + "\" already names a body or another point");
    }
    const int body = body_index(e.value("body", json()), mp + ".body");
    marker.at = point(body, e.value("at", json::array({0.0, 0.0})), mp + ".at");
    model_.markers.push_back(marker);
    for (const char* c : kPointComponents) model_.history_names.push_back(marker.name + "." + c);
  });
}

void Parser::read_integrals(const json& m, const std::string& path) {
  // Integrands see the parameters, t and every body coordinate and velocity.
  expr::Symbols integrand_symbols = model_.symbols;
  for (const Body& b : model_.bodies) {
    for (int c = 0; c < 6; ++c)
      integrand_symbols.variables.push_back(b.name + "_" + kCoordinates[c]);
  }
  for_each_entry(m, "integrals", path, [&](const json& e, size_t, const std::string& ip) {
    only_keys(e, {"name", "integrand"}, ip);
    Integral integral;
    integral.name = string_at(e, "name", ip);
    if (integral.name.empty()) bad(ip + ".name", "missing");
    if (!model_.dynamic) bad(ip, "integrals need a dynamic analysis");
    try {
      integral.integrand =
          expr::bind(expr::parse(string_at(e, "integrand", ip)), integrand_symbols, -1);
    } catch (const expr::Error& e) {
      bad(ip + ".integrand", e.what());
    }
    model_.integrals.push_back(integral);
  });
}

// What every element reads (for the element-by-element linearisation of a run).
void Parser::record_reads() {
  for (Body& b : model_.bodies) {
    for (const Quantity* q : {&b.mass, &b.inertia, &model_.gx, &model_.gy}) b.reads.add(*q);
    b.reads.finish();
  }
  for (Joint& j : model_.joints) {
    for (const Quantity* q : {&j.pa.u, &j.pa.v, &j.pb.u, &j.pb.v, &j.axis, &j.angle, &j.distance,
                              &j.motion.value, &j.motion.speed, &j.motion.start}) {
      j.reads.add(*q);
    }
    for (const Profile& profile : j.motion.profiles) j.reads.add(profile.height);
    j.reads.finish();
  }
  for (BeamElement& e : model_.beam_elements) {
    for (const Quantity* q : {&e.length, &e.area, &e.second_moment, &e.modulus, &e.density,
                              &e.damping, &model_.gx, &model_.gy}) {
      e.reads.add(*q);
    }
    e.reads.finish();
  }
  for (Force& f : model_.forces) {
    for (const Quantity* q : {&f.pa.u, &f.pa.v, &f.pb.u, &f.pb.v, &f.stiffness, &f.damping,
                              &f.length, &f.preload, &f.fx, &f.fy, &f.law, &f.weight, &f.torque}) {
      f.reads.add(*q);
    }
    for (int k = 0; k < 4; ++k) {
      f.reads.add(f.compression[k]);
      f.reads.add(f.rebound[k]);
    }
    f.reads.finish();
  }
}

}  // namespace parsing

MultibodyModel parse_multibody(const nlohmann::json& section, const std::string& path) {
  MultibodyModel model;
  Problems problems;
  parsing::Parser(model, problems).read(section, path);
  problems.throw_if_any();
  return model;
}

}  // namespace sao::sim::multibody
