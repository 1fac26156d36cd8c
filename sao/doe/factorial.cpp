// Factorial plans: full factorials of any levels, and two-level fractional factorials from
// generators (plan.hpp).
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "sao/doe/plan.hpp"

namespace sao::doe {

Eigen::MatrixXd full_factorial(const std::vector<int>& levels) {
  long rows = 1;
  for (int l : levels) rows *= l;
  const int d = static_cast<int>(levels.size());
  Eigen::MatrixXd x(rows, d);
  for (long r = 0; r < rows; ++r) {
    long rest = r;
    for (int j = d - 1; j >= 0; --j) {  // the last variable varies fastest
      x(r, j) = static_cast<double>(rest % levels[j]) / (levels[j] - 1);
      rest /= levels[j];
    }
  }
  return x;
}

Eigen::MatrixXd two_level_design(int k, const std::vector<Generator>& generators) {
  std::vector<char> generated(k, 0);
  for (const Generator& g : generators) generated[g.generated] = 1;
  std::vector<int> base;
  for (int j = 0; j < k; ++j) {
    if (!generated[j]) base.push_back(j);
  }
  const long rows = 1L << base.size();
  Eigen::MatrixXd x(rows, k);
  for (long r = 0; r < rows; ++r) {
    // Standard (Yates) order: the first base variable alternates fastest, from -1.
    for (size_t b = 0; b < base.size(); ++b) x(r, base[b]) = (r >> b) & 1 ? 1.0 : -1.0;
    for (const Generator& g : generators) {
      double v = 1.0;
      for (int f : g.factors) v *= x(r, f);
      x(r, g.generated) = v;
    }
  }
  return x;
}

namespace {

// Montgomery, Design and Analysis of Experiments, table 8.14: minimum-aberration 2^(k-p)
// designs, the generated variables the last p, letters A, B, ... (no I) the variables in order.
struct TableEntry {
  int k, p;
  const char* generators;  // "D=ABC E=ABD"
};
constexpr TableEntry kTable[] = {
    {3, 1, "C=AB"},
    {4, 1, "D=ABC"},
    {5, 1, "E=ABCD"},
    {5, 2, "D=AB E=AC"},
    {6, 1, "F=ABCDE"},
    {6, 2, "E=ABC F=BCD"},
    {6, 3, "D=AB E=AC F=BC"},
    {7, 1, "G=ABCDEF"},
    {7, 2, "F=ABCD G=ABDE"},
    {7, 3, "E=ABC F=BCD G=ACD"},
    {7, 4, "D=AB E=AC F=BC G=ABC"},
    {8, 2, "G=ABCD H=ABEF"},
    {8, 3, "F=ABC G=ABD H=BCDE"},
    {8, 4, "E=BCD F=ACD G=ABC H=ABD"},
    {9, 2, "H=ACDFG J=BCEFG"},
    {9, 3, "G=ABCD H=ACEF J=CDEF"},
    {9, 4, "F=BCDE G=ACDE H=ABDE J=ABCE"},
    {9, 5, "E=ABC F=BCD G=ACD H=ABD J=ABCD"},
    {10, 3, "H=ABCG J=BCDE K=ACDF"},
    {10, 4, "G=BCDF H=ACDF J=ABDE K=ABCE"},
    {10, 5, "F=ABCD G=ABCE H=ABDE J=ACDE K=BCDE"},
    {10, 6, "E=ABC F=BCD G=ACD H=ABD J=ABCD K=AB"},
    {11, 4, "H=ABCG J=BCDE K=ACDF L=ABCDEFG"},
    {11, 5, "G=CDE H=ABCD J=ABF K=BDEF L=ADEF"},
    {11, 6, "F=ABC G=BCD H=CDE J=ACD K=ADE L=BDE"},
    {11, 7, "E=ABC F=BCD G=ACD H=ABD J=ABCD K=AB L=AC"},
};
constexpr const char* kLetters = "ABCDEFGHJKL";

int letter_index(char c) {
  const std::string letters = kLetters;
  return static_cast<int>(letters.find(c));
}

}  // namespace

std::vector<Generator> table_generators(int k, int p) {
  for (const TableEntry& e : kTable) {
    if (e.k != k || e.p != p) continue;
    std::vector<Generator> out;
    const std::string text = e.generators;
    size_t at = 0;
    while (at < text.size()) {
      size_t end = text.find(' ', at);
      if (end == std::string::npos) end = text.size();
      Generator g;
      g.generated = letter_index(text[at]);
      for (size_t c = at + 2; c < end; ++c) g.factors.push_back(letter_index(text[c]));
      out.push_back(g);
      at = end + 1;
    }
    return out;
  }
  return {};
}

int resolution(const std::vector<Generator>& generators) {
  const size_t p = generators.size();
  if (p == 0) return 0;
  // Each generator's word (the generated variable with its factors) as a set; the defining
  // relation holds every product of them (symmetric differences).
  std::vector<std::set<int>> words;
  for (const Generator& g : generators) {
    std::set<int> w(g.factors.begin(), g.factors.end());
    w.insert(g.generated);
    words.push_back(w);
  }
  size_t shortest = SIZE_MAX;
  for (unsigned long mask = 1; mask < (1UL << p); ++mask) {
    std::set<int> product;
    for (size_t g = 0; g < p; ++g) {
      if (!((mask >> g) & 1)) continue;
      std::set<int> next;
      std::set_symmetric_difference(product.begin(), product.end(), words[g].begin(),
                                    words[g].end(), std::inserter(next, next.begin()));
      product = std::move(next);
    }
    shortest = std::min(shortest, product.size());
  }
  return static_cast<int>(shortest);
}

}  // namespace sao::doe
