// The study store's designs of experiments (`sao doe`, docs/doe.md): table `does`, one row per
// DOE with the settings its plan was made from and the plan itself (its designs as exact
// numbers), so that a resumed `sao doe` analyses the very points of the interrupted one. The
// table is created when a store of any version is opened for writing (older programs ignore
// it, and read a store that has it); each row carries a checksum (store_integrity.cpp), checked
// when the store is opened: a plan cannot be recomputed from the analyses.
#include <sqlite3.h>

#include "sao/seam/json_reader.hpp"
#include "sao/store/sqlite_statement.hpp"
#include "sao/store/store.hpp"

namespace sao {
using sqlite::now_utc;
using sqlite::Statement;

void StudyStore::create_doe_table() {
  exec(
      "CREATE TABLE IF NOT EXISTS does (id INTEGER PRIMARY KEY, branch INTEGER NOT NULL, "
      "inputs_hash TEXT NOT NULL, settings TEXT NOT NULL, points TEXT NOT NULL, "
      "notes TEXT NOT NULL, created TEXT NOT NULL, checksum TEXT NOT NULL DEFAULT '')");
}

void StudyStore::add_doe_table() {
  exec("BEGIN IMMEDIATE");
  try {
    create_doe_table();
    seal_rows("does");
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

int StudyStore::add_doe(int branch, const nlohmann::json& settings, const Eigen::MatrixXd& points,
                        const nlohmann::json& notes) {
  if (read_only_) throw std::logic_error("StudyStore::add_doe: a read-only store");
  nlohmann::json rows = nlohmann::json::array();
  for (int i = 0; i < points.rows(); ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (int j = 0; j < points.cols(); ++j) row.push_back(exact_number(points(i, j)));
    rows.push_back(row);
  }
  int id = 0;
  in_transaction([&] {
    Statement(db_,
              "INSERT INTO does (branch, inputs_hash, settings, points, notes, created) "
              "VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
        .bind(1, branch)
        .bind(2, inputs_)
        .bind(3, settings.dump())
        .bind(4, rows.dump())
        .bind(5, notes.dump())
        .bind(6, now_utc())
        .run();
    id = static_cast<int>(sqlite3_last_insert_rowid(db_));
    seal("does", id);
  });
  return id;
}

std::vector<StoredDoe> StudyStore::does() const {
  std::vector<StoredDoe> out;
  if (!has_table("does")) return out;  // a store no `sao doe` has written to
  Statement q(db_,
              "SELECT id, branch, inputs_hash, settings, points, notes, created FROM does "
              "ORDER BY id");
  while (q.row()) {
    StoredDoe d;
    d.id = q.integer(0);
    d.branch = q.integer(1);
    d.inputs_hash = q.text(2);
    try {  // the row passed its checksum: sao wrote it
      d.settings = nlohmann::json::parse(q.text(3));
      const nlohmann::json rows = nlohmann::json::parse(q.text(4));
      const int cols = rows.empty() ? 0 : static_cast<int>(rows.front().size());
      d.points.resize(static_cast<int>(rows.size()), cols);
      for (size_t i = 0; i < rows.size(); ++i) {
        d.points.row(static_cast<int>(i)) = exact_numbers_from(rows[i]).transpose();
      }
      d.notes = nlohmann::json::parse(q.text(5));
    } catch (const std::exception& e) {
      throw StoreError(path_ + ": table does, row " + std::to_string(d.id) + ": does not read (" +
                       e.what() + ")");
    }
    d.created = q.text(6);
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace sao
