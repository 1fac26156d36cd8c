#include "sao/python/session.hpp"

#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <pybind11_json/pybind11_json.hpp>

#include "sao/optimizer/cycle_record_json.hpp"
#include "sao/python/frames.hpp"
#include "sao/report/html_report.hpp"
#include "sao/report/metamodel_report.hpp"
#include "sao/report/pareto_files.hpp"
#include "sao/report/report.hpp"
#include "sao/report/result_file.hpp"
#include "sao/report/robust.hpp"
#include "sao/report/units_json.hpp"
#include "sao/store/atomic_file.hpp"
#include "sao/store/doe_run.hpp"
#include "sao/store/pareto_run.hpp"
#include "sao/store/study_session.hpp"
#include "sao/study/study_loader.hpp"

namespace py = pybind11;

namespace sao::python {
namespace {

namespace fs = std::filesystem;
using OnCycle = std::function<void(py::object)>;
// Messages advise Session's methods, not the command line's (`sao restart`, `sao set`).
const ActionNames python_actions(ActionNames::Host::python);

py::object record_to_python(const Study& study, const CycleRecord& record) {
  return to_python(cycle_to_json(study, record));  // its designs in study order
}

py::object result_of(const StudySession& session) {
  return to_python(
      result_document(session.study(), session.driver().summary(), final_analysis(session)));
}

// Runs the session to its end as `sao run` does: the results written after every cycle and at
// the end (into `dir`, "" for none), `on_cycle` (from Python, under the GIL) after every cycle.
void run_session(StudySession& session, const std::string& dir, const OnCycle& on_cycle) {
  py::gil_scoped_release release;
  session.run([&](const CycleRecord& record) {
    if (!dir.empty()) write_run_results(session, dir, false);
    if (on_cycle) {
      py::gil_scoped_acquire gil;
      on_cycle(record_to_python(session.study(), record));
    }
  });
  if (!dir.empty()) write_run_results(session, dir, true);
}

// sao.run(study, out=None, ...): `sao run STUDY [--out DIR]`, or `--no-store` without `out`.
py::object run(const py::object& study, const std::optional<std::string>& out, int max_cycles,
               int start, const std::vector<std::string>& overrides, const OnCycle& on_cycle) {
  StudyInput in = study_input(study, overrides);
  std::unique_ptr<StudySession> session;
  {
    py::gil_scoped_release release;
    if (out) {
      fs::create_directories(*out);
      session = std::make_unique<StudySession>(store_file(*out), true);
      session->use_action_names(python_actions);
      session->begin(in.document, in.source, start);
    } else {
      session = std::make_unique<StudySession>(in.document, in.source, start);
    }
    session->open(max_cycles);
  }
  run_session(*session, out.value_or(""), on_cycle);
  return result_of(*session);
}

// A study directory's stored run, kept open between calls (as the service's host keeps it):
// step, set and restart as `sao step`, `sao set`, `sao restart` do.
class Session {
 public:
  Session(const std::string& directory, const py::object& study, int start,
          const std::vector<std::string>& overrides)
      : dir_(directory) {
    std::optional<StudyInput> in;
    if (!study.is_none()) in = study_input(study, overrides);
    py::gil_scoped_release release;
    if (in) {
      fs::create_directories(dir_);
      StudySession create(store_file(dir_), true);
      create.use_action_names(python_actions);
      create.begin(in->document, in->source, start);
    }
    reopen();
  }

  py::dict step() {
    py::dict out;
    out["branch"] = driven().branch();
    if (driven().driver().finished()) {
      const RunSummary& s = driven().driver().summary();
      out["event"] = "ended";
      out["status"] = to_string(s.status);
      out["message"] = s.message;
      return out;
    }
    const int before = driven().driver().summary().simulator_runs;
    std::optional<CycleRecord> record;
    {
      py::gil_scoped_release release;
      record = driven().step();
      write_run_results(driven(), dir_, driven().driver().finished());
    }
    const RunSummary& s = driven().driver().summary();
    out["event"] = "cycle";
    out["record"] = record_to_python(driven().study(), *record);
    out["units"] = to_python(units_of(driven().study()));  // as `sao step --json`'s line
    out["simulator_runs"] = s.simulator_runs - before;
    out["status"] = to_string(s.status);
    return out;
  }

  int set(const std::vector<std::string>& assignments) {
    py::gil_scoped_release release;
    const int cycle = driven().set(assignments);
    reopen();  // the changes apply when the session opens, as for the next `sao step`
    return cycle;
  }

  std::vector<std::string> undo_set() {
    py::gil_scoped_release release;
    std::vector<std::string> removed = driven().undo_set();
    reopen();
    return removed;
  }

  int restart(int from_cycle, const py::object& study, int from_branch, bool reset_region,
              bool from_reported) {
    std::optional<nlohmann::json> document;
    std::string source;
    if (!study.is_none()) {
      StudyInput in = study_input(study, {});
      document = std::move(in.document);
      source = in.source;
    }
    py::gil_scoped_release release;
    const int branch =
        driven().restart(from_cycle, document, source, from_branch, reset_region, from_reported);
    reopen();  // the new branch is the current one
    return branch;
  }

  py::object run(const OnCycle& on_cycle) {
    run_session(driven(), dir_, on_cycle);
    return result_of(driven());
  }

  py::list history(int branch) const {
    py::list out;
    for (const CycleRecord& r : driven().lineage(branch > 0 ? branch : driven().branch())) {
      out.append(record_to_python(driven().study(), r));
    }
    return out;
  }

  // The history as NumPy arrays: one row per cycle.
  py::dict arrays(int branch) const {
    const std::vector<CycleRecord> records =
        driven().lineage(branch > 0 ? branch : driven().branch());
    const auto rows = static_cast<Eigen::Index>(records.size());
    const Eigen::Index columns = driven().study().n_total();
    Eigen::VectorXi cycle(rows), accepted(rows);
    Eigen::VectorXd F(rows), V(rows), E(rows);
    Eigen::MatrixXd x0(rows, columns), x_opt(rows, columns);
    for (Eigen::Index i = 0; i < rows; ++i) {
      const CycleRecord& r = records[static_cast<size_t>(i)];
      cycle(i) = r.cycle;
      accepted(i) = r.accepted;
      F(i) = r.F_opt;
      V(i) = r.V;
      E(i) = r.E;
      x0.row(i) = r.x0.transpose();
      x_opt.row(i) = r.x_opt.transpose();
    }
    py::dict out;
    out["variables"] = variable_names(driven().study());
    out["cycle"] = cycle;
    out["accepted"] = accepted.cast<bool>().eval();
    out["F"] = F;
    out["V"] = V;
    out["E"] = E;
    out["x0"] = x0;
    out["x_opt"] = x_opt;
    return out;
  }

  // The history as a DataFrame: history.csv's columns, one row per cycle of the lineage.
  py::object history_frame(int branch) const {
    return data_frame(report::history_table(
        driven().study(), driven().lineage(branch > 0 ? branch : driven().branch())));
  }

  // Every analysis of the store (every branch's) as a DataFrame: `sao export`'s columns.
  py::object analyses() const { return data_frame(report::analyses_table(live().store())); }

  // `sao metamodel DIR --json`'s document: metamodels of every response from the store's
  // analyses of this study, their leave-one-out accuracy and Sobol indices.
  py::object metamodels(const std::vector<std::string>& models,
                        const std::vector<std::string>& responses, const std::string& sobol_model,
                        int sobol_samples, std::uint32_t seed) const {
    report::MetamodelRequest request;
    request.models = models;
    request.responses = responses;
    request.sobol_model = sobol_model;
    request.sobol_samples = sobol_samples;
    request.seed = seed;
    nlohmann::ordered_json document;
    {
      py::gil_scoped_release release;
      const std::string inputs =
          simulator_inputs_hash(live().study(), live().simulator().fingerprint());
      document = report::metamodel_report_json(
          report::metamodel_report(live().store(), live().study(), inputs, request));
    }
    return to_python(document);
  }

  // `sao doe DIR --set doe.KEY=VALUE ...`: a design of experiments of the stored study into its
  // store (prepare_doe and run_doe, as the command), `settings` the "doe" section's keys with
  // their values; none given: the store's latest DOE resumed (or the study's own "doe" section).
  // The session is closed meanwhile (the DOE's own session holds the store) and re-opened.
  py::dict doe(const py::dict& settings) {
    std::vector<std::string> overrides;
    for (const auto& [key, value] : settings) {
      const nlohmann::json v = pyjson::to_json(value);
      overrides.push_back("doe." + py::str(key).cast<std::string>() + "=" +
                          (v.is_string() ? v.get<std::string>() : v.dump()));
    }
    PreparedDoe prepared;
    DoeProgress end;
    std::string store;
    {
      py::gil_scoped_release release;
      session_.reset();  // its lock: the DOE's session takes it
      try {
        StudySession analyses(store_file(dir_), false);
        analyses.use_action_names(python_actions);
        analyses.open_for_analyses();
        const std::optional<DoeSection> section = stored_doe_section(analyses, overrides);
        prepared = prepare_stored_doe(analyses, section);
        end = run_doe(analyses, prepared.doe, section ? section->batch : 0, {});
        store = analyses.store().path();
      } catch (...) {
        reopen();
        throw;
      }
      reopen();
    }
    py::dict out;
    out["id"] = prepared.doe.id;
    out["resumed"] = prepared.resumed;
    out["method"] = prepared.doe.settings.value("method", "");
    out["points"] = end.total;
    out["analysed"] = end.analysed;
    out["reused"] = end.reused;
    out["failed"] = end.failed;
    out["elapsed_seconds"] = end.elapsed_seconds;
    out["store"] = store;
    return out;
  }

  // `sao robust DIR --json`'s document (docs/robustness.md): the spread of every response and the
  // probability of violating each constraint at a design under the study's random variables.
  // The design: the run's reported one (result.json; else the initial design), with `design`'s
  // values (name -> value). Its analyses go into the store as the command's do; the session is
  // closed meanwhile and re-opened, as for doe().
  py::object robust(const std::string& method, int samples, int points, int verify,
                    const std::string& metamodel, const std::map<std::string, double>& design,
                    const std::vector<double>& quantiles, double confidence, std::uint64_t seed,
                    int sobol) {
    report::RobustRequest request;
    if (!report::robust_method_from_name(method, request.method)) {
      throw std::invalid_argument("robust: method must be lhs, mc, mc-analyses or form, got \"" +
                                  method + "\"");
    }
    request.samples = samples;
    request.points = points;
    request.verify = verify;
    request.metamodel = metamodel;
    request.quantiles = quantiles;
    request.confidence = confidence;
    request.seed = seed;
    request.sobol = sobol;
    nlohmann::ordered_json document;
    {
      py::gil_scoped_release release;
      session_.reset();  // its lock: the analyses' session takes it
      try {
        document = robust_document(request, design);
      } catch (...) {
        reopen();
        throw;
      }
      reopen();
    }
    return to_python(document);
  }

  // `sao pareto DIR` (docs/pareto.md): the front of the stored multi-objective study, its
  // analyses stored and re-used as the command's; pareto.csv, pareto.json and pareto.html
  // written into the directory. Keyword arguments: the command's options by name (algorithm,
  // population, generations, seed, metamodel, verify, rounds, tolerance, faces, refine,
  // refine_objective: pareto_options).
  // Returns pareto.json's document, or with `frame` pareto.csv's table as a DataFrame. The session
  // is closed meanwhile and re-opened, as for doe().
  py::object pareto(bool frame, const py::kwargs& settings) {
    const ParetoOptions options = pareto_options(pyjson::to_json(settings));
    std::pair<Study, ParetoResult> front;
    {
      py::gil_scoped_release release;
      session_.reset();  // its lock: the analyses' session takes it
      try {
        front = pareto_front(options);
      } catch (...) {
        reopen();
        throw;
      }
      reopen();
    }
    if (frame) return data_frame(pareto_table(front.first, front.second));
    return to_python(pareto_json(front.first, front.second, options));
  }

  // `sao pareto DIR --start-study K OUT.json --objective NAME`: the single-objective study of
  // front point `point` of DIR/pareto.json, written to `out` when given; the study as a dict.
  py::object front_point_study(int point, const std::string& objective,
                               const std::optional<std::string>& out) const {
    FrontPointStudy start = sao::front_point_study(read_pareto_json(dir_), live().document(),
                                                   live().study(), point, objective);
    (void)load_study(start.study, out.value_or(live().source()));  // as `sao run` takes it
    if (out) write_file_atomically(*out, start.study.dump(2) + "\n");
    return pyjson::from_json(start.study);
  }

  py::object analysis(const std::optional<Eigen::VectorXd>& design) const {
    std::optional<Evaluation> e = design ? driven().analysis_of(*design) : final_analysis(driven());
    if (!e) return py::none();
    return evaluation_to_python(driven().study(), *e);
  }

  // `sao report DIR [--out FILE]`: the HTML report, written; its file.
  std::string report(const std::optional<std::string>& file) {
    const std::string out = file.value_or((fs::path(dir_) / "report.html").string());
    py::gil_scoped_release release;
    write_file_atomically(out, html_report(driven()));
    return out;
  }

  py::object result() const { return result_of(driven()); }
  int branch() const { return live().branch(); }
  int next_cycle() const { return driven().next_cycle(); }
  std::string status() const { return to_string(driven().driver().summary().status); }
  bool finished() const { return driven().driver().finished(); }
  py::object settings() const { return pyjson::from_json(driven().settings_in_force()); }
  const std::string& directory() const { return dir_; }

  void close() { session_.reset(); }

 private:
  // The robustness estimate in a session of its own, opened for analyses (robust()).
  nlohmann::ordered_json robust_document(const report::RobustRequest& request,
                                         const std::map<std::string, double>& values) const {
    StudySession analyses(store_file(dir_), false);
    analyses.use_action_names(python_actions);
    analyses.open_for_analyses();
    return report::robust_json(report::robust_of_directory(analyses, dir_, request, values, {}));
  }

  // `sao pareto DIR`'s work in a session of its own, opened for analyses (pareto()): the DOE,
  // the rounds, pareto.csv, pareto.json and pareto.html written into the directory.
  std::pair<Study, ParetoResult> pareto_front(const ParetoOptions& options) const {
    StudySession analyses(store_file(dir_), false);
    analyses.use_action_names(python_actions);
    analyses.open_for_analyses();
    const PreparedDoe prepared = prepare_pareto_doe(analyses);
    ParetoResult result = run_pareto(analyses, prepared.doe, options, {}, {});
    write_pareto(dir_, analyses.study(), result, options);
    return {analyses.study(), std::move(result)};
  }

  // A study of several objectives has no run (the driver optimises one objective): its session
  // is opened for analyses only (doe, metamodels, robust, pareto); driven() refuses the rest.
  void reopen() {
    session_.reset();
    session_ = std::make_unique<StudySession>(store_file(dir_), false);
    session_->use_action_names(python_actions);
    objectives_ = stored_objectives(*session_);
    if (objectives_ > 1) {
      session_->open_for_analyses();
    } else {
      session_->open();
    }
  }
  StudySession& driven() const {
    StudySession& s = live();
    if (objectives_ > 1) {
      throw StudyError(s.source(), {"objectives: the study has " + std::to_string(objectives_) +
                                    " objectives and no run to step: Session.pareto() finds its "
                                    "front, Session.front_point_study() makes a study of one "
                                    "objective from a front point (docs/pareto.md)"});
    }
    return s;
  }
  StudySession& live() const {
    if (!session_) throw StoreError("sao.Session: closed");
    return *session_;
  }

  std::string dir_;
  std::unique_ptr<StudySession> session_;
  size_t objectives_ = 0;  // the stored study's "objectives" (more than one: no run)
};

}  // namespace

void bind_session(py::module_& m) {
  m.def("run", &run, py::arg("study"), py::arg("out") = py::none(), py::arg("max_cycles") = 0,
        py::arg("start") = 0, py::arg("overrides") = std::vector<std::string>{},
        py::arg("on_cycle") = py::none());
  py::class_<Session>(m, "Session")
      .def(py::init<const std::string&, const py::object&, int, const std::vector<std::string>&>(),
           py::arg("directory"), py::arg("study") = py::none(), py::arg("start") = 0,
           py::arg("overrides") = std::vector<std::string>{})
      .def("step", &Session::step)
      .def("set", &Session::set, py::arg("assignments"))
      .def("undo_set", &Session::undo_set)
      .def("restart", &Session::restart, py::arg("from_cycle") = 0, py::arg("study") = py::none(),
           py::arg("from_branch") = 0, py::arg("reset_region") = false,
           py::arg("from_reported") = false)
      .def("run", &Session::run, py::arg("on_cycle") = py::none())
      .def("history", &Session::history, py::arg("branch") = 0)
      .def("arrays", &Session::arrays, py::arg("branch") = 0)
      .def("history_frame", &Session::history_frame, py::arg("branch") = 0)
      .def("analyses", &Session::analyses)
      .def("analysis", &Session::analysis, py::arg("design") = py::none())
      .def("doe", &Session::doe, py::arg("settings") = py::dict())
      .def("metamodels", &Session::metamodels, py::arg("models") = std::vector<std::string>{},
           py::arg("responses") = std::vector<std::string>{}, py::arg("sobol_model") = "",
           py::arg("sobol_samples") = 4096, py::arg("seed") = 1)
      .def("robust", &Session::robust, py::arg("method") = "lhs", py::arg("samples") = 10000,
           py::arg("points") = 0, py::arg("verify") = 10, py::arg("metamodel") = "kriging",
           py::arg("design") = std::map<std::string, double>{},
           py::arg("quantiles") = std::vector<double>{0.05, 0.5, 0.95},
           py::arg("confidence") = 0.95, py::arg("seed") = 1, py::arg("sobol") = 0)
      .def("pareto", &Session::pareto, py::arg("frame") = false)
      .def("front_point_study", &Session::front_point_study, py::arg("point"),
           py::arg("objective") = "", py::arg("out") = py::none())
      .def("result", &Session::result)
      .def("report", &Session::report, py::arg("file") = py::none())
      .def("close", &Session::close)
      .def_property_readonly("branch", &Session::branch)
      .def_property_readonly("next_cycle", &Session::next_cycle)
      .def_property_readonly("status", &Session::status)
      .def_property_readonly("finished", &Session::finished)
      .def_property_readonly("settings", &Session::settings)
      .def_property_readonly("directory", &Session::directory);
}

}  // namespace sao::python
