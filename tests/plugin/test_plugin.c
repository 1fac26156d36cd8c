/* Small plug-ins (tests/plugin/CMakeLists.txt builds one library per case, bench/ the last):
 *   SAO_TEST_WRONG_VERSION  reports interface version 99
 *   SAO_TEST_NO_ENTRY       exports neither entry point
 *   SAO_TEST_FAILING        a plug-in whose every run fails with a message, and whose batch
 *                           fails as a whole when the design's first variable is negative
 *   SAO_TEST_QUADRATIC      the bench's trivial model, f = x^2 + y^2 and g = x y of the first two
 *                           design variables (bench/python/evaluation_overhead.py) */
#include <stdio.h>

#include "sao/plugin/sao_plugin.h"

#ifndef SAO_TEST_NO_ENTRY
static int instance_tag;

static void* create(const struct sao_plugin_setup* setup, char* error, size_t error_size) {
  (void)setup, (void)error, (void)error_size;
  return &instance_tag;
}
static void destroy(void* instance) {
  (void)instance;
}
#ifdef SAO_TEST_QUADRATIC
static const char* const names[] = {"f", "g"};
#else
static const char* const names[] = {"energy"};
#endif
static int response_count(void* instance) {
  (void)instance;
  return (int)(sizeof names / sizeof names[0]);
}
static int response(void* instance, int index, const char** name, int* history) {
  if (index < 0 || index >= response_count(instance)) return 1;
  *name = names[index];
  *history = 0;
  return 0;
}
static int evaluate(void* instance, struct sao_plugin_batch* batch, char* error,
                    size_t error_size) {
  (void)instance;
  for (int r = 0; r < batch->runs; ++r) {
#ifdef SAO_TEST_QUADRATIC
    const double* b = batch->designs + (size_t)r * (size_t)batch->design_count;
    batch->values[(size_t)r * (size_t)batch->value_count] = b[0] * b[0] + b[1] * b[1];
    batch->values[(size_t)r * (size_t)batch->value_count + 1] = b[0] * b[1];
    continue;
#endif
    const double b1 = batch->designs[(size_t)r * (size_t)batch->design_count];
    if (b1 < 0) {
      snprintf(error, error_size, "the licence server is down (b1 = %g)", b1);
      return 1;
    }
    batch->values[(size_t)r * (size_t)batch->value_count] = b1 * b1;
    batch->failed[r] = 1;
    snprintf(batch->messages + (size_t)r * batch->message_size, batch->message_size,
             "the spring broke at b1 = %g", b1);
  }
  return 0;
}

#ifdef SAO_TEST_WRONG_VERSION
int sao_plugin_api_version(void) {
  return 99;
}
#else
int sao_plugin_api_version(void) {
  return SAO_PLUGIN_API_VERSION;
}
#endif
const struct sao_plugin_v1* sao_plugin_v1(void) {
#ifdef SAO_TEST_QUADRATIC
#define THREAD_SAFE 1
#else
#define THREAD_SAFE 0
#endif
  static const struct sao_plugin_v1 api = {create, destroy,     response_count, response,
                                           0,      THREAD_SAFE, evaluate};
  return &api;
}
#else
int not_a_plugin(void) {
  return 0;
}
#endif
