// The HTML report of a study directory (`sao report DIR`): one self-contained page with SVG
// plots drawn here (no script, no style sheet or font from the network).
//
// The last box of the flow in docs/architecture.md, read back from the study store: per cycle the
// objective, the maximum violation, the approximation errors Ef and Eg, the move-limit factors
// and the design variables (scaled to their bounds); for every time-dependent constraint the
// normalised history g_hat(t) at the first and at the last design, with the bound (g_hat = 0)
// and the time points retained by the screening at those designs marked.
#pragma once

#include <string>
#include <vector>

#include "sao/report/svg_plot.hpp"
#include "sao/store/study_session.hpp"

namespace sao {

// The report of the session's current branch (its lineage), after StudySession::open().
std::string html_report(StudySession& session);

}  // namespace sao
