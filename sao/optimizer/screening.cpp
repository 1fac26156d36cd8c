#include "sao/optimizer/screening.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "sao/study/criteria.hpp"

namespace sao {
namespace {

// Adds the derivative rows criterion `c` needs at `point` to `wanted` (case, response) -> points:
// every response value its explicit relation reads there (all points of a reduced history).
void collect_derivatives(const Criterion& c, int point,
                         std::map<std::pair<int, int>, std::set<int>>& wanted) {
  if (!c.program->uses_responses()) return;
  expr::for_each_response_read(*c.program, point, [&](int response, int load_case, int p) {
    wanted[{load_case, response}].insert(p);
  });
}

// A maximal run of equal values, first..last inclusive.
struct Run {
  int first;
  int last;
};

// Every maximal run of equal values that is a local maximum, in grid order.
std::vector<Run> maximum_runs(const Eigen::VectorXd& g) {
  std::vector<Run> runs;
  const int n = static_cast<int>(g.size());
  int first = 0;
  while (first < n) {
    int last = first;
    while (last + 1 < n && g[last + 1] == g[first]) ++last;
    // Values just outside a maximal run differ from it; where they exist they must be lower.
    const bool left_lower = first == 0 || g[first - 1] < g[first];
    const bool right_lower = last == n - 1 || g[last + 1] < g[last];
    if (left_lower && right_lower) runs.push_back({first, last});
    first = last + 1;
  }
  return runs;
}

}  // namespace

bool above_cutoff(double g_hat, double cutoff) {
  return g_hat >= -(1.0 - cutoff);
}

std::vector<int> local_maxima(const Eigen::VectorXd& g_hat) {
  std::vector<int> points;
  for (const Run& run : maximum_runs(g_hat)) {
    for (int p = run.first; p <= run.last; ++p) points.push_back(p);
  }
  return points;
}

std::vector<int> retained_time_points(const Eigen::VectorXd& g_hat, double cutoff, int neighbours,
                                      bool regionalisation) {
  if (neighbours < 0) {
    throw std::invalid_argument("retained_time_points: neighbours must be >= 0, got " +
                                std::to_string(neighbours));
  }
  const int n = static_cast<int>(g_hat.size());
  std::vector<bool> keep(n, false);
  if (regionalisation) {
    for (const Run& run : maximum_runs(g_hat)) {
      // A plateau has one value, so testing its first point decides for all of it.
      if (!above_cutoff(g_hat[run.first], cutoff)) continue;
      const int from =
          static_cast<int>(std::max<std::int64_t>(0, std::int64_t{run.first} - neighbours));
      const int to =
          static_cast<int>(std::min<std::int64_t>(n - 1, std::int64_t{run.last} + neighbours));
      std::fill(keep.begin() + from, keep.begin() + to + 1, true);
    }
  } else {
    for (int p = 0; p < n; ++p) keep[p] = above_cutoff(g_hat[p], cutoff);
  }
  std::vector<int> points;
  for (int p = 0; p < n; ++p) {
    if (keep[p]) points.push_back(p);
  }
  return points;
}

ScreenedStudy screen_study(const Study& study, const Options& options, const Eigen::VectorXd& x0,
                           const ResponseModel& exact,
                           const std::map<int, std::set<int>>& also_retain) {
  ScreenedStudy out;
  std::map<std::pair<int, int>, std::set<int>> wanted;
  collect_derivatives(study.objective.f, 0, wanted);
  std::vector<std::vector<int>> kept(study.constraints.size());
  for (size_t j = 0; j < study.constraints.size(); ++j) {
    const Constraint& c = study.constraints[j];
    const Eigen::VectorXd g_hat = normalised_history(study, c, x0, exact);
    std::vector<int>& points = kept[j];
    if (!c.g.program->uses_responses()) {
      // Explicit in the variables only (e.g. the movability constraints of a mechanism): exact
      // and free in the subproblem, so always kept, as the seed does (3.7.2).
      points.resize(g_hat.size());
      for (size_t p = 0; p < points.size(); ++p) points[p] = static_cast<int>(p);
    } else if (c.g.time_dependent()) {
      points =
          retained_time_points(g_hat, options.cutoff, options.neighbours, options.regionalisation);
    } else if (above_cutoff(g_hat(0), options.strategy == Strategy::kTrustRegion
                                          ? options.scalar_cutoff
                                          : options.cutoff)) {
      points = {0};
    }
    if (auto extra = also_retain.find(static_cast<int>(j)); extra != also_retain.end()) {
      std::set<int> merged(points.begin(), points.end());
      for (int p : extra->second) {
        if (p >= 0 && p < g_hat.size()) merged.insert(p);
      }
      points.assign(merged.begin(), merged.end());
    }
  }
  // An equality's two sides go together: with one side alone the subproblem would treat
  // q = c as an inequality and step past c (HS 73 from q = 2.4 c proposed q = 0.48 c).
  for (size_t j = 0; j < study.constraints.size(); ++j) {
    const int partner = study.constraints[j].equality_partner;
    if (partner < 0 || static_cast<size_t>(partner) < j) continue;
    std::set<int> both(kept[j].begin(), kept[j].end());
    both.insert(kept[partner].begin(), kept[partner].end());
    kept[j].assign(both.begin(), both.end());
    kept[partner] = kept[j];
  }
  for (size_t j = 0; j < study.constraints.size(); ++j) {
    const Constraint& c = study.constraints[j];
    const std::vector<int>& points = kept[j];
    if (!points.empty()) ++out.retained_constraints;
    const double normaliser = constraint_normaliser(study, c, x0);
    for (int p : points) {
      out.rows.push_back({static_cast<int>(j), p, normaliser});
      collect_derivatives(c.g, p, wanted);
    }
  }
  for (const auto& [key, points] : wanted) {
    out.derivatives.push_back(
        {key.first, study.responses[key.second].source, {points.begin(), points.end()}});
  }
  return out;
}

}  // namespace sao
