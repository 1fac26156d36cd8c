// How the program that hosts a study session names the actions the store's messages advise:
// the command line's commands (`sao restart DIR --from-cycle K`) or the Python package's
// methods (`Session.restart(from_cycle=K)`). Each message is written once, with the host's words.
#pragma once

#include <string>

namespace sao {

class ActionNames {
 public:
  enum class Host { command_line, python };
  explicit ActionNames(Host host = Host::command_line) : host_(host) {}

  // What failed, before its problems: "sao set" | "Session.set", and likewise.
  std::string set() const;
  std::string undo_set() const;
  std::string restart() const;
  // An argument of restart: "--from-cycle" | "from_cycle", "--from-reported" | "from_reported".
  std::string from_cycle() const;
  std::string from_reported() const;
  // Advice, quoted: "`sao set`" | "`Session.set([...])`"; "`sao run` it" | "run it
  // (`Session.run()`)".
  std::string set_advice() const;
  std::string run_advice() const;
  // A restart from cycle `cycle` (a number, or "K"), with `study` (a file, "FILE") when given,
  // of the store in folder `dir` ("DIR": the one the session has open).
  std::string restart_advice(const std::string& cycle, const std::string& study = {},
                             const std::string& dir = "DIR") const;
  // Where another study's run goes: "(--out DIR)" | "(another `out`, or sao.Session(DIR,
  // study=...))".
  std::string other_folder() const;
  // What a restart with another study does not apply: "--set or --start" | "overrides or start".
  std::string options_restart_ignores() const;

 private:
  Host host_;
};

}  // namespace sao
