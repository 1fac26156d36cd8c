// The one JSON form of a cycle record: exact round trips (through text, as result.json and the
// store hold it), awkward doubles included, and clear errors on malformed records.
#include "sao/optimizer/cycle_record_json.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>

#include "sao/store/store.hpp"
#include "tests/support.hpp"

namespace sao {
namespace {

bool bitwise_equal(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(double) * a.size()) == 0;
}

bool bitwise_equal(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

const std::vector<std::string> kNames{"b1", "a", "z"};  // not in alphabetical order

CycleRecord awkward_record() {
  CycleRecord r;
  r.cycle = 4;
  r.accepted = true;
  r.converged = false;
  r.relaxed = true;
  r.subproblem = "relaxed";
  r.kkt_residual = 3.0e-7;
  r.ratio = 0.1 + 0.2;
  r.active_move_limits = 2;
  r.retained_constraints = 3;
  r.retained_rows = 17;
  r.x0 = Eigen::Vector3d(0.1, 1.0 / 3.0, -2.5e-17);
  r.x_opt =
      Eigen::Vector3d(std::nextafter(0.1, 1.0), -0.0, std::numeric_limits<double>::denorm_min());
  r.F0 = std::numeric_limits<double>::max();
  r.F_opt = std::numeric_limits<double>::infinity();
  r.F_approx = -std::numeric_limits<double>::infinity();
  r.Ef = std::numeric_limits<double>::quiet_NaN();
  r.Eg = std::numeric_limits<double>::min();
  r.E = 1e308;
  r.V = 123456789.123456789;
  r.Fchg = -1e-300;
  r.factors = Eigen::Vector2d(0.4, 0.4 * 4.0 / 3.0);
  r.next_factors = Eigen::Vector2d(0.3, std::numeric_limits<double>::epsilon());
  r.actions = {MoveAction::kEnlarged, MoveAction::kShrunk};
  r.analyses = 12;
  r.fit_points = 5;
  r.noise_estimate = std::numeric_limits<double>::quiet_NaN();
  r.message = "a \"quoted\" message\nwith a new line";
  r.gradient_method = "steady: direct (auto); crash: forward differences";
  return r;
}

void expect_exact(const CycleRecord& a, const CycleRecord& b) {
  EXPECT_EQ(a.cycle, b.cycle);
  EXPECT_EQ(a.accepted, b.accepted);
  EXPECT_EQ(a.converged, b.converged);
  EXPECT_EQ(a.relaxed, b.relaxed);
  EXPECT_EQ(a.subproblem, b.subproblem);
  EXPECT_EQ(a.active_move_limits, b.active_move_limits);
  EXPECT_EQ(a.retained_constraints, b.retained_constraints);
  EXPECT_EQ(a.retained_rows, b.retained_rows);
  EXPECT_TRUE(bitwise_equal(a.x0, b.x0));
  EXPECT_TRUE(bitwise_equal(a.x_opt, b.x_opt));
  for (auto field :
       {&CycleRecord::F0, &CycleRecord::F_opt, &CycleRecord::F_approx, &CycleRecord::Ef,
        &CycleRecord::Eg, &CycleRecord::E, &CycleRecord::V, &CycleRecord::Fchg,
        &CycleRecord::noise_estimate, &CycleRecord::kkt_residual, &CycleRecord::ratio}) {
    EXPECT_TRUE(bitwise_equal(a.*field, b.*field)) << a.*field << " vs " << b.*field;
  }
  EXPECT_TRUE(bitwise_equal(a.factors, b.factors));
  EXPECT_TRUE(bitwise_equal(a.next_factors, b.next_factors));
  EXPECT_EQ(a.actions, b.actions);
  EXPECT_EQ(a.analyses, b.analyses);
  EXPECT_EQ(a.fit_points, b.fit_points);
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(a.gradient_method, b.gradient_method);
}

TEST(CycleRecordJson, RecordsWithoutTheTrustRegionFieldsStillRead) {
  CycleRecord r = awkward_record();
  r.kkt_residual = 0.125;
  r.ratio = 0.5;
  nlohmann::json j = cycle_record_to_json(r, kNames);
  EXPECT_EQ(j["kkt_residual"], 0.125);
  j.erase("kkt_residual");
  j.erase("ratio");
  const CycleRecord old = cycle_record_from_json(j, kNames);
  EXPECT_EQ(old.kkt_residual, -1.0);  // not measured
  EXPECT_EQ(old.ratio, 0.0);
}

// Issue 22: the sensitivity method is in the record; records written before it read as "".
TEST(CycleRecordJson, TheGradientMethodIsKeptAndOptional) {
  nlohmann::json j = cycle_record_to_json(awkward_record(), kNames);
  EXPECT_EQ(j["gradient_method"], "steady: direct (auto); crash: forward differences");
  EXPECT_EQ(cycle_record_from_json(j, kNames).gradient_method, j["gradient_method"]);
  j.erase("gradient_method");
  EXPECT_EQ(cycle_record_from_json(j, kNames).gradient_method, "");
  j["gradient_method"] = 3;
  EXPECT_THROW(cycle_record_from_json(j, kNames), std::invalid_argument);
}

TEST(CycleRecordJson, RoundTripThroughTextIsBitwise) {
  const CycleRecord r = awkward_record();
  for (int indent : {-1, 2}) {
    const std::string text = cycle_record_to_json(r, kNames).dump(indent);
    expect_exact(cycle_record_from_json(nlohmann::json::parse(text), kNames), r);
  }
}

// Random bit patterns: every finite double (subnormals, huge exponents) reads back bit for
// bit; NaNs read back as NaN.
TEST(CycleRecordJson, ManyDoublesRoundTrip) {
  CycleRecord r;
  r.x0.resize(3);
  r.x_opt.resize(0);  // a failed cycle has no b*
  std::uint64_t bits = 0x3ff0000000000001ULL;
  for (int k = 0; k < 3000; ++k) {
    bits = bits * 6364136223846793005ULL + 1442695040888963407ULL;
    double v;
    std::memcpy(&v, &bits, sizeof v);
    r.x0(k % 3) = v;
    r.F_opt = v;
    const CycleRecord back = cycle_record_from_json(
        nlohmann::json::parse(cycle_record_to_json(r, kNames).dump()), kNames);
    ASSERT_EQ(back.x_opt.size(), 0);
    if (std::isnan(v)) {
      ASSERT_TRUE(std::isnan(back.F_opt));
    } else {
      ASSERT_TRUE(bitwise_equal(back.F_opt, v)) << v;
      ASSERT_TRUE(bitwise_equal(back.x0(k % 3), v)) << v;
    }
  }
}

TEST(CycleRecordJson, NamesVariablesAndActionsAsResultJsonDoes) {
  const nlohmann::json j = cycle_record_to_json(awkward_record(), kNames);
  EXPECT_EQ(j["b0"]["b1"], 0.1);
  EXPECT_EQ(j["b_opt"]["z"], std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(j["F_opt"], "inf");
  EXPECT_EQ(j["F_approx"], "-inf");
  EXPECT_EQ(j["noise_estimate"], "nan");
  EXPECT_EQ(j["move_actions"], nlohmann::json({"enlarged", "shrunk"}));
  EXPECT_EQ(j["move_factors"].size(), 2u);
}

TEST(CycleRecordJson, MalformedRecordsNameTheKey) {
  nlohmann::json j = cycle_record_to_json(awkward_record(), kNames);
  j.erase("F0");
  try {
    cycle_record_from_json(j, kNames);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("\"F0\""), std::string::npos) << e.what();
  }
  j = cycle_record_to_json(awkward_record(), kNames);
  j["move_actions"] = {"sideways"};
  EXPECT_THROW(cycle_record_from_json(j, kNames), std::invalid_argument);
  j = cycle_record_to_json(awkward_record(), kNames);
  j["b0"]["unknown"] = 1.0;
  EXPECT_THROW(cycle_record_from_json(j, kNames), std::invalid_argument);
  EXPECT_THROW(cycle_record_from_json(nlohmann::json::array(), kNames), std::invalid_argument);
  // Counts must be integers that fit (a float or a huge number was converted unchecked).
  for (const nlohmann::json& bad :
       {nlohmann::json(3.377e10), nlohmann::json(2.5), nlohmann::json(1ULL << 40),
        nlohmann::json(-(1LL << 40)), nlohmann::json(18446744073709551615ULL)}) {
    j = cycle_record_to_json(awkward_record(), kNames);
    j["cycle"] = bad;
    EXPECT_THROW(cycle_record_from_json(j, kNames), std::invalid_argument) << bad;
  }
  j = cycle_record_to_json(awkward_record(), kNames);
  j["cycle"] = -7;
  EXPECT_EQ(cycle_record_from_json(j, kNames).cycle, -7);
}

// In plain words: a key missing or of another kind, never the JSON library's exception text.
TEST(CycleRecordJson, MalformedRecordsAreNamedInPlainWords) {
  auto error = [](const nlohmann::json& j) -> std::string {
    try {
      cycle_record_from_json(j, kNames);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "no error";
  };
  nlohmann::json j = cycle_record_to_json(awkward_record(), kNames);
  j.erase("message");
  EXPECT_EQ(error(j), "cycle record: \"message\": missing");
  j = cycle_record_to_json(awkward_record(), kNames);
  j["accepted"] = "yes";
  EXPECT_EQ(error(j), "cycle record: \"accepted\": expected a boolean, got a string (\"yes\")");
  j = cycle_record_to_json(awkward_record(), kNames);
  j["subproblem"] = 1;
  EXPECT_EQ(error(j), "cycle record: \"subproblem\": expected a string, got a number (1)");
  j = cycle_record_to_json(awkward_record(), kNames);
  j["move_actions"] = {true};
  EXPECT_EQ(error(j), "cycle record: \"move_actions\": expected a string, got a boolean (true)");
}

TEST(CycleRecordJson, TheStoreKeepsRecordsExactly) {
  const std::filesystem::path dir = testing::scratch_directory("test-cycle-record", "store");
  const std::string path = (dir / "study.sqlite").string();
  {
    StudyStore store(path, true);
    const int s = store.add_study(nlohmann::json::object(), "x.json", 0);
    store.save_cycle(store.add_branch(0, 0, s), awkward_record(), kNames, nlohmann::json::object());
  }
  StudyStore store(path, false);
  const std::vector<StoredCycle> cycles = store.cycles(1);
  ASSERT_EQ(cycles.size(), 1u);
  expect_exact(cycles[0].record, awkward_record());
}

}  // namespace
}  // namespace sao
