#include "sao/cli/run_output.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "sao/report/evaluate.hpp"
#include "sao/report/report.hpp"
#include "sao/report/report_plots.hpp"
#include "sao/report/result_file.hpp"
#include "sao/report/units_json.hpp"

namespace sao::cli {

Progress resolve_progress(Progress progress) {
  if (progress != Progress::kAuto) return progress;
  return ::isatty(STDOUT_FILENO) ? Progress::kBar : Progress::kNone;
}

std::string cycle_in_words(const Study& study, const CycleRecord& r) {
  std::string text = fmt::format("cycle {}: ", r.cycle);
  if (r.x_opt.size() == 0) return text + "failed: " + r.message;
  if (r.converged && r.x_opt == r.x0) {
    text += "converged at the start design";
  } else {
    text += r.accepted ? "proposal accepted" : "proposal rejected";
    if (r.ratio != 0.0) text += fmt::format(" (actual/predicted improvement {:.3g})", r.ratio);
    if (r.converged) text += ", converged";
  }
  if (r.relaxed) text += ", subproblem relaxed (infeasible as approximated)";
  text += fmt::format(", F = {:.6g} (approximation error {:.3g} %)", r.F_opt, r.Ef);
  // The move limits: which changed for the next cycle, and how.
  std::string grown, shrunk;
  for (int i = 0; i < r.factors.size() && i < r.next_factors.size(); ++i) {
    if (static_cast<size_t>(i) >= study.design.size() || r.next_factors(i) == r.factors(i)) {
      continue;
    }
    std::string& list = r.next_factors(i) > r.factors(i) ? grown : shrunk;
    list += fmt::format("{}{} {:.3g} -> {:.3g}", list.empty() ? "" : ", ", study.design[i].name,
                        r.factors(i), r.next_factors(i));
  }
  if (!grown.empty()) text += ", move limits grown (" + grown + ")";
  if (!shrunk.empty()) text += ", move limits shrunk (" + shrunk + ")";
  if (grown.empty() && shrunk.empty()) text += ", move limits kept";
  text += fmt::format(", {} constraint(s) retained ({} rows), {} on a move limit",
                      r.retained_constraints, r.retained_rows, r.active_move_limits);
  text += fmt::format(", largest violation {:.3g} %", r.V);
  if (r.kkt_residual >= 0.0) text += fmt::format(", KKT residual {:.3g}", r.kkt_residual);
  if (!r.gradient_method.empty()) text += ", sensitivities: " + r.gradient_method;
  if (!r.message.empty()) text += "; " + r.message;
  return text;
}

std::string active_constraints(const StudySession& session, const CycleRecord& r) {
  const Study& study = session.study();
  const Eigen::VectorXd& x = r.accepted ? r.x_opt : r.x0;
  if (x.size() < study.n_design()) return {};
  const std::optional<Evaluation> e = session.analysis_of(x.head(study.n_design()));
  if (!e) return {};
  std::string names;
  const Study measured = report::measured_study(session, session.branch());
  for (const ConstraintSummary& c : summarise_design(measured, *e, x).constraints) {
    // A place for the constraint's label (issue 26, item 2) when the study has one.
    if (is_active(c.normalised)) names += (names.empty() ? "" : ", ") + c.name;
  }
  return "; at the design it continues from, active constraints: " +
         (names.empty() ? std::string("none") : names);
}

void CyclePrinter::operator()(const CycleRecord& record) {
  const Study& study = session_.study();
  if (spdlog::should_log(spdlog::level::info)) {
    spdlog::info("{}{}", cycle_in_words(study, record), active_constraints(session_, record));
  }
  if (output_ == Output::kJson) {
    // Its keys in the order they always had (sorted); the record's designs in study order, their
    // units and the objective's beside it (units_json.hpp).
    std::cout << nlohmann::ordered_json({{"branch", session_.branch()},
                                         {"event", "cycle"},
                                         {"record", cycle_to_json(study, record)},
                                         {"units", units_of(study)}})
                     .dump()
              << "\n"
              << std::flush;
    return;
  }
  if (progress_) progress_->clear();
  if (!header_) {
    std::cout << "study " << study.name << " (" << study.n_design() << " design variables, "
              << study.constraints.size() << " constraints, " << study.load_cases.size()
              << " load case(s))\n";
    std::cout << cycle_table_header(study) << "\n";
    if (record.cycle == 1) {
      std::cout << cycle_table_start(study, session_.driver().summary(), record.x0) << "\n";
    }
    header_ = true;
  }
  if (output_ == Output::kTable || record.converged) {
    std::cout << cycle_table_row(study, record) << "\n" << std::flush;
  }
}

ProgressPrinter::ProgressPrinter(Output output, Progress progress)
    : output_(output), progress_(resolve_progress(progress)) {
  // JSON lines are for programs: the analyses events are on unless --progress none.
  if (output_ == Output::kJson && progress == Progress::kAuto) progress_ = Progress::kLines;
  if (output_ == Output::kQuiet) progress_ = Progress::kNone;
}

ProgressPrinter::~ProgressPrinter() {
  clear();
}

void ProgressPrinter::clear() {
  if (!shown_) return;
  std::cout << "\r\033[K" << std::flush;  // back to the start of the line, erase it
  shown_ = false;
}

void ProgressPrinter::operator()(const BatchProgress& p) {
  if (output_ == Output::kJson) {
    if (progress_ == Progress::kNone) return;
    std::cout << nlohmann::json({{"event", "analyses"},
                                 {"finished", p.finished},
                                 {"running", p.running},
                                 {"elapsed_seconds", p.elapsed_seconds}})
                     .dump()
              << "\n"
              << std::flush;
    return;
  }
  const std::string text = fmt::format("analyses: {} finished, {} running, {:.1f} s", p.finished,
                                       p.running, p.elapsed_seconds);
  if (progress_ == Progress::kLines) {
    // One line as each batch starts (its end shows in the next line or the cycle).
    if (p.running > 0) std::cout << "  " << text << "\n" << std::flush;
    return;
  }
  if (progress_ != Progress::kBar) return;
  const auto now = std::chrono::steady_clock::now();
  if (shown_ && now - last_ < std::chrono::milliseconds(200)) return;  // rate-limited
  last_ = now;
  std::cout << "\r\033[K" << text << std::flush;
  shown_ = true;
}

}  // namespace sao::cli
