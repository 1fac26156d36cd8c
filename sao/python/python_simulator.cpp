#include "sao/python/python_simulator.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <memory>
#include <string>

#include "adapters/function_simulator.hpp"

namespace sao::python {
namespace py = pybind11;
namespace fs = std::filesystem;
using adapters::FunctionCall;
using adapters::FunctionLayout;

namespace {

std::string joined(const py::handle& lines) {
  return py::str("").attr("join")(lines).cast<std::string>();
}

// The exception's one-line summary: its type and text (the first line at the margin: a
// SyntaxError's first lines quote the code) and where it was raised.
std::string failure_headline(const py::object& exception) {
  const std::string only = joined(exception.attr("format_exception_only")());
  std::string what;
  for (size_t at = 0; at < only.size();) {
    const size_t end = std::min(only.find('\n', at), only.size());
    if (end > at && only[at] != ' ') {
      what = only.substr(at, end - at);
      break;
    }
    at = end + 1;
  }
  py::object file = py::none(), line = py::none(), function = py::none();
  if (py::bool_(
          py::module_::import("builtins")
              .attr("issubclass")(exception.attr("exc_type"), py::handle(PyExc_SyntaxError)))) {
    file = exception.attr("filename");
    line = exception.attr("lineno");
  } else if (py::len(exception.attr("stack")) > 0) {
    py::list stack(exception.attr("stack"));
    py::object frame = stack[py::len(stack) - 1];
    file = frame.attr("filename");
    line = frame.attr("lineno");
    function = frame.attr("name");
  }
  if (file.is_none()) return what;
  what += " (" + fs::path(py::str(file).cast<std::string>()).filename().string();
  if (!line.is_none()) what += ", line " + py::str(line).cast<std::string>();
  if (!function.is_none()) what += ", in " + py::str(function).cast<std::string>();
  return what + ")";
}

}  // namespace

std::string python_failure(py::error_already_set& e) {
  auto or_none = [](const py::handle& h) {
    return h ? py::reinterpret_borrow<py::object>(h) : py::object(py::none());
  };
  try {
    py::object exception =
        py::module_::import("traceback")
            .attr("TracebackException")(or_none(e.type()), or_none(e.value()), or_none(e.trace()));
    std::string full = joined(exception.attr("format")());
    while (!full.empty() && full.back() == '\n') full.pop_back();
    return failure_headline(exception) + "\n" + full;
  } catch (const std::exception&) {  // error_already_set, cast_error: Python's own summary
    return e.what();
  }
}

namespace {

// A module of the study's folder, as a path: "" when the folder holds no such module (or the
// name is dotted: a package's module).
fs::path module_file(const std::string& folder, const std::string& module) {
  if (module.find('.') != std::string::npos) return {};
  for (const fs::path& p :
       {fs::path(folder) / (module + ".py"), fs::path(folder) / module / "__init__.py"}) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return fs::weakly_canonical(p, ec);
  }
  return {};
}

// `module` imported with `folder` at the front of sys.path (then removed). A module of that
// name imported before from elsewhere (another study of this process: the service's, a
// notebook's) is imported afresh when the folder holds one: the study gets its own file.
py::object import_from(const std::string& module, const std::string& folder) {
  py::module_ sys = py::module_::import("sys");
  py::dict modules = sys.attr("modules");
  const fs::path own = module_file(folder, module);
  if (!own.empty() && modules.contains(module)) {
    py::object loaded = modules[py::str(module)];
    std::error_code ec;
    const bool same =
        py::hasattr(loaded, "__file__") && !loaded.attr("__file__").is_none() &&
        fs::weakly_canonical(py::str(loaded.attr("__file__")).cast<std::string>(), ec) == own;
    if (!same) modules.attr("pop")(module);
  }
  py::list path = sys.attr("path");
  path.insert(0, folder);
  py::object imported;
  try {
    imported = py::module_::import(module.c_str());
  } catch (...) {
    path.attr("remove")(folder);
    throw;
  }
  path.attr("remove")(folder);
  return imported;
}

// Why `module` could not be imported: for the module itself missing, where it was looked for.
std::string import_failure(py::error_already_set& e, const std::string& module,
                           const std::string& folder) {
  if (e.matches(PyExc_ModuleNotFoundError) && py::hasattr(e.value(), "name") &&
      py::str(e.value().attr("name")).cast<std::string>() == module) {
    std::string path;
    for (py::handle entry : py::list(py::module_::import("sys").attr("path"))) {
      path += (path.empty() ? "" : ", ") + py::str(entry).cast<std::string>();
    }
    return "cannot import " + module + ": ModuleNotFoundError: No module named '" + module +
           "', neither in the study's folder (" + folder + ") nor on Python's path (" + path + ")";
  }
  return "cannot import " + module + ": " + python_failure(e);
}

class PythonSimulator final : public adapters::FunctionSimulator {
 public:
  PythonSimulator(const SimulatorSetup& setup, const PythonHost& host);
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
  py::object find_target(JsonReader& section, const PythonHost& host);
  void read_declarations(Problems& problems);
  // The call's values in the C interface's flat layout; throws std::runtime_error for a result
  // of the wrong form.
  void unpack(const py::dict& result, FunctionCall& call);

  std::string study_directory_;
  py::object target_, function_;
  std::string name_;  // "module.function" or the object's registered name
  bool thread_safe_ = false, provides_gradients_ = false;
};

py::object PythonSimulator::find_target(JsonReader& section, const PythonHost& host) {
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
  if (object) {
    std::string why_not;
    py::object registered = host.registered(*object, why_not);
    if (!registered) section.problems().add(section.at("object"), why_not);
    name_ = *object;
    return registered;
  }
  if (!module || !function) return {};
  name_ = *module + "." + *function;
  const std::string folder = study_directory_.empty() ? "." : study_directory_;
  py::object imported;
  try {
    imported = import_from(*module, folder);
  } catch (py::error_already_set& e) {
    section.problems().add(section.at("module"), import_failure(e, *module, folder));
    return {};
  }
  if (!py::hasattr(imported, function->c_str())) {
    const py::object file = py::getattr(imported, "__file__", py::none());
    section.problems().add(section.at("function"), "module " + *module + " (" +
                                                       py::str(file).cast<std::string>() +
                                                       ") has no \"" + *function + "\"");
    return {};
  }
  return imported.attr(function->c_str());
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
    problems.add(where, python_failure(e));
  }
  set_responses(std::move(responses));
}

PythonSimulator::PythonSimulator(const SimulatorSetup& setup, const PythonHost& host)
    : FunctionSimulator(setup, "python"), study_directory_(setup.study_directory) {
  py::gil_scoped_acquire gil;
  Problems problems;
  JsonReader section(setup.section, "simulator", problems);
  section.known({"type"});
  target_ = find_target(section, host);
  if (target_) read_declarations(problems);
  set_settings(adapters::read_function_settings(section, !target_ || provides_gradients_,
                                                "Python simulator " + name_));
  section.finish();
  try {
    problems.throw_if_any();
  } catch (...) {  // the members are destroyed after the GIL is given back: let go of them now
    target_ = py::object();
    function_ = py::object();
    throw;
  }
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
    failure = python_failure(e);
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

std::unique_ptr<Simulator> make_python_simulator(const SimulatorSetup& setup,
                                                 const PythonHost& host) {
  host.start();
  return std::make_unique<PythonSimulator>(setup, host);
}

}  // namespace sao::python
