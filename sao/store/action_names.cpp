#include "sao/store/action_names.hpp"

namespace sao {

std::string ActionNames::set() const {
  return host_ == Host::python ? "Session.set" : "sao set";
}

std::string ActionNames::undo_set() const {
  return host_ == Host::python ? "Session.undo_set" : "sao set --undo";
}

std::string ActionNames::restart() const {
  return host_ == Host::python ? "Session.restart" : "sao restart";
}

std::string ActionNames::from_cycle() const {
  return host_ == Host::python ? "from_cycle" : "--from-cycle";
}

std::string ActionNames::from_reported() const {
  return host_ == Host::python ? "from_reported" : "--from-reported";
}

std::string ActionNames::set_advice() const {
  return host_ == Host::python ? "`Session.set([...])`" : "`sao set`";
}

std::string ActionNames::run_advice() const {
  return host_ == Host::python ? "run it (`Session.run()`)" : "`sao run` it";
}

std::string ActionNames::restart_advice(const std::string& cycle, const std::string& study,
                                        const std::string& dir) const {
  // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "`" + std::string.
  std::string out = "`";
  if (host_ == Host::python) {
    if (dir == "DIR") {
      out += "Session";
    } else {
      out += "sao.Session(\"";
      out += dir;
      out += "\")";
    }
    out += ".restart(from_cycle=";
    out += cycle;
    if (!study.empty()) {
      out += ", study=\"";
      out += study;
      out += '"';
    }
    return out + ")`";
  }
  out += "sao restart ";
  out += dir;
  out += " --from-cycle ";
  out += cycle;
  if (!study.empty()) {
    out += " --study ";
    out += study;
  }
  return out + "`";
}

std::string ActionNames::other_folder() const {
  return host_ == Host::python ? "(another `out`, or sao.Session(OTHER_DIR, study=...))"
                               : "(--out DIR)";
}

std::string ActionNames::options_restart_ignores() const {
  return host_ == Host::python ? "overrides or start" : "--set or --start";
}

}  // namespace sao
