/* events3: an FMI 3.0 co-simulation FMU with event mode and early return,
 * written against the FMI 3.0 API only (models/fmi/fmi3.h). y' = k, and where
 * y reaches `threshold` (at t_e = t + (threshold - y) / k, exactly) it is reset
 * to 0 and `count` grows by 1. Allowed early return, fmi3DoStep stops at t_e
 * with y = threshold and, with event mode, asks for event handling: the reset
 * happens in fmi3UpdateDiscreteStates (without event mode at once); each early
 * return adds 1 to `early_returns`. Without early return the FMU resets inside
 * fmi3DoStep. With k = 1 and threshold 0.27: y(t) = t mod 0.27, count(t) =
 * floor(t / 0.27). The discrete input `mode` may change only in Event Mode
 * when event mode is used; each change adds 1 to `mode_events`.
 * Value references: 1 k, 2 threshold (parameters), 3 y, 4 count,
 * 5 early_returns, 7 mode_events (outputs), 6 mode (input). FMU state: a copy
 * of the instance. */
#include "fmu3_common.h"

typedef struct {
  double time, k, threshold, y;
  fmi3Int32 count, early_returns, mode, mode_events;
  int event_mode_used, early_return_allowed;
  int in_event_mode, reset_pending;
} Events;

FMU3_VERSION_AND_TERMINATE

EXPORT fmi3Instance fmi3InstantiateCoSimulation(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
    fmi3Boolean visible, fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
    fmi3Boolean earlyReturnAllowed, const fmi3ValueReference requiredIntermediateVariables[],
    size_t nRequiredIntermediateVariables, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3IntermediateUpdateCallback intermediateUpdate) {
  (void)instanceName, (void)resourcePath, (void)visible, (void)loggingOn;
  (void)requiredIntermediateVariables, (void)nRequiredIntermediateVariables;
  (void)intermediateUpdate, (void)instanceEnvironment, (void)logMessage;
  if (instantiationToken == NULL || strcmp(instantiationToken, COUPLET_FMU_GUID) != 0) return NULL;
  Events* fmu = calloc(1, sizeof *fmu);
  if (fmu == NULL) return NULL;
  fmu->k = 1.0;
  fmu->threshold = 0.27;
  fmu->mode = 1;
  fmu->event_mode_used = eventModeUsed;
  fmu->early_return_allowed = earlyReturnAllowed;
  return fmu;
}

EXPORT void fmi3FreeInstance(fmi3Instance instance) {
  free(instance);
}

EXPORT fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                              fmi3Float64 tolerance, fmi3Float64 startTime,
                                              fmi3Boolean stopTimeDefined, fmi3Float64 stopTime) {
  (void)toleranceDefined, (void)tolerance, (void)stopTimeDefined, (void)stopTime;
  ((Events*)instance)->time = startTime;
  return fmi3OK;
}

/* With event mode the FMU is in Event Mode afterwards (FMI 3.0 §4.2.5). */
EXPORT fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
  Events* fmu = instance;
  if (!(fmu->k > 0.0) || !(fmu->threshold > 0.0)) return fmi3Error;
  fmu->in_event_mode = fmu->event_mode_used;
  return fmi3OK;
}

EXPORT fmi3Status fmi3EnterEventMode(fmi3Instance instance) {
  Events* fmu = instance;
  if (!fmu->event_mode_used || fmu->in_event_mode) return fmi3Error;
  fmu->in_event_mode = 1;
  return fmi3OK;
}

EXPORT fmi3Status fmi3UpdateDiscreteStates(
    fmi3Instance instance, fmi3Boolean* discreteStatesNeedUpdate, fmi3Boolean* terminateSimulation,
    fmi3Boolean* nominalsOfContinuousStatesChanged, fmi3Boolean* valuesOfContinuousStatesChanged,
    fmi3Boolean* nextEventTimeDefined, fmi3Float64* nextEventTime) {
  Events* fmu = instance;
  if (!fmu->in_event_mode) return fmi3Error;
  *discreteStatesNeedUpdate = fmi3False;
  *terminateSimulation = fmi3False;
  *nominalsOfContinuousStatesChanged = fmi3False;
  *valuesOfContinuousStatesChanged = fmi3False;
  *nextEventTimeDefined = fmi3False;
  *nextEventTime = 0.0;
  if (fmu->reset_pending) {
    fmu->y = 0.0;
    ++fmu->count;
    fmu->reset_pending = 0;
    *valuesOfContinuousStatesChanged = fmi3True;
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3EnterStepMode(fmi3Instance instance) {
  Events* fmu = instance;
  if (!fmu->in_event_mode || fmu->reset_pending) return fmi3Error;
  fmu->in_event_mode = 0;
  return fmi3OK;
}

EXPORT fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                             fmi3Float64 communicationStepSize,
                             fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                             fmi3Boolean* eventHandlingNeeded, fmi3Boolean* terminateSimulation,
                             fmi3Boolean* earlyReturn, fmi3Float64* lastSuccessfulTime) {
  (void)noSetFMUStatePriorToCurrentPoint;
  Events* fmu = instance;
  *eventHandlingNeeded = fmi3False;
  *terminateSimulation = fmi3False;
  *earlyReturn = fmi3False;
  if (fmu->in_event_mode || fmu->reset_pending || currentCommunicationPoint != fmu->time)
    return fmi3Error;
  const double end = currentCommunicationPoint + communicationStepSize;
  while (1) {
    const double event = fmu->time + (fmu->threshold - fmu->y) / fmu->k;
    if (event > end) break;
    fmu->time = event;
    fmu->y = fmu->threshold;
    if (fmu->early_return_allowed && event < end) {
      ++fmu->early_returns;
      *earlyReturn = fmi3True;
      *lastSuccessfulTime = event;
      if (fmu->event_mode_used) {
        fmu->reset_pending = 1;
        *eventHandlingNeeded = fmi3True;
      } else {
        fmu->y = 0.0;
        ++fmu->count;
      }
      return fmi3OK;
    }
    if (fmu->event_mode_used && event == end) {
      fmu->reset_pending = 1;
      *eventHandlingNeeded = fmi3True;
      *lastSuccessfulTime = end;
      return fmi3OK;
    }
    fmu->y = 0.0;
    ++fmu->count;
  }
  fmu->y += fmu->k * (end - fmu->time);
  fmu->time = end;
  *lastSuccessfulTime = end;
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                                 fmi3Float64 values[], size_t nValues) {
  const Events* fmu = instance;
  if (n != nValues) return fmi3Error;
  for (size_t i = 0; i < n; ++i) {
    if (r[i] == 1)
      values[i] = fmu->k;
    else if (r[i] == 2)
      values[i] = fmu->threshold;
    else if (r[i] == 3)
      values[i] = fmu->y;
    else
      return fmi3Error;
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                                 const fmi3Float64 values[], size_t nValues) {
  Events* fmu = instance;
  if (n != nValues) return fmi3Error;
  for (size_t i = 0; i < n; ++i) {
    if (r[i] == 1)
      fmu->k = values[i];
    else if (r[i] == 2)
      fmu->threshold = values[i];
    else
      return fmi3Error;
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetInt32(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                               fmi3Int32 values[], size_t nValues) {
  const Events* fmu = instance;
  if (n != nValues) return fmi3Error;
  for (size_t i = 0; i < n; ++i) {
    if (r[i] == 4)
      values[i] = fmu->count;
    else if (r[i] == 5)
      values[i] = fmu->early_returns;
    else if (r[i] == 6)
      values[i] = fmu->mode;
    else if (r[i] == 7)
      values[i] = fmu->mode_events;
    else
      return fmi3Error;
  }
  return fmi3OK;
}

/* mode, a discrete input: only in Event Mode when event mode is used. */
EXPORT fmi3Status fmi3SetInt32(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                               const fmi3Int32 values[], size_t nValues) {
  Events* fmu = instance;
  if (n != nValues) return fmi3Error;
  for (size_t i = 0; i < n; ++i) {
    if (r[i] != 6 || (fmu->event_mode_used && !fmu->in_event_mode)) return fmi3Error;
    if (values[i] != fmu->mode) ++fmu->mode_events;
    fmu->mode = values[i];
  }
  return fmi3OK;
}

FMU3_COPYABLE_STATE(Events)
