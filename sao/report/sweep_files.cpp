#include "sao/report/sweep_files.hpp"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <sstream>

#include "sao/report/chart.hpp"
#include "sao/store/atomic_file.hpp"

namespace sao {

void write_sweep(const std::string& dir, const SweepOptions& options, const SweepResult& result,
                 const std::vector<ReferencePoint>& references, const std::string& objective_name,
                 const std::string& x_title, const std::string& y_title) {
  make_output_folder(dir);
  {
    std::ostringstream csv;
    csv << options.range.key << ",start,status,objective,max_violation,cycles,analyses,"
        << "sensitivity_analyses,simulator_runs,design,message\n";
    csv.precision(10);
    for (const SweepMember& m : result.members) {
      const RunSummary& s = m.summary;
      std::string design;
      for (Eigen::Index i = 0; i < s.x.size(); ++i) {
        if (i) design += ' ';
        design += sweep_value_text(s.x(i));
      }
      std::string message = m.error.empty() ? s.message : m.error;
      std::replace(message.begin(), message.end(), ',', ';');
      csv << m.value << "," << m.start << "," << (m.error.empty() ? to_string(s.status) : "error")
          << "," << s.objective << "," << s.max_violation << "," << s.cycles << "," << s.analyses
          << "," << s.sensitivity_analyses << "," << s.simulator_runs << "," << design << ","
          << message << "\n";
    }
    write_file_atomically(dir + "/sweep.csv", csv.str());
  }
  const auto curve = compromise_curve(result);
  {
    std::ostringstream csv;
    csv << options.range.key << "," << objective_name << ",start\n";
    csv.precision(10);
    for (const CurvePoint& p : curve) {
      if (p.start >= 0) csv << p.value << "," << p.objective << "," << p.start << "\n";
    }
    for (const ReferencePoint& r : references) {
      csv << r.value << "," << r.objective << "," << r.label << "\n";
    }
    write_file_atomically(dir + "/compromise.csv", csv.str());
  }
  Plot plot;
  plot.title = "compromise curve";
  plot.x_label = x_title.empty() ? options.range.key : x_title;
  plot.y_label = y_title.empty() ? objective_name : y_title;
  PlotSeries best{"best of " + std::to_string(std::max(1, options.starts)) + " start(s)",
                  {},
                  {},
                  plot_colour(0)};
  for (const CurvePoint& p : curve) {  // a member without a converged start: a gap
    best.x.push_back(p.value);
    best.y.push_back(p.start < 0 ? std::numeric_limits<double>::quiet_NaN() : p.objective);
  }
  PlotSeries members{"every converged member", {}, {}, "#999999", false, true, false};
  for (const SweepMember& m : result.members) {
    if (m.error.empty() && m.summary.status == RunStatus::kConverged) {
      members.x.push_back(m.value);
      members.y.push_back(m.summary.objective);
    }
  }
  plot.series = {members, best};
  for (size_t k = 0; k < references.size(); ++k) {
    plot.series.push_back({references[k].label,
                           {references[k].value},
                           {references[k].objective},
                           plot_colour(1 + k),
                           false,
                           true,
                           false});
  }
  plot.id = "compromise";
  int converged = 0;
  for (const SweepMember& m : result.members) {
    converged += m.error.empty() && m.summary.status == RunStatus::kConverged;
  }
  // Said above the chart too: with reference points it is not empty, yet has no curve.
  const std::string none =
      converged == 0 ? "No member converged: the sweep has no compromise curve to draw (" + dir +
                           "/sweep.csv gives each member's status and message)."
                     : "";
  plot.empty_message = none;
  write_file_atomically(
      dir + "/compromise.html",
      chart_page("compromise curve",
                 "<h1>Compromise curve</h1>\n<p>" +
                     xml_escape(plot.y_label + " against " + plot.x_label + ": " +
                                std::to_string(result.members.size()) + " members, " +
                                std::to_string(converged) + " converged (data: compromise.csv, " +
                                "sweep.csv).") +
                     "</p>\n" +
                     (none.empty() ? "" : "<p class=\"empty\">" + xml_escape(none) + "</p>\n") +
                     chart_html(plot)));
}

}  // namespace sao
