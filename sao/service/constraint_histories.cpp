#include "sao/service/constraint_histories.hpp"

#include "sao/optimizer/cycle_record_json.hpp"
#include "sao/optimizer/screening.hpp"
#include "sao/report/evaluate.hpp"
#include "sao/report/report_plots.hpp"
#include "sao/report/units_json.hpp"
#include "sao/service/api_error.hpp"
#include "sao/study/criteria.hpp"

namespace sao::service {
namespace {

// exact_number (cycle_record_json.hpp) for the ordered documents of this file (designs in study
// order).
nlohmann::ordered_json exact(double value) {
  return nlohmann::ordered_json(exact_number(value));
}

nlohmann::ordered_json numbers(const Eigen::VectorXd& v) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (int i = 0; i < v.size(); ++i) out.push_back(exact(v(i)));
  return out;
}

// Constraint j at every shown design.
nlohmann::ordered_json constraint_json(const Study& study, const Options& options, size_t j,
                                       const std::vector<report::ShownDesign>& designs,
                                       const std::vector<std::string>& names) {
  const Constraint& c = study.constraints[j];
  const int points = criterion_points(study, c.g);
  nlohmann::ordered_json t = nlohmann::ordered_json::array();
  for (int p = 0; p < points; ++p) t.push_back(point_time(study, *c.g.program, p));
  nlohmann::ordered_json shown = nlohmann::ordered_json::array();
  for (const report::ShownDesign& d : designs) {
    nlohmann::ordered_json named = nlohmann::ordered_json::object();
    for (int i = 0; i < d.x.size() && i < static_cast<int>(names.size()); ++i) {
      named[names[i]] = exact(d.x(i));
    }
    nlohmann::ordered_json entry = {{"label", d.label},
                                    {"design", named},
                                    {"analysed", d.analysis.has_value()},
                                    {"bound", exact(constraint_bound(study, c, d.x))}};
    if (d.analysis && d.analysis->ok) {
      const ExactResponses exact(study, *d.analysis);
      entry["g"] = numbers(criterion_values(study, c.g, d.x, exact));
      nlohmann::ordered_json retained = nlohmann::ordered_json::array();
      for (const RetainedRow& row : screen_study(study, options, d.x, exact).rows) {
        if (row.constraint == static_cast<int>(j)) retained.push_back(row.point);
      }
      entry["retained"] = retained;
    }
    shown.push_back(entry);
  }
  nlohmann::ordered_json out = {{"name", c.name}};
  put_unit(out, c.note.unit);  // of g and bound
  out.update(nlohmann::ordered_json{{"path", c.path},
                                    {"expression", c.g.text},
                                    {"sense", c.sense == Sense::kLessEqual ? "<=" : ">="},
                                    {"t", t},
                                    {"designs", shown}});
  return out;
}

}  // namespace

const CycleRecord& lineage_cycle(const std::vector<CycleRecord>& lineage, int branch, int cycle) {
  const auto record = std::find_if(lineage.begin(), lineage.end(),
                                   [cycle](const CycleRecord& r) { return r.cycle == cycle; });
  if (record == lineage.end()) {
    throw ApiError(400, "cycle: branch " + std::to_string(branch) + " has no cycle " +
                            std::to_string(cycle) + " (its history has " +
                            std::to_string(lineage.size()) + ")");
  }
  return *record;
}

std::vector<report::ShownDesign> cycle_designs(StudySession& session, const CycleRecord& r,
                                               const std::string& start,
                                               const std::string& proposal) {
  std::vector<report::ShownDesign> designs = {{start, r.x0, std::nullopt}};
  if (r.x_opt.size() > 0) designs.push_back({proposal, r.x_opt, std::nullopt});
  const int n = session.study().n_design();
  for (report::ShownDesign& d : designs) d.analysis = session.analysis_of(d.x.head(n));
  return designs;
}

nlohmann::ordered_json constraint_histories(StudySession& session, int branch, int cycle) {
  const int b = branch == 0 ? session.branch() : branch;
  try {
    (void)session.store().branch(b);
  } catch (const StoreError&) {
    throw ApiError(404, "branch: this study has no branch " + std::to_string(b));
  }
  const std::vector<CycleRecord> lineage = session.lineage(b);
  const CycleRecord* record = &lineage_cycle(lineage, b, cycle);
  const Study study = report::measured_study(session, b);  // screened as the run screens
  const std::vector<report::ShownDesign> designs =
      cycle_designs(session, *record, "start", "proposal");
  const std::vector<std::string> names = variable_names(study);
  nlohmann::ordered_json constraints = nlohmann::ordered_json::array();
  for (size_t j = 0; j < study.constraints.size(); ++j) {
    const Constraint& c = study.constraints[j];
    if (!c.g.time_dependent() || !c.g.program->uses_responses()) continue;
    constraints.push_back(constraint_json(study, session.options(), j, designs, names));
  }
  return {{"branch", b},
          {"cycle", cycle},
          {"accepted", record->accepted},
          {"constraints", constraints},
          {"units", {{"design", design_units(study)}}}};  // of each design's "design"
}

}  // namespace sao::service
