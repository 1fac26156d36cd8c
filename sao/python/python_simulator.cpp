#include "sao/python/python_simulator.hpp"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "adapters/function_simulator.hpp"
#include "sao/seam/simulator.hpp"

namespace sao::python {
namespace py = pybind11;
using adapters::FunctionCall;
using adapters::FunctionLayout;

namespace {

// The exception being handled, with its traceback, as Python prints it.
std::string traceback_text(py::error_already_set& e) {
  auto or_none = [](const py::handle& h) {
    return h ? py::reinterpret_borrow<py::object>(h) : py::object(py::none());
  };
  try {
    py::object lines =
        py::module_::import("traceback")
            .attr("format_exception")(or_none(e.type()), or_none(e.value()), or_none(e.trace()));
    return py::str("").attr("join")(lines).cast<std::string>();
  } catch (const std::exception&) {  // error_already_set, cast_error: Python's own summary
    return e.what();
  }
}

class PythonSimulator final : public adapters::FunctionSimulator {
 public:
  explicit PythonSimulator(const SimulatorSetup& setup);
  ~PythonSimulator() override {
    py::gil_scoped_acquire gil;
    target_ = py::object();
    function_ = py::object();
  }

 protected:
  void call(FunctionCall& call) override;
  bool thread_safe() const override { return thread_safe_; }

 private:
  // The callable named by the section, or none with the problem recorded.
  py::object find_target(JsonReader& section);
  void read_declarations(Problems& problems);
  // The call's values in the C interface's flat layout; throws std::runtime_error for a result
  // of the wrong form.
  void unpack(const py::dict& result, FunctionCall& call);

  std::string study_directory_;
  py::object target_, function_;
  std::string name_;  // "module.function" or the object's registered name
  bool thread_safe_ = false, provides_gradients_ = false;
};

py::object PythonSimulator::find_target(JsonReader& section) {
  const bool by_object = section.has("object");
  const auto object = section.string("object");
  const auto module = section.string("module", !by_object);
  const auto function = section.string("function", !by_object);
  if (by_object && (section.has("module") || section.has("function"))) {
    section.problems().add(section.path(),
                           "give \"object\" or \"module\" and \"function\", "
                           "not both");
    return {};
  }
  try {
    if (object) {
      py::dict registered = py::module_::import("sao._sao").attr("_simulators");
      if (!registered.contains(*object)) {
        section.problems().add(section.at("object"),
                               "no Python simulator \"" + *object +
                                   "\" registered in this process (sao.register_simulator)");
        return {};
      }
      name_ = *object;
      return registered[py::str(*object)];
    }
    if (!module || !function) return {};
    name_ = *module + "." + *function;
    py::list path = py::module_::import("sys").attr("path");
    const std::string folder = study_directory_.empty() ? "." : study_directory_;
    path.insert(0, folder);
    py::object imported;
    try {
      imported = py::module_::import(module->c_str());
    } catch (...) {
      path.attr("remove")(folder);
      throw;
    }
    path.attr("remove")(folder);
    if (!py::hasattr(imported, function->c_str())) {
      section.problems().add(section.at("function"),
                             "module " + *module + " (" +
                                 py::str(imported.attr("__file__")).cast<std::string>() +
                                 ") has no \"" + *function + "\"");
      return {};
    }
    return imported.attr(function->c_str());
  } catch (py::error_already_set& e) {
    section.problems().add(section.at(object ? "object" : "module"),
                           "cannot import: " + traceback_text(e));
    return {};
  }
}

void PythonSimulator::read_declarations(Problems& problems) {
  const std::string where = "simulator (Python simulator " + name_ + ")";
  if (!py::hasattr(target_, "responses")) {
    problems.add(where,
                 "declares no responses: give it the attribute responses = {\"y\": "
                 "\"history\", ...} (the decorator sao.simulator or sao.Simulator)");
    return;
  }
  std::vector<ResponseInfo> responses;
  try {
    for (auto [key, kind] : py::dict(target_.attr("responses"))) {
      const std::string k = py::str(kind);
      if (k != "history" && k != "scalar") {
        problems.add(where, "response \"" + py::str(key).cast<std::string>() +
                                "\": expected \"history\" or \"scalar\", got \"" + k + "\"");
      }
      responses.push_back({py::str(key), k == "history"});
    }
    thread_safe_ = py::hasattr(target_, "thread_safe") && py::bool_(target_.attr("thread_safe"));
    provides_gradients_ =
        py::hasattr(target_, "provides_gradients") && py::bool_(target_.attr("provides_gradients"));
    function_ = py::hasattr(target_, "evaluate") ? target_.attr("evaluate") : target_;
    if (!PyCallable_Check(function_.ptr())) problems.add(where, "is not callable");
  } catch (py::error_already_set& e) {
    problems.add(where, traceback_text(e));
  }
  set_responses(std::move(responses));
}

PythonSimulator::PythonSimulator(const SimulatorSetup& setup)
    : FunctionSimulator(setup, "python"), study_directory_(setup.study_directory) {
  py::gil_scoped_acquire gil;
  Problems problems;
  JsonReader section(setup.section, "simulator", problems);
  section.known({"type"});
  target_ = find_target(section);
  if (target_) read_declarations(problems);
  set_settings(adapters::read_function_settings(section, !target_ || provides_gradients_,
                                                "Python simulator " + name_));
  section.finish();
  problems.throw_if_any();
}

void PythonSimulator::call(FunctionCall& call) {
  py::gil_scoped_acquire gil;
  std::string failure;
  try {
    const LoadCaseSpec& lc = load_cases()[static_cast<size_t>(call.load_case)];
    py::dict load_case;
    load_case["name"] = lc.name;
    load_case["index"] = call.load_case;
    load_case["times"] =
        py::array_t<double>(static_cast<py::ssize_t>(lc.grid.points), lc.grid.times().data());
    load_case["parameters"] = lc.parameters;
    load_case["design_names"] = design_names();
    load_case["gradients"] = call.gradients;
    using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const RowMajor designs = call.designs;
    py::array_t<double> array({designs.rows(), designs.cols()}, designs.data());
    py::object result = function_(array, load_case);
    if (!py::isinstance<py::dict>(result)) {
      throw std::runtime_error("expected a dict of responses, got " +
                               py::str(py::type::of(result).attr("__name__")).cast<std::string>());
    }
    unpack(result.cast<py::dict>(), call);
    return;
  } catch (py::error_already_set& e) {
    failure = traceback_text(e);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  for (BatchRun* run : call.runs) {
    run->ok = false;
    run->message = "Python simulator " + name_ + ": " + failure;
  }
}

void PythonSimulator::unpack(const py::dict& result, FunctionCall& call) {
  const auto runs = static_cast<py::ssize_t>(call.runs.size());
  const auto n = static_cast<py::ssize_t>(call.designs.cols());
  const int points = load_cases()[static_cast<size_t>(call.load_case)].grid.points;
  const FunctionLayout layout = adapters::function_layout(responses(), points);
  std::vector<double> values(call.runs.size() * static_cast<size_t>(layout.value_count));
  std::vector<double> gradients(call.gradients ? values.size() * static_cast<size_t>(n) : 0);
  py::dict gradient_arrays;
  if (call.gradients) {
    if (!result.contains("gradients")) throw std::runtime_error("no \"gradients\" in the result");
    gradient_arrays = result["gradients"].cast<py::dict>();
  }
  auto shape = [](const py::array& a) {
    std::string s = "(";
    for (py::ssize_t d = 0; d < a.ndim(); ++d) s += (d ? ", " : "") + std::to_string(a.shape(d));
    return s + (a.ndim() == 1 ? ",)" : ")");
  };
  const std::vector<ResponseInfo> list = responses();
  for (size_t k = 0; k < list.size(); ++k) {
    const std::string& name = list[k].name;
    const py::ssize_t rows = list[k].history ? points : 1;
    if (!result.contains(name)) throw std::runtime_error("no response \"" + name + "\"");
    auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(
        result[name.c_str()]);
    if (!a || a.size() != runs * rows || a.shape(0) != runs) {
      throw std::runtime_error("response \"" + name + "\": expected " + std::to_string(runs) +
                               (list[k].history ? " x " + std::to_string(rows) : "") +
                               " numbers, got shape " + (a ? shape(a) : "(not numbers)"));
    }
    for (py::ssize_t r = 0; r < runs; ++r) {
      for (py::ssize_t p = 0; p < rows; ++p) {
        values[static_cast<size_t>(r * layout.value_count + layout.offsets[k] + p)] =
            a.data()[r * rows + p];
      }
    }
    if (!call.gradients) continue;
    if (!gradient_arrays.contains(name)) {
      throw std::runtime_error("no gradients of \"" + name + "\"");
    }
    auto g = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(
        gradient_arrays[name.c_str()]);
    if (!g || g.size() != runs * rows * n || g.shape(0) != runs) {
      throw std::runtime_error("gradients of \"" + name + "\": expected " + std::to_string(runs) +
                               " x " + std::to_string(rows) + " x " + std::to_string(n) +
                               " numbers, got shape " + (g ? shape(g) : "(not numbers)"));
    }
    for (py::ssize_t r = 0; r < runs; ++r) {
      std::copy_n(g.data() + r * rows * n, rows * n,
                  gradients.begin() + (r * layout.value_count + layout.offsets[k]) * n);
    }
  }
  py::list errors;
  if (result.contains("errors")) errors = py::list(result["errors"]);
  for (py::ssize_t r = 0; r < runs; ++r) {
    BatchRun& run = *call.runs[static_cast<size_t>(r)];
    if (r < static_cast<py::ssize_t>(errors.size()) && !errors[r].is_none()) {
      run.ok = false;
      run.message = "Python simulator " + name_ + ": " + py::str(errors[r]).cast<std::string>();
      continue;
    }
    run.ok = true;
    const size_t row = static_cast<size_t>(r * layout.value_count);
    run.result = adapters::case_from_values(
        list, layout, values.data() + row,
        call.gradients ? gradients.data() + row * static_cast<size_t>(n) : nullptr,
        static_cast<int>(n));
  }
}

}  // namespace

void register_python_simulator() {
  register_simulator("python", [](const SimulatorSetup& setup) -> std::unique_ptr<Simulator> {
    return std::make_unique<PythonSimulator>(setup);
  });
}

}  // namespace sao::python
