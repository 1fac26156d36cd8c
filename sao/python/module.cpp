// The Python module sao._sao (the package sao re-exports it: sao/python/sao/__init__.py). Every
// function is a thin layer over what the command line uses: open_study for check and evaluate,
// StudySession for run, step, set, restart and the history, result_document (result.json's
// writer) for results. Documents cross as Python objects through pybind11_json; histories and
// gradients as NumPy arrays. The GIL is released while the optimizer works; a Python simulator
// takes it for its calls only.
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <pybind11_json/pybind11_json.hpp>

#include "sao/components/standard_components.hpp"
#include "sao/python/python_simulator.hpp"
#include "sao/python/session.hpp"
#include "sao/report/report.hpp"
#include "sao/report/result_file.hpp"
#include "sao/study/open_study.hpp"
#include "sao/study/study_loader.hpp"

namespace py = pybind11;

namespace sao::python {

StudyInput study_input(const py::object& study, const std::vector<std::string>& overrides) {
  StudyInput in;
  if (py::isinstance<py::dict>(study)) {
    in.document = study;  // pybind11_json
  } else if (py::isinstance<py::str>(study) || py::hasattr(study, "__fspath__")) {
    in.source = py::str(py::module_::import("os").attr("fspath")(study)).cast<std::string>();
    in.document = read_study_document(in.source);
  } else {
    throw py::type_error("study: expected a file name (str or os.PathLike) or a dict, got " +
                         py::str(py::type::of(study).attr("__name__")).cast<std::string>());
  }
  for (const std::string& o : overrides) apply_override(in.document, o);
  return in;
}

// pybind11_json reads nlohmann::json, whose objects sort their keys: an ordered document is
// converted here so that its dicts keep its order (a design in study order, issue 46).
py::object to_python(const nlohmann::ordered_json& document) {
  if (document.is_object()) {
    py::dict out;
    for (const auto& [key, value] : document.items()) out[py::str(key)] = to_python(value);
    return out;
  }
  if (document.is_array()) {
    py::list out;
    for (const nlohmann::ordered_json& value : document) out.append(to_python(value));
    return out;
  }
  return pyjson::from_json(nlohmann::json(document));  // a number, string, boolean or null
}

py::dict evaluation_to_python(const Study& study, const Evaluation& e) {
  py::dict out;
  out["ok"] = e.ok;
  out["message"] = e.message;
  py::list cases;
  for (size_t c = 0; c < e.cases.size(); ++c) {
    const CaseResult& r = e.cases[c];
    py::dict one;
    one["name"] = c < study.load_cases.size() ? study.load_cases[c].name : std::string();
    one["times"] =
        c < study.load_cases.size() ? study.load_cases[c].grid.times() : std::vector<double>();
    one["scalars"] = r.scalars;
    py::dict histories, gradients;
    for (const auto& [name, h] : r.histories) histories[py::str(name)] = h;
    for (const auto& [name, g] : r.gradients) gradients[py::str(name)] = g;
    one["histories"] = histories;
    one["gradients"] = gradients;
    cases.append(one);
  }
  out["cases"] = cases;
  return out;
}

namespace {

py::dict check(const py::object& study, const std::vector<std::string>& overrides, int start) {
  StudyInput in = study_input(study, overrides);
  std::optional<OpenedStudy> opened;
  {
    py::gil_scoped_release release;
    opened.emplace(open_study_document(std::move(in.document), in.source, start));
  }
  py::dict out;
  out["valid"] = true;
  out["design_variables"] = opened->study.n_design();
  out["constraints"] = opened->study.constraints.size();
  return out;
}

// A study's simulator, opened once, for analyses of any designs (sao.Evaluator; sao.evaluate is
// one analysis of one).
class Evaluator {
 public:
  Evaluator(const py::object& study, const std::vector<std::string>& overrides, int start) {
    StudyInput in = study_input(study, overrides);
    py::gil_scoped_release release;
    opened_.emplace(open_study_document(std::move(in.document), in.source, start));
  }

  // One analysis per row of `designs` (one design: a vector), in one batch; with every
  // response's gradients when asked.
  py::list evaluate(const std::optional<Eigen::MatrixXd>& designs, bool gradients) {
    const Study& study = opened_->study;
    Eigen::MatrixXd rows(1, study.n_design());
    for (int i = 0; i < study.n_design(); ++i) rows(0, i) = study.design[size_t(i)].initial;
    if (designs)
      rows = designs->cols() == 1 && designs->rows() == study.n_design()
                 ? Eigen::MatrixXd(designs->transpose())
                 : *designs;
    if (rows.cols() != study.n_design()) {
      throw py::value_error("designs: expected " + std::to_string(study.n_design()) +
                            " design variables per design, got " + std::to_string(rows.cols()));
    }
    std::vector<EvaluationRequest> batch(static_cast<size_t>(rows.rows()));
    for (Eigen::Index r = 0; r < rows.rows(); ++r) {
      EvaluationRequest& request = batch[static_cast<size_t>(r)];
      request.design = rows.row(r).transpose();
      if (!gradients) continue;
      for (int c = 0; c < static_cast<int>(study.load_cases.size()); ++c) {
        for (const ResponseInfo& info : opened_->simulator->responses()) {
          request.derivatives.push_back({c, info.name, {}});
        }
      }
    }
    std::vector<Evaluation> e;
    {
      py::gil_scoped_release release;
      e = opened_->simulator->evaluate(batch);
    }
    py::list out;
    for (const Evaluation& one : e) out.append(evaluation_to_python(study, one));
    return out;
  }

 private:
  std::optional<OpenedStudy> opened_;
};

py::object evaluate(const py::object& study, const std::optional<Eigen::VectorXd>& design,
                    bool gradients, const std::vector<std::string>& overrides, int start) {
  Evaluator evaluator(study, overrides, start);
  std::optional<Eigen::MatrixXd> designs;
  if (design) designs = Eigen::MatrixXd(design->transpose());
  return evaluator.evaluate(designs, gradients)[0];
}

// The python simulator in this module: Python runs already (the GIL is released while the
// optimizer works), and {"object": NAME} names a simulator of sao.register_simulator.
class ModuleHost final : public PythonHost {
 public:
  void start() const override {}
  py::object registered(const std::string& name, std::string& why_not) const override {
    try {
      py::dict simulators = py::module_::import("sao._sao").attr("_simulators");
      if (simulators.contains(name)) return simulators[py::str(name)];
    } catch (py::error_already_set& e) {
      why_not = python_failure(e);
      return {};
    }
    why_not =
        "no Python simulator \"" + name + "\" registered in this process (sao.register_simulator)";
    return {};
  }
};

std::unique_ptr<Simulator> module_python_simulator(const SimulatorSetup& setup) {
  static const ModuleHost host;
  return make_python_simulator(setup, host);
}

// The exceptions of the package: sao.StudyError (a ValueError with .problems, every problem
// of a study with its JSON path) and sao.StoreError (a RuntimeError).
void register_exceptions(py::module_& m) {
  static PyObject* study_error = PyErr_NewException("sao.StudyError", PyExc_ValueError, nullptr);
  static PyObject* store_error = PyErr_NewException("sao.StoreError", PyExc_RuntimeError, nullptr);
  m.attr("StudyError") = py::handle(study_error);
  m.attr("StoreError") = py::handle(store_error);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StudyError& e) {
      py::object error = py::handle(study_error)(e.what());
      error.attr("problems") = e.problems();
      PyErr_SetObject(study_error, error.ptr());
    } catch (const StoreError& e) {
      PyErr_SetString(store_error, e.what());
    }
  });
}

}  // namespace
}  // namespace sao::python

PYBIND11_MODULE(_sao, m) {
  using namespace sao::python;
  m.doc() = "sao: sequential approximate optimization (docs/python.md)";
  // As the command line: the simulators and the SLURM executor; "python" in this process.
  sao::register_standard_components(&module_python_simulator);
  m.attr("_simulators") = py::dict();  // sao.register_simulator: {"type": "python", "object": NAME}
  register_exceptions(m);
  m.def("check", &check, py::arg("study"), py::arg("overrides") = std::vector<std::string>{},
        py::arg("start") = 0);
  m.def("evaluate", &evaluate, py::arg("study"), py::arg("design") = py::none(),
        py::arg("gradients") = false, py::arg("overrides") = std::vector<std::string>{},
        py::arg("start") = 0);
  py::class_<Evaluator>(m, "Evaluator")
      .def(py::init<const py::object&, const std::vector<std::string>&, int>(), py::arg("study"),
           py::arg("overrides") = std::vector<std::string>{}, py::arg("start") = 0)
      .def("evaluate", &Evaluator::evaluate, py::arg("designs") = py::none(),
           py::arg("gradients") = false);
  bind_session(m);
}
