"""Builds the Python package sao with the project's CMake build (docs/python.md, "Building and
importing"): `pip install ./sao/python` from the repository's root.

build_ext runs CMake for the interpreter running pip (-DPython_EXECUTABLE=sys.executable) and
copies the module it builds, sao/_sao<EXT_SUFFIX>, into the wheel beside sao/__init__.py. The
CMake tree, printed (`pip -v` shows it):

  1. $SAO_BUILD_DIR when set (configured here when it holds no CMakeCache.txt yet);
  2. else the repository's build/ (README.md) when it was configured with SAO_PYTHON ON for
     this interpreter's extension suffix (the same CPython ABI): only the target sao_python is
     built there, nothing when it is up to date;
  3. else a tree of its own, build/python-<ABI>, configured without tests and benchmarks (ccache
     as compiler launcher when it is on PATH), in which only sao_python is built.

setuptools' own byproducts (its build folders, the egg-info) go to build/setuptools/<ABI>, so
that a pip install leaves the source tree as git has it.
"""
import os
import re
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.install import install
from setuptools.errors import SetupError

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))  # sao/python lies in the repository's sao/
EXT_SUFFIX = sysconfig.get_config_var("EXT_SUFFIX")
# .cpython-311-x86_64-linux-gnu.so -> cpython-311-x86_64-linux-gnu: names this ABI's trees
ABI = re.sub(r"^\.|\.(so|pyd)$", "", EXT_SUFFIX)
SETUPTOOLS_BASE = os.path.join(ROOT, "build", "setuptools", ABI)


def say(message):
    print("sao setup: " + message, flush=True)


def project_version():
    """The project's version: project(sao VERSION x.y.z ...) of the top CMakeLists.txt."""
    top = os.path.join(ROOT, "CMakeLists.txt")
    try:
        with open(top, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        text = ""
    match = re.search(r"project\(\s*sao\s+VERSION\s+([0-9][0-9.]*)", text)
    if not match:
        raise SetupError(
            "%s holds no project(sao VERSION ...): setup.py builds sao/python inside a checkout "
            "of the sao repository (the C++ sources lie outside sao/python, so an sdist cannot "
            "be built)" % top)
    return match.group(1)


def read_cache(tree):
    """CMakeCache.txt of `tree` as {name: value}; {} when the tree is not configured."""
    entries = {}
    try:
        with open(os.path.join(tree, "CMakeCache.txt"), encoding="utf-8") as f:
            for line in f:
                match = re.match(r"([^#/][^:=]*):[A-Z_]+=(.*)$", line.rstrip("\n"))
                if match:
                    entries[match.group(1)] = match.group(2)
    except OSError:
        pass
    return entries


def cache_is_on(value):
    return value.upper() in ("ON", "1", "YES", "TRUE", "Y")


def unusable(cache):
    """Why a configured tree cannot give this interpreter its module; None when it can."""
    if not cache_is_on(cache.get("SAO_PYTHON", "OFF")):
        return "it was configured with SAO_PYTHON OFF"
    suffix = cache.get("PYTHON_MODULE_EXTENSION", "")
    if suffix != EXT_SUFFIX:
        return "its module is %s, this interpreter (%s) loads %s" % (
            "_sao" + suffix if suffix else "not known yet", sys.executable, "_sao" + EXT_SUFFIX)
    return None


def choose_tree():
    """(tree, configure) after the rules of the module's docstring, the choice printed."""
    given = os.environ.get("SAO_BUILD_DIR")
    if given:
        if not os.path.isabs(given):  # pip runs setup.py in sao/python, not where it was called
            raise SetupError("SAO_BUILD_DIR=%s is a relative path: give it absolute (e.g. "
                             "SAO_BUILD_DIR=$PWD/%s)" % (given, given))
        tree = os.path.normpath(given)
        cache = read_cache(tree)
        if not cache:
            say("CMake tree %s (SAO_BUILD_DIR, not configured yet: configured for %s)"
                % (tree, sys.executable))
            return tree, True
        why = unusable(cache)
        if why:
            raise SetupError("SAO_BUILD_DIR=%s cannot be used: %s. Unset SAO_BUILD_DIR, or "
                             "give an empty folder (configured then for this interpreter)"
                             % (tree, why))
        say("CMake tree %s (SAO_BUILD_DIR)" % tree)
        return tree, False
    readme_tree = os.path.join(ROOT, "build")
    cache = read_cache(readme_tree)
    if cache:
        why = unusable(cache)
        if why is None:
            say("CMake tree %s (reused: configured with SAO_PYTHON ON for %s, this "
                "interpreter's suffix)" % (readme_tree, EXT_SUFFIX))
            return readme_tree, False
        say("not reusing %s: %s" % (readme_tree, why))
    tree = os.path.join(ROOT, "build", "python-" + ABI)
    say("CMake tree %s (its own, for %s)" % (tree, sys.executable))
    # configured again when another interpreter of this ABI (another venv) used it last
    return tree, read_cache(tree).get("Python_EXECUTABLE") != sys.executable


def require_cmake():
    cmake = shutil.which("cmake")
    if not cmake:
        raise SetupError("cmake is not on PATH: the package is built with CMake (Debian: "
                         "apt-get install cmake, or scripts/bootstrap --deps)")
    return cmake


def require_python_headers():
    include = sysconfig.get_paths()["include"]
    if not os.path.isfile(os.path.join(include, "Python.h")):
        raise SetupError(
            "no Python headers for %s (%s/Python.h is missing): for Debian's python3 install "
            "python3-dev (scripts/bootstrap); another interpreter needs its own development "
            "headers" % (sys.executable, include))


def configure(cmake, tree):
    """Configures `tree` for this interpreter with the Python module and without tests and
    benchmarks; a failure says what is missing."""
    require_python_headers()
    args = [cmake, "-S", ROOT, "-B", tree, "-DCMAKE_BUILD_TYPE=Release", "-DSAO_PYTHON=ON",
            "-DPython_EXECUTABLE=" + sys.executable, "-DSAO_BUILD_TESTS=OFF",
            "-DSAO_BUILD_BENCH=OFF"]
    if shutil.which("ccache"):
        args += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_C_COMPILER_LAUNCHER=ccache"]
    say("configuring: " + " ".join(args))
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = []
    for line in process.stdout:  # printed as it comes, kept for the diagnosis below
        print(line, end="", flush=True)
        output.append(line)
    if process.wait() == 0:
        return
    if read_cache(tree).get("pybind11_DIR", "").endswith("NOTFOUND"):
        raise SetupError(
            "CMake found no pybind11 (its CMake package pybind11Config.cmake): install Debian's "
            "pybind11-dev (with pybind11-json-dev; scripts/bootstrap), or name its folder in "
            "the environment variable CMAKE_PREFIX_PATH")
    if any("SAO_PYTHON needs" in line for line in output):
        raise SetupError(
            "CMake's FindPython found no interpreter with headers at %s (Python.h is in %s): "
            "CMake's messages above" % (sys.executable, sysconfig.get_paths()["include"]))
    raise SetupError(
        "configuring %s failed (CMake's messages above): a missing library is one of the "
        "Debian packages of `scripts/bootstrap --list` (scripts/bootstrap --deps installs them)"
        % tree)


def build_module():
    """Builds the target sao_python for this interpreter and returns its module file."""
    cmake = require_cmake()
    tree, needs_configure = choose_tree()
    if needs_configure:
        configure(cmake, tree)
    args = [cmake, "--build", tree, "--target", "sao_python"]
    if not os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL"):
        args += ["-j", str(os.cpu_count() or 1)]
    say("building: " + " ".join(args))
    if subprocess.run(args).returncode != 0:
        version = "%d.%d" % sys.version_info[:2]
        raise SetupError(
            "building the module (target sao_python) in %s failed: the compiler's errors are "
            "above. Missing headers name their Debian package (pybind11_json: "
            "pybind11-json-dev); errors inside pybind11 for Python %s mean that the installed "
            "pybind11 does not support this Python version (Debian 12's pybind11 2.10 supports "
            "Python up to 3.11)" % (tree, version))
    module = os.path.join(tree, "python", "sao", "_sao" + EXT_SUFFIX)
    if not os.path.isfile(module):
        raise SetupError("%s was built but %s is not there (the tree's module is %s)" % (
            tree, module, read_cache(tree).get("PYTHON_MODULE_EXTENSION", "unknown")))
    say("module " + module)
    return module


class CMakeBuildExt(build_ext):
    """build_ext for the one extension sao._sao, built by CMake (build_module) and copied."""

    def run(self):
        module = build_module()
        for extension in self.extensions:
            target = self.get_ext_fullpath(extension.name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(module, target)


class InstallWithLayout(install):
    """Debian's setuptools (the wheel of python3-setuptools-whl that offline installs use) reads
    the options install_layout and prefix_option of `install`, which only Debian's python3 adds
    (its module _distutils_system_mod): under another interpreter (pyenv's) building the wheel
    failed with "AttributeError: install_layout". Here they are None (Debian's defaults) when
    the interpreter does not add them."""

    def initialize_options(self):
        super().initialize_options()
        for option in ("install_layout", "prefix_option"):
            if not hasattr(self, option):
                setattr(self, option, None)


os.makedirs(SETUPTOOLS_BASE, exist_ok=True)
setup(
    version=project_version(),
    packages=["sao"],
    package_dir={"sao": "sao"},
    ext_modules=[Extension("sao._sao", sources=[])],
    cmdclass={"build_ext": CMakeBuildExt, "install": InstallWithLayout},
    options={"build": {"build_base": SETUPTOOLS_BASE},
             "egg_info": {"egg_base": SETUPTOOLS_BASE}},
    zip_safe=False,
)
