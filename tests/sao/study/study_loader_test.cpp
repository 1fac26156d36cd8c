#include "sao/study/study_loader.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <utility>

#include "sao/study/criteria.hpp"

namespace sao {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

json base_study() {
  return json::parse(R"({
    "name": "t",
    "design_variables": [
      {"name": "b1", "lower": 0.001, "upper": 1.0, "initial": 1.0},
      {"name": "b2", "lower": 0.001, "upper": 1.0, "initial": 0.3, "move_limit": 0.3}
    ],
    "auxiliary_variables": [{"name": "b3", "lower": 0.0, "initial": 0.85}],
    "load_cases": [{"name": "impact", "time": {"end": 12.0, "points": 101}}],
    "responses": [
      {"name": "y", "kind": "history"},
      {"name": "acc", "kind": "history", "source": "yddot"},
      {"name": "peak", "kind": "scalar"}
    ],
    "objective": {"minimize_max": {"response": "acc", "abs": true}, "auxiliary": "b3"},
    "constraints": [{"name": "disp", "of": {"response": "y", "abs": true}, "upper": 1.0}],
    "simulator": {"type": "internal"}
  })");
}

// Loads and expects a StudyError whose problems contain `fragment`.
std::string first_problem_with(const json& doc, const std::string& fragment) {
  try {
    load_study(doc, "test.json");
  } catch (const StudyError& e) {
    for (const auto& p : e.problems()) {
      if (p.find(fragment) != std::string::npos) return p;
    }
    ADD_FAILURE() << "no problem mentions '" << fragment << "' in:\n" << e.what();
    return "";
  }
  ADD_FAILURE() << "study loaded without error, expected '" << fragment << "'";
  return "";
}

TEST(StudyLoader, LoadsTheBaseStudyWithDefaults) {
  const LoadedStudy s = load_study(base_study());
  ASSERT_EQ(s.n_design(), 2);
  EXPECT_EQ(s.n_aux(), 1);
  EXPECT_DOUBLE_EQ(s.design[0].move_factor, 0.4);  // default
  EXPECT_DOUBLE_EQ(s.design[1].move_factor, 0.3);
  EXPECT_DOUBLE_EQ(s.options.cutoff, 0.7);
  EXPECT_DOUBLE_EQ(s.options.scalar_cutoff, 0.0);  // the trust region's scalar constraints
  EXPECT_EQ(s.options.neighbours, 2);
  EXPECT_EQ(s.load_cases[0].grid.points, 101);
  EXPECT_EQ(s.responses[1].source, "yddot");
  EXPECT_EQ(s.responses[0].source, "y");
}

TEST(StudyLoader, BoundFormulationTurnsMaxObjectiveIntoConstraints) {
  const LoadedStudy s = load_study(base_study());
  EXPECT_TRUE(s.objective.bound_formulation);
  // The objective is the auxiliary b3 itself.
  Evaluation e;
  e.cases.resize(1);
  e.cases[0].histories["y"] = Eigen::VectorXd::LinSpaced(101, 0.0, 1.0);
  e.cases[0].histories["yddot"] = Eigen::VectorXd::LinSpaced(101, 0.0, 2.0);
  const ExactResponses exact(s, e);
  const Eigen::Vector3d x(0.5, 0.6, 0.7);
  EXPECT_DOUBLE_EQ(criterion_value(s, s.objective.f, 0, x, exact), 0.7);
  EXPECT_FALSE(s.objective.f.program->uses_responses());
  // |acc| <= b3 -> acc - b3 <= 0 and -acc - b3 <= 0; |y| <= 1 -> two more.
  ASSERT_EQ(s.constraints.size(), 4u);
  EXPECT_EQ(s.constraints[0].bound_auxiliary, 0);
  EXPECT_DOUBLE_EQ(criterion_value(s, s.constraints[0].g, 50, x, exact), 1.0);
  EXPECT_DOUBLE_EQ(criterion_value(s, s.constraints[1].g, 50, x, exact), -1.0);
  EXPECT_TRUE(s.constraints[0].g.time_dependent());
  EXPECT_EQ(s.constraints[0].g.points(), 101);
  EXPECT_EQ(s.constraints[2].name, "disp[+]");
  EXPECT_DOUBLE_EQ(s.constraints[3].bound, 1.0);
  EXPECT_EQ(s.constraints[3].bound_auxiliary, -1);
}

TEST(StudyLoader, ConstraintOverSeveralLoadCasesExpandsPerCase) {
  json d = base_study();
  d["load_cases"].push_back({{"name", "second"}, {"time", {{"end", 3.0}, {"points", 11}}}});
  const LoadedStudy s = load_study(d);
  EXPECT_EQ(s.constraints.size(), 8u);  // 2 criteria x 2 signs x 2 cases
  EXPECT_EQ(s.constraints[7].name, "disp[-]@second");
  EXPECT_EQ(s.constraints[7].g.program->grid_case(), 1);
  EXPECT_EQ(s.constraints[7].g.points(), 11);
}

TEST(StudyLoader, UnknownKeyNamesItsPath) {
  json d = base_study();
  d["design_variables"][1]["uper"] = 2.0;
  EXPECT_THAT(first_problem_with(d, "uper"), HasSubstr("design_variables[1].uper: unknown key"));
  d = base_study();
  d["settings"] = {{"cuttoff", 0.5}};
  EXPECT_THAT(first_problem_with(d, "cuttoff"), HasSubstr("settings.cuttoff: unknown key"));
  d = base_study();
  d["objectve"] = 1;
  EXPECT_THAT(first_problem_with(d, "objectve"), HasSubstr("objectve: unknown key"));
}

TEST(StudyLoader, WrongTypeNamesItsPath) {
  json d = base_study();
  d["design_variables"][0]["lower"] = "zero";
  EXPECT_THAT(first_problem_with(d, "lower"),
              HasSubstr("design_variables[0].lower: expected a number, got a string"));
  d = base_study();
  d["settings"] = {{"neighbours", 1.5}};
  EXPECT_THAT(first_problem_with(d, "neighbours"),
              HasSubstr("settings.neighbours: expected an integer"));
}

TEST(StudyLoader, LowerAboveUpperIsAnError) {
  json d = base_study();
  d["design_variables"][1]["lower"] = 2.0;
  EXPECT_THAT(first_problem_with(d, "lower 2"),
              HasSubstr("design_variables[1]: lower 2 > upper 1"));
}

TEST(StudyLoader, InitialOutsideBoundsIsAnError) {
  json d = base_study();
  d["design_variables"][0]["initial"] = 1.5;
  EXPECT_THAT(first_problem_with(d, "initial"),
              HasSubstr("design_variables[0].initial: 1.5 outside the bounds [0.001, 1]"));
}

TEST(StudyLoader, AVariableMayHaveNoBoundsAndIsSizedByItsCharacteristicSize) {
  json d = base_study();
  d["design_variables"][0].erase("lower");
  d["design_variables"][0].erase("upper");
  d["design_variables"][1].erase("upper");
  d["design_variables"][1]["size"] = 0.5;
  const LoadedStudy s = load_study(d);
  EXPECT_FALSE(s.design[0].bounded());
  EXPECT_EQ(s.design[0].lower, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(s.design[0].upper, std::numeric_limits<double>::infinity());
  EXPECT_DOUBLE_EQ(s.design[0].span(), 2.0);  // 2 max(|initial| = 1, 1)
  EXPECT_DOUBLE_EQ(s.design[1].lower, 0.001);
  EXPECT_DOUBLE_EQ(s.design[1].span(), 1.0);  // 2 x size
  EXPECT_EQ(s.design[1].interval(0.3), std::make_pair(0.001, 0.8));
}

TEST(StudyLoader, TheSizeOfAnUnboundedVariableIsChecked) {
  json d = base_study();
  d["design_variables"][0]["size"] = 0.5;  // both bounds given
  EXPECT_THAT(first_problem_with(d, "size"),
              HasSubstr("design_variables[0].size: only for a variable without both bounds"));
  d["design_variables"][0].erase("upper");
  d["design_variables"][0]["size"] = -1.0;
  EXPECT_THAT(first_problem_with(d, "size"), HasSubstr("design_variables[0].size: must be > 0"));
  d = base_study();
  d["design_variables"][0].erase("lower");
  d["design_variables"][0]["intermediate"] = "reciprocal";
  EXPECT_THAT(first_problem_with(d, "lower"), HasSubstr("must be given and > 0"));
  d["design_variables"][0]["intermediate"] = {{"expression", "log(b1)"}};
  EXPECT_THAT(first_problem_with(d, "intermediate"), HasSubstr("needs both bounds"));
}

TEST(StudyLoader, AnEqualityIsBothSidesOfOneConstraint) {
  json d = base_study();
  d["constraints"] = json::parse(R"([{"name": "peak", "of": "peak", "equals": 2.0}])");
  const LoadedStudy s = load_study(d);
  std::vector<const Constraint*> peak;  // the others are the bound formulation's rows
  for (const Constraint& c : s.constraints) {
    if (c.name.rfind("peak", 0) == 0) peak.push_back(&c);
  }
  ASSERT_EQ(peak.size(), 2u);
  EXPECT_EQ(peak[0]->sense, Sense::kLessEqual);
  EXPECT_EQ(peak[1]->sense, Sense::kGreaterEqual);
  EXPECT_DOUBLE_EQ(peak[0]->bound, 2.0);
  EXPECT_DOUBLE_EQ(peak[1]->bound, 2.0);
  d["constraints"][0]["upper"] = 3.0;
  EXPECT_THAT(first_problem_with(d, "equals"),
              HasSubstr("constraints[0].equals: not with \"upper\" or \"lower\""));
  d["constraints"][0].erase("upper");
  d["constraints"][0]["equals"] = 0.0;  // needs a scale; said once, not once per side
  try {
    load_study(d);
    ADD_FAILURE() << "loaded";
  } catch (const StudyError& e) {
    EXPECT_EQ(
        std::count_if(e.problems().begin(), e.problems().end(),
                      [](const std::string& p) { return p.find("scale") != std::string::npos; }),
        1);
  }
  // A quantity that cannot be made is reported once too, for an equality and for a range.
  for (const char* bounds : {R"({"equals": 2.0})", R"({"lower": 1.0, "upper": 3.0})"}) {
    json c = json::parse(bounds);
    c["of"] = "peek";
    d["constraints"][0] = c;
    try {
      load_study(d);
      ADD_FAILURE() << "loaded";
    } catch (const StudyError& e) {
      EXPECT_EQ(std::count_if(e.problems().begin(), e.problems().end(),
                              [](const std::string& p) {
                                return p.find("unknown name \"peek\"") != std::string::npos;
                              }),
                1)
          << bounds << "\n"
          << e.what();
    }
  }
}

TEST(StudyLoader, ZeroBoundWithoutScaleIsAnError) {
  json d = base_study();
  d["constraints"][0]["upper"] = 0.0;
  EXPECT_THAT(first_problem_with(d, "scale"), HasSubstr("constraints[0].scale: missing"));
  d["constraints"][0]["scale"] = 2.0;
  EXPECT_NO_THROW(load_study(d));
}

TEST(StudyLoader, UnknownResponseNameIsAnError) {
  json d = base_study();
  d["constraints"][0]["of"]["response"] = "z";
  EXPECT_THAT(
      first_problem_with(d, "\"z\""),
      HasSubstr("constraints[0].of.response: unknown response \"z\" (declared: y, acc, peak)"));
}

TEST(StudyLoader, UnknownAuxiliaryAndVariableAreErrors) {
  json d = base_study();
  d["objective"]["auxiliary"] = "b9";
  EXPECT_THAT(first_problem_with(d, "b9"), HasSubstr("objective.auxiliary: unknown auxiliary"));
  d = base_study();
  d["constraints"][0]["of"] = {{"variable", "b7"}};
  EXPECT_THAT(first_problem_with(d, "b7"),
              HasSubstr("constraints[0].of.variable: unknown variable"));
}

TEST(StudyLoader, ReportsEveryProblemAtOnce) {
  json d = base_study();
  d["design_variables"][0]["lower"] = 5.0;
  d["constraints"][0]["of"]["response"] = "z";
  d["settings"] = {{"cutoff", 1.5}};
  try {
    load_study(d);
    FAIL() << "expected StudyError";
  } catch (const StudyError& e) {
    EXPECT_EQ(e.problems().size(), 3u) << e.what();
  }
}

// A cutoff given screens the trust region's scalar constraints too.
TEST(StudyLoader, ACutoffGivenAlsoSetsTheScalarCutoff) {
  json d = base_study();
  d["settings"] = {{"cutoff", 0.5}};
  const LoadedStudy s = load_study(d);
  EXPECT_DOUBLE_EQ(s.options.cutoff, 0.5);
  EXPECT_DOUBLE_EQ(s.options.scalar_cutoff, 0.5);
}

TEST(StudyLoader, ChoiceSettingsAcceptTheirWordsOnly) {
  json d = base_study();
  d["settings"] = {
      {"approximation", "multipoint"}, {"fit", "least_squares"}, {"nlp_algorithm", "mma"}};
  const LoadedStudy s = load_study(d);
  EXPECT_EQ(s.options.approximation, ApproximationSource::kMultipoint);
  EXPECT_EQ(s.options.fit, FitMethod::kLeastSquares);
  EXPECT_EQ(s.options.nlp_algorithm, NlpAlgorithm::kMma);
  EXPECT_EQ(s.options.subproblem, SubproblemSolver::kAuto);
  EXPECT_TRUE(s.options.require_free_move_limits);  // default for multi-point
  d["settings"] = {{"fit", "lsq"}};
  EXPECT_THAT(
      first_problem_with(d, "lsq"),
      HasSubstr("settings.fit: expected \"interpolation\" or \"least_squares\", got \"lsq\""));
}

TEST(StudyLoader, ApproximationFormsStudyWideAndPerResponse) {
  json d = base_study();
  EXPECT_EQ(load_study(d).options.form, ApproximationForm::kAuto);  // the default
  EXPECT_FALSE(load_study(d).responses[0].form.has_value());
  d["settings"] = {{"form", "quadratic"}, {"min_curvature", -1.0}, {"max_curvature", 50.0}};
  d["responses"][1]["form"] = "conservative";
  d["responses"][2]["form"] = "linear";
  const LoadedStudy s = load_study(d);
  EXPECT_EQ(s.options.form, ApproximationForm::kQuadratic);
  EXPECT_DOUBLE_EQ(s.options.min_curvature, -1.0);
  EXPECT_DOUBLE_EQ(s.options.max_curvature, 50.0);
  EXPECT_FALSE(s.responses[0].form.has_value());
  EXPECT_EQ(s.responses[1].form, ApproximationForm::kConservative);
  EXPECT_EQ(s.responses[2].form, ApproximationForm::kLinear);
  EXPECT_EQ(s.options.approximation,
            ApproximationSource::kLocal);  // `approximation` (the data's source) is independent
  d["settings"] = {{"form", "mma"}};
  EXPECT_THAT(first_problem_with(d, "mma"),
              HasSubstr("settings.form: expected \"auto\", \"linear\", \"conservative\", "
                        "\"quadratic\" or \"quasi_newton\", got \"mma\""));
  d["settings"] = {{"form", "quasi_newton"}};
  EXPECT_EQ(load_study(d).options.form, ApproximationForm::kQuasiNewton);
  d["settings"] = json::object();
  d["responses"][1]["form"] = 2;
  EXPECT_THAT(first_problem_with(d, "responses[1].form"), HasSubstr("responses[1].form"));
  d["responses"][1]["form"] = "Quadratic";
  EXPECT_THAT(first_problem_with(d, "Quadratic"),
              HasSubstr("responses[1].form: expected \"auto\", \"linear\""));
  d["responses"][1]["form"] = "quadratic";
  d["settings"] = {{"max_curvature", 0.0}};
  EXPECT_THAT(first_problem_with(d, "curvature"),
              HasSubstr("settings.max_curvature: must be finite and > 0"));
  d["settings"] = {{"min_curvature", 2e3}};
  EXPECT_THAT(first_problem_with(d, "curvature"),
              HasSubstr("settings.min_curvature: must be in [-max_curvature, max_curvature]"));
  d["settings"] = {{"formm", "linear"}};
  EXPECT_THAT(first_problem_with(d, "formm"), HasSubstr("settings.formm: unknown key"));
}

TEST(StudyLoader, InvalidOptionCombinationNamesTheSetting) {
  json d = base_study();
  d["settings"] = {{"errsml", 50.0}};
  EXPECT_THAT(first_problem_with(d, "settings."), HasSubstr("settings.errsml"));
}

TEST(StudyLoader, HistoryObjectiveNeedsMinimizeMax) {
  json d = base_study();
  d["objective"] = {{"minimize", {{"response", "acc"}}}};
  EXPECT_THAT(first_problem_with(d, "minimize_max"), HasSubstr("objective.minimize: is a history"));
  d["objective"] = {{"minimize", {{"response", "peak"}}}};
  EXPECT_NO_THROW(load_study(d));
}

TEST(StudyLoader, ZeroInitialWithRelativeMoveLimitIsAnError) {
  json d = base_study();
  d["design_variables"][0]["lower"] = 0.0;
  d["design_variables"][0]["initial"] = 0.0;
  EXPECT_THAT(first_problem_with(d, "sizing"), HasSubstr("design_variables[0].initial: is 0"));
  d["design_variables"][0]["sizing"] = "range";
  EXPECT_NO_THROW(load_study(d));
}

TEST(StudyLoader, MalformedJsonNamesLineAndColumn) {
  const std::string path = ::testing::TempDir() + "/broken_study.json";
  std::ofstream(path) << "{\n  \"name\": \"x\",\n  \"design_variables\": [,]\n}\n";
  try {
    load_study_file(path);
    FAIL() << "expected StudyError";
  } catch (const StudyError& e) {
    EXPECT_THAT(e.what(), HasSubstr("line 3, column 24 (reading design_variables[0]): not valid "
                                    "JSON: syntax error while parsing value - unexpected ','"));
    EXPECT_THAT(e.what(), ::testing::Not(HasSubstr("[json.exception")));
  }
}

TEST(StudyLoader, MissingFileIsAnError) {
  EXPECT_THROW(load_study_file("/nonexistent/study.json"), StudyError);
}

// ---------------------------------------------------------------------------------------
// Explicit relations in study files

// An Evaluation of the base study with y(p) = p / 100, acc(p) = 2 p / 100, peak = 3.
Evaluation base_evaluation() {
  Evaluation e;
  e.cases.resize(1);
  e.cases[0].histories["y"] = Eigen::VectorXd::LinSpaced(101, 0.0, 1.0);
  e.cases[0].histories["yddot"] = Eigen::VectorXd::LinSpaced(101, 0.0, 2.0);
  e.cases[0].scalars["peak"] = 3.0;
  return e;
}

TEST(StudyLoaderRelations, ExpressionObjectiveAndConstraintsUseRelationsAndData) {
  json d = base_study();
  d["constants"] = {{"g0", 9.81}};
  d["data"] = {{"w", {1.0, 2.0, 3.0}}};
  d["relations"] = {{"energy", "acc^2 / 2"}, {"twice", "2 * energy"}};
  d["objective"] = {{"minimize", "trapz(twice) + peak * b1 + sum(w)"}};
  d["constraints"] = json::array({{{"name", "c"}, {"of", "y * g0 - b2"}, {"upper", 5.0}}});
  const LoadedStudy s = load_study(d);
  const Evaluation e = base_evaluation();
  const ExactResponses exact(s, e);
  const Eigen::Vector3d x(0.5, 0.25, 0.0);
  // trapz over 0..12 of acc^2 = (t/6)^2: 12^3 / 108 = 16 (up to the trapezoid error).
  const double f = criterion_value(s, s.objective.f, 0, x, exact);
  EXPECT_NEAR(f, 16.0 + 3.0 * 0.5 + 6.0, 16.0 * 1e-3);
  EXPECT_FALSE(s.objective.f.linear());
  ASSERT_EQ(s.constraints.size(), 1u);
  EXPECT_TRUE(s.constraints[0].g.time_dependent());
  EXPECT_TRUE(s.constraints[0].g.linear());
  EXPECT_NEAR(criterion_value(s, s.constraints[0].g, 100, x, exact), 9.81 - 0.25, 1e-12);
}

TEST(StudyLoaderRelations, ErrorsNameThePathAndTheColumn) {
  json d = base_study();
  d["objective"] = {{"minimize", "trapz(acceleraton^2)"}};
  EXPECT_THAT(first_problem_with(d, "acceleraton"),
              HasSubstr("objective.minimize: column 7: unknown name \"acceleraton\""));
  d = base_study();
  d["relations"] = {{"bad", "y +* 2"}};
  d["constraints"] = json::array({{{"of", "bad"}, {"upper", 1.0}}});
  EXPECT_THAT(first_problem_with(d, "relations.bad"),
              HasSubstr("relations.bad: column 4: unexpected \"*\""));
  d = base_study();
  d["relations"] = {{"r", "y + nope"}};
  d["constraints"] = json::array({{{"of", {{"expression", "r * 2"}}}, {"upper", 1.0}}});
  EXPECT_THAT(first_problem_with(d, "nope"), HasSubstr("relations.r: column 5: unknown name"));
  d = base_study();
  d["relations"] = {{"a", "b_ + 1"}, {"b_", "a * 2"}};
  d["constraints"] = json::array({{{"of", "a"}, {"upper", 1.0}}});
  EXPECT_THAT(first_problem_with(d, "cycle"), HasSubstr("a -> b_ -> a"));
}

TEST(StudyLoaderRelations, HistoryObjectiveAndMissingLoadCaseAreErrors) {
  json d = base_study();
  d["objective"] = {{"minimize", "y^2"}};
  EXPECT_THAT(first_problem_with(d, "objective.minimize"), HasSubstr("is a history"));
  d = base_study();
  d["load_cases"].push_back({{"name", "second"}, {"time", {{"end", 3.0}, {"points", 11}}}});
  d["objective"] = {{"minimize", "mean(y)"}};
  EXPECT_THAT(first_problem_with(d, "objective.minimize"), HasSubstr("name@case"));
  d["objective"] = {{"minimize", "mean(y@second) + mean(y@impact)"}};
  EXPECT_NO_THROW(load_study(d));
}

TEST(StudyLoaderRelations, ExplicitTimeValuesMakeANonUniformGrid) {
  json d = base_study();
  d["load_cases"][0]["time"] = {{"values", {0.0, 1.0, 3.0}}};
  d["objective"] = {{"minimize", "trapz(t^2)"}};
  const LoadedStudy s = load_study(d);
  EXPECT_EQ(s.load_cases[0].grid.points, 3);
  EXPECT_DOUBLE_EQ(s.load_cases[0].grid.at(2), 3.0);
  // (0 + 1)/2 * 1 + (1 + 9)/2 * 2 = 10.5 on the grid 0, 1, 3.
  EXPECT_DOUBLE_EQ(criterion_value(s, s.objective.f, 0, Eigen::Vector3d::Zero(),
                                   ExactResponses(s, base_evaluation())),
                   10.5);
  d["load_cases"][0]["time"] = {{"values", {0.0, 2.0, 1.0}}};
  EXPECT_THAT(first_problem_with(d, "values[2]"), HasSubstr("increase strictly"));
}

TEST(StudyLoaderRelations, DerivedResponsesMustHaveTheirDeclaredKind) {
  json d = base_study();
  d["responses"].push_back({{"name", "comfort"}, {"kind", "scalar"}, {"expression", "acc^2"}});
  EXPECT_THAT(first_problem_with(d, "responses[3].expression"),
              HasSubstr("declared a scalar but its value is a series"));
  d = base_study();
  d["responses"].push_back(
      {{"name", "comfort"}, {"kind", "scalar"}, {"expression", "trapz(acc^2) / 12"}});
  d["objective"] = {{"minimize", "comfort"}};
  const LoadedStudy s = load_study(d);
  ASSERT_EQ(s.responses[3].derived.size(), 1u);
  EXPECT_TRUE(s.objective.f.linear());  // approximated as a response: the LP path
  d["responses"][3]["source"] = "x";
  EXPECT_THAT(first_problem_with(d, "responses[3].source"), HasSubstr("not with \"expression\""));
}

TEST(StudyLoaderRelations, IntermediateExpressionMustBeMonotoneOnTheBounds) {
  json d = base_study();
  d["design_variables"][0]["intermediate"] = {{"expression", "log(b1)"}};
  const LoadedStudy s = load_study(d);
  EXPECT_NEAR(s.design[0].intermediate.value(0.5), std::log(0.5), 1e-15);
  EXPECT_NEAR(s.design[0].intermediate.slope(0.5), 2.0, 1e-15);
  d["design_variables"][0]["intermediate"] = {{"expression", "(b1 - 0.5)^2"}};
  EXPECT_THAT(first_problem_with(d, "design_variables[0].intermediate"),
              HasSubstr("strictly monotone"));
  d["design_variables"][0]["intermediate"] = {{"expression", "b1 * b2"}};
  EXPECT_THAT(first_problem_with(d, "intermediate.expression"),
              HasSubstr("expression of b1 and constants only"));
}

TEST(StudyLoaderRelations, NamesMustBeUniqueAndUsableInExpressions) {
  json d = base_study();
  d["constants"] = {{"y", 1.0}};
  EXPECT_THAT(first_problem_with(d, "constants.y"), HasSubstr("already used"));
  d = base_study();
  d["load_cases"][0]["name"] = "road 1";
  EXPECT_THAT(first_problem_with(d, "load_cases[0].name"), HasSubstr("cannot be used"));
}

// --- malformed files: a path-precise problem, never a crash (issue 18, loading) ---

TEST(StudyLoaderMalformed, AnObjectiveWithoutLoadCasesIsAProblem) {
  for (const json& cases : {json(), json(false), json(3), json::array()}) {
    for (const json& objective :
         {json{{"name", "f"}, {"minimize", "acc"}}, json{{"minimize", {{"response", "acc"}}}},
          json{{"minimize", "max(acc)"}}}) {
      json doc = base_study();
      doc["objective"] = objective;
      if (cases.is_null()) {
        doc.erase("load_cases");
      } else {
        doc["load_cases"] = cases;
      }
      EXPECT_THAT(first_problem_with(doc, "load_cases"), HasSubstr("load_cases"))
          << objective.dump() << " with load_cases " << cases.dump();
    }
  }
}

TEST(StudyLoaderMalformed, DeepNestingIsRefusedWithItsPath) {
  json deep = json::array();
  for (int i = 0; i < 100000; ++i) deep = json::array({std::move(deep)});
  json doc = base_study();
  doc["settings"] = {{"cutoff", std::move(deep)}};
  const std::string p = first_problem_with(doc, "nested more than 64 levels");
  EXPECT_THAT(p, HasSubstr("settings.cutoff[0][0]"));
  EXPECT_LT(p.size(), 1000u);
}

TEST(StudyLoaderMalformed, NumbersBeyondDoubleRangeAreBadInput) {
  const std::string file = ::testing::TempDir() + "/huge-number.json";
  std::string text = base_study().dump();
  text.replace(text.find("\"upper\":1.0"), 11, "\"upper\":1e309");
  std::ofstream(file) << text;
  try {
    read_study_document(file);
    FAIL() << "expected a StudyError";
  } catch (const StudyError& e) {
    // Its JSON path, line and column: the place of the number in the file.
    const size_t column = text.find("1e309") + 1;
    EXPECT_THAT(e.what(),
                HasSubstr("constraints[0].upper (line 1, column " + std::to_string(column) +
                          "): the number 1e309 is beyond the range of a double"));
    EXPECT_THAT(e.what(), ::testing::Not(HasSubstr("[json.exception")));
  }
}

TEST(StudyLoaderMalformed, GridsAboveTheLimitAreRefusedBeforeAllocating) {
  json doc = base_study();
  doc["load_cases"][0]["time"]["points"] = 1e9;
  EXPECT_THAT(first_problem_with(doc, "time.points"),
              HasSubstr("expected an integer <= 1000000, got 1000000000"));
  doc["load_cases"][0]["time"] = {{"values", json::array()}};
  for (int i = 0; i < 1000001; ++i) doc["load_cases"][0]["time"]["values"].push_back(i);
  // Caught by the document limit on the entries of one array, before the grid is read.
  EXPECT_THAT(first_problem_with(doc, "time.values"),
              HasSubstr("load_cases[0].time.values: an array of 1000001 entries, more than "
                        "1000000"));
}

// end = 1e308 left CVODES iterating for ever in `sao evaluate` (found by fuzzing).
TEST(StudyLoaderMalformed, TimesBeyondATrillionAreRefused) {
  json doc = base_study();
  doc["load_cases"][0]["time"] = {{"start", 0.0}, {"end", 1e308}, {"points", 11}};
  EXPECT_THAT(first_problem_with(doc, "time.end"),
              HasSubstr("load_cases[0].time.end: times must lie within -1e+12 and 1e+12, got "
                        "1e+308"));
  doc["load_cases"][0]["time"] = {{"start", -2e12}, {"end", 1.0}, {"points", 11}};
  EXPECT_THAT(first_problem_with(doc, "time.start"), HasSubstr("got -2e+12"));
  doc["load_cases"][0]["time"] = {{"values", {0.0, 1.0, 5e12}}};
  EXPECT_THAT(first_problem_with(doc, "time.values"), HasSubstr("got 5e+12"));
  doc["load_cases"][0]["time"] = {{"start", -1e12}, {"end", 1e12}, {"points", 11}};
  EXPECT_NO_THROW(load_study(doc, "test.json"));
}

TEST(StudyLoaderMalformed, LongStringsAndLargeFilesAreRefused) {
  json doc = base_study();
  doc["description"] = std::string(1000001, 'x');
  EXPECT_THAT(first_problem_with(doc, "description"),
              HasSubstr("description: a string of 1000001 characters, more than 1000000"));
  const std::string file = testing::TempDir() + "/huge-study.json";
  {
    std::ofstream out(file);
    out << base_study().dump();
    out << std::string(65 << 20, ' ');  // 65 MiB of trailing blanks: valid JSON
  }
  try {
    load_study_file(file);
    ADD_FAILURE() << "loaded";
  } catch (const StudyError& e) {
    EXPECT_THAT(e.what(), HasSubstr("more than the 64 MiB a study file may have"));
  }
  std::filesystem::remove(file);
}

TEST(StudyLoaderMalformed, ControlCharactersInKeysDoNotCutTheListShort) {
  json doc = base_study();
  doc["settings"] = {{std::string("cut\0off", 7), 1}, {"zzz", 2}};
  try {
    load_study(doc, "test.json");
    FAIL() << "expected a StudyError";
  } catch (const StudyError& e) {
    ASSERT_EQ(e.problems().size(), 2u) << e.what();
    EXPECT_THAT(e.problems()[0], HasSubstr("settings.cut\\u0000off: unknown key"));
    EXPECT_THAT(e.problems()[1], HasSubstr("settings.zzz: unknown key"));
    EXPECT_EQ(std::string(e.what()).find('\0'), std::string::npos);
  }
}

TEST(StudyLoaderMalformed, AnOverrideThatCannotBeSetIsAStudyError) {
  json doc = base_study();
  EXPECT_THROW(apply_override(doc, "name.x=1"), StudyError);  // a key below a string
}

}  // namespace
}  // namespace sao

namespace sao {
namespace {

// Issue 26: list elements by name or index in --set, --vary and sweep paths.
TEST(StudyLoaderMalformed, AMoveLimitIsAFractionUpToOne) {
  json d = base_study();
  d["design_variables"][1]["move_limit"] = 5.0;
  EXPECT_THAT(first_problem_with(d, "move_limit"),
              HasSubstr("design_variables[1].move_limit: must be in (0, 1]"));
  d = base_study();
  d["settings"]["move_limit"] = 0.0;
  EXPECT_THAT(first_problem_with(d, "move_limit"),
              HasSubstr("settings.move_limit: must be in (0, 1]"));
  d["settings"]["move_limit"] = 1.0;  // the whole |b0| (or range): allowed
  EXPECT_NO_THROW(load_study(d));
}

TEST(StudyPaths, ElementsAreNamedByTheirNameOrTheirIndex) {
  json doc = base_study();
  apply_override(doc, "constraints.disp.upper=0.9");
  EXPECT_DOUBLE_EQ(doc["constraints"][0]["upper"].get<double>(), 0.9);
  apply_override(doc, "design_variables.b2.initial=0.5");
  EXPECT_DOUBLE_EQ(doc["design_variables"][1]["initial"].get<double>(), 0.5);
  apply_override(doc, "design_variables.0.initial=0.25");  // an index still works
  EXPECT_DOUBLE_EQ(doc["design_variables"][0]["initial"].get<double>(), 0.25);
  apply_override(doc, "settings.noise=2");  // a missing object is created
  EXPECT_DOUBLE_EQ(doc["settings"]["noise"].get<double>(), 2.0);
  EXPECT_EQ(resolve_study_path(doc, "responses.acc.source", "--set"),
            (std::vector<std::string>{"responses", "1", "source"}));
}

TEST(StudyPaths, AnUnknownNameOrAnIndexOutOfRangeNamesTheElements) {
  json doc = base_study();
  const json before = doc;
  try {
    apply_override(doc, "design_variables.b9.upper=2", "--vary");
    FAIL() << "expected a StudyError";
  } catch (const StudyError& e) {
    EXPECT_THAT(e.what(), HasSubstr("--vary"));
    EXPECT_THAT(e.what(), HasSubstr("no element named \"b9\" (its elements: 0 \"b1\", 1 \"b2\")"));
  }
  try {
    apply_override(doc, "constraints.1.upper=2");
    FAIL() << "expected a StudyError";
  } catch (const StudyError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no element at index \"1\" (its elements: 0 \"disp\")"));
  }
  EXPECT_THROW(apply_override(doc, "constraints..upper=2"), StudyError);
  EXPECT_THROW(apply_override(doc, "name.x=1"), StudyError);  // below a string
  EXPECT_THROW(apply_override(doc, "constraints.99999999999999999999.upper=1"), StudyError);
  EXPECT_EQ(doc, before);  // nothing changed by a failed override
}

TEST(StudyLoaderAnnotations, UnitsAndLabelsAreKeptWhereGiven) {
  json d = base_study();
  d["design_variables"][0]["unit"] = "mm";
  d["design_variables"][0]["label"] = "Wall thickness";
  d["responses"][1]["unit"] = "m/s^2";
  d["responses"][1]["label"] = "Head acceleration";
  d["relations"] = {{"energy", {{"expression", "acc^2 / 2"}, {"unit", "J"}}}, {"plain", "2 * y"}};
  d["objective"]["unit"] = "m/s^2";
  d["objective"]["label"] = "Peak acceleration";
  d["constraints"][0]["unit"] = "m";
  d["constraints"][0]["label"] = "Displacement";
  d["constraints"].push_back({{"of", "trapz(energy)"}, {"upper", 1.0}});
  const LoadedStudy s = load_study(d);
  EXPECT_EQ(s.design[0].note.title("b1"), "Wall thickness [mm]");
  EXPECT_EQ(s.design[1].note.title("b2"), "b2");  // nothing given: the name
  EXPECT_EQ(s.responses[1].note.unit, "m/s^2");
  EXPECT_EQ(s.responses[1].note.label, "Head acceleration");
  EXPECT_EQ(s.responses[0].note.title("y"), "y");
  EXPECT_EQ(s.relation_notes.at("energy").title("energy"), "energy [J]");
  EXPECT_EQ(s.relation_notes.count("plain"), 0u);
  EXPECT_EQ(s.relations.at("energy"), "acc^2 / 2");  // the object form still defines it
  EXPECT_EQ(s.objective.note.title("F"), "Peak acceleration [m/s^2]");
  // Both parts of the |y| constraint and the bound formulation's parts carry their entry's note.
  int displacement_parts = 0, objective_parts = 0;
  for (const auto& c : s.constraints) {
    if (c.name.rfind("disp", 0) == 0) {
      ++displacement_parts;
      EXPECT_EQ(c.note.title(c.name), "Displacement [m]");
    } else if (c.name.rfind("objective:", 0) == 0) {
      ++objective_parts;
      EXPECT_EQ(c.note.label, "Peak acceleration");
    } else {
      EXPECT_TRUE(c.note.unit.empty() && c.note.label.empty()) << c.name;
    }
  }
  EXPECT_EQ(displacement_parts, 2);
  EXPECT_EQ(objective_parts, 2);
}

TEST(StudyLoaderAnnotations, AUnitOrLabelThatIsNotTextIsAnErrorAtItsPath) {
  json d = base_study();
  d["design_variables"][1]["unit"] = 3;
  EXPECT_THAT(first_problem_with(d, "design_variables[1].unit"),
              HasSubstr("expected a non-empty string, got a number"));
  d = base_study();
  d["constraints"][0]["label"] = json::array();
  EXPECT_THAT(first_problem_with(d, "constraints[0].label"), HasSubstr("expected"));
  d = base_study();
  d["objective"]["unit"] = "";
  EXPECT_THAT(first_problem_with(d, "objective.unit"), HasSubstr("non-empty string"));
  d = base_study();
  d["objective"]["label"] = nullptr;  // null: not given, as for every optional key
  EXPECT_TRUE(load_study(d).objective.note.label.empty());
  d = base_study();
  d["relations"] = {{"energy", {{"expression", "acc^2 / 2"}, {"units", "J"}}}};
  EXPECT_THAT(first_problem_with(d, "relations.energy.units"), HasSubstr("unknown key"));
  d = base_study();
  d["relations"] = {{"energy", {{"unit", "J"}}}};
  EXPECT_THAT(first_problem_with(d, "relations.energy.expression"), HasSubstr("missing"));
  d = base_study();
  d["relations"] = {{"energy", 5}};
  EXPECT_THAT(first_problem_with(d, "relations.energy"), HasSubstr("got a number"));
  d = base_study();
  d["responses"][0]["units"] = "m";  // a misspelt key is still an error
  EXPECT_THAT(first_problem_with(d, "responses[0].units"), HasSubstr("unknown key"));
}

TEST(StudyLoaderAnnotations, AnErrorInAnAnnotatedRelationNamesItsExpression) {
  json d = base_study();
  d["relations"] = {{"bad", {{"expression", "y +* 2"}, {"label", "Bad"}}}};
  d["constraints"] = json::array({{{"of", "bad"}, {"upper", 1.0}}});
  EXPECT_THAT(first_problem_with(d, "relations.bad"),
              HasSubstr("relations.bad.expression: column 4: unexpected \"*\""));
}

// A load case's time grid may say its unit and label: the time axis of its charts.
TEST(StudyLoaderAnnotations, ATimeGridsUnitAndLabelTitleItsTimeAxis) {
  json d = base_study();
  d["load_cases"].push_back(
      {{"name", "crank"},
       {"time", {{"values", {0.0, 0.5, 1.0}}, {"unit", "rad"}, {"label", "crank angle"}}}});
  d["load_cases"].push_back(
      {{"name", "slow"}, {"time", {{"end", 100.0}, {"points", 11}, {"unit", "s"}}}});
  const LoadedStudy s = load_study(d);
  ASSERT_EQ(s.time_notes.size(), 3u);
  EXPECT_EQ(s.time_title(0), "t");  // nothing given
  EXPECT_EQ(s.time_title(1), "crank angle [rad]");
  EXPECT_EQ(s.time_title(2), "t [s]");
  EXPECT_EQ(s.load_cases[1].grid.points, 3);  // the grid itself as before
  EXPECT_EQ(s.time_title(-1), "t");           // no particular load case
  EXPECT_EQ(s.time_title(3), "t");
  d = base_study();
  d["load_cases"][0]["time"]["unit"] = 5;
  EXPECT_THAT(first_problem_with(d, "load_cases[0].time.unit"), HasSubstr("got a number"));
  d = base_study();
  d["load_cases"][0]["time"]["units"] = "s";
  EXPECT_THAT(first_problem_with(d, "load_cases[0].time.units"), HasSubstr("unknown key"));
}

TEST(StudyLoaderAnnotations, APathIsTitledByTheLabelAndUnitOfItsElement) {
  json d = base_study();
  d["constraints"][0]["label"] = "Displacement";
  d["constraints"][0]["unit"] = "m";
  EXPECT_EQ(study_path_title(d, "constraints.disp.upper"),
            "Displacement [m]: upper (constraints.disp.upper)");
  EXPECT_EQ(study_path_title(d, "constraints.0.upper"),
            "Displacement [m]: upper (constraints.0.upper)");
  EXPECT_EQ(study_path_title(d, "design_variables.b2.initial"),
            "b2: initial (design_variables.b2.initial)");
  EXPECT_EQ(study_path_title(d, "settings.noise"), "settings.noise");
  EXPECT_THROW(study_path_title(d, "constraints.nope.upper"), StudyError);
}

// sweep --json's "units": the unit of the value a path sets, only for a key in the element's
// quantity (a bound, a start, a scale), never for a factor or a setting.
TEST(StudyLoaderAnnotations, APathsValueHasItsElementsUnitForAKeyInTheQuantity) {
  json d = base_study();
  d["constraints"][0]["unit"] = "m";
  d["design_variables"][1]["unit"] = "N s/m";
  EXPECT_EQ(study_path_unit(d, "constraints.disp.upper"), "m");
  EXPECT_EQ(study_path_unit(d, "constraints.0.scale"), "m");
  EXPECT_EQ(study_path_unit(d, "design_variables.b2.initial"), "N s/m");
  EXPECT_EQ(study_path_unit(d, "design_variables.1.upper"), "N s/m");
  EXPECT_EQ(study_path_unit(d, "design_variables.b2.move_limit"), "");  // a fraction
  EXPECT_EQ(study_path_unit(d, "design_variables.b1.initial"), "");     // none declared
  EXPECT_EQ(study_path_unit(d, "settings.noise"), "");
  EXPECT_THROW(study_path_unit(d, "constraints.nope.upper"), StudyError);
}

}  // namespace
}  // namespace sao
