#include "sao/report/table.hpp"

#include <fmt/format.h>

#include <cmath>
#include <set>
#include <type_traits>
#include <utility>

#include "sao/report/evaluate.hpp"
#include "sao/study/study_loader.hpp"

namespace sao::report {
namespace {

using Kind = Column::Kind;

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string cell_text(const Column& c, size_t row) {
  if (c.kind == Kind::text) return row < c.texts.size() ? field(c.texts[row]) : std::string();
  if (row >= c.numbers.size() || !c.numbers[row]) return {};
  const double v = *c.numbers[row];
  if (!std::isfinite(v)) return "nan";
  if (c.kind == Kind::integer) return fmt::format("{}", static_cast<long long>(v));
  return c.digits > 0 ? fmt::format("{:.{}g}", v, c.digits) : fmt::format("{}", v);
}

// A value, or none where it is not finite (result.json's null).
std::optional<double> finite(double v) {
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

// The i-th entry of a vector, or none past its end.
std::optional<double> entry(const Eigen::VectorXd& v, size_t i) {
  return static_cast<Eigen::Index>(i) < v.size()
             ? std::optional<double>(v(static_cast<Eigen::Index>(i)))
             : std::nullopt;
}

}  // namespace

Column& Table::add(std::string name, std::string unit, Column::Kind kind, int digits) {
  columns.push_back({std::move(name), std::move(unit), kind, digits, {}, {}});
  return columns.back();
}

size_t Table::rows() const {
  size_t n = 0;
  for (const Column& c : columns) n = std::max(n, std::max(c.numbers.size(), c.texts.size()));
  return n;
}

std::string csv(const Table& table, bool units_row) {
  std::string out;
  const auto line = [&](const auto& text_of) {
    for (size_t i = 0; i < table.columns.size(); ++i) {
      if (i > 0) out += ',';
      out += text_of(i);
    }
    out += '\n';
  };
  line([&](size_t i) { return field(table.columns[i].name); });
  if (units_row) {
    line([&](size_t i) { return i == 0 ? std::string("unit") : field(table.columns[i].unit); });
  }
  for (size_t row = 0, rows = table.rows(); row < rows; ++row) {
    line([&](size_t i) { return cell_text(table.columns[i], row); });
  }
  return out;
}

Table history_table(const Study& study, const std::vector<CycleRecord>& records) {
  const std::vector<std::string> names = variable_names(study);
  const auto unit_of = [&](size_t i) {
    return i < study.design.size() ? study.design[i].note.unit : std::string();
  };
  std::vector<const CycleRecord*> rows;
  for (const CycleRecord& r : records) {
    if (r.x_opt.size() > 0) rows.push_back(&r);
  }
  Table t;
  const auto fill = [&](Column& c, const auto& value_of) {
    for (const CycleRecord* r : rows) {
      if constexpr (std::is_same_v<decltype(value_of(*r)), std::string>) {
        c.texts.push_back(value_of(*r));
      } else {
        c.numbers.push_back(value_of(*r));
      }
    }
  };
  const auto integer = [&](const char* name, const auto& value_of) {
    fill(t.add(name, {}, Kind::integer),
         [&](const CycleRecord& r) { return std::optional<double>(value_of(r)); });
  };
  const auto real = [&](const std::string& name, const std::string& unit, int digits,
                        const auto& value_of) {
    fill(t.add(name, unit, Kind::real, digits), value_of);
  };
  const auto text = [&](const std::string& name, const auto& value_of) {
    fill(t.add(name, {}, Kind::text), value_of);
  };
  const std::string& f_unit = study.objective.note.unit;
  integer("cycle", [](const CycleRecord& r) { return r.cycle; });
  integer("accepted", [](const CycleRecord& r) { return r.accepted ? 1 : 0; });
  integer("converged", [](const CycleRecord& r) { return r.converged ? 1 : 0; });
  integer("relaxed", [](const CycleRecord& r) { return r.relaxed ? 1 : 0; });
  integer("active_move_limits", [](const CycleRecord& r) { return r.active_move_limits; });
  integer("retained_constraints", [](const CycleRecord& r) { return r.retained_constraints; });
  integer("retained_rows", [](const CycleRecord& r) { return r.retained_rows; });
  for (size_t i = 0; i < names.size(); ++i) {
    real(names[i], unit_of(i), 10, [&](const CycleRecord& r) { return entry(r.x_opt, i); });
  }
  real("F", f_unit, 10, [](const CycleRecord& r) { return std::optional<double>(r.F_opt); });
  real("F_approx", f_unit, 10,
       [](const CycleRecord& r) { return std::optional<double>(r.F_approx); });
  real("Ef", "", 6, [](const CycleRecord& r) { return std::optional<double>(r.Ef); });
  real("Eg", "", 6, [](const CycleRecord& r) { return std::optional<double>(r.Eg); });
  real("V", "", 6, [](const CycleRecord& r) { return std::optional<double>(r.V); });
  for (size_t i = 0; i < study.design.size(); ++i) {
    real("m_" + study.design[i].name, "", 6,
         [&](const CycleRecord& r) { return entry(r.factors, i); });
  }
  integer("analyses", [](const CycleRecord& r) { return r.analyses; });
  text("gradient_method", [](const CycleRecord& r) { return std::string(r.gradient_method); });
  text("subproblem", [](const CycleRecord& r) { return std::string(r.subproblem); });
  real("F0", f_unit, 10, [](const CycleRecord& r) { return finite(r.F0); });
  real("E", "", 6, [](const CycleRecord& r) { return finite(r.E); });
  real("Fchg", "", 6, [](const CycleRecord& r) { return finite(r.Fchg); });
  real("ratio", "", 6, [](const CycleRecord& r) { return finite(r.ratio); });
  real("kkt_residual", "", 6, [](const CycleRecord& r) { return finite(r.kkt_residual); });
  real("noise_estimate", "", 6, [](const CycleRecord& r) { return finite(r.noise_estimate); });
  integer("fit_points", [](const CycleRecord& r) { return r.fit_points; });
  for (size_t i = 0; i < names.size(); ++i) {
    real("b0_" + names[i], unit_of(i), 10, [&](const CycleRecord& r) { return entry(r.x0, i); });
  }
  for (size_t i = 0; i < study.design.size(); ++i) {
    real("next_m_" + study.design[i].name, "", 6,
         [&](const CycleRecord& r) { return entry(r.next_factors, i); });
  }
  for (size_t i = 0; i < study.design.size(); ++i) {
    text("action_" + study.design[i].name, [&](const CycleRecord& r) {
      return i < r.actions.size() ? std::string(to_string(r.actions[i])) : std::string();
    });
  }
  return t;
}

Table analyses_table(const StudyStore& store) {
  const int current = store.current_branch();
  if (current == 0) throw StoreError(store.path() + ": the store holds no study yet");
  const StoredStudy stored = store.study(store.branch(current).study);
  const Study study = load_study(stored.document, stored.source);
  const std::vector<StoredAnalysis> analyses = store.analyses(true);
  // The columns: every (load case, response) any analysis holds, scalars and histories.
  std::set<std::pair<size_t, std::string>> scalars, histories;
  for (const StoredAnalysis& a : analyses) {
    for (size_t c = 0; c < a.evaluation.cases.size(); ++c) {
      for (const auto& [name, value] : a.evaluation.cases[c].scalars) scalars.insert({c, name});
      for (const auto& [name, value] : a.evaluation.cases[c].histories) {
        histories.insert({c, name});
      }
    }
  }
  const auto case_name = [&](size_t c) {
    return c < study.load_cases.size() ? study.load_cases[c].name : "case" + std::to_string(c);
  };
  Table t;
  const auto numbers = [&](Column& column, const auto& value_of) {
    for (const StoredAnalysis& a : analyses) column.numbers.push_back(value_of(a));
  };
  const auto texts = [&](Column& column, const auto& text_of) {
    for (const StoredAnalysis& a : analyses) column.texts.push_back(text_of(a));
  };
  const auto count = [](double v) { return std::optional<double>(v); };
  long row = 0;
  numbers(t.add("analysis", {}, Kind::integer),
          [&](const StoredAnalysis&) { return count(++row); });
  numbers(t.add("branch", {}, Kind::integer),
          [&](const StoredAnalysis& a) { return count(a.branch); });
  for (size_t i = 0; i < study.design.size(); ++i) {
    numbers(t.add(study.design[i].name, study.design[i].note.unit),
            [&](const StoredAnalysis& a) { return entry(a.design, i); });
  }
  texts(t.add("status", {}, Kind::text),
        [](const StoredAnalysis& a) { return std::string(a.evaluation.ok ? "ok" : "failed"); });
  texts(t.add("message", {}, Kind::text),
        [](const StoredAnalysis& a) { return a.evaluation.message; });
  numbers(t.add("sensitivities", {}, Kind::integer),
          [&](const StoredAnalysis& a) { return count(a.evaluation.has_gradients ? 1 : 0); });
  numbers(t.add("seconds", "s"),
          [&](const StoredAnalysis& a) { return count(a.evaluation.cost.wall_seconds); });
  numbers(t.add("runs", {}, Kind::integer),
          [&](const StoredAnalysis& a) { return count(a.evaluation.cost.runs); });
  for (const auto& scalar : scalars) {
    // Named copies, not structured bindings: clang 14 (the shape check) refuses a lambda
    // capturing those.
    const size_t c = scalar.first;
    const std::string& name = scalar.second;
    numbers(t.add(case_name(c) + "." + name, declared_unit(study, name)),
            [&](const StoredAnalysis& a) -> std::optional<double> {
              const auto& cases = a.evaluation.cases;
              if (c >= cases.size() || !cases[c].scalars.count(name)) return std::nullopt;
              return cases[c].scalars.at(name);
            });
  }
  // Per history: its largest and smallest value and the time of its largest (the time unit of
  // a load case is not declared per column: none).
  for (const auto& [c, name] : histories) {
    const std::string base = case_name(c) + "." + name, unit = declared_unit(study, name);
    std::vector<std::optional<HistoryRange>> ranges;
    for (const StoredAnalysis& a : analyses) {
      const auto& cases = a.evaluation.cases;
      const bool has = c < cases.size() && cases[c].histories.count(name) &&
                       cases[c].histories.at(name).size() > 0;
      ranges.push_back(
          has ? std::optional<HistoryRange>(history_range(study, c, cases[c].histories.at(name)))
              : std::nullopt);
    }
    Column& max = t.add(base + ".max", unit);
    for (const auto& r : ranges) max.numbers.push_back(r ? std::optional(r->max) : std::nullopt);
    Column& min = t.add(base + ".min", unit);
    for (const auto& r : ranges) min.numbers.push_back(r ? std::optional(r->min) : std::nullopt);
    Column& at = t.add(base + ".t_max");
    for (const auto& r : ranges) {
      at.numbers.push_back(r && !std::isnan(r->time_of_max) ? std::optional(r->time_of_max)
                                                            : std::nullopt);
    }
  }
  return t;
}

}  // namespace sao::report
