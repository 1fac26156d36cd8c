#include "sao/optimizer/approximation.hpp"

#include <gtest/gtest.h>

#include "sao/study/study_loader.hpp"

namespace sao {
namespace {

Study one_variable_study(const nlohmann::json& intermediate) {
  nlohmann::json v = {{"name", "b1"}, {"lower", 0.5}, {"upper", 10.0}, {"initial", 2.0}};
  if (!intermediate.is_null()) v["intermediate"] = intermediate;
  nlohmann::json d = {{"design_variables", {v}},
                      {"load_cases", {{{"name", "only"}}}},
                      {"responses", {{{"name", "r"}, {"kind", "scalar"}}}},
                      {"objective", {{"minimize", {{"variable", "b1"}}}}},
                      {"simulator", {{"type", "none"}}}};
  return load_study(d);
}

// r = C / b analysed at b0 = 2 with its exact derivative.
Evaluation reciprocal_response(double C, double b0) {
  Evaluation e;
  e.cases.resize(1);
  e.cases[0].scalars["r"] = C / b0;
  e.cases[0].gradients["r"] = Eigen::MatrixXd::Constant(1, 1, -C / (b0 * b0));
  e.has_gradients = true;
  return e;
}

TEST(Approximation, ReciprocalIntermediateVariableIsExactForCOverB) {
  const Study s = one_variable_study("reciprocal");
  const Evaluation e = reciprocal_response(3.0, 2.0);
  const LinearApproximation a(s, e, Eigen::VectorXd::Constant(1, 2.0));
  for (double b : {0.5, 1.0, 5.0, 10.0}) {
    const Eigen::VectorXd x = Eigen::VectorXd::Constant(1, b);
    EXPECT_NEAR(a.value(0, 0, 0, x), 3.0 / b, 1e-12) << b;
    Eigen::VectorXd g = Eigen::VectorXd::Zero(1);
    a.add_gradient(0, 0, 0, x, 2.0, g);
    EXPECT_NEAR(g(0), 2.0 * -3.0 / (b * b), 1e-12) << b;
  }
}

TEST(Approximation, IdentityVariableIsTheTangent) {
  const Study s = one_variable_study(nullptr);
  const Evaluation e = reciprocal_response(3.0, 2.0);
  const LinearApproximation a(s, e, Eigen::VectorXd::Constant(1, 2.0));
  EXPECT_NEAR(a.value(0, 0, 0, Eigen::VectorXd::Constant(1, 4.0)), 1.5 - 0.75 * 2.0, 1e-12);
  EXPECT_TRUE(all_identity(s));
  EXPECT_FALSE(all_identity(one_variable_study("area")));
}

TEST(Approximation, PowerIntermediateVariables) {
  EXPECT_DOUBLE_EQ(one_variable_study("area").design[0].intermediate.power, 2.0);
  const Intermediate root = one_variable_study({{"power", 0.5}}).design[0].intermediate;
  EXPECT_DOUBLE_EQ(root.power, 0.5);
  EXPECT_DOUBLE_EQ(root.value(4.0), 2.0);
  EXPECT_DOUBLE_EQ(one_variable_study("reciprocal").design[0].intermediate.slope(4.0), -1.0 / 16.0);
}

TEST(Approximation, BadIntermediateVariablesNameTheirPath) {
  try {
    one_variable_study("cubic");
    FAIL();
  } catch (const StudyError& e) {
    EXPECT_NE(std::string(e.what()).find("design_variables[0].intermediate: expected"),
              std::string::npos)
        << e.what();
  }
  nlohmann::json d = {{"design_variables",
                       {{{"name", "b1"},
                         {"lower", 0.0},
                         {"upper", 1.0},
                         {"initial", 0.5},
                         {"intermediate", "reciprocal"}}}},
                      {"load_cases", {{{"name", "only"}}}},
                      {"objective", {{"minimize", {{"variable", "b1"}}}}},
                      {"simulator", {{"type", "none"}}}};
  try {
    load_study(d);
    FAIL();
  } catch (const StudyError& e) {
    EXPECT_NE(std::string(e.what()).find("design_variables[0].lower: must be given and > 0"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace sao
