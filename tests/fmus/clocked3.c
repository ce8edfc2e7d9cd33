/* clocked3: an FMI 3.0 co-simulation FMU with clocks, event mode and early
 * return, written against the FMI 3.0 API only (models/fmi/fmi3.h).
 *   x' = v (1, a continuous input of no clock, held over each fmi3DoStep);
 *   sample (3), echo (13): the clocks of sample_clocks.h;
 *   sample (3): a constant input clock, every 0.025 s from 0.005 s — at each
 *     tick e (5) = r (4) - x and samples (6) += 1; r may be set only while
 *     sample is active;
 *   kick (7): a triggered input clock — kicks (8) += 1;
 *   level (9): an output clock ticking where x reaches a multiple of spacing
 *     (11, 0.75): fmi3DoStep returns early there (exactly: t + (L - x) / v)
 *     asking for event handling, crossings (12) += 1 and crossed_at (10) = t;
 *     fmi3GetClock tells the tick once;
 *   echo (13): a countdown input clock that each tick of sample sets to tick
 *     10 ms later (fmi3GetIntervalDecimal tells it once) — echoes (14) += 1.
 * It holds the importer to the clocks' rules, failing with fmi3Error: fmi3DoStep
 * must not step over or past an unhandled tick of sample or echo, fmi3SetClock
 * must name sample and echo at their ticks' times, clocks and clocked inputs
 * are set only in Event Mode, and fmi3UpdateDiscreteStates ends their activity
 * before Step Mode. FMU state: a copy of the instance. */
#include <math.h>

#include "fmu3_common.h"
#include "sample_clocks.h"

typedef struct {
  double time, v, x, spacing, crossed_at;
  fmi3Int32 kicks, crossings;
  int in_event_mode, event_mode_used, early_return_allowed;
  int kick_active, kick_done, level_ticked;
  SampleClocks clocks; /* sample (3) and echo (13) */
} Clocked;

/* The partitions of the active clocks, once per activation. */
static void compute(Clocked* fmu) {
  sample_clocks_compute(&fmu->clocks, fmu->time, fmu->x);
  if (fmu->kick_active && !fmu->kick_done) {
    ++fmu->kicks;
    fmu->kick_done = 1;
  }
}

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
  if (!eventModeUsed) return NULL; /* its clocks need event mode */
  Clocked* fmu = calloc(1, sizeof *fmu);
  if (fmu == NULL) return NULL;
  fmu->v = 1.0;
  fmu->spacing = 0.75;
  fmu->crossed_at = -1.0;
  sample_clocks_init(&fmu->clocks);
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
  Clocked* fmu = instance;
  fmu->time = startTime;
  sample_clocks_start(&fmu->clocks, startTime);
  return fmi3OK;
}

/* With event mode the FMU is in Event Mode afterwards (FMI 3.0 §4.2.5). */
EXPORT fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
  Clocked* fmu = instance;
  if (!(fmu->spacing > 0.0)) return fmi3Error;
  fmu->in_event_mode = 1;
  return fmi3OK;
}

EXPORT fmi3Status fmi3EnterEventMode(fmi3Instance instance) {
  Clocked* fmu = instance;
  if (fmu->in_event_mode) return fmi3Error;
  fmu->in_event_mode = 1;
  return fmi3OK;
}

EXPORT fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                               const fmi3Clock values[]) {
  Clocked* fmu = instance;
  if (!fmu->in_event_mode) return fmi3Error;
  for (size_t i = 0; i < n; ++i) {
    if (!values[i]) continue;
    const int sampled = sample_clocks_set(&fmu->clocks, r[i], 3, 13, fmu->time);
    if (sampled < 0) return fmi3Error; /* not its tick */
    if (sampled > 0) continue;
    if (r[i] != 7) return fmi3Error;
    fmu->kick_active = 1;
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                               fmi3Clock values[]) {
  Clocked* fmu = instance;
  if (!fmu->in_event_mode) return fmi3Error;
  for (size_t i = 0; i < n; ++i) {
    if (r[i] != 9) return fmi3Error;
    values[i] = fmu->level_ticked != 0;
    fmu->level_ticked = 0; /* told once */
  }
  return fmi3OK;
}

/* Ends the clocks' activity (their partitions computed if nobody asked). */
EXPORT fmi3Status fmi3UpdateDiscreteStates(
    fmi3Instance instance, fmi3Boolean* discreteStatesNeedUpdate, fmi3Boolean* terminateSimulation,
    fmi3Boolean* nominalsOfContinuousStatesChanged, fmi3Boolean* valuesOfContinuousStatesChanged,
    fmi3Boolean* nextEventTimeDefined, fmi3Float64* nextEventTime) {
  Clocked* fmu = instance;
  if (!fmu->in_event_mode) return fmi3Error;
  compute(fmu);
  sample_clocks_update(&fmu->clocks);
  fmu->kick_active = fmu->kick_done = 0;
  *discreteStatesNeedUpdate = fmi3False;
  *terminateSimulation = fmi3False;
  *nominalsOfContinuousStatesChanged = fmi3False;
  *valuesOfContinuousStatesChanged = fmi3False;
  *nextEventTimeDefined = fmi3False;
  *nextEventTime = 0.0;
  return fmi3OK;
}

EXPORT fmi3Status fmi3EnterStepMode(fmi3Instance instance) {
  Clocked* fmu = instance;
  if (!fmu->in_event_mode || sample_clocks_active(&fmu->clocks) || fmu->kick_active)
    return fmi3Error;
  fmu->in_event_mode = 0;
  return fmi3OK;
}

EXPORT fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                             fmi3Float64 communicationStepSize,
                             fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                             fmi3Boolean* eventHandlingNeeded, fmi3Boolean* terminateSimulation,
                             fmi3Boolean* earlyReturn, fmi3Float64* lastSuccessfulTime) {
  (void)noSetFMUStatePriorToCurrentPoint;
  Clocked* fmu = instance;
  *eventHandlingNeeded = fmi3False;
  *terminateSimulation = fmi3False;
  *earlyReturn = fmi3False;
  *lastSuccessfulTime = currentCommunicationPoint;
  const double end = currentCommunicationPoint + communicationStepSize;
  if (fmu->in_event_mode || fabs(currentCommunicationPoint - fmu->time) > SLACK) return fmi3Error;
  /* A tick of sample at or before the start was not handled, or one lies inside. */
  if (sample_clocks_pending(&fmu->clocks) < end - SLACK) return fmi3Error;
  const double level = (fmu->crossings + 1) * fmu->spacing;
  const double crossing = fmu->v > 0.0 ? fmu->time + (level - fmu->x) / fmu->v : INFINITY;
  if (crossing <= end) {
    fmu->x = level;
    fmu->time = crossing;
    fmu->crossed_at = crossing;
    ++fmu->crossings;
    fmu->level_ticked = 1;
    *eventHandlingNeeded = fmi3True;
    *lastSuccessfulTime = crossing;
    if (crossing < end) {
      if (!fmu->early_return_allowed) return fmi3Error;
      *earlyReturn = fmi3True;
      return fmi3OK;
    }
    return fmi3OK;
  }
  fmu->x += fmu->v * (end - fmu->time);
  fmu->time = end;
  *lastSuccessfulTime = end;
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                                 fmi3Float64 values[], size_t nValues) {
  Clocked* fmu = instance;
  if (n != nValues) return fmi3Error;
  compute(fmu);
  for (size_t i = 0; i < n; ++i) {
    switch (r[i]) {
      case 1:
        values[i] = fmu->v;
        break;
      case 2:
        values[i] = fmu->x;
        break;
      case 4:
        values[i] = fmu->clocks.r;
        break;
      case 5:
        values[i] = fmu->clocks.e;
        break;
      case 10:
        values[i] = fmu->crossed_at;
        break;
      case 11:
        values[i] = fmu->spacing;
        break;
      default:
        return fmi3Error;
    }
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                                 const fmi3Float64 values[], size_t nValues) {
  Clocked* fmu = instance;
  if (n != nValues) return fmi3Error;
  for (size_t i = 0; i < n; ++i) {
    if (r[i] == 1) {
      fmu->v = values[i];
    } else if (r[i] == 4) {
      if (!fmu->clocks.sample_active) return fmi3Error; /* a clocked input, set at its tick */
      fmu->clocks.r = values[i];
    } else if (r[i] == 11) {
      fmu->spacing = values[i];
    } else {
      return fmi3Error;
    }
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetInt32(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                               fmi3Int32 values[], size_t nValues) {
  Clocked* fmu = instance;
  if (n != nValues) return fmi3Error;
  compute(fmu);
  for (size_t i = 0; i < n; ++i) {
    switch (r[i]) {
      case 6:
        values[i] = fmu->clocks.samples;
        break;
      case 8:
        values[i] = fmu->kicks;
        break;
      case 12:
        values[i] = fmu->crossings;
        break;
      case 14:
        values[i] = fmu->clocks.echoes;
        break;
      default:
        return fmi3Error;
    }
  }
  return fmi3OK;
}

/* echo's interval, told once after each tick of sample (FMI 3.0 §2.3.4). */
EXPORT fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference r[],
                                         size_t n, fmi3Float64 intervals[],
                                         fmi3IntervalQualifier qualifiers[]) {
  Clocked* fmu = instance;
  compute(fmu);
  for (size_t i = 0; i < n; ++i) {
    if (r[i] != 13) return fmi3Error;
    sample_clocks_interval(&fmu->clocks, &intervals[i], &qualifiers[i]);
  }
  return fmi3OK;
}

/* Its Int32 variables are all outputs. */
EXPORT fmi3Status fmi3SetInt32(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                               const fmi3Int32 values[], size_t nValues) {
  (void)instance, (void)r, (void)n, (void)values, (void)nValues;
  return fmi3Error;
}

FMU3_COPYABLE_STATE(Clocked)
