#include "sao/python/embedded_python.hpp"

#include <pybind11/embed.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>

#include "sao/python/python_simulator.hpp"
#include "sao/python/simulator_source.hpp"  // generated: kSimulatorSource, sao/_simulator.py

namespace sao::python {
namespace py = pybind11;

namespace {

// Run once in the started interpreter: the module sao of
// `import sao` (the declarations of sao/_simulator.py, and a clear error for the rest of the
// package), and VIRTUAL_ENV's site-packages. Returns a warning for the log, or None.
constexpr const char* kSetup = R"py(
import os, site, sys, types

def module_sao(source):
    sao = types.ModuleType("sao", "sao.simulator and sao.Simulator in the sao program's "
                           "embedded Python (docs/python.md)")
    exec(compile(source, "sao/_simulator.py", "exec"), sao.__dict__)

    def register_simulator(name, target):
        raise RuntimeError("sao.register_simulator: registered simulators exist only inside the "
                           "Python package (a python3 process running sao.run); a study of the "
                           "sao program names a module and a function (docs/python.md)")

    def missing(name):
        raise AttributeError("sao.%s: the sao program's embedded Python offers sao.simulator and "
                             "sao.Simulator only; the rest of the package runs in python3 "
                             "(docs/python.md)" % name)

    sao.register_simulator = register_simulator
    sao.__getattr__ = missing
    sys.modules["sao"] = sao

def venv_version(venv):
    try:
        with open(os.path.join(venv, "pyvenv.cfg")) as f:
            for line in f:
                key, _, value = line.partition("=")
                if key.strip() in ("version", "version_info"):
                    return tuple(int(p) for p in value.strip().split(".")[:2])
    except (OSError, ValueError):
        pass
    return None

def virtual_env(venv):
    """VIRTUAL_ENV's site-packages, before the system's, when its Python is this one's 3.x."""
    here = sys.version_info[:2]
    version = venv_version(venv)
    if version != here:
        return ("VIRTUAL_ENV=%s: its Python is %s, the embedded one %d.%d: its packages are not "
                "used (docs/python.md)" % (venv, "%d.%d" % version if version else "unknown",
                                           *here))
    packages = os.path.join(venv, "lib", "python%d.%d" % here, "site-packages")
    if not os.path.isdir(packages):
        return "VIRTUAL_ENV=%s: no %s: its packages are not used" % (venv, packages)
    before = list(sys.path)
    site.addsitedir(packages)
    added = [p for p in sys.path if p not in before]
    at = next((i for i, p in enumerate(before) if p.endswith(("site-packages", "dist-packages"))),
              len(before))
    sys.path[:] = before[:at] + added + before[at:]
    return None

def setup(source, executable):
    module_sao(source)
    if executable and os.path.exists(executable):
        sys.executable = executable
    venv = os.environ.get("VIRTUAL_ENV")
    return virtual_env(venv) if venv else None
)py";

// Starts the interpreter; "" or why it could not. Leaves the GIL free.
std::string start_interpreter() {
  PyConfig config;
  PyConfig_InitPythonConfig(&config);  // PYTHONPATH, PYTHONHOME, ... as python3 reads them
  config.parse_argv = 0;
  config.install_signal_handlers = 0;  // SIGINT, SIGTERM stay sao's (docs/trust.md)
  config.configure_c_stdio = 0;        // sao's own streams are left as they are
  config.buffered_stdio = 0;  // a simulator's print is written at once (no finalization flushes)
  config.pathconfig_warnings = 0;
  try {
    py::initialize_interpreter(&config, 0, nullptr, false);
  } catch (const std::exception& e) {
    return e.what();
  }
  std::string failure;
  try {
    py::dict scope;
    py::exec(kSetup, scope);
    const py::object warning = scope["setup"](
        py::str(reinterpret_cast<const char*>(kSimulatorSource)), SAO_PYTHON_EXECUTABLE);
    if (!warning.is_none()) spdlog::warn("{}", py::str(warning).cast<std::string>());
  } catch (py::error_already_set& e) {
    failure = python_failure(e);
  }
  PyEval_SaveThread();  // the GIL free for every thread; never taken back (no finalization)
  return failure;
}

class EmbeddedHost final : public PythonHost {
 public:
  void start() const override {
    static std::once_flag once;
    static std::string failure;
    std::call_once(once, [] { failure = start_interpreter(); });
    if (!failure.empty()) {
      throw std::invalid_argument(
          "simulator.type: \"python\": the embedded Python did not start: " + failure);
    }
  }
  py::object registered(const std::string& name, std::string& why_not) const override {
    why_not = "\"" + name +
              "\": a simulator registered with sao.register_simulator exists only inside the "
              "Python package (a python3 process: import sao; sao.run(...)); in the sao program, "
              "name a module and a function: \"module\": ..., \"function\": ... (docs/python.md)";
    return {};
  }
};

}  // namespace

std::unique_ptr<Simulator> embedded_python_simulator(const SimulatorSetup& setup) {
  static const EmbeddedHost host;
  return make_python_simulator(setup, host);
}

}  // namespace sao::python
