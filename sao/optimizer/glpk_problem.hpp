// A GLPK problem owned by a unique_ptr (the subproblem's LP and the multiplier estimate), and
// GLPK calls whose fatal errors are exceptions instead of the end of the process, and the simplex
// with its iteration limit and fallbacks (both LPs).
#pragma once

#include <glpk.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

namespace sao {

// How many times GLPK's environment of this thread has been freed (glpk_call): a problem
// created before that is gone with it.
unsigned glpk_environment_generation();

struct GlpkDeleter {
  unsigned generation = glpk_environment_generation();
  void operator()(glp_prob* p) const {
    if (generation == glpk_environment_generation()) glp_delete_prob(p);
  }
};
using GlpkProblem = std::unique_ptr<glp_prob, GlpkDeleter>;

// GLPK stopped on its input (what it printed).
struct GlpkError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace detail {
// Runs `call` with GLPK's error hook set; false when GLPK called it (its message in `text`).
bool glpk_guarded(void (*call)(void*), void* context, std::string& text);
}  // namespace detail

// One GLPK call, `call()`. GLPK ends the process (abort) on what it takes for a programming
// error, also on numbers from a study near the ends of the double range (a scale factor of 0
// from coefficients of 1e-310, an infinite value in its exact simplex). Here its error hook
// jumps back instead: GLPK's environment of this thread is freed, and with it every GLPK
// problem of the thread (GlpkDeleter then deletes nothing), and a GlpkError carries GLPK's
// message. `call` must hold no object with a destructor (the jump skips its frame).
template <class Call>
void glpk_call(Call&& call) {
  std::string text;
  auto run = [](void* c) { (*static_cast<Call*>(c))(); };
  if (!detail::glpk_guarded(run, &call, text)) throw GlpkError("GLPK stopped: " + text);
}

// GLPK's simplex on `lp` (its matrix loaded), retried while `trouble(code)` says the answer will
// not do (`code` GLPK's return code; the predicate may read `lp`'s status and solution): the
// primal simplex, then from the standard basis the dual simplex, then the exact simplex in
// rational arithmetic. Each attempt stops after `parm.it_lim` iterations, set here to
// kIterationsPerRow times the rows and columns plus 1000 unless the caller set a limit: on
// degenerate problems GLPK's primal simplex has been seen to run without end (a subproblem with
// hundreds of time points of one history active at once; the multiplier LP of a design with 12
// rows active at round-off, tests/data/optimality-degenerate-lp.json). The return code is the
// last attempt's, GLP_EITLIM when it hit the limit. Through glpk_call: GlpkError on GLPK's
// fatal errors.
constexpr int kIterationsPerRow = 20;
int simplex_with_fallbacks(glp_prob* lp, glp_smcp& parm, const std::function<bool(int)>& trouble);

}  // namespace sao
