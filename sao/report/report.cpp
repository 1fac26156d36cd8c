#include "sao/report/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "sao/optimizer/cycle_record_json.hpp"
#include "sao/report/table.hpp"
#include "sao/store/atomic_file.hpp"

namespace sao {
namespace {

nlohmann::json named(const Study& study, const Eigen::VectorXd& x) {
  nlohmann::json out = nlohmann::json::object();
  const auto names = variable_names(study);
  for (int i = 0; i < x.size() && i < static_cast<int>(names.size()); ++i) out[names[i]] = x(i);
  return out;
}

std::string design_cells(const Eigen::VectorXd& x) {
  std::string out;
  for (int i = 0; i < x.size(); ++i) out += fmt::format(" {:>10.5g}", x(i));
  return out;
}

std::string factor_cells(const Eigen::VectorXd& m) {
  std::string out;
  for (int i = 0; i < m.size(); ++i) out += fmt::format("{}{:.4g}", i ? "," : " ", m(i));
  return out;
}

}  // namespace

std::string cycle_table_header(const Study& study, const std::string& indent) {
  std::string names;
  for (const auto& n : variable_names(study)) names += fmt::format(" {:>10}", n);
  std::string header =
      fmt::format("{:>5} {:>3} {:>4} {:>5}{} {:>11} {:>9} {:>9} {:>9}  {}", "cycle", "acc", "mvl",
                  "kept", names, "F", "Ef[%]", "Eg[%]", "V[%]", "move factors");
  // The units line, under the columns they belong to (an auxiliary bounds a maximum of the
  // objective's quantity: it has no unit of its own).
  std::string units;
  bool any = !study.objective.note.unit.empty();
  for (const DesignVariable& v : study.design) {
    units += fmt::format(" {:>10}", v.note.bracketed_unit());
    any = any || !v.note.unit.empty();
  }
  for (size_t a = 0; a < study.auxiliaries.size(); ++a) units += fmt::format(" {:>10}", "");
  if (!any) return header;
  std::string line =
      fmt::format("{:>20}{} {:>11}", "", units, study.objective.note.bracketed_unit());
  line.erase(line.find_last_not_of(' ') + 1);
  return header + "\n" + indent + line;
}

std::string cycle_table_start(const Study& study, const RunSummary& summary,
                              const Eigen::VectorXd& x0) {
  (void)study;
  if (!summary.start_analysed) {
    return fmt::format("{:>5} {:>3} {:>4} {:>5}{}  the start design was not analysed", 0, "-", "-",
                       "-", design_cells(x0));
  }
  return fmt::format("{:>5} {:>3} {:>4} {:>5}{} {:>11.6g} {:>9} {:>9} {:>9.3g}", 0, "y", "-", "-",
                     design_cells(x0), summary.start_objective, "-", "-", summary.start_violation);
}

std::string cycle_table_row(const Study& study, const CycleRecord& r) {
  (void)study;
  if (r.x_opt.size() == 0) return fmt::format("{:>5} failed: {}", r.cycle, one_line(r.message));
  return fmt::format("{:>5} {:>3} {:>4} {:>5}{} {:>11.6g} {:>9.3g} {:>9.3g} {:>9.3g} {}{}", r.cycle,
                     r.converged  ? "c"
                     : r.accepted ? "y"
                                  : "n",
                     r.active_move_limits, r.retained_constraints, design_cells(r.x_opt), r.F_opt,
                     r.Ef, r.Eg, r.V, factor_cells(r.factors), r.relaxed ? "  relaxed" : "");
}

std::string one_line(const std::string& message) {
  const std::string details = message_details(message);
  if (details.empty()) return message;
  const auto more = 1 + std::count(details.begin(), details.end(), '\n');
  return fmt::format("{} [{} more line{} in the log and in result.json]", message_headline(message),
                     more, more == 1 ? "" : "s");
}

std::string run_summary_text(const Study& study, const RunSummary& summary, bool store) {
  std::string text = fmt::format("\nstatus     {}: {}\ndesign    ", to_string(summary.status),
                                 one_line(summary.message));
  const std::vector<std::string> names = variable_names(study);  // in study order
  for (int i = 0; i < summary.x.size() && i < static_cast<int>(names.size()); ++i) {
    text += fmt::format(" {} = {:.6g}", names[i], summary.x(i));
  }
  if (summary.start_analysed) {
    text += fmt::format("\nobjective  {:.6g}   (start {:.6g})\n", summary.objective,
                        summary.start_objective);
    text += fmt::format("violation  {:.3g} %   (start {:.3g} %)\n", summary.max_violation,
                        summary.start_violation);
  } else {
    text += "\nobjective  none: no design was analysed\n";
  }
  text += fmt::format(
      "counts     {} cycles, {} analyses, {} sensitivity analyses, {} simulator runs ({:.2f} s)",
      summary.cycles, summary.analyses, summary.sensitivity_analyses, summary.simulator_runs,
      summary.simulator_seconds);
  if (store) text += fmt::format(", {} analyses re-used from the store", summary.reused_analyses);
  return text + "\n";
}

nlohmann::ordered_json cycle_json_in_order(const nlohmann::json& record,
                                           const std::vector<std::string>& names) {
  nlohmann::ordered_json out(record);
  for (const char* key : {"b0", "b_opt"}) {
    if (!record.contains(key) || !record[key].is_object()) continue;
    const nlohmann::json& design = record[key];
    nlohmann::ordered_json named = nlohmann::ordered_json::object();
    for (const std::string& name : names) {
      if (design.contains(name)) named[name] = design[name];
    }
    for (const auto& [name, value] : design.items()) {
      if (!named.contains(name)) named[name] = value;
    }
    out[key] = named;
  }
  return out;
}

nlohmann::ordered_json cycle_to_json(const Study& study, const CycleRecord& r) {
  const std::vector<std::string> names = variable_names(study);
  return cycle_json_in_order(cycle_record_to_json(r, names), names);
}

nlohmann::json optimality_to_json(const FinalOptimality& f) {
  if (!f.computed) return nullptr;
  nlohmann::json active = nlohmann::json::array();
  for (const auto& a : f.constraints) {
    active.push_back(
        {{"name", a.name}, {"point", a.point}, {"g_hat", a.g_hat}, {"multiplier", a.multiplier}});
  }
  return {{"residual", f.residual},       {"tolerance", f.tolerance},
          {"measured_in_cycle", f.cycle}, {"at_final_design", f.at_final_design},
          {"active_constraints", active}, {"at_lower_bound", f.at_lower},
          {"at_upper_bound", f.at_upper}, {"on_move_limit", f.on_move_limit}};
}

// The rounding of a run with discrete variables (RunSummary::Rounding); null when none.
static nlohmann::json rounding_to_json(const Study& study, const RunSummary::Rounding& r) {
  if (!r.done) return nullptr;
  return {{"continuous_design", named(study, r.continuous)},
          {"continuous_objective", r.continuous_objective},
          {"continuous_max_violation", r.continuous_violation},
          {"candidates", r.candidates},
          {"failed", r.failed},
          {"feasible", r.feasible}};
}

// The margins of the reliability targets (RunSummary::Margin).
static nlohmann::json reliability_to_json(const std::vector<RunSummary::Margin>& margins) {
  nlohmann::json out = nlohmann::json::array();
  for (const RunSummary::Margin& m : margins) {
    out.push_back({{"constraint", m.constraint},
                   {"k", m.k},
                   {"probability", m.probability > 0 ? nlohmann::json(m.probability) : nullptr},
                   {"point", m.point},
                   {"sd", m.sd},
                   {"margin", m.margin},
                   {"measured_in_cycle", m.cycle}});
  }
  return out;
}

nlohmann::json result_to_json(const Study& study, const RunSummary& s) {
  nlohmann::json history = nlohmann::json::array();
  for (const auto& r : s.history) history.push_back(nlohmann::json(cycle_to_json(study, r)));
  nlohmann::json doc = {
      {"study", study.name},
      {"status", to_string(s.status)},
      {"message", s.message},
      {"design", named(study, s.x)},
      // No figures for a run that analysed nothing (null), rather than zeros.
      {"objective", s.start_analysed ? nlohmann::json(s.objective) : nlohmann::json()},
      {"max_violation", s.start_analysed ? nlohmann::json(s.max_violation) : nlohmann::json()},
      {"start", s.start_analysed ? nlohmann::json{{"objective", s.start_objective},
                                                  {"max_violation", s.start_violation}}
                                 : nlohmann::json()},
      {"cycles", s.cycles},
      {"analyses", s.analyses},
      {"sensitivity_analyses", s.sensitivity_analyses},
      {"simulator_runs", s.simulator_runs},
      {"simulator_seconds", s.simulator_seconds},
      {"optimality", optimality_to_json(s.optimality)},
      {"history", history}};
  if (s.rounding.done) doc["rounding"] = rounding_to_json(study, s.rounding);
  if (!s.reliability.empty()) doc["reliability"] = reliability_to_json(s.reliability);
  return doc;
}

std::string history_csv(const Study& study, const RunSummary& s) {
  return report::csv(report::history_table(study, s.history), false);
}

}  // namespace sao
