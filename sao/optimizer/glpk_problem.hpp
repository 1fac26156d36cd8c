// A GLPK problem owned by a unique_ptr (the subproblem's LP and the multiplier estimate), and
// GLPK calls whose fatal errors are exceptions instead of the end of the process.
#pragma once

#include <glpk.h>

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

}  // namespace sao
