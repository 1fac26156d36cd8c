/* The sao plug-in interface, version 1: a shared library that implements it is a simulator
 * loaded by path from a study, {"type": "plugin", "library": "libmymodel.so"} (docs/python.md,
 * "The plug-in API"). Plain C, so that a library written in C, C++, Fortran or Rust can
 * implement it; nothing of sao's C++ crosses it.
 *
 * The library exports two functions with C linkage:
 *
 *   int sao_plugin_api_version(void);
 *       The version of this header the library was built with (SAO_PLUGIN_API_VERSION). sao
 *       reads it first and refuses a library built for another version, naming both.
 *   const struct sao_plugin_v1* sao_plugin_v1(void);
 *       The table of functions below (static storage; sao never frees it).
 *
 * An instance is created per study from the study's "simulator" section (JSON text) and its
 * load cases; sao then asks it for its responses and evaluates batches of designs, one load case
 * per call. Layout of a batch (all arrays row-major, allocated by sao):
 *   designs    [runs][design_count]
 *   values     [runs][value_count]   the responses in the order of `response`, a scalar taking
 *                                    one value, a history one per time point of the load case
 *   gradients  [runs][value_count][design_count]  d(value)/d(design), or NULL: values only
 *   failed     [runs]                0: the run succeeded; otherwise its message is in
 *   messages   [runs][message_size]  a NUL-terminated reason (a failed analysis, not an error)
 * A function returning nonzero has failed as a whole (the batch is a failed analysis for every
 * run) and writes why into `error` (error_size bytes, NUL-terminated).
 *
 * Threads: sao calls an instance from one thread at a time unless `thread_safe` is nonzero;
 * then batches of one instance may be evaluated concurrently. */
#ifndef SAO_PLUGIN_H
#define SAO_PLUGIN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SAO_PLUGIN_API_VERSION 1

/* One load case as the study defines it. */
struct sao_plugin_load_case {
  const char* name;
  int points;                         /* output time points */
  const double* times;                /* [points] */
  int parameter_count;                /* the load case's "parameters" */
  const char* const* parameter_names; /* [parameter_count] */
  const double* parameter_values;     /* [parameter_count] */
};

/* What an instance is created from. */
struct sao_plugin_setup {
  const char* section_json;    /* the study's "simulator" object, as JSON text */
  const char* study_directory; /* folder of the study file ("" for an in-memory study) */
  int design_count;
  const char* const* design_names; /* [design_count] */
  int load_case_count;
  const struct sao_plugin_load_case* load_cases; /* [load_case_count] */
};

/* One call of evaluate: `runs` designs in load case `load_case`. */
struct sao_plugin_batch {
  int load_case;
  int runs;
  int design_count;
  const double* designs;
  int value_count;
  double* values;
  double* gradients; /* NULL unless the instance provides gradients and they are asked for */
  int* failed;
  char* messages;
  size_t message_size;
};

struct sao_plugin_v1 {
  /* A new instance, or NULL with the reason in `error` (a bad section: sao reports it as a
   * problem of "simulator" and exits 2). */
  void* (*create)(const struct sao_plugin_setup* setup, char* error, size_t error_size);
  void (*destroy)(void* instance);
  /* The responses: count, then name and kind (history: 1, scalar: 0) of each. The name stays
   * valid while the instance lives. */
  int (*response_count)(void* instance);
  int (*response)(void* instance, int index, const char** name, int* history);
  /* Nonzero when evaluate fills `gradients` itself; otherwise sao takes finite differences
   * (the section's "gradients": {"method": "forward" or "central", "step": p}). */
  int provides_gradients;
  /* Nonzero when evaluate may be called concurrently on one instance. */
  int thread_safe;
  /* Evaluates a batch; 0 on success (single runs may still have failed). */
  int (*evaluate)(void* instance, struct sao_plugin_batch* batch, char* error, size_t error_size);
};

/* The two exports a plug-in defines (declared here so that its definitions are checked). */
int sao_plugin_api_version(void);
const struct sao_plugin_v1* sao_plugin_v1(void);

#ifdef __cplusplus
}
#endif

#endif /* SAO_PLUGIN_H */
