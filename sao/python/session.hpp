// The Python module's pieces shared by its files: a study given from Python, documents and
// evaluations as Python objects, and the bindings of run and Session (session.cpp).
#pragma once

#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sao/seam/simulator.hpp"
#include "sao/study/study.hpp"

namespace sao::python {

// A study from Python: a file name (str or os.PathLike; its folder resolves the simulator's
// relative paths) or a dict (an in-memory study: the working folder does), overrides applied.
struct StudyInput {
  nlohmann::json document;
  std::string source;  // the file, "" for a dict
};
StudyInput study_input(const pybind11::object& study, const std::vector<std::string>& overrides);

// A document (result.json's, a cycle record) as dicts and lists.
pybind11::object to_python(const nlohmann::ordered_json& document);
// {"ok", "message", "cases": [{"name", "times", "scalars", "histories": {name: ndarray},
// "gradients": {name: ndarray (points, design variables)}}]}
pybind11::dict evaluation_to_python(const Study& study, const Evaluation& e);

// sao.run and sao.Session.
void bind_session(pybind11::module_& m);

}  // namespace sao::python
