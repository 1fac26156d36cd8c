// DIR/result.json and DIR/history.csv of a study folder, written after every cycle by the one
// function both `sao run`/`sao step` (sao/cli/store_commands.cpp) and `sao serve`
// (study_host.cpp) call, so that a study driven through the service leaves the same files in
// its folder of the data directory as the command line leaves in its --out folder.
#pragma once

#include <string>

#include "sao/store/study_session.hpp"

namespace sao {

// Writes DIR/result.json and DIR/history.csv (atomically, write_results of
// sao/report/report.hpp) for the session's run, except over the results of a converged run
// (the branch was converged when the session opened) by a run that is not (yet) converged: a
// resume that failed, or one still rebuilding damaged records. `final`: the run has ended (a
// kept file is then named in a warning). Returns whether the files were written. Throws
// std::runtime_error (the folder) or StoreIoError (the write) when they cannot be written.
bool write_run_results(const StudySession& session, const std::string& dir, bool final);

}  // namespace sao
