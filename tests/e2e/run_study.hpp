// Runs a study of problems/ end to end, as `sao run` does: open it (open_study.hpp: overrides,
// start, the study's simulator with derived responses) and drive to the end.
#pragma once

#include <string>
#include <vector>

#include "adapters/external_simulator.hpp"
#include "sao/optimizer/driver.hpp"
#include "sao/store/study_session.hpp"
#include "sao/study/open_study.hpp"
#include "sao/study/study_loader.hpp"
#include "simulators/internal_simulator.hpp"

namespace sao {

inline RunSummary run_study(const std::string& relative,
                            const std::vector<std::string>& overrides = {}, int start = 0) {
  sim::register_internal_simulator();
  adapters::register_external_simulator();
  nlohmann::json doc = read_study_document(std::string(SAO_SOURCE_DIR) + "/" + relative);
  for (const auto& o : overrides) apply_override(doc, o);
  const OpenedStudy opened = open_study_document(std::move(doc), relative, start);
  Driver driver(opened.study, *opened.simulator, opened.study.options);
  return driver.run();
}

// Steps the stored study at `path` one cycle per session (as `sao step` does, one process per
// cycle), at most `most` times or until it ends; returns the records of the last session.
inline std::vector<CycleRecord> step_session_by_session(const std::string& path, size_t most) {
  std::vector<CycleRecord> stepped;
  for (size_t c = 0; c < most; ++c) {
    StudySession session(path, false);
    session.open();
    if (session.driver().finished()) break;
    session.step();
    stepped = session.driver().summary().history;
  }
  return stepped;
}

}  // namespace sao
