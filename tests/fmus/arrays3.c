/* arrays3: an FMI 3.0 co-simulation FMU with array variables. Its structural
 * parameter n (value reference 1, 0 to 16, set in Configuration Mode) sizes
 * the input u[n] (2) and the output y[n] (3): y[i]' = i u[i] (1-based i),
 * exact for inputs held over the step, y = 0 at the start; total (4) is the
 * sum of y. The output grid (6), an Int32[2,3], is 10 r + c + offset[r,c]
 * (1-based r, c) with the parameter offset (5) of the same shape, row-major as
 * FMI 3.0 stores arrays. fmi3Get/Set take each named variable's elements in
 * turn (nValues counts them all). FMI 3.0 API only (models/fmi/fmi3.h). */
#include "fmu3_common.h"

#define MAX_N 16
#define ROWS 2
#define COLUMNS 3

enum { VR_N = 1, VR_U = 2, VR_Y = 3, VR_TOTAL = 4, VR_OFFSET = 5, VR_GRID = 6 };

typedef struct {
  fmi3UInt64 n;
  double u[MAX_N];
  double y[MAX_N];
  fmi3Int32 offset[ROWS * COLUMNS];
  double time;
  int configuring;
} Arrays;

static double total(const Arrays* fmu) {
  double sum = 0.0;
  for (fmi3UInt64 i = 0; i < fmu->n; ++i) sum += fmu->y[i];
  return sum;
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
  Arrays* fmu = calloc(1, sizeof *fmu);
  if (fmu != NULL) fmu->n = 3;
  return fmu;
}

EXPORT void fmi3FreeInstance(fmi3Instance instance) {
  free(instance);
}

EXPORT fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance) {
  ((Arrays*)instance)->configuring = 1;
  return fmi3OK;
}

EXPORT fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance) {
  Arrays* fmu = instance;
  if (!fmu->configuring || fmu->n > MAX_N) return fmi3Error;
  fmu->configuring = 0;
  return fmi3OK;
}

EXPORT fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                              fmi3Float64 tolerance, fmi3Float64 startTime,
                                              fmi3Boolean stopTimeDefined, fmi3Float64 stopTime) {
  (void)toleranceDefined, (void)tolerance, (void)stopTimeDefined, (void)stopTime;
  ((Arrays*)instance)->time = startTime;
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
  Arrays* fmu = instance;
  for (fmi3UInt64 i = 0; i < fmu->n; ++i)
    fmu->y[i] += (double)(i + 1) * fmu->u[i] * communicationStepSize;
  *eventHandlingNeeded = fmi3False;
  *terminateSimulation = fmi3False;
  *earlyReturn = fmi3False;
  fmu->time = currentCommunicationPoint + communicationStepSize;
  *lastSuccessfulTime = fmu->time;
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                                 fmi3Float64 values[], size_t nValues) {
  const Arrays* fmu = instance;
  size_t at = 0;
  for (size_t k = 0; k < n; ++k) {
    const size_t count = r[k] == VR_TOTAL ? 1 : (size_t)fmu->n;
    if ((r[k] != VR_U && r[k] != VR_Y && r[k] != VR_TOTAL) || at + count > nValues)
      return fmi3Error;
    for (size_t i = 0; i < count; ++i)
      values[at + i] = r[k] == VR_U ? fmu->u[i] : r[k] == VR_Y ? fmu->y[i] : total(fmu);
    at += count;
  }
  return at == nValues ? fmi3OK : fmi3Error;
}

EXPORT fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                                 const fmi3Float64 values[], size_t nValues) {
  Arrays* fmu = instance;
  size_t at = 0;
  for (size_t k = 0; k < n; ++k) {
    if (r[k] != VR_U || at + fmu->n > nValues) return fmi3Error;
    for (size_t i = 0; i < fmu->n; ++i) fmu->u[i] = values[at + i];
    at += (size_t)fmu->n;
  }
  return at == nValues ? fmi3OK : fmi3Error;
}

EXPORT fmi3Status fmi3GetInt32(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                               fmi3Int32 values[], size_t nValues) {
  const Arrays* fmu = instance;
  if (nValues != n * ROWS * COLUMNS) return fmi3Error;
  for (size_t k = 0; k < n; ++k) {
    if (r[k] != VR_OFFSET && r[k] != VR_GRID) return fmi3Error;
    for (int e = 0; e < ROWS * COLUMNS; ++e) {
      const fmi3Int32 grid = 10 * (e / COLUMNS + 1) + e % COLUMNS + 1 + fmu->offset[e];
      values[k * ROWS * COLUMNS + e] = r[k] == VR_OFFSET ? fmu->offset[e] : grid;
    }
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3SetInt32(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                               const fmi3Int32 values[], size_t nValues) {
  Arrays* fmu = instance;
  if (nValues != n * ROWS * COLUMNS) return fmi3Error;
  for (size_t k = 0; k < n; ++k) {
    if (r[k] != VR_OFFSET) return fmi3Error;
    memcpy(fmu->offset, values + k * ROWS * COLUMNS, sizeof fmu->offset);
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetUInt64(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                                fmi3UInt64 values[], size_t nValues) {
  if (n != 1 || nValues != 1 || r[0] != VR_N) return fmi3Error;
  values[0] = ((const Arrays*)instance)->n;
  return fmi3OK;
}

/* n only in Configuration Mode (FMI 3.0 §2.3.3). */
EXPORT fmi3Status fmi3SetUInt64(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                                const fmi3UInt64 values[], size_t nValues) {
  Arrays* fmu = instance;
  if (n != 1 || nValues != 1 || r[0] != VR_N || !fmu->configuring) return fmi3Error;
  fmu->n = values[0];
  return fmi3OK;
}

/* dy[i]/dt = i u[i]; total's derivative is their sum. */
EXPORT fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance, const fmi3ValueReference r[],
                                           size_t n, const fmi3Int32 orders[], fmi3Float64 values[],
                                           size_t nValues) {
  const Arrays* fmu = instance;
  size_t at = 0;
  for (size_t k = 0; k < n; ++k) {
    const size_t count = r[k] == VR_TOTAL ? 1 : (size_t)fmu->n;
    if ((r[k] != VR_Y && r[k] != VR_TOTAL) || orders[k] < 1 || at + count > nValues)
      return fmi3Error;
    double sum = 0.0;
    for (size_t i = 0; i < fmu->n; ++i) {
      const double rate = orders[k] == 1 ? (double)(i + 1) * fmu->u[i] : 0.0;
      if (r[k] == VR_Y) values[at + i] = rate;
      sum += rate;
    }
    if (r[k] == VR_TOTAL) values[at] = sum;
    at += count;
  }
  return at == nValues ? fmi3OK : fmi3Error;
}
