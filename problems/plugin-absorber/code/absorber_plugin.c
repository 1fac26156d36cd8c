/* The impact absorber of seed 003 (2.5.1) as a sao plug-in (sao/plugin/sao_plugin.h), in C:
 * a mass m = 1 kg on a spring k [N/m] and a damper c [Ns/m], hit with velocity v0:
 * y'' + c y' + k y = 0, y(0) = y0, y'(0) = v0 (load-case parameters, defaults 0 and 1 m/s).
 * The same model as the internal simulator's "impact-absorber", solved in closed form: with
 * A = [[0, 1], [-k, -c]], s = -c/2 and q = sqrt(c^2/4 - k) (complex when underdamped),
 * x(t) = e^(s t) [cosh(q t) I + sinh(q t)/q (A - s I)] x0.
 * The design variables named by the section's "options": {"k": NAME, "c": NAME} give k and c
 * (default: the first two). Responses: histories y, ydot, yddot; scalars max_abs_y,
 * max_abs_yddot. Gradients: sao's finite differences. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sao/plugin/sao_plugin.h"

struct absorber {
  int k_index, c_index;
  int load_cases;
  struct {
    int points;
    double* times;
    double y0, v0;
  } cases[16];
};

static const char* const names[] = {"y", "ydot", "yddot", "max_abs_y", "max_abs_yddot"};

/* The index of design variable `name` given as "options": {"<key>": "<name>"} in `json` (a
 * small search of the section's text: a plug-in may use any JSON library it likes). */
static int option_index(const struct sao_plugin_setup* setup, const char* key, int fallback) {
  const char* options = strstr(setup->section_json, "\"options\"");
  if (options == NULL) return fallback;
  char pattern[64];
  snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
  const char* at = strstr(options, pattern);
  if (at == NULL) return fallback;
  at += strlen(pattern);
  for (int i = 0; i < setup->design_count; ++i) {
    const size_t n = strlen(setup->design_names[i]);
    if (strncmp(at, setup->design_names[i], n) == 0 && at[n] == '"') return i;
  }
  return -1;
}

static double parameter(const struct sao_plugin_load_case* lc, const char* name, double fallback) {
  for (int i = 0; i < lc->parameter_count; ++i) {
    if (strcmp(lc->parameter_names[i], name) == 0) return lc->parameter_values[i];
  }
  return fallback;
}

static void* create(const struct sao_plugin_setup* setup, char* error, size_t error_size) {
  if (setup->load_case_count > 16) {
    snprintf(error, error_size, "at most 16 load cases, got %d", setup->load_case_count);
    return NULL;
  }
  struct absorber* a = calloc(1, sizeof *a);
  a->k_index = option_index(setup, "k", 0);
  a->c_index = option_index(setup, "c", 1);
  if (a->k_index < 0 || a->c_index < 0 || a->k_index >= setup->design_count ||
      a->c_index >= setup->design_count) {
    snprintf(error, error_size, "options.k and options.c must name design variables");
    free(a);
    return NULL;
  }
  a->load_cases = setup->load_case_count;
  for (int c = 0; c < a->load_cases; ++c) {
    const struct sao_plugin_load_case* lc = &setup->load_cases[c];
    a->cases[c].points = lc->points;
    a->cases[c].times = malloc(sizeof(double) * (size_t)lc->points);
    memcpy(a->cases[c].times, lc->times, sizeof(double) * (size_t)lc->points);
    a->cases[c].y0 = parameter(lc, "y0", 0.0);
    a->cases[c].v0 = parameter(lc, "v0", 1.0);
  }
  return a;
}

static void destroy(void* instance) {
  struct absorber* a = instance;
  for (int c = 0; c < a->load_cases; ++c) free(a->cases[c].times);
  free(a);
}

static int response_count(void* instance) {
  (void)instance;
  return 5;
}

static int response(void* instance, int index, const char** name, int* history) {
  (void)instance;
  if (index < 0 || index >= 5) return 1;
  *name = names[index];
  *history = index < 3;
  return 0;
}

static int evaluate(void* instance, struct sao_plugin_batch* batch, char* error,
                    size_t error_size) {
  const struct absorber* a = instance;
  const int points = a->cases[batch->load_case].points;
  if (batch->value_count != 3 * points + 2) {
    snprintf(error, error_size, "expected %d values per run, got %d", 3 * points + 2,
             batch->value_count);
    return 1;
  }
  for (int r = 0; r < batch->runs; ++r) {
    const double* b = batch->designs + (size_t)r * (size_t)batch->design_count;
    const double k = b[a->k_index], c = b[a->c_index];
    const double y0 = a->cases[batch->load_case].y0, v0 = a->cases[batch->load_case].v0;
    double* y = batch->values + (size_t)r * (size_t)batch->value_count;
    double *ydot = y + points, *yddot = ydot + points;
    const double s = -c / 2;
    const double complex q = csqrt(c * c / 4 - k + 0.0 * I);
    double max_y = 0, max_a = 0;
    for (int p = 0; p < points; ++p) {
      const double t = a->cases[batch->load_case].times[p];
      const double complex ch = ccosh(q * t);
      const double complex sh = cabs(q) * t < 1e-8 ? t : csinh(q * t) / q;
      const double e = exp(s * t);
      /* e^(s t) [ch I + sh (A - s I)] x0, A - s I = [[c/2, 1], [-k, -c/2]] */
      y[p] = e * creal(ch * y0 + sh * (c / 2 * y0 + v0));
      ydot[p] = e * creal(ch * v0 + sh * (-k * y0 - c / 2 * v0));
      yddot[p] = -c * ydot[p] - k * y[p];
      max_y = fmax(max_y, fabs(y[p]));
      max_a = fmax(max_a, fabs(yddot[p]));
    }
    yddot[points] = max_y;
    yddot[points + 1] = max_a;
    if (!isfinite(max_y) || !isfinite(max_a)) {
      batch->failed[r] = 1;
      snprintf(batch->messages + (size_t)r * batch->message_size, batch->message_size,
               "non-finite response at k = %g, c = %g", k, c);
    }
  }
  return 0;
}

int sao_plugin_api_version(void) {
  return SAO_PLUGIN_API_VERSION;
}

const struct sao_plugin_v1* sao_plugin_v1(void) {
  static const struct sao_plugin_v1 api = {
      create,  destroy, response_count, response, 0 /* gradients by sao */, 1 /* thread-safe */,
      evaluate};
  return &api;
}
