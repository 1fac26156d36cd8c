#include "sao/store/store_records.hpp"

#include <openssl/evp.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>

#include "sao/optimizer/cycle_record_json.hpp"
#include "sao/seam/json_text.hpp"
#include "sao/store/store.hpp"

namespace sao {
namespace {

// --- binary encoding: little helpers over a byte string ---

class Writer {
 public:
  void u32(uint32_t v) { bytes(&v, sizeof v); }
  void f64(double v) { bytes(&v, sizeof v); }
  void str(const std::string& s) {
    u32(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }
  void vec(const double* data, size_t n) {
    u32(static_cast<uint32_t>(n));
    bytes(data, n * sizeof(double));
  }
  std::string take() { return std::move(out_); }

 private:
  void bytes(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
  std::string out_;
};

class Reader {
 public:
  explicit Reader(const std::string& in) : in_(in) {}
  uint32_t u32() {
    uint32_t v;
    bytes(&v, sizeof v);
    return v;
  }
  double f64() {
    double v;
    bytes(&v, sizeof v);
    return v;
  }
  std::string str() {
    const uint32_t n = u32();
    need(n);
    std::string s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::vector<double> vec() {
    const uint32_t n = u32();
    need(static_cast<size_t>(n) * sizeof(double));
    std::vector<double> v(n);
    bytes(v.data(), n * sizeof(double));
    return v;
  }
  // A count of items of at least `item_bytes` each: never more than the bytes left can hold.
  uint32_t count(size_t item_bytes) {
    const uint32_t n = u32();
    need(static_cast<size_t>(n) * item_bytes);
    return n;
  }
  bool done() const { return pos_ == in_.size(); }

 private:
  void need(size_t n) const {
    if (in_.size() - pos_ < n) throw StoreError("stored analysis: truncated record");
  }
  void bytes(void* p, size_t n) {
    need(n);
    if (n == 0) return;  // an empty vector's data() may be null: no memcpy (found by fuzzing)
    std::memcpy(p, in_.data() + pos_, n);
    pos_ += n;
  }
  const std::string& in_;
  size_t pos_ = 0;
};

constexpr uint32_t kEvaluationTag = 0x53414f45;  // "SAOE"

// An int of a stored record: an integer number within int's range (a float such as 1e40 would
// not convert; found by fuzzing), else a StoreError.
int integer(const nlohmann::json& value, const char* what) {
  try {
    return int_from(value);
  } catch (const std::invalid_argument& e) {
    throw StoreError(std::string("stored cycle: ") + what + ": " + e.what());
  }
}

// A cycle row of a version-1 store: the record's fields under their C++ names, vectors as
// arrays, non-finite numbers as "nan", "inf", "-inf". Read only, to resume runs stored by 0.1.
CycleRecord cycle_from_version_1(const nlohmann::json& j) {
  auto at = [&](const char* key) -> const nlohmann::json& { return json_member(j, key, ""); };
  auto flag = [&](const char* key) { return json_boolean(at(key), key); };
  // A value read by `convert` (exact_number_from, ...), its key named in an error.
  auto read = [&](const char* key, auto convert) {
    const nlohmann::json& v = at(key);
    try {
      return convert(v);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string(key) + ": " + e.what());
    }
  };
  auto reals = [&](const char* key) { return read(key, exact_numbers_from); };
  CycleRecord r;
  r.cycle = integer(at("cycle"), "cycle");
  r.accepted = flag("accepted");
  r.converged = flag("converged");
  r.relaxed = flag("relaxed");
  r.subproblem = json_string(at("subproblem"), "subproblem");
  r.active_move_limits = integer(at("active_move_limits"), "active_move_limits");
  r.retained_constraints = integer(at("retained_constraints"), "retained_constraints");
  r.retained_rows = integer(at("retained_rows"), "retained_rows");
  r.x0 = reals("x0");
  r.x_opt = reals("x_opt");
  const std::pair<const char*, double CycleRecord::*> numbers[] = {
      {"F0", &CycleRecord::F0},
      {"F_opt", &CycleRecord::F_opt},
      {"F_approx", &CycleRecord::F_approx},
      {"Ef", &CycleRecord::Ef},
      {"Eg", &CycleRecord::Eg},
      {"E", &CycleRecord::E},
      {"V", &CycleRecord::V},
      {"Fchg", &CycleRecord::Fchg},
      {"noise_estimate", &CycleRecord::noise_estimate}};
  for (const auto& [key, field] : numbers) r.*field = read(key, exact_number_from);
  r.factors = reals("factors");
  r.next_factors = reals("next_factors");
  for (const auto& a : json_array(at("actions"), "actions"))
    r.actions.push_back(static_cast<MoveAction>(integer(a, "actions")));
  r.analyses = integer(at("analyses"), "analyses");
  r.fit_points = integer(at("fit_points"), "fit_points");
  r.message = json_string(at("message"), "message");
  return r;
}

}  // namespace

std::string encode_evaluation(const Evaluation& e) {
  Writer w;
  w.u32(kEvaluationTag);
  w.u32(e.ok ? 1 : 0);
  w.str(e.message);
  w.u32(e.has_gradients ? 1 : 0);
  w.f64(e.cost.wall_seconds);
  w.u32(static_cast<uint32_t>(e.cost.runs));
  w.u32(static_cast<uint32_t>(e.cases.size()));
  for (const CaseResult& c : e.cases) {
    w.u32(static_cast<uint32_t>(c.scalars.size()));
    for (const auto& [name, v] : c.scalars) {
      w.str(name);
      w.f64(v);
    }
    w.u32(static_cast<uint32_t>(c.histories.size()));
    for (const auto& [name, h] : c.histories) {
      w.str(name);
      w.vec(h.data(), h.size());
    }
    w.u32(static_cast<uint32_t>(c.gradients.size()));
    for (const auto& [name, g] : c.gradients) {
      w.str(name);
      w.u32(static_cast<uint32_t>(g.rows()));
      w.u32(static_cast<uint32_t>(g.cols()));
      w.vec(g.data(), g.size());  // column-major, as Eigen stores it
    }
  }
  // Appended (records written before it end after the cases): each case's gradient method.
  for (const CaseResult& c : e.cases) w.str(c.gradient_method);
  // Appended after them (records written before end there): each case's difference step.
  for (const CaseResult& c : e.cases) w.f64(c.difference_step);
  return w.take();
}

Evaluation decode_evaluation(const std::string& bytes) {
  Reader r(bytes);
  if (r.u32() != kEvaluationTag) throw StoreError("stored analysis: unknown encoding");
  Evaluation e;
  e.ok = r.u32() != 0;
  e.message = r.str();
  e.has_gradients = r.u32() != 0;
  e.cost.wall_seconds = r.f64();
  e.cost.runs = static_cast<int>(r.u32());
  e.cases.resize(r.count(12));  // three counts per case
  for (CaseResult& c : e.cases) {
    for (uint32_t n = r.u32(); n > 0; --n) {
      std::string name = r.str();
      c.scalars[name] = r.f64();
    }
    for (uint32_t n = r.u32(); n > 0; --n) {
      std::string name = r.str();
      const std::vector<double> v = r.vec();
      c.histories[name] = Eigen::Map<const Eigen::VectorXd>(v.data(), v.size());
    }
    for (uint32_t n = r.u32(); n > 0; --n) {
      std::string name = r.str();
      const uint32_t rows = r.u32(), cols = r.u32();
      const std::vector<double> v = r.vec();
      if (v.size() != static_cast<size_t>(rows) * cols) {
        throw StoreError("stored analysis: gradient of " + name + " has a wrong size");
      }
      c.gradients[name] = Eigen::Map<const Eigen::MatrixXd>(v.data(), rows, cols);
    }
  }
  if (!r.done()) {
    for (CaseResult& c : e.cases) c.gradient_method = r.str();
  }
  if (!r.done()) {
    for (CaseResult& c : e.cases) c.difference_step = r.f64();
  }
  if (!r.done()) throw StoreError("stored analysis: trailing bytes");
  return e;
}

std::string record_checksum(const std::vector<std::string_view>& fields) {
  EVP_MD_CTX* context = EVP_MD_CTX_new();
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  bool ok = context && EVP_DigestInit_ex(context, EVP_sha256(), nullptr) == 1;
  for (std::string_view field : fields) {
    const uint64_t n = field.size();
    ok = ok && EVP_DigestUpdate(context, &n, sizeof n) == 1;
    ok = ok && EVP_DigestUpdate(context, field.data(), field.size()) == 1;
  }
  ok = ok && EVP_DigestFinal_ex(context, digest, &size) == 1;
  EVP_MD_CTX_free(context);
  if (!ok) throw StoreError("study store: SHA-256 (OpenSSL) failed");
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < size; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

CycleRecord decode_cycle_record(const std::string& text) {
  nlohmann::json stored;
  try {
    stored = parse_json_text(text);
  } catch (const JsonTextError& e) {  // its line, column and JSON path
    throw StoreError(std::string("stored cycle: ") + e.what());
  }
  if (!stored.is_object()) throw StoreError("stored cycle: not a JSON object");
  try {
    if (!stored.contains("record")) return cycle_from_version_1(stored);  // a version-1 store
    std::vector<std::string> variables;
    const nlohmann::json& names = json_array(json_member(stored, "variables", ""), "variables");
    for (size_t i = 0; i < names.size(); ++i) {
      variables.push_back(json_string(names[i], json_index_path("variables", i)));
    }
    return cycle_record_from_json(stored["record"], variables);
  } catch (const StoreError&) {
    throw;
  } catch (const std::invalid_argument& e) {  // the key named in plain words
    throw StoreError(std::string("stored cycle: ") + e.what());
  }
}

}  // namespace sao
