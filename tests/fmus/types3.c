/* types3: an FMI 3.0 co-simulation FMU that passes every numeric type
 * through: output y_T = input u_T for T in Float32, Float64, Int8 ... UInt64,
 * Boolean and an Enumeration (through fmi3Get/SetInt64). Value references:
 * input 10 + k, output 30 + k, k the type's position in kTypes below. The
 * inputs start at the extremes of their types. FMI 3.0 API only
 * (models/fmi/fmi3.h). */
#include <float.h>

#include "fmu3_common.h"

enum {
  FLOAT32,
  FLOAT64,
  INT8,
  UINT8,
  INT16,
  UINT16,
  INT32,
  UINT32,
  INT64,
  UINT64,
  BOOLEAN,
  MODE,
  COUNT
};

typedef struct {
  fmi3Float32 f32;
  fmi3Float64 f64;
  fmi3Int8 i8;
  fmi3UInt8 u8;
  fmi3Int16 i16;
  fmi3UInt16 u16;
  fmi3Int32 i32;
  fmi3UInt32 u32;
  fmi3Int64 i64;
  fmi3UInt64 u64;
  fmi3Boolean b;
  fmi3Int64 mode;
} Values;

typedef struct {
  Values u;
  double time;
} Types;

static void initial(Values* u) {
  u->f32 = FLT_MAX;
  u->f64 = -DBL_MAX;
  u->i8 = -128;
  u->u8 = 255;
  u->i16 = -32768;
  u->u16 = 65535;
  u->i32 = -2147483647 - 1;
  u->u32 = 4294967295u;
  u->i64 = -9223372036854775807LL - 1;
  u->u64 = 9223372036854775807ULL;
  u->b = fmi3True;
  u->mode = 7;
}

/* The input of value reference `r` (10 + k) or its output (30 + k): the same
 * storage, since y = u. -1 for any other. */
static int slot(fmi3ValueReference r) {
  if (r >= 10 && r < 10 + COUNT) return (int)(r - 10);
  if (r >= 30 && r < 30 + COUNT) return (int)(r - 30);
  return -1;
}

FMU3_VERSION_AND_TERMINATE

EXPORT fmi3Instance fmi3InstantiateCoSimulation(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
    fmi3Boolean visible, fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
    fmi3Boolean earlyReturnAllowed, const fmi3ValueReference requiredIntermediateVariables[],
    size_t nRequiredIntermediateVariables, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3IntermediateUpdateCallback intermediateUpdate) {
  (void)instanceName, (void)resourcePath, (void)visible, (void)loggingOn, (void)eventModeUsed;
  (void)earlyReturnAllowed, (void)requiredIntermediateVariables;
  (void)nRequiredIntermediateVariables, (void)intermediateUpdate, (void)instanceEnvironment;
  (void)logMessage;
  if (instantiationToken == NULL || strcmp(instantiationToken, COUPLET_FMU_GUID) != 0) return NULL;
  Types* fmu = calloc(1, sizeof *fmu);
  if (fmu != NULL) initial(&fmu->u);
  return fmu;
}

EXPORT void fmi3FreeInstance(fmi3Instance instance) {
  free(instance);
}

EXPORT fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                              fmi3Float64 tolerance, fmi3Float64 startTime,
                                              fmi3Boolean stopTimeDefined, fmi3Float64 stopTime) {
  (void)toleranceDefined, (void)tolerance, (void)stopTimeDefined, (void)stopTime;
  ((Types*)instance)->time = startTime;
  return fmi3OK;
}

EXPORT fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
  (void)instance;
  return fmi3OK;
}

EXPORT fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                             fmi3Float64 communicationStepSize,
                             fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                             fmi3Boolean* eventHandlingNeeded, fmi3Boolean* terminateSimulation,
                             fmi3Boolean* earlyReturn, fmi3Float64* lastSuccessfulTime) {
  (void)noSetFMUStatePriorToCurrentPoint;
  Types* fmu = instance;
  *eventHandlingNeeded = fmi3False;
  *terminateSimulation = fmi3False;
  *earlyReturn = fmi3False;
  fmu->time = currentCommunicationPoint + communicationStepSize;
  *lastSuccessfulTime = fmu->time;
  return fmi3OK;
}

/* fmi3Get<T>/fmi3Set<T> for the variable of `kind`, whose storage is `member`. */
#define ACCESSORS(Name, Type, kind, member)                                                      \
  EXPORT fmi3Status fmi3Get##Name(fmi3Instance instance, const fmi3ValueReference r[], size_t n, \
                                  Type values[], size_t nValues) {                               \
    if (n != nValues) return fmi3Error;                                                          \
    for (size_t i = 0; i < n; ++i) {                                                             \
      if (slot(r[i]) != (kind)) return fmi3Error;                                                \
      values[i] = ((Types*)instance)->u.member;                                                  \
    }                                                                                            \
    return fmi3OK;                                                                               \
  }                                                                                              \
  EXPORT fmi3Status fmi3Set##Name(fmi3Instance instance, const fmi3ValueReference r[], size_t n, \
                                  const Type values[], size_t nValues) {                         \
    if (n != nValues) return fmi3Error;                                                          \
    for (size_t i = 0; i < n; ++i) {                                                             \
      if (slot(r[i]) != (kind) || r[i] >= 30) return fmi3Error;                                  \
      ((Types*)instance)->u.member = values[i];                                                  \
    }                                                                                            \
    return fmi3OK;                                                                               \
  }

ACCESSORS(Float32, fmi3Float32, FLOAT32, f32)
ACCESSORS(Float64, fmi3Float64, FLOAT64, f64)
ACCESSORS(Int8, fmi3Int8, INT8, i8)
ACCESSORS(UInt8, fmi3UInt8, UINT8, u8)
ACCESSORS(Int16, fmi3Int16, INT16, i16)
ACCESSORS(UInt16, fmi3UInt16, UINT16, u16)
ACCESSORS(Int32, fmi3Int32, INT32, i32)
ACCESSORS(UInt32, fmi3UInt32, UINT32, u32)
ACCESSORS(UInt64, fmi3UInt64, UINT64, u64)
ACCESSORS(Boolean, fmi3Boolean, BOOLEAN, b)

/* Int64 serves the Int64 variable and the Enumeration (§2.2.6.2). */
EXPORT fmi3Status fmi3GetInt64(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                               fmi3Int64 values[], size_t nValues) {
  if (n != nValues) return fmi3Error;
  for (size_t i = 0; i < n; ++i) {
    const int kind = slot(r[i]);
    if (kind != INT64 && kind != MODE) return fmi3Error;
    values[i] = kind == INT64 ? ((Types*)instance)->u.i64 : ((Types*)instance)->u.mode;
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3SetInt64(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                               const fmi3Int64 values[], size_t nValues) {
  if (n != nValues) return fmi3Error;
  for (size_t i = 0; i < n; ++i) {
    const int kind = slot(r[i]);
    if ((kind != INT64 && kind != MODE) || r[i] >= 30) return fmi3Error;
    if (kind == INT64) {
      ((Types*)instance)->u.i64 = values[i];
    } else {
      ((Types*)instance)->u.mode = values[i];
    }
  }
  return fmi3OK;
}
