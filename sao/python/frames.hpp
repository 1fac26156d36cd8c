// Tables as pandas DataFrames (docs/python.md): the history (history.csv's columns) and every
// stored analysis (`sao export`'s), built by the same report::Table as those files.
#pragma once

#include <pybind11/pybind11.h>

#include "sao/report/table.hpp"

namespace sao::python {

// A DataFrame with the table's columns in order: integer columns as int64 (float64 with NaN
// where a cell is empty), real ones as float64 (NaN where empty), text ones as str; the units
// in DataFrame.attrs["units"] ({column: unit}, the columns with one). Raises ImportError naming
// the package to install when pandas is missing.
pybind11::object data_frame(const report::Table& table);

}  // namespace sao::python
