/* What couplet's FMI 3.0 test FMUs share (C99, FMI 3.0 API only,
 * models/fmi/fmi3.h): the export attribute, fmi3GetVersion and a trivial
 * fmi3Terminate, and the FMU-state functions of an instance that is one plain
 * struct, whose saved state is a copy of it. Each FMU is one source file that
 * expands the macros once. */
#ifndef COUPLET_TEST_FMU3_COMMON_H
#define COUPLET_TEST_FMU3_COMMON_H

#include <stdlib.h>
#include <string.h>

#include "fmi3.h"

#define EXPORT __attribute__((visibility("default")))

/* fmi3GetVersion and fmi3Terminate (nothing to end). */
#define FMU3_VERSION_AND_TERMINATE                         \
  EXPORT const char* fmi3GetVersion(void) {                \
    return COUPLET_FMI3_VERSION;                           \
  }                                                        \
  EXPORT fmi3Status fmi3Terminate(fmi3Instance instance) { \
    (void)instance;                                        \
    return fmi3OK;                                         \
  }

/* fmi3GetFMUState, fmi3SetFMUState and fmi3FreeFMUState for an instance of
 * type Type: a state is a malloc'd copy, overwritten in place when given. */
#define FMU3_COPYABLE_STATE(Type)                                                  \
  EXPORT fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState* state) {  \
    if (*state == NULL) *state = malloc(sizeof(Type));                             \
    if (*state == NULL) return fmi3Error;                                          \
    memcpy(*state, instance, sizeof(Type));                                        \
    return fmi3OK;                                                                 \
  }                                                                                \
  EXPORT fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState state) {   \
    memcpy(instance, state, sizeof(Type));                                         \
    return fmi3OK;                                                                 \
  }                                                                                \
  EXPORT fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState* state) { \
    (void)instance;                                                                \
    free(*state);                                                                  \
    *state = NULL;                                                                 \
    return fmi3OK;                                                                 \
  }

#endif /* COUPLET_TEST_FMU3_COMMON_H */
