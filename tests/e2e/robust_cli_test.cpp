// `sao robust` as a user drives it (docs/robustness.md) on problems/robustness/linear.json, whose
// responses are linear in two correlated normal variables: the statistics of Monte Carlo on
// analyses and of samples on the metamodel hold the closed-form values inside their intervals,
// FORM's index is the exact one, and a second call analyses nothing (the stored analyses are
// re-used: counted in the store).
#include <cmath>

#include "sao/reliability/distribution.hpp"
#include "tests/e2e/store_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace sao::testing;
using nlohmann::json;
using sao::testing::sao;

const std::string kStudy = kProblems + "robustness/linear.json";
// f = x1 + 2 x2: mean 5, var 0.25 + 4 0.09 + 4 0.5 0.5 0.3 = 0.91; g = 3 x1 - x2: mean 1,
// var 2.25 + 0.09 - 6 0.5 0.5 0.3 = 1.89; P(g > 2) = Phi(-1 / sqrt(1.89)).
const double kSdF = std::sqrt(0.91), kSdG = std::sqrt(1.89);
const double kPf = sao::reliability::normal_cdf(-1.0 / kSdG);

json robust(const fs::path& out, const std::string& args, int& code) {
  const CommandOutput r = run_command(kSao + " robust " + kStudy + " --out " + out.string() +
                                      " --json -q " + args + " 2>/dev/null");
  code = r.code;
  const json parsed = json::parse(r.text, nullptr, false);
  EXPECT_FALSE(parsed.is_discarded()) << r.text;
  return parsed;
}

const json& value_named(const json& result, const std::string& name) {
  for (const json& v : result["values"]) {
    if (v["name"] == name) return v;
  }
  static const json none;
  ADD_FAILURE() << "no value " << name;
  return none;
}

// The interval holds `exact` and is narrower than `width`.
void holds(const json& interval, double exact, double width, const std::string& what) {
  EXPECT_LE(interval["low"].get<double>(), exact) << what;
  EXPECT_GE(interval["high"].get<double>(), exact) << what;
  EXPECT_LT(interval["high"].get<double>() - interval["low"].get<double>(), width) << what;
}

void check_statistics(const json& result, const std::string& where, double scale) {
  const json& f = value_named(result, "objective.F");
  holds(f[where]["mean"], 5.0, 0.3 * scale, where + " mean f");
  holds(f[where]["sd"], kSdF, 0.3 * scale, where + " sd f");
  const json& q = f[where]["quantiles"];
  holds(q[2], 5.0 + kSdF * sao::reliability::normal_quantile(0.95), 0.6 * scale, where + " q95 f");
  const json& g = value_named(result, "constraint.g");
  holds(g[where]["mean"], 1.0, 0.4 * scale, where + " mean g");
  holds(g[where]["sd"], kSdG, 0.4 * scale, where + " sd g");
}

int stored_analyses(const fs::path& out) {
  return query(out / "study.sqlite", "SELECT COUNT(*) FROM analyses");
}

TEST(RobustCli, MonteCarloOnAnalysesHoldsTheClosedFormAndReusesItsAnalyses) {
  const fs::path out = scratch_directory("test-robust-cli", "analyses");
  int code = -1;
  const json r = robust(out, "--method mc-analyses --samples 400", code);
  ASSERT_EQ(code, 0);
  check_statistics(r, "statistics", 1.0);
  const json& v = value_named(r, "constraint.g")["violation"];
  holds(v, kPf, 0.12, "P(g > 2)");
  EXPECT_EQ(v["count"], 400);
  EXPECT_EQ(stored_analyses(out), 400);
  const json again = robust(out, "--method mc-analyses --samples 400", code);
  ASSERT_EQ(code, 0);
  EXPECT_EQ(again["analyses"][0]["analysed"], 0);
  EXPECT_EQ(again["analyses"][0]["reused"], 400);
  EXPECT_EQ(stored_analyses(out), 400);
  EXPECT_EQ(again["values"], r["values"]);
}

TEST(RobustCli, SamplesOnTheMetamodelHoldTheClosedFormAndAreVerified) {
  const fs::path out = scratch_directory("test-robust-cli", "metamodel");
  int code = -1;
  const json r = robust(out, "--samples 20000 --verify 8", code);
  ASSERT_EQ(code, 0);
  EXPECT_EQ(r["model"], "kriging");
  check_statistics(r, "statistics", 0.5);
  holds(value_named(r, "constraint.g")["violation"], kPf, 0.03, "P(g > 2)");
  const json& verification = value_named(r, "objective.F")["verification"];
  EXPECT_EQ(verification["computed"].size(), 8u);
  EXPECT_LT(verification["rms"].get<double>(), 1e-3);  // kriging of a linear function
  const int stored = stored_analyses(out);
  EXPECT_EQ(stored, 10 + 8);  // the local DOE (max(2k + 1, 10)) and the verification
  const json again = robust(out, "--samples 20000 --verify 8", code);
  ASSERT_EQ(code, 0);
  EXPECT_EQ(stored_analyses(out), stored);
  for (const json& set : again["analyses"]) EXPECT_EQ(set["analysed"], 0) << set.dump();
  // FORM on the same metamodel (its DOE re-used): the exact index of the linear limit state.
  const json form = robust(out, "--method form --samples 2000 --verify 0", code);
  ASSERT_EQ(code, 0);
  EXPECT_EQ(stored_analyses(out), stored);
  const json& f = value_named(form, "constraint.g")["form"];
  EXPECT_TRUE(f["converged"].get<bool>());
  EXPECT_NEAR(f["beta"].get<double>(), 1.0 / kSdG, 1e-3);
}

// The Sobol indices over the random variables, on the model: f = x1 + 2 x2 with the
// correlated pair is 0.8 z1 + 0.3 sqrt(3) z2 in the independent components (x1 = 1 + 0.5 z1,
// x2 = 2 + 0.3 (0.5 z1 + sqrt(0.75) z2)), so S = (0.64, 0.27) / 0.91 exactly, and with a linear
// function the first-order and total indices coincide; g = 3 x1 - x2 gives (1.8225, 0.0675) / 1.89.
TEST(RobustCli, SobolIndicesOverTheRandomVariablesHoldTheClosedForm) {
  const fs::path out = scratch_directory("test-robust-cli", "sobol");
  int code = -1;
  const json r = robust(out, "--samples 2000 --verify 0 --sobol 2048", code);
  ASSERT_EQ(code, 0);
  struct Expected {
    std::string value;
    double s1, s2;
  };
  for (const Expected& e : {Expected{"objective.F", 0.64 / 0.91, 0.27 / 0.91},
                            Expected{"constraint.g", 1.8225 / 1.89, 0.0675 / 1.89}}) {
    const json& sobol = value_named(r, e.value)["sobol"];
    ASSERT_TRUE(sobol.is_object()) << e.value;
    for (const char* kind : {"first", "total"}) {
      EXPECT_NEAR(sobol[kind][0].get<double>(), e.s1, 0.02) << e.value << " " << kind;
      EXPECT_NEAR(sobol[kind][1].get<double>(), e.s2, 0.02) << e.value << " " << kind;
    }
    EXPECT_EQ(sobol["evaluations"], 2048 * 4);
  }
  const CommandOutput refused = sao("robust " + kStudy + " --out " + out.string() +
                                    " --method mc-analyses --sobol 128 --samples 10");
  EXPECT_EQ(refused.code, 2) << refused.text;
  EXPECT_TRUE(contains(refused.text, "--sobol needs a metamodel")) << refused.text;
}

TEST(RobustCli, BadInputExitsTwo) {
  const fs::path out = scratch_directory("test-robust-cli", "bad");
  const CommandOutput r = sao("robust " + kStudy + " --out " + out.string() + " --design x9=1");
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_TRUE(contains(r.text, "--design x9=1")) << r.text;
  const CommandOutput none =
      sao("robust " + kProblems + "suite/hs-010.json --out " + (out / "none").string());
  EXPECT_EQ(none.code, 2) << none.text;
  EXPECT_TRUE(contains(none.text, "no \\\"random_variables\\\"") ||
              contains(none.text, "no \"random_variables\""))
      << none.text;
}

}  // namespace
