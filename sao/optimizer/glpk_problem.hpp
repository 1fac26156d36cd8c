// A GLPK problem owned by a unique_ptr (the subproblem's LP and the multiplier estimate).
#pragma once

#include <glpk.h>

#include <memory>

namespace sao {

struct GlpkDeleter {
  void operator()(glp_prob* p) const { glp_delete_prob(p); }
};
using GlpkProblem = std::unique_ptr<glp_prob, GlpkDeleter>;

}  // namespace sao
