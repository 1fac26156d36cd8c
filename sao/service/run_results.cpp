#include "sao/service/run_results.hpp"

#include <spdlog/spdlog.h>

#include "sao/report/report.hpp"

namespace sao {

bool write_run_results(const StudySession& session, const std::string& dir, bool final) {
  const RunSummary& s = session.driver().summary();
  const bool keep = session.status_at_open() == "converged" && s.status != RunStatus::kConverged;
  if (keep) {
    if (final) {
      spdlog::warn(
          "{}/result.json and history.csv of the converged run are kept: this run "
          "ended {}: {}",
          dir, to_string(s.status), s.message);
    }
    return false;
  }
  write_results(dir, session.study(), s);
  return true;
}

}  // namespace sao
