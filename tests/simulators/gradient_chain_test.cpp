// The gradients sao_speed's section 6 times (bench/gradient_chain.hpp, issue 52), on a small
// chain: the direct method, the adjoint (one backward solve for one value, the shared sweep for
// three, on the sparse path: Linearization::block_vector_jacobian) and central differences agree;
// so do the variational integrator's discrete direct and discrete adjoint methods and central
// differences of its discrete map. No timing here: the figures are sao_speed's.
#include "bench/gradient_chain.hpp"

#include <gtest/gtest.h>

#include <string>

#include "simulators/internal_simulator.hpp"

namespace sao::sim {
namespace {

constexpr int kLinks = 6;
constexpr int kParameters = 3;

// The section's gradients of the chain by `method` with "linear_algebra" `algebra`, integrated
// by CVODES (step 0) or the variational integrator; the first `count` responses.
Eigen::MatrixXd gradients(const std::string& method, const std::string& algebra, double step,
                          const bench::ChainResponses& q, int count) {
  nlohmann::json chain = bench::gradient_chain(kLinks, step);
  chain["linear_algebra"] = algebra;
  Eigen::VectorXd b;
  nlohmann::json section = bench::gradient_section(method);
  section["rtol"] = 1e-9;
  section["atol"] = 1e-11;
  InternalSimulator sim(bench::chain_setup(chain, section, kParameters, b));
  return q.gradients(bench::evaluate_case(sim, b, q.requests(count)), count);
}

bench::ChainResponses responses() {
  Eigen::VectorXd b;
  InternalSimulator sim(
      bench::chain_setup(bench::gradient_chain(kLinks), bench::gradient_section("direct"), 1, b));
  return bench::chain_responses(kLinks, bench::evaluate_case(sim, b, {}));
}

TEST(GradientChain, TheResponsesAreThoseOfTheWatchedLink) {
  const bench::ChainResponses q = responses();
  EXPECT_EQ(q.height, "link6.y");
  EXPECT_EQ(q.speed, "link6.vy");
  EXPECT_EQ(q.last, 10);
  EXPECT_GE(q.fastest, 1);
  EXPECT_EQ(bench::watched_link(80), 16);
  ASSERT_EQ(q.requests(3).size(), 3U);
  EXPECT_EQ(q.requests(3)[2].time_indices, std::vector<int>{q.fastest});
}

TEST(GradientChain, CvodesMethodsAgreeOnTheSparsePath) {
  const bench::ChainResponses q = responses();
  const Eigen::MatrixXd direct = gradients("direct", "sparse", 0.0, q, 3);
  const Eigen::MatrixXd shared = gradients("adjoint", "sparse", 0.0, q, 3);
  const Eigen::MatrixXd one = gradients("adjoint", "sparse", 0.0, q, 1);
  const Eigen::MatrixXd dense_shared = gradients("adjoint", "dense", 0.0, q, 3);
  const Eigen::MatrixXd central = gradients("central", "sparse", 0.0, q, 3);
  ASSERT_EQ(direct.rows(), 3);
  ASSERT_EQ(direct.cols(), kParameters);
  EXPECT_GT(direct.cwiseAbs().minCoeff(), 0.0) << direct;  // every response moves with every k
  EXPECT_LT(bench::relative_difference(shared, direct), 1e-5) << shared << "\n" << direct;
  EXPECT_LT(bench::relative_difference(one, direct.topRows(1)), 1e-5);
  // The sparse sweep's block products against the dense Jacobian's.
  EXPECT_LT(bench::relative_difference(shared, dense_shared), 1e-6);
  EXPECT_LT(bench::relative_difference(central.leftCols(1), direct.leftCols(1)), 1e-4);
}

TEST(GradientChain, DiscreteMethodsAgree) {
  const bench::ChainResponses q = responses();
  const double step = 1e-2;
  const Eigen::MatrixXd direct = gradients("direct", "auto", step, q, 3);
  const Eigen::MatrixXd adjoint = gradients("discrete_adjoint", "auto", step, q, 3);
  const Eigen::MatrixXd central = gradients("central", "auto", step, q, 3);
  EXPECT_LT(bench::relative_difference(adjoint, direct), 1e-9) << adjoint << "\n" << direct;
  EXPECT_LT(bench::relative_difference(central.leftCols(1), direct.leftCols(1)), 1e-5);
}

TEST(GradientChain, RelativeDifferenceIsPerResponse) {
  Eigen::MatrixXd a(2, 2), b(2, 2);
  b << 1.0, 2.0, 1e-3, 1e-3;
  a << 1.0, 2.2, 1e-3, 1.1e-3;
  EXPECT_NEAR(bench::relative_difference(a, b), 0.1, 1e-12);  // both rows 10 % off their largest
  a(0, 0) = NAN;
  EXPECT_EQ(bench::relative_difference(a, b), INFINITY);
}

}  // namespace
}  // namespace sao::sim
