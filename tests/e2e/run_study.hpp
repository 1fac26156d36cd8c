// Runs a study of problems/ end to end, as `sao run` does: open it (open_study.hpp: overrides,
// start, the study's simulator with derived responses) and drive to the end.
#pragma once

#include <string>
#include <vector>

#include "adapters/external_simulator.hpp"
#include "sao/optimizer/driver.hpp"
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

}  // namespace sao
