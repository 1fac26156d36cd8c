// A table of named columns with units: history.csv (one row per cycle), `sao export` (one row
// per stored analysis) and the Python package's DataFrames of the same (docs/python.md) are
// built once as a Table, then written as CSV or handed over column by column.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sao/optimizer/driver.hpp"
#include "sao/store/store.hpp"
#include "sao/study/study.hpp"

namespace sao::report {

struct Column {
  enum class Kind { integer, real, text };
  std::string name, unit;
  Kind kind = Kind::real;
  int digits = 0;  // CSV: significant digits; 0 for the shortest text that reads back exactly
  std::vector<std::optional<double>> numbers;  // integer and real columns; nullopt: no value
  std::vector<std::string> texts;              // text columns
};

struct Table {
  std::vector<Column> columns;
  // Appends a column and returns it (a reference valid until the next add).
  Column& add(std::string name, std::string unit = {}, Column::Kind kind = Column::Kind::real,
              int digits = 0);
  size_t rows() const;
};

// CSV: the header, then (with `units_row`) "unit" in the first column and each other column's
// unit, then the rows. Empty where a cell has no value, "nan" for a value that is not finite;
// a field is quoted when it holds a comma, a quote or a line break.
std::string csv(const Table& table, bool units_row);

// history.csv: every figure of result.json's history but the message, one row per cycle that
// proposed a design (docs/results.md lists the columns); `records` a run's history or a lineage.
Table history_table(const Study& study, const std::vector<CycleRecord>& records);

// `sao export`: every analysis of `store`, the columns named by its current branch's study
// (sao/cli/export_command.hpp says what each holds).
Table analyses_table(const StudyStore& store);

}  // namespace sao::report
