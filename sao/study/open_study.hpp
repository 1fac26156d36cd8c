// Opening a study: the one path from a study file (or document) to a Study and its simulator,
// used by every command (run, check, evaluate, check-gradient, sweep members, the session).
//
// Reads the file, applies the "path.to.key=value" overrides, validates the whole study, takes
// start k when asked, builds the simulator named by its "simulator" section (with derived
// responses on top) and checks the study's response sources against it. Every problem of the
// study and of its simulator section is reported at once in one StudyError.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sao/seam/simulator.hpp"
#include "sao/study/study.hpp"
#include "sao/study/study_loader.hpp"

namespace sao {

struct OpenedStudy {
  LoadedStudy study;
  std::unique_ptr<Simulator> simulator;
  nlohmann::json document;  // the study file with the overrides applied
};

// `start`: 0 for the study's initial design, k >= 1 for start k of its "starts".
// Throws StudyError (the file, every problem with its JSON path).
OpenedStudy open_study(const std::string& file, const std::vector<std::string>& overrides = {},
                       int start = 0);
// The same for a document already read (`source` names it in messages).
OpenedStudy open_study_document(nlohmann::json document, const std::string& source, int start = 0);

// The study's simulator (make_simulator of its "simulator" section), wrapped when the study
// declares derived responses; not checked against the study's response sources. Throws
// SectionError (every problem, naming "simulator.*") or std::invalid_argument when the
// simulator section is wrong.
std::unique_ptr<Simulator> make_study_simulator(const Study& study);

// The simulator of a loaded study (derived responses included), checked against the study's
// response sources. Problems of the simulator section become a StudyError naming `study.file`.
std::unique_ptr<Simulator> open_simulator(const Study& study);

}  // namespace sao
