// The metamodel report (sao/report/metamodel_report.hpp) on stores made by a DOE of an analytic
// study: an exactly quadratic response is reproduced by the quadratic model (LOO RMS ~ 0, the
// best), a variable it does not read has total Sobol index ~ 0, the objective and constraint
// are modelled too, the report is deterministic, and the errors name what is wrong.
#include "sao/report/metamodel_report.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>

#include "sao/components/standard_components.hpp"
#include "sao/store/doe_run.hpp"
#include "sao/store/study_session.hpp"
#include "sao/study/study_loader.hpp"
#include "tests/support.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using sao::report::MetamodelRequest;
using sao::report::ModelledValue;

// q is exactly quadratic in x1 and x2 and does not read x3; s is not polynomial; k is constant.
json analytic_study(const std::string& method, int points) {
  json study = json::parse(R"({
    "name": "metamodel report",
    "design_variables": [
      {"name": "x1", "unit": "mm", "lower": 0, "upper": 2, "initial": 1},
      {"name": "x2", "lower": -1, "upper": 3, "initial": 1},
      {"name": "x3", "lower": 1, "upper": 5, "initial": 2}
    ],
    "load_cases": [{"name": "main"}],
    "responses": [
      {"name": "q", "kind": "scalar", "unit": "J"},
      {"name": "s", "kind": "scalar"},
      {"name": "k", "kind": "scalar"}
    ],
    "objective": {"name": "energy", "minimize": "q", "unit": "J"},
    "constraints": [{"name": "limit", "of": "s", "upper": 3}],
    "simulator": {
      "type": "internal",
      "model": "functions",
      "functions": {"q": "1 + 2*x1 - x2 + 0.5*x1*x2 + 3*x1^2 - 0.7*x2^2",
                    "s": "exp(0.5*x1) * sin(x2) + 0.3*x3", "k": "2.5 + 0*x1"},
      "gradients": {"method": "forward", "step": 1e-6}
    }})");
  study["doe"] = {{"method", method}, {"points", points}, {"seed", 3}};
  return study;
}

// A store in `dir` holding the DOE of the analytic study.
std::string make_store(const fs::path& dir, int points) {
  sao::register_standard_components();
  const json document = analytic_study("lhs", points);
  const std::string store = (dir / "study.sqlite").string();
  sao::StudySession session(store, true);
  session.begin(document, (dir / "study.json").string(), 0);
  session.open_for_analyses();
  const sao::LoadedStudy loaded = sao::load_study(document, (dir / "study.json").string());
  const sao::PreparedDoe prepared = sao::prepare_doe(session, *loaded.doe);
  sao::run_doe(session, prepared.doe, 0, [](const sao::DoeProgress&) {});
  return store;
}

const ModelledValue& value_named(const sao::report::MetamodelReport& r, const std::string& name) {
  for (const ModelledValue& v : r.values) {
    if (v.name == name) return v;
  }
  throw std::runtime_error("no value " + name);
}

std::string thrown(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

TEST(MetamodelReport, AQuadraticResponseIsFittedExactlyByTheQuadraticModelMarkedBest) {
  const fs::path dir = sao::testing::scratch_directory("test-metamodel-report");
  const std::string store = make_store(dir, 30);
  MetamodelRequest request;
  request.sobol_samples = 1024;
  request.bootstrap = 100;
  const auto r = sao::report::metamodel_report(store, request);
  EXPECT_EQ(r.analyses, 30);
  EXPECT_EQ(r.points.rows(), 30);
  EXPECT_EQ(r.inputs.size(), 3u);
  ASSERT_EQ(r.models, (std::vector<std::string>{"linear", "quadratic", "rbf", "kriging"}));
  // main.q, main.s, main.k, the objective (q again) and the constraint (s).
  ASSERT_EQ(r.values.size(), 5u);
  EXPECT_EQ(r.values[3].name, "objective.energy");
  EXPECT_EQ(r.values[4].name, "constraint.limit");
  // k: the same everywhere, said so, nothing fitted.
  EXPECT_TRUE(r.values[2].constant);
  EXPECT_TRUE(r.values[2].fits.empty());
  EXPECT_FALSE(r.values[2].sobol);
  for (const std::string name : {"main.q", "objective.energy"}) {
    const ModelledValue& q = value_named(r, name);
    EXPECT_EQ(q.unit, "J");
    ASSERT_EQ(q.fits.size(), 4u);
    for (const auto& f : q.fits) EXPECT_TRUE(f.fitted) << name << " " << f.model << f.skipped;
    EXPECT_EQ(q.fits[q.best].model, "quadratic") << name;
    EXPECT_LT(q.fits[1].accuracy.loo_rms, 1e-9) << name;
    EXPECT_NEAR(q.fits[1].accuracy.r2_pred, 1.0, 1e-12) << name;
    EXPECT_GT(q.fits[0].accuracy.loo_rms, 0.1) << name;  // the linear model misses the curvature
    // Sobol indices from the quadratic: x3 plays no part; the indices are fractions.
    ASSERT_TRUE(q.sobol) << q.note;
    EXPECT_EQ(q.sobol_model, "quadratic");
    EXPECT_LT(std::abs(q.sobol->total(2)), 0.01);
    EXPECT_GT(q.sobol->total(0), 0.3);
    EXPECT_LE(q.sobol->first_low(0), q.sobol->first(0));
    EXPECT_GE(q.sobol->first_high(0), q.sobol->first(0));
  }
  // The constraint's value is s: neither exact nor polynomial, but well modelled.
  const ModelledValue& s = value_named(r, "constraint.limit");
  ASSERT_GE(s.best, 0);
  EXPECT_GT(s.fits[s.best].accuracy.r2_pred, 0.9);
  EXPECT_GT(s.sobol->total(2), 0.01);  // x3 enters s linearly
  // Seeded: the same report again, figure for figure.
  EXPECT_EQ(sao::report::metamodel_report_json(sao::report::metamodel_report(store, request)),
            sao::report::metamodel_report_json(r));
  const auto j = sao::report::metamodel_report_json(r);
  EXPECT_EQ(j["variables"][0]["unit"], "mm");
  EXPECT_FALSE(j["variables"][1].contains("unit"));
  EXPECT_EQ(j["values"][0]["best"], "quadratic");
  EXPECT_EQ(j["values"][0]["sobol"]["variables"].size(), 3u);
  const std::string text = sao::report::metamodel_report_text(r);
  EXPECT_NE(text.find("* quadratic"), std::string::npos) << text;
  EXPECT_NE(text.find("Sobol indices of quadratic"), std::string::npos) << text;
  EXPECT_NE(text.find("main.k (scalar, 30 points; from 2.5 to 2.5, mean 2.5)\n  the same value at "
                      "every point: no model, no Sobol indices\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(j["values"][2]["constant"], true);
  EXPECT_TRUE(j["values"][2]["sobol"].is_null());
}

TEST(MetamodelReport, ModelsNeedingMorePointsAreSkippedAndTooFewPointsAreAnError) {
  const fs::path dir = sao::testing::scratch_directory("test-metamodel-report");
  const std::string store = make_store(dir, 8);
  MetamodelRequest request;
  request.sobol_samples = 256;
  request.bootstrap = 50;
  request.responses = {"q"};
  const auto r = sao::report::metamodel_report(store, request);
  ASSERT_EQ(r.values.size(), 1u);
  const ModelledValue& q = r.values[0];
  EXPECT_TRUE(q.fits[0].fitted);   // linear: 5 points
  EXPECT_FALSE(q.fits[1].fitted);  // quadratic: 11
  EXPECT_EQ(q.fits[1].skipped, "needs 11 points, 8 available");
  EXPECT_NE(sao::report::metamodel_report_text(r).find("quadratic      skipped: needs 11"),
            std::string::npos);
  // Only the quadratic asked: too few points for it, the message says what to do.
  request.models = {"quadratic"};
  const std::string few = thrown([&] { sao::report::metamodel_report(store, request); });
  EXPECT_NE(few.find("8 successful analyses"), std::string::npos) << few;
  EXPECT_NE(few.find("(quadratic) needs at least 11"), std::string::npos) << few;
  EXPECT_NE(few.find("sao doe"), std::string::npos) << few;
}

TEST(MetamodelReport, UnknownModelsAndResponsesAreNamed) {
  const fs::path dir = sao::testing::scratch_directory("test-metamodel-report");
  const std::string store = make_store(dir, 6);
  MetamodelRequest request;
  request.models = {"linear", "cubic"};
  const std::string model = thrown([&] { sao::report::metamodel_report(store, request); });
  EXPECT_NE(model.find("unknown model \"cubic\" (known: linear, interactions"), std::string::npos)
      << model;
  request.models = {"linear"};
  request.responses = {"q", "nope"};
  const std::string response = thrown([&] { sao::report::metamodel_report(store, request); });
  EXPECT_NE(response.find("unknown response \"nope\" (known: q, s, k, energy, limit, main.q"),
            std::string::npos)
      << response;
  request.responses = {};
  request.sobol_model = "kriging";
  const std::string sobol = thrown([&] { sao::report::metamodel_report(store, request); });
  EXPECT_NE(sobol.find("the Sobol model \"kriging\" is not among the models asked"),
            std::string::npos)
      << sobol;
}

}  // namespace
