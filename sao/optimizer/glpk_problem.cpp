#include "sao/optimizer/glpk_problem.hpp"

#include <climits>
#include <csetjmp>

namespace sao {
namespace {

// Per thread, as GLPK's environment is (Debian's GLPK keeps it in thread-local storage).
thread_local unsigned generation = 0;
thread_local std::jmp_buf* landing = nullptr;
thread_local std::string* printed = nullptr;

int keep_text(void*, const char* s) {
  if (printed) *printed += s;
  return 1;  // not on the terminal
}

[[noreturn]] void jump_back(void*) {
  std::longjmp(*landing, 1);
}

// The message without GLPK's line breaks and its "Error detected in file ..." line.
std::string tidy(std::string text) {
  if (const auto at = text.find("Error detected in file"); at != std::string::npos) {
    text.erase(at);
  }
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text.empty() ? "an internal error" : text;
}

}  // namespace

unsigned glpk_environment_generation() {
  return generation;
}

bool detail::glpk_guarded(void (*call)(void*), void* context, std::string& text) {
  std::jmp_buf buffer;
  landing = &buffer;
  printed = &text;
  glp_error_hook(jump_back, nullptr);
  glp_term_hook(keep_text, nullptr);
  if (setjmp(buffer) != 0) {
    landing = nullptr;
    printed = nullptr;
    text = tidy(text);
    glp_free_env();  // as GLPK's manual asks after a jump out of its error hook
    ++generation;
    return false;
  }
  call(context);
  glp_error_hook(nullptr, nullptr);
  glp_term_hook(nullptr, nullptr);
  landing = nullptr;
  printed = nullptr;
  return true;
}

int simplex_with_fallbacks(glp_prob* lp, glp_smcp& parm, const std::function<bool(int)>& trouble) {
  if (parm.it_lim == INT_MAX) {
    parm.it_lim = kIterationsPerRow * (glp_get_num_rows(lp) + glp_get_num_cols(lp)) + 1000;
  }
  int ret = 0;
  glpk_call([&] { ret = glp_simplex(lp, &parm); });
  if (!trouble(ret)) return ret;
  glp_std_basis(lp);
  const int method = parm.meth;
  parm.meth = GLP_DUALP;
  glpk_call([&] { ret = glp_simplex(lp, &parm); });
  parm.meth = method;
  if (!trouble(ret)) return ret;
  glp_std_basis(lp);
  glpk_call([&] { ret = glp_exact(lp, &parm); });
  return ret;
}

}  // namespace sao
