/* sawtooth3: an FMI 3.0 model-exchange FMU, written against the FMI 3.0 API
 * only (models/fmi/fmi3.h). One continuous state x with x' = k + u; a time
 * event at every multiple of `period` resets x to 0; the event indicator
 * z = x - threshold makes a state event where x rises through `threshold`,
 * and each such crossing adds 1 to the Int32 output `count`. With u = 0 and
 * x(0) = 0: x(t) = k (t mod period), count(t) = the number of n >= 0 with
 * n period + threshold / k <= t (threshold / k < period).
 * Value references: 1 x (output, the state), 2 der(x), 3 k, 4 period,
 * 5 threshold (parameters), 6 u (input), 7 count (output), 8 z. FMU state:
 * a copy of the instance. */
#include <math.h>

#include "fmu3_common.h"

typedef struct {
  double time, x, k, period, threshold, u;
  fmi3Int32 count;
  int above;         /* x was past threshold at the last event */
  double next_reset; /* the next time event */
} Sawtooth;

static double* real(Sawtooth* fmu, fmi3ValueReference r) {
  switch (r) {
    case 1:
      return &fmu->x;
    case 3:
      return &fmu->k;
    case 4:
      return &fmu->period;
    case 5:
      return &fmu->threshold;
    case 6:
      return &fmu->u;
    default:
      return NULL;
  }
}

FMU3_VERSION_AND_TERMINATE

EXPORT fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName,
                                                 fmi3String instantiationToken,
                                                 fmi3String resourcePath, fmi3Boolean visible,
                                                 fmi3Boolean loggingOn,
                                                 fmi3InstanceEnvironment instanceEnvironment,
                                                 fmi3LogMessageCallback logMessage) {
  (void)instanceName, (void)resourcePath, (void)visible, (void)loggingOn;
  (void)instanceEnvironment, (void)logMessage;
  if (instantiationToken == NULL || strcmp(instantiationToken, COUPLET_FMU_GUID) != 0) return NULL;
  Sawtooth* fmu = calloc(1, sizeof *fmu);
  if (fmu == NULL) return NULL;
  fmu->k = 1.0;
  fmu->period = 0.5;
  fmu->threshold = 0.3;
  return fmu;
}

EXPORT void fmi3FreeInstance(fmi3Instance instance) {
  free(instance);
}

EXPORT fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                              fmi3Float64 tolerance, fmi3Float64 startTime,
                                              fmi3Boolean stopTimeDefined, fmi3Float64 stopTime) {
  (void)toleranceDefined, (void)tolerance, (void)stopTimeDefined, (void)stopTime;
  Sawtooth* fmu = instance;
  fmu->time = startTime;
  return fmi3OK;
}

EXPORT fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
  Sawtooth* fmu = instance;
  if (!(fmu->period > 0.0)) return fmi3Error;
  fmu->next_reset = (floor(fmu->time / fmu->period) + 1.0) * fmu->period;
  fmu->above = fmu->x >= fmu->threshold;
  return fmi3OK;
}

EXPORT fmi3Status fmi3EnterEventMode(fmi3Instance instance) {
  (void)instance;
  return fmi3OK;
}

/* The time event resets x; a rise through threshold counts. Both settle at once. */
EXPORT fmi3Status fmi3UpdateDiscreteStates(
    fmi3Instance instance, fmi3Boolean* discreteStatesNeedUpdate, fmi3Boolean* terminateSimulation,
    fmi3Boolean* nominalsOfContinuousStatesChanged, fmi3Boolean* valuesOfContinuousStatesChanged,
    fmi3Boolean* nextEventTimeDefined, fmi3Float64* nextEventTime) {
  Sawtooth* fmu = instance;
  *discreteStatesNeedUpdate = fmi3False;
  *terminateSimulation = fmi3False;
  *nominalsOfContinuousStatesChanged = fmi3False;
  *valuesOfContinuousStatesChanged = fmi3False;
  if (fmu->time >= fmu->next_reset - 1e-12 * fmax(1.0, fabs(fmu->time))) {
    fmu->x = 0.0;
    fmu->next_reset += fmu->period;
    *valuesOfContinuousStatesChanged = fmi3True;
  }
  /* Located by the importer to its tolerance: x may sit a hair below threshold. */
  const int above = fmu->x >= fmu->threshold - 1e-6;
  if (above && !fmu->above) ++fmu->count;
  fmu->above = above;
  *nextEventTimeDefined = fmi3True;
  *nextEventTime = fmu->next_reset;
  return fmi3OK;
}

EXPORT fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance) {
  (void)instance;
  return fmi3OK;
}

EXPORT fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance,
                                              fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                              fmi3Boolean* enterEventMode,
                                              fmi3Boolean* terminateSimulation) {
  (void)instance, (void)noSetFMUStatePriorToCurrentPoint;
  *enterEventMode = fmi3False;
  *terminateSimulation = fmi3False;
  return fmi3OK;
}

EXPORT fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time) {
  ((Sawtooth*)instance)->time = time;
  return fmi3OK;
}

EXPORT fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 states[],
                                          size_t n) {
  if (n != 1) return fmi3Error;
  ((Sawtooth*)instance)->x = states[0];
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 states[], size_t n) {
  if (n != 1) return fmi3Error;
  states[0] = ((const Sawtooth*)instance)->x;
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance,
                                                    fmi3Float64 derivatives[], size_t n) {
  const Sawtooth* fmu = instance;
  if (n != 1) return fmi3Error;
  derivatives[0] = fmu->k + fmu->u;
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 indicators[],
                                         size_t n) {
  const Sawtooth* fmu = instance;
  if (n != 1) return fmi3Error;
  indicators[0] = fmu->x - fmu->threshold;
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t* n) {
  (void)instance;
  *n = 1;
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t* n) {
  (void)instance;
  *n = 1;
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                                 fmi3Float64 values[], size_t nValues) {
  Sawtooth* fmu = instance;
  if (n != nValues) return fmi3Error;
  for (size_t i = 0; i < n; ++i) {
    if (r[i] == 2) {
      values[i] = fmu->k + fmu->u;
    } else if (r[i] == 8) {
      values[i] = fmu->x - fmu->threshold;
    } else {
      const double* value = real(fmu, r[i]);
      if (value == NULL) return fmi3Error;
      values[i] = *value;
    }
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                                 const fmi3Float64 values[], size_t nValues) {
  Sawtooth* fmu = instance;
  if (n != nValues) return fmi3Error;
  for (size_t i = 0; i < n; ++i) {
    double* value = real(fmu, r[i]);
    if (value == NULL) return fmi3Error;
    *value = values[i];
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetInt32(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                               fmi3Int32 values[], size_t nValues) {
  if (n != nValues) return fmi3Error;
  for (size_t i = 0; i < n; ++i) {
    if (r[i] != 7) return fmi3Error;
    values[i] = ((const Sawtooth*)instance)->count;
  }
  return fmi3OK;
}

/* count is an output: nothing to set. */
EXPORT fmi3Status fmi3SetInt32(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                               const fmi3Int32 values[], size_t nValues) {
  (void)instance, (void)r, (void)values;
  return n == 0 && nValues == 0 ? fmi3OK : fmi3Error;
}

FMU3_COPYABLE_STATE(Sawtooth)
