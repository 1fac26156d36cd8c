#include <algorithm>

#include "simulators/multibody/parser_detail.hpp"

namespace sao::sim::multibody::parsing {

void Parser::read_force(const json& f, size_t i, const std::string& fp) {
  Force force;
  force.name = string_at(f, "name", fp, "force" + std::to_string(i + 1));
  const std::string type = string_at(f, "type", fp);
  if (type == "spring_damper" || type == "rotational_spring_damper") {
    only_keys(f,
              {"type", "name", "bodies", "points", "stiffness", "damping", "length", "angle",
               "force", "law", "damper"},
              fp);
    if (type != "spring_damper" && (f.contains("law") || f.contains("damper"))) {
      bad(fp, "\"law\" and \"damper\" belong to a spring_damper");
    }
    force.kind = type == "spring_damper" ? ForceKind::kSpringDamper : ForceKind::kRotational;
    bodies_and_points(f, fp, force.a, force.b, force.pa, force.pb);
    force.stiffness = quantity(f.value("stiffness", json(0.0)), fp + ".stiffness");
    force.damping = quantity(f.value("damping", json(0.0)), fp + ".damping");
    force.length =
        quantity(f.value(force.kind == ForceKind::kRotational ? "angle" : "length", json(0.0)),
                 fp + (force.kind == ForceKind::kRotational ? ".angle" : ".length"));
    force.preload = quantity(f.value("force", json(0.0)), fp + ".force");
    if (f.contains("law")) {
      force.has_law = true;
      force.law = quantity(f.at("law"), fp + ".law", false, {"d", "v"});
    }
    if (f.contains("damper")) {
      const std::string dp = fp + ".damper";
      const json& d = f.at("damper");
      only_keys(d, {"compression", "rebound", "weight"}, dp);
      force.has_damper = true;
      for (const char* stage : {"compression", "rebound"}) {
        const json& b = d.value(stage, json());
        if (!b.is_array() || b.size() != 4) {
          bad(dp + "." + stage, "expected [B0, B1, B2, B3] (bleed, preload, blow-off, port)");
        }
        Quantity* out = std::string(stage) == "compression" ? force.compression : force.rebound;
        for (int k = 0; k < 4; ++k) {
          out[k] = quantity(b[k], dp + "." + stage + "[" + std::to_string(k) + "]");
        }
      }
      force.weight = quantity(d.value("weight", json(1.0)), dp + ".weight", false, {"d"});
    }
  } else if (type == "point_force" || type == "torque") {
    read_applied(f, fp, type, force);
  } else {
    bad(fp + ".type",
        "expected \"spring_damper\", \"rotational_spring_damper\", \"point_force\" or "
        "\"torque\", got " +
            json_excerpt(f.value("type", json())));
  }
  model_.forces.push_back(force);
}

// A point force {"body", "point", "force": [fx, fy], "frame": "world" | "body"} or a torque
// {"body" | "bodies": [reaction, body], "torque"}; their values may read t and the states of
// their bodies.
void Parser::read_applied(const json& f, const std::string& fp, const std::string& type,
                          Force& force) {
  if (type == "torque") {
    only_keys(f, {"type", "name", "body", "bodies", "torque"}, fp);
    force.kind = ForceKind::kTorque;
    if (f.contains("body") == f.contains("bodies")) {
      bad(fp, "give \"body\" (the ground reacts) or \"bodies\": [reaction, body]");
    }
    if (f.contains("body")) {
      force.b = body_index(f.at("body"), fp + ".body");
    } else {
      const json& bs = f.at("bodies");
      if (!bs.is_array() || bs.size() != 2) bad(fp + ".bodies", "expected [reaction, body]");
      force.a = body_index(bs[0], fp + ".bodies[0]");
      force.b = body_index(bs[1], fp + ".bodies[1]");
      if (force.a == force.b) bad(fp + ".bodies", "a torque acts between two different bodies");
    }
    if (force.b < 0) bad(fp + ".body", "a torque on the ground does nothing");
    if (!f.contains("torque")) bad(fp + ".torque", "missing (N m, counter-clockwise positive)");
    force.torque = state_quantity(f.at("torque"), fp + ".torque", force.a, force.b);
    return;
  }
  only_keys(f, {"type", "name", "body", "point", "force", "frame"}, fp);
  force.kind = ForceKind::kPointForce;
  force.b = body_index(f.value("body", json()), fp + ".body");
  if (force.b < 0) bad(fp + ".body", "a force on the ground does nothing");
  force.pb = point(force.b, f.value("point", json::array({0.0, 0.0})), fp + ".point");
  const json frame = f.value("frame", json("world"));
  if (frame != "world" && frame != "body") {
    bad(fp + ".frame",
        "expected \"world\" or \"body\" (turning with the body), got " + json_excerpt(frame));
  }
  force.body_fixed = frame == "body";
  const json fv = f.value("force", json());
  if (!fv.is_array() || fv.size() != 2) bad(fp + ".force", "expected [fx, fy]");
  force.fx = state_quantity(fv[0], fp + ".force[0]", force.a, force.b);
  force.fy = state_quantity(fv[1], fp + ".force[1]", force.a, force.b);
}

Quantity Parser::state_quantity(const json& v, const std::string& path, int a, int b) {
  std::vector<std::string> own, all;  // the states of bodies a and b; of every body
  for (size_t body = 0; body < model_.bodies.size(); ++body) {
    for (int c = 0; c < 6; ++c) {
      const std::string name = model_.bodies[body].name + "_" + kCoordinates[c];
      all.push_back(name);
      if (static_cast<int>(body) == a || static_cast<int>(body) == b) own.push_back(name);
    }
  }
  if (v.is_string()) {  // a state of another body: named, before the expression is bound
    const Quantity wide = quantity(v, path, true, all);
    const int first = static_cast<int>(model_.symbols.variables.size());
    for (int i : expr::variables_read(*wide.program)) {
      if (i < first || std::find(own.begin(), own.end(), all[i - first]) != own.end()) continue;
      std::string allowed;
      for (const int body : {a, b}) {
        if (body >= 0) allowed += (allowed.empty() ? "" : ", ") + model_.bodies[body].name;
      }
      bad(path, "reads " + all[i - first] + ", a state of another body: it may read t, the " +
                    "parameters and the states of its own body (" + allowed + ")");
    }
  }
  return quantity(v, path, true, own);
}

}  // namespace sao::sim::multibody::parsing
