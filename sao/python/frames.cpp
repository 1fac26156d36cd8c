#include "sao/python/frames.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>

namespace sao::python {
namespace py = pybind11;

namespace {

py::module_ pandas() {
  try {
    return py::module_::import("pandas");
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_ImportError)) throw;
    throw py::import_error(
        "sao: this result is a pandas DataFrame, and pandas is not installed for " +
        py::module_::import("sys").attr("executable").cast<std::string>() +
        " (pip install pandas, or Debian's python3-pandas)");
  }
}

py::object column_values(const report::Column& c) {
  using Kind = report::Column::Kind;
  if (c.kind == Kind::text) return py::cast(c.texts);
  bool complete = true;
  for (const auto& v : c.numbers) complete = complete && v.has_value();
  if (c.kind == Kind::integer && complete) {
    py::array_t<std::int64_t> out(static_cast<py::ssize_t>(c.numbers.size()));
    auto w = out.mutable_unchecked<1>();
    for (size_t i = 0; i < c.numbers.size(); ++i) {
      w(static_cast<py::ssize_t>(i)) = static_cast<std::int64_t>(*c.numbers[i]);
    }
    return out;
  }
  py::array_t<double> out(static_cast<py::ssize_t>(c.numbers.size()));
  auto w = out.mutable_unchecked<1>();
  for (size_t i = 0; i < c.numbers.size(); ++i) {
    w(static_cast<py::ssize_t>(i)) = c.numbers[i].value_or(std::nan(""));
  }
  return out;
}

}  // namespace

py::object data_frame(const report::Table& table) {
  py::module_ pd = pandas();
  py::dict data, units;
  py::list names;
  for (const report::Column& c : table.columns) {
    data[py::str(c.name)] = column_values(c);
    names.append(c.name);
    if (!c.unit.empty()) units[py::str(c.name)] = c.unit;
  }
  py::object frame = pd.attr("DataFrame")(data, py::arg("columns") = names);
  frame.attr("attrs")["units"] = units;
  return frame;
}

}  // namespace sao::python
