#include "adapters/hdf5_output.hpp"

#include <hdf5.h>

#include <cmath>
#include <sstream>

#include "adapters/output_file.hpp"

namespace sao::adapters {

using nlohmann::json;

void read_hdf5_spec(JsonReader& e, OutputSpec& s) {
  s.parser = Parser::kHdf5;
  auto dataset = [&](const char* key) -> std::string {
    if (!e.has(key)) {
      e.problems().add(e.at(key),
                       "missing: the path of a dataset in the file, such as \"/results/acc\"");
      return {};
    }
    const json& v = e.raw(key);
    if (v.is_string() && !v.get<std::string>().empty()) return v.get<std::string>();
    e.problems().add(e.at(key),
                     "expected the path of a dataset in the file, such as "
                     "\"/results/acc\", got " +
                         json_excerpt(v));
    return {};
  };
  s.dataset = dataset("dataset");
  if (!s.history) {
    for (const char* key : {"time_dataset", "column", "time_column", "resample"}) {
      if (e.has(key)) {
        e.problems().add(e.at(key), std::string("belongs to a history: a scalar is the one number "
                                                "of \"dataset\", without \"") +
                                        key + "\"");
      }
    }
    return;
  }
  s.time_dataset = dataset("time_dataset");
  constexpr long kMaxColumn = 1000000000;
  s.dataset_column = static_cast<int>(e.integer("column", 1, kMaxColumn).value_or(0));
  s.time_dataset_column = static_cast<int>(e.integer("time_column", 1, kMaxColumn).value_or(0));
  s.resample = e.boolean("resample").value_or(true);
}

namespace {

// An HDF5 identifier closed by `close` when the handle goes (a negative one: a failed call).
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// While it lives, HDF5 prints no error stack on stderr (its errors become messages); the
// previous handler of this thread is put back after.
class QuietErrors {
 public:
  QuietErrors() {
    H5Eget_auto2(H5E_DEFAULT, &function_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietErrors() {
    H5Eclear2(H5E_DEFAULT);
    H5Eset_auto2(H5E_DEFAULT, function_, data_);
  }
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;

 private:
  H5E_auto2_t function_ = nullptr;
  void* data_ = nullptr;
};

// The innermost description on HDF5's error stack ("file signature not found"), or "".
std::string hdf5_error() {
  std::string out;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* e, void* data) -> herr_t {
        if (n == 0 && e->desc) *static_cast<std::string*>(data) = e->desc;
        return 0;
      },
      &out);
  H5Eclear2(H5E_DEFAULT);
  return out;
}

// The names in `group` of `file`, each group's with a '/' after it, at most 20 ("..." after).
std::string member_names(hid_t file, const std::string& group) {
  constexpr hsize_t kListed = 20;
  Handle g(H5Gopen2(file, group.c_str(), H5P_DEFAULT), H5Gclose);
  H5G_info_t info{};
  if (!g.ok() || H5Gget_info(g.get(), &info) < 0) return {};
  std::string out;
  for (hsize_t i = 0; i < info.nlinks && i < kListed; ++i) {
    const ssize_t size =
        H5Lget_name_by_idx(g.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    if (size < 0) continue;
    std::string name(static_cast<size_t>(size) + 1, '\0');
    H5Lget_name_by_idx(g.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size(),
                       H5P_DEFAULT);
    name.resize(static_cast<size_t>(size));
    const Handle sub(H5Gopen2(g.get(), name.c_str(), H5P_DEFAULT), H5Gclose);
    out += (out.empty() ? "" : ", ") + name + (sub.ok() ? "/" : "");
  }
  if (info.nlinks > kListed) out += ", ... (" + std::to_string(info.nlinks) + " names)";
  return out.empty() ? "nothing" : out;
}

// Why `path` opens no dataset: what its group holds (the top level's when that group is not
// there either).
std::string no_dataset(hid_t file, const std::string& path) {
  const bool exists = H5Lexists(file, path.c_str(), H5P_DEFAULT) > 0;
  H5Eclear2(H5E_DEFAULT);
  if (exists) return "dataset " + path + " is not a dataset (a group or a named type)";
  const size_t slash = path.find_last_of('/');
  std::string parent = slash == std::string::npos || slash == 0 ? "/" : path.substr(0, slash);
  Handle g(H5Gopen2(file, parent.c_str(), H5P_DEFAULT), H5Gclose);
  const bool found = g.ok();
  H5Eclear2(H5E_DEFAULT);
  if (!found || parent == "/") {
    return "no dataset " + path + " (the file's top level holds: " + member_names(file, "/") + ")";
  }
  return "no dataset " + path + " (" + parent + " holds: " + member_names(file, parent) + ")";
}

// "21", "21 x 3": a shape for messages.
std::string shape_of(const std::vector<hsize_t>& dims) {
  std::string out;
  for (const hsize_t d : dims) out += (out.empty() ? "" : " x ") + std::to_string(d);
  return out.empty() ? "rank 0" : out;
}

// The numbers of dataset `path`: all of them (one expected) for a scalar, else one column
// (`column`, 1-based; 0: none given, as the key `column_key` says) of a 1-D or 2-D dataset. ""
// or why not.
std::string read_dataset(hid_t file, const std::string& path, bool scalar, int column,
                         const char* column_key, std::vector<double>& out) {
  const Handle dataset(H5Dopen2(file, path.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dataset.ok()) return no_dataset(file, path);
  const Handle type(H5Dget_type(dataset.get()), H5Tclose);
  const H5T_class_t kind = type.ok() ? H5Tget_class(type.get()) : H5T_NO_CLASS;
  if (kind != H5T_INTEGER && kind != H5T_FLOAT) {
    return "dataset " + path + " does not hold numbers (it holds " +
           (kind == H5T_STRING     ? std::string("strings")
            : kind == H5T_COMPOUND ? std::string("compound values")
                                   : "values of HDF5 type class " + std::to_string(kind)) +
           ")";
  }
  const Handle space(H5Dget_space(dataset.get()), H5Sclose);
  const int rank = space.ok() ? H5Sget_simple_extent_ndims(space.get()) : -1;
  if (rank < 0) return "dataset " + path + ": its shape cannot be read: " + hdf5_error();
  std::vector<hsize_t> dims(static_cast<size_t>(rank));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  const std::string what = "dataset " + path + " (shape " + shape_of(dims) + ")";
  size_t rows = 1, columns = 1;
  if (scalar) {
    if (count != 1) return what + " holds " + std::to_string(count) + " values, expected one";
  } else if (rank == 0 || rank > 2) {
    return what + ": a history is read from a 1-D dataset or a column of a 2-D one";
  } else {
    rows = dims[0];
    columns = rank == 2 ? dims[1] : 1;
    if (column == 0 && columns > 1) {
      return what + " has " + std::to_string(columns) + " columns: \"" + column_key +
             "\" chooses one";
    }
    if (column > static_cast<int>(columns)) {
      return what + " has " + std::to_string(columns) + " column(s), no " + column_key + " " +
             std::to_string(column);
    }
  }
  if (static_cast<long long>(count) > kMaxOutputBytes / 8) {
    return what + " holds " + std::to_string(count) + " values, over the limit of " +
           std::to_string(kMaxOutputBytes >> 20) + " MiB of an output";
  }
  std::vector<double> all(static_cast<size_t>(count));
  if (H5Dread(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, all.data()) < 0) {
    return what + " cannot be read as numbers: " + hdf5_error();
  }
  const size_t pick = column > 0 ? static_cast<size_t>(column - 1) : 0;
  out.resize(rows);
  for (size_t k = 0; k < rows; ++k) {
    out[k] = all[k * columns + pick];
    if (!std::isfinite(out[k])) {
      std::ostringstream m;
      m << "dataset " << path << ": value " << k + 1 << " is " << out[k] << ", not finite";
      return m.str();
    }
  }
  return {};
}

}  // namespace

std::string read_hdf5_numbers(const OutputSpec& spec, const std::filesystem::path& file,
                              const std::filesystem::path& directory, std::vector<double>& times,
                              std::vector<double>& values) {
  if (std::string why = check_output_file(file, directory); !why.empty()) return why;
  const QuietErrors quiet;
  const htri_t is_hdf5 = H5Fis_hdf5(file.c_str());
  if (is_hdf5 <= 0) return "is not an HDF5 file";
  const Handle f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!f.ok()) return "cannot be opened with HDF5: " + hdf5_error();
  if (std::string why =
          read_dataset(f.get(), spec.dataset, !spec.history, spec.dataset_column, "column", values);
      !why.empty()) {
    return why;
  }
  if (!spec.history) return {};
  if (std::string why = read_dataset(f.get(), spec.time_dataset, false, spec.time_dataset_column,
                                     "time_column", times);
      !why.empty()) {
    return why;
  }
  if (times.size() != values.size()) {
    return "dataset " + spec.time_dataset + " has " + std::to_string(times.size()) + " times, " +
           spec.dataset + " " + std::to_string(values.size()) + " values: expected as many";
  }
  return {};
}

}  // namespace sao::adapters
