#include "sao/seam/difference_batch.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <mutex>

namespace sao {
namespace {

// A run of f(b) = (b0^2 + 3 b1, b0 b1 history on 3 points) in load case c, scaled by (c + 1).
void quadratic(BatchRun& run) {
  Eigen::VectorXd b = *run.design;
  if (run.variable >= 0) b(run.variable) += run.step;
  const double s = run.load_case + 1.0;
  run.result.scalars["f"] = s * (b(0) * b(0) + 3 * b(1));
  run.result.histories["h"] = Eigen::Vector3d(1, 2, 3) * s * b(0) * b(1);
  run.runs = 1;
  run.ok = true;
}

// A runner that records each run's design (its perturbation applied) in `designs`, then runs
// `f`; runs may come from several threads.
std::function<void(BatchRun&)> recording(std::vector<Eigen::VectorXd>& designs,
                                         void (*f)(BatchRun&)) {
  auto mutex = std::make_shared<std::mutex>();
  return [&designs, f, mutex](BatchRun& run) {
    Eigen::VectorXd b = *run.design;
    if (run.variable >= 0) b(run.variable) += run.step;
    {
      std::lock_guard lock(*mutex);
      designs.push_back(b);
    }
    f(run);
  };
}

TEST(DifferenceBatch, PlansTheNominalAndOnePerturbationPerVariable) {
  std::vector<EvaluationRequest> batch(2);
  batch[0].design = Eigen::Vector2d(1.0, 2.0);
  batch[1].design = Eigen::Vector2d(-3.0, 0.5);
  batch[1].derivatives.push_back({0, "f", {}});
  std::mutex mutex;
  std::vector<std::pair<int, double>> perturbations;
  const auto e =
      run_batch(batch, 2, 2, {DifferenceOrder::kForward, 1e-3}, false, 2, [&](BatchRun& run) {
        {
          std::lock_guard lock(mutex);
          perturbations.push_back({run.variable, run.step});
        }
        quadratic(run);
      });
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].cost.runs, 2);      // values only: one run per load case
  EXPECT_EQ(e[1].cost.runs, 2 * 3);  // nominal + 2 perturbations, per load case
  EXPECT_FALSE(e[0].has_gradients);
  EXPECT_TRUE(e[1].has_gradients);
  // (4.10): h = (1 + |b_i|) p
  int seen = 0;
  for (const auto& [variable, step] : perturbations) {
    if (variable < 0) continue;
    EXPECT_DOUBLE_EQ(step, (variable == 0 ? 4.0 : 1.5) * 1e-3);
    ++seen;
  }
  EXPECT_EQ(seen, 4);
}

TEST(DifferenceBatch, ARequestAsksForCentralDifferencesOverForwardSettings) {
  // The driver's switch (Driver::raise_difference_order): forward settings, a request
  // asking for central differences: two runs per variable and the exact slope of a quadratic,
  // where forward differences are off by h (b0^2: d/db0 = 2 b0, forward 2 b0 + h).
  std::vector<EvaluationRequest> batch(2);
  for (auto& r : batch) {
    r.design = Eigen::Vector2d(1.0, 2.0);
    r.derivatives.push_back({0, "f", {}});
  }
  batch[1].differences = DifferenceOrder::kCentral;
  const auto e = run_batch(batch, 1, 2, {DifferenceOrder::kForward, 1e-2}, false, 0, quadratic);
  ASSERT_TRUE(e[0].ok && e[1].ok);
  EXPECT_EQ(e[0].cost.runs, 1 + 2);
  EXPECT_EQ(e[1].cost.runs, 1 + 2 * 2);
  EXPECT_EQ(e[0].cases[0].gradient_method, "forward differences");
  EXPECT_EQ(e[1].cases[0].gradient_method, "central differences");
  EXPECT_EQ(e[0].cases[0].difference_step, 1e-2);
  EXPECT_EQ(e[1].cases[0].difference_step, 1e-2);
  EXPECT_NEAR(e[0].cases[0].gradients.at("f")(0, 0), 2.0 + 2e-2, 1e-9);  // h = 2e-2
  EXPECT_NEAR(e[1].cases[0].gradients.at("f")(0, 0), 2.0, 1e-12);
  EXPECT_NEAR(e[1].cases[0].gradients.at("f")(0, 1), 3.0, 1e-12);
}

TEST(DifferenceBatch, CentralDifferencesStayInsideTheBounds) {
  // b0 at its lower bound, b1 at its upper one: b0 - h and b1 + h would leave them, so each
  // takes the one-sided pair (b + h, b + 2 h; b - h, b - 2 h), still two runs and still exact
  // on a quadratic; without bounds the pair is central.
  std::vector<EvaluationRequest> batch(1);
  batch[0].design = Eigen::Vector2d(1.0, 2.0);
  batch[0].derivatives.push_back({0, "f", {}});
  batch[0].derivatives.push_back({0, "h", {}});
  batch[0].lower = Eigen::Vector2d(1.0, -10.0);
  batch[0].upper = Eigen::Vector2d(10.0, 2.0);
  std::vector<Eigen::VectorXd> designs;
  const auto e = run_batch(batch, 1, 2, {DifferenceOrder::kCentral, 1e-2}, false, 0,
                           recording(designs, quadratic));
  ASSERT_TRUE(e[0].ok);
  EXPECT_EQ(e[0].cost.runs, 1 + 2 * 2);
  for (const Eigen::VectorXd& b : designs) {
    EXPECT_GE(b(0), 1.0);
    EXPECT_LE(b(1), 2.0);
  }
  EXPECT_NEAR(e[0].cases[0].gradients.at("f")(0, 0), 2.0, 1e-10);
  EXPECT_NEAR(e[0].cases[0].gradients.at("f")(0, 1), 3.0, 1e-10);
  // h = b0 b1 (1, 2, 3): bilinear, exact as well.
  EXPECT_NEAR(e[0].cases[0].gradients.at("h")(2, 0), 3.0 * 2.0, 1e-9);
  EXPECT_NEAR(e[0].cases[0].gradients.at("h")(2, 1), 3.0 * 1.0, 1e-9);
  // Without bounds the pair is central: b0 - h is run.
  batch[0].lower.resize(0);
  batch[0].upper.resize(0);
  designs.clear();
  run_batch(batch, 1, 2, {DifferenceOrder::kCentral, 1e-2}, false, 0,
            recording(designs, quadratic));
  bool below = false;
  for (const Eigen::VectorXd& b : designs) below = below || b(0) < 1.0;
  EXPECT_TRUE(below);  // no bounds: the central pair
}

// A run of f(b) = b0^4 + b0 b1^3: a quartic, which five-point differences differentiate
// exactly (central ones err by b0 h^2 per h^2 / 6 * 24 = 4 b0 h^2).
void quartic(BatchRun& run) {
  Eigen::VectorXd b = *run.design;
  if (run.variable >= 0) b(run.variable) += run.step;
  run.result.scalars["f"] = std::pow(b(0), 4) + b(0) * std::pow(b(1), 3);
  run.runs = 1;
  run.ok = true;
}

// `count` requests for the gradient of f at b = (1.5, -2).
std::vector<EvaluationRequest> gradients_of_f(size_t count) {
  std::vector<EvaluationRequest> batch(count);
  for (auto& r : batch) {
    r.design = Eigen::Vector2d(1.5, -2.0);
    r.derivatives.push_back({0, "f", {}});
  }
  return batch;
}

TEST(DifferenceBatch, FivePointDifferencesAreExactOnAQuarticInsideOrAtTheBounds) {
  // The driver's second switch (Driver::raise_difference_order): central settings, a request
  // asking for five-point differences: four runs per variable (b +- h, b +- 2 h), the slope of
  // a quartic exact to round-off where central differences err by 4 b0 h^2 in b0.
  std::vector<EvaluationRequest> batch = gradients_of_f(2);
  batch[1].differences = DifferenceOrder::kFivePoint;
  const double p = 1e-2, h0 = 2.5 * p;
  const auto e = run_batch(batch, 1, 2, {DifferenceOrder::kCentral, p}, false, 0, quartic);
  ASSERT_TRUE(e[0].ok && e[1].ok);
  EXPECT_EQ(e[0].cost.runs, 1 + 2 * 2);
  EXPECT_EQ(e[1].cost.runs, 1 + 2 * 4);
  EXPECT_EQ(e[1].cases[0].gradient_method, "five-point differences");
  const double d0 = 4 * std::pow(1.5, 3) + std::pow(-2.0, 3), d1 = 3 * 1.5 * 4.0;
  EXPECT_NEAR(e[0].cases[0].gradients.at("f")(0, 0), d0 + 4 * 1.5 * h0 * h0, 1e-9);
  EXPECT_NEAR(e[1].cases[0].gradients.at("f")(0, 0), d0, 1e-9);
  EXPECT_NEAR(e[1].cases[0].gradients.at("f")(0, 1), d1, 1e-9);

  // b0 1.5 h0 above its lower bound, b1 at its upper one: the two-sided stencil would leave
  // them, so each takes b + h ... b + 4 h (or below b), inside the bounds and as exact.
  batch.resize(1);
  batch[0].differences = DifferenceOrder::kFivePoint;
  batch[0].lower = Eigen::Vector2d(1.5 - 1.5 * h0, -10.0);
  batch[0].upper = Eigen::Vector2d(10.0, -2.0);
  std::vector<Eigen::VectorXd> designs;
  const auto one_sided =
      run_batch(batch, 1, 2, {DifferenceOrder::kForward, p}, false, 0, recording(designs, quartic));
  ASSERT_TRUE(one_sided[0].ok);
  EXPECT_EQ(designs.size(), 1u + 2 * 4);
  for (const Eigen::VectorXd& b : designs) {
    EXPECT_GE(b(0), batch[0].lower(0));
    EXPECT_LE(b(1), -2.0);
  }
  EXPECT_NEAR(one_sided[0].cases[0].gradients.at("f")(0, 0), d0, 1e-8);
  EXPECT_NEAR(one_sided[0].cases[0].gradients.at("f")(0, 1), d1, 1e-8);
}

TEST(DifferenceBatch, AStepARetryHalvedOntoAnothersCountsOnce) {
  // An external code's retry halves a failed perturbation's step: the five-point stencil's
  // b0 + 2 h becomes b0 + h, the one-sided central pair's b1 - 2 h becomes b1 - h. Each
  // variable's derivative then comes from its distinct steps (a polynomial of lower order),
  // never from a division by their zero difference.
  std::vector<EvaluationRequest> batch = gradients_of_f(2);
  batch[0].differences = DifferenceOrder::kFivePoint;
  batch[1].differences = DifferenceOrder::kCentral;
  batch[1].lower = Eigen::Vector2d(-10.0, -10.0);
  batch[1].upper = Eigen::Vector2d(10.0, -2.0);  // b1 at its upper bound: b1 - h, b1 - 2 h
  const double p = 1e-3;
  const auto e =
      run_batch(batch, 1, 2, {DifferenceOrder::kForward, p}, false, 0, [&](BatchRun& run) {
        const double h = difference_step((*run.design)(run.variable < 0 ? 0 : run.variable), p);
        if (std::abs(std::abs(run.step) - 2.0 * h) < 1e-3 * h) run.step *= 0.5;  // the retry
        quartic(run);
      });
  ASSERT_TRUE(e[0].ok && e[1].ok);
  const double d0 = 4 * std::pow(1.5, 3) + std::pow(-2.0, 3), d1 = 3 * 1.5 * 4.0;
  for (const Evaluation& x : e) {
    const Eigen::MatrixXd& g = x.cases[0].gradients.at("f");
    ASSERT_TRUE(g.allFinite()) << g;
    EXPECT_NEAR(g(0, 0), d0, 1e-3 * std::abs(d0));  // central at worst: 4 b0 h^2
    EXPECT_NEAR(g(0, 1), d1, 1e-2 * std::abs(d1));  // forward at worst: f'' h / 2
  }
}

TEST(DifferenceBatch, KnownNominalValuesAreNotRunAgain) {
  // The values at b from an earlier analysis: only the perturbed designs run, and the
  // gradients are the same as with the nominal run.
  std::vector<EvaluationRequest> first(1);
  first[0].design = Eigen::Vector2d(1.0, 2.0);
  const Evaluation values =
      run_batch(first, 2, 2, {DifferenceOrder::kForward, 1e-6}, false, 0, quadratic).front();
  std::vector<EvaluationRequest> batch(1);
  batch[0].design = first[0].design;
  batch[0].derivatives.push_back({0, "f", {}});
  const Evaluation fresh =
      run_batch(batch, 2, 2, {DifferenceOrder::kForward, 1e-6}, false, 0, quadratic).front();
  batch[0].values = &values;
  std::mutex mutex;
  int nominal_runs = 0;
  const Evaluation reused =
      run_batch(batch, 2, 2, {DifferenceOrder::kForward, 1e-6}, false, 2, [&](BatchRun& run) {
        if (run.variable < 0) {
          std::lock_guard lock(mutex);
          ++nominal_runs;
        }
        quadratic(run);
      }).front();
  ASSERT_TRUE(reused.ok);
  EXPECT_EQ(nominal_runs, 0);
  EXPECT_EQ(reused.cost.runs, 2 * 2);  // the two perturbations per load case only
  EXPECT_EQ(fresh.cost.runs, 2 * 3);
  for (int c = 0; c < 2; ++c) {
    EXPECT_EQ(reused.cases[c].scalars.at("f"), fresh.cases[c].scalars.at("f"));
    EXPECT_EQ(reused.cases[c].gradients.at("f"), fresh.cases[c].gradients.at("f"));
    EXPECT_EQ(reused.cases[c].gradients.at("h"), fresh.cases[c].gradients.at("h"));
  }
  // A failed earlier analysis is no substitute: the nominal runs.
  Evaluation failed = values;
  failed.ok = false;
  batch[0].values = &failed;
  EXPECT_EQ(run_batch(batch, 2, 2, {DifferenceOrder::kForward, 1e-6}, false, 0, quadratic)
                .front()
                .cost.runs,
            2 * 3);
}

TEST(DifferenceBatch, ForwardAndCentralQuotients) {
  std::vector<EvaluationRequest> batch(1);
  batch[0].design = Eigen::Vector2d(1.0, 2.0);
  batch[0].derivatives.push_back({0, "f", {}});
  for (bool central : {false, true}) {
    const auto e = run_batch(batch, 2, 2, {difference_order(central), 1e-6}, false, 0, quadratic);
    ASSERT_TRUE(e[0].ok);
    EXPECT_EQ(e[0].cost.runs, 2 * (1 + 2 * (central ? 2 : 1)));
    for (int c = 0; c < 2; ++c) {
      const double s = c + 1.0;
      const Eigen::MatrixXd& g = e[0].cases[c].gradients.at("f");
      EXPECT_NEAR(g(0, 0), s * 2.0, 1e-5);  // d/db0 of s (b0^2 + 3 b1)
      EXPECT_NEAR(g(0, 1), s * 3.0, 1e-5);
      const Eigen::MatrixXd& gh = e[0].cases[c].gradients.at("h");
      EXPECT_EQ(gh.rows(), 3);
      EXPECT_NEAR(gh(2, 0), 3 * s * 2.0, 1e-5);  // d/db0 of 3 s b0 b1
      EXPECT_NEAR(gh(2, 1), 3 * s * 1.0, 1e-5);
    }
  }
}

TEST(DifferenceBatch, AnalyticRunsCarryTheRequestedDerivatives) {
  std::vector<EvaluationRequest> batch(1);
  batch[0].design = Eigen::Vector2d(1.0, 2.0);
  batch[0].derivatives.push_back({0, "f", {}});
  int with_derivatives = 0;
  const auto e = run_batch(batch, 3, 2, {}, true, 1, [&](BatchRun& run) {
    with_derivatives += run.request != nullptr;
    EXPECT_EQ(run.variable, -1);
    quadratic(run);
  });
  EXPECT_EQ(with_derivatives, 3);  // one run per load case, none perturbed
  EXPECT_EQ(e[0].cost.runs, 3);
  EXPECT_TRUE(e[0].has_gradients);
}

TEST(DifferenceBatch, TheFirstFailedRunFailsItsRequestOnly) {
  std::vector<EvaluationRequest> batch(2);
  batch[0].design = Eigen::Vector2d(1.0, 2.0);
  batch[1].design = Eigen::Vector2d(5.0, 2.0);
  batch[1].derivatives.push_back({0, "f", {}});
  const auto e = run_batch(batch, 1, 2, {}, false, 2, [&](BatchRun& run) {
    quadratic(run);
    if ((*run.design)(0) == 5.0 && run.variable == 1) {
      run.ok = false;
      run.message = "perturbation of b1 failed";
    }
  });
  EXPECT_TRUE(e[0].ok);
  EXPECT_FALSE(e[1].ok);
  EXPECT_EQ(e[1].message, "perturbation of b1 failed");
  EXPECT_EQ(e[1].cost.runs, 3);
}

TEST(DifferenceBatch, RetriedStepsAreTheOnesDividedBy) {
  // A runner that halves its step (a retry) is differenced with the step it finally used.
  std::vector<EvaluationRequest> batch(1);
  batch[0].design = Eigen::Vector2d(0.0, 0.0);
  batch[0].derivatives.push_back({0, "f", {}});
  const auto e =
      run_batch(batch, 1, 2, {DifferenceOrder::kForward, 1e-2}, false, 1, [&](BatchRun& run) {
        if (run.variable >= 0) run.step *= 0.5;
        quadratic(run);
        run.runs = run.variable >= 0 ? 2 : 1;
      });
  const Eigen::MatrixXd& g = e[0].cases[0].gradients.at("f");
  EXPECT_NEAR(g(0, 0), 0.005, 1e-12);  // (h/2)^2 / (h/2) with h = 0.01
  EXPECT_NEAR(g(0, 1), 3.0, 1e-12);
  EXPECT_EQ(e[0].cost.runs, 5);
}

TEST(DifferenceBatch, WorkersAndItsDeprecatedName) {
  Problems problems;
  const nlohmann::json old_name = {{"threads", 3}};
  JsonReader a(old_name, "simulator", problems);
  EXPECT_EQ(read_workers(a, 0, "threads"), 3);
  const nlohmann::json both = {{"threads", 3}, {"workers", 2}};
  JsonReader b(both, "simulator", problems);
  read_workers(b, 0, "threads");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems.list()[0], "simulator.threads: given together with \"workers\"");
  const nlohmann::json bad = {{"workers", -1}};
  JsonReader c(bad, "simulator", problems);
  EXPECT_EQ(read_workers(c, 1), 1);
  EXPECT_EQ(problems.size(), 2u);
}

}  // namespace
}  // namespace sao
