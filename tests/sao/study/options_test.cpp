#include "sao/study/options.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace sao {
namespace {

TEST(Options, DefaultsAreValid) {
  EXPECT_TRUE(Options{}.validate().empty());
}

TEST(Options, DefaultsAreTheSeedsAppendixA) {
  const Options o;
  EXPECT_DOUBLE_EQ(o.cutoff, 0.7);
  EXPECT_EQ(o.neighbours, 2);
  EXPECT_DOUBLE_EQ(o.objacc, 0.1);
  EXPECT_DOUBLE_EQ(o.vioacc, 0.1);
  EXPECT_DOUBLE_EQ(o.errsml, 10.0);
  EXPECT_DOUBLE_EQ(o.errlrg, 25.0);
  EXPECT_DOUBLE_EQ(o.errmax, 40.0);
  EXPECT_DOUBLE_EQ(o.viosml, 5.0);
  EXPECT_DOUBLE_EQ(o.violrg, 7.5);
  EXPECT_DOUBLE_EQ(o.viomax, 10.0);
  EXPECT_DOUBLE_EQ(o.beta1, 0.5);
  EXPECT_DOUBLE_EQ(o.beta2, 4.0);
  EXPECT_DOUBLE_EQ(o.beta3, 0.5);
  EXPECT_DOUBLE_EQ(o.beta4, 0.75);
  EXPECT_DOUBLE_EQ(o.beta5, 4.0 / 3.0);
}

TEST(Options, NoiseIsAddedToTheEightPercentages) {
  Options o;
  o.noise = 2.5;
  o.cutoff = 0.6;
  o.beta4 = 0.8;
  const Options r = o.with_noise_applied();
  EXPECT_DOUBLE_EQ(r.objacc, 0.1 + 2.5);
  EXPECT_DOUBLE_EQ(r.vioacc, 0.1 + 2.5);
  EXPECT_DOUBLE_EQ(r.errsml, 10.0 + 2.5);
  EXPECT_DOUBLE_EQ(r.errlrg, 25.0 + 2.5);
  EXPECT_DOUBLE_EQ(r.errmax, 40.0 + 2.5);
  EXPECT_DOUBLE_EQ(r.viosml, 5.0 + 2.5);
  EXPECT_DOUBLE_EQ(r.violrg, 7.5 + 2.5);
  EXPECT_DOUBLE_EQ(r.viomax, 10.0 + 2.5);
  // Everything else is copied unchanged, the noise estimate included.
  EXPECT_DOUBLE_EQ(r.noise, 2.5);
  EXPECT_DOUBLE_EQ(r.cutoff, 0.6);
  EXPECT_DOUBLE_EQ(r.beta4, 0.8);
  EXPECT_EQ(r.neighbours, o.neighbours);
  EXPECT_EQ(r.max_cycles, o.max_cycles);
  // The original is untouched.
  EXPECT_DOUBLE_EQ(o.errmax, 40.0);
}

TEST(Options, ZeroNoiseChangesNothing) {
  const Options r = Options{}.with_noise_applied();
  EXPECT_DOUBLE_EQ(r.objacc, 0.1);
  EXPECT_DOUBLE_EQ(r.viomax, 10.0);
}

struct BrokenRule {
  std::function<void(Options&)> change;
  std::string message;
};

TEST(Options, NamesTheBrokenRuleWithTheBadValue) {
  const std::vector<BrokenRule> cases = {
      {[](Options& o) { o.cutoff = 1.0; }, "settings.cutoff: must be in [0, 1), got 1"},
      {[](Options& o) { o.cutoff = -0.1; }, "settings.cutoff: must be in [0, 1), got -0.1"},
      {[](Options& o) { o.neighbours = -1; }, "settings.neighbours: must be >= 0, got -1"},
      {[](Options& o) { o.objacc = -0.5; }, "settings.objacc: must be >= 0, got -0.5"},
      {[](Options& o) { o.vioacc = -1; }, "settings.vioacc: must be >= 0, got -1"},
      {[](Options& o) { o.errsml = -1; }, "settings.errsml: must be >= 0, got -1"},
      {[](Options& o) { o.errlrg = -1; }, "settings.errlrg: must be >= 0, got -1"},
      {[](Options& o) { o.errmax = -1; }, "settings.errmax: must be >= 0, got -1"},
      {[](Options& o) { o.viosml = -1; }, "settings.viosml: must be >= 0, got -1"},
      {[](Options& o) { o.violrg = -1; }, "settings.violrg: must be >= 0, got -1"},
      {[](Options& o) { o.viomax = -1; }, "settings.viomax: must be >= 0, got -1"},
      {[](Options& o) { o.noise = -2; }, "settings.noise: must be >= 0, got -2"},
      {[](Options& o) { o.errsml = 30; }, "settings.errsml: must be <= errlrg (25), got 30"},
      {[](Options& o) { o.errmax = 20; }, "settings.errlrg: must be <= errmax (20), got 25"},
      {[](Options& o) { o.viosml = 8; }, "settings.viosml: must be <= violrg (7.5), got 8"},
      {[](Options& o) { o.viomax = 7; }, "settings.violrg: must be <= viomax (7), got 7.5"},
      {[](Options& o) { o.beta1 = 1.0; }, "settings.beta1: must be in (0, 1), got 1"},
      {[](Options& o) { o.beta1 = 0.0; }, "settings.beta1: must be in (0, 1), got 0"},
      {[](Options& o) { o.beta3 = 1.5; }, "settings.beta3: must be in (0, 1), got 1.5"},
      {[](Options& o) { o.beta4 = -0.75; }, "settings.beta4: must be in (0, 1), got -0.75"},
      {[](Options& o) { o.beta5 = 1.0; }, "settings.beta5: must be > 1, got 1"},
      {[](Options& o) { o.beta2 = 0.0; }, "settings.beta2: must be > 0, got 0"},
      {[](Options& o) { o.max_cycles = 0; }, "settings.max_cycles: must be >= 1, got 0"},
      {[](Options& o) { o.secant_cycles = -1; }, "settings.secant_cycles: must be >= 0, got -1"},
      {[](Options& o) { o.relaxation_weight = 0.0; },
       "settings.relaxation_weight: must be > 0, got 0"},
  };
  for (const BrokenRule& c : cases) {
    Options o;
    c.change(o);
    const std::vector<std::string> broken = o.validate();
    // The rule named (a negative threshold also breaks the order of its family: both said).
    ASSERT_FALSE(broken.empty());
    EXPECT_EQ(broken.front(), c.message);
  }
}

TEST(Options, NotANumberBreaksTheRule) {
  Options o;
  o.cutoff = std::numeric_limits<double>::quiet_NaN();
  ASSERT_EQ(o.validate().size(), 1u);
  EXPECT_EQ(o.validate()[0].rfind("settings.cutoff: must be in [0, 1), got ", 0), 0u);
  o = Options{};
  o.beta5 = std::numeric_limits<double>::quiet_NaN();
  ASSERT_EQ(o.validate().size(), 1u);
  EXPECT_EQ(o.validate()[0].rfind("settings.beta5:", 0), 0u);
}

TEST(Options, ReportsEveryBrokenRuleAtOnce) {
  Options o;
  o.beta1 = 2.0;
  o.cutoff = 2.0;
  o.max_cycles = 0;
  EXPECT_EQ(o.validate(), (std::vector<std::string>{"settings.cutoff: must be in [0, 1), got 2",
                                                    "settings.beta1: must be in (0, 1), got 2",
                                                    "settings.max_cycles: must be >= 1, got 0"}));
}

TEST(Options, BoundaryValuesAreValid) {
  Options o;
  o.cutoff = 0.0;
  o.neighbours = 0;
  o.objacc = 0.0;
  o.vioacc = 0.0;
  o.noise = 0.0;
  o.errsml = o.errlrg = o.errmax = 0.0;
  o.viosml = o.violrg = o.viomax = 3.0;
  o.max_cycles = 1;
  EXPECT_TRUE(o.validate().empty());
}

TEST(Options, NoiseKeepsValidOptionsValid) {
  Options o;
  o.noise = 50.0;
  EXPECT_TRUE(o.with_noise_applied().validate().empty());
}

// Each choice's words parse to the values that have them as names; another word is refused and
// leaves the value as it was.
template <typename Choice>
void expect_words(std::vector<std::pair<Choice, std::string>> words,
                  bool (*parse)(const std::string&, Choice&), const char* (*name)(Choice)) {
  for (const auto& [value, word] : words) {
    EXPECT_EQ(name(value), word);
    Choice parsed = words.back().first;
    EXPECT_TRUE(parse(word, parsed)) << word;
    EXPECT_EQ(parsed, value) << word;
  }
  Choice kept = words.front().first;
  EXPECT_FALSE(parse("Local", kept));
  EXPECT_FALSE(parse("", kept));
  EXPECT_EQ(kept, words.front().first);
}

TEST(Options, ChoicesParseTheirWordsOnly) {
  expect_words<ApproximationForm>({{ApproximationForm::kLinear, "linear"},
                                   {ApproximationForm::kConservative, "conservative"},
                                   {ApproximationForm::kQuadratic, "quadratic"},
                                   {ApproximationForm::kQuasiNewton, "quasi_newton"},
                                   {ApproximationForm::kAuto, "auto"}},
                                  parse_approximation_form, approximation_form_name);
  expect_words<ApproximationSource>(
      {{ApproximationSource::kLocal, "local"}, {ApproximationSource::kMultipoint, "multipoint"}},
      parse_approximation_source, approximation_source_name);
  expect_words<FitMethod>(
      {{FitMethod::kInterpolation, "interpolation"}, {FitMethod::kLeastSquares, "least_squares"}},
      parse_fit_method, fit_method_name);
  expect_words<Strategy>({{Strategy::kTrustRegion, "trust_region"}, {Strategy::kSeed, "seed"}},
                         parse_strategy, strategy_name);
  expect_words<SubproblemSolver>(
      {{SubproblemSolver::kAuto, "auto"}, {SubproblemSolver::kNlp, "nlp"}}, parse_subproblem_solver,
      subproblem_solver_name);
  expect_words<NlpAlgorithm>({{NlpAlgorithm::kSlsqp, "slsqp"}, {NlpAlgorithm::kMma, "mma"}},
                             parse_nlp_algorithm, nlp_algorithm_name);
}

TEST(Options, ChoicesDefaultToTheirFirstWords) {
  const Options o;
  EXPECT_EQ(o.approximation, ApproximationSource::kLocal);
  EXPECT_EQ(o.fit, FitMethod::kInterpolation);
  EXPECT_EQ(o.strategy, Strategy::kTrustRegion);
  EXPECT_EQ(o.subproblem, SubproblemSolver::kAuto);
  EXPECT_EQ(o.nlp_algorithm, NlpAlgorithm::kSlsqp);
  EXPECT_EQ(o.form, ApproximationForm::kAuto);
}

}  // namespace
}  // namespace sao
