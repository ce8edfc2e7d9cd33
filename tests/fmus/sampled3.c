/* sampled3: an FMI 3.0 model-exchange FMU with clocks, written against the
 * FMI 3.0 API only (models/fmi/fmi3.h). One continuous state x with x' = v
 * (3, a continuous input of no clock);
 *   sample (4), echo (8): the clocks of sample_clocks.h;
 *   sample (4): a constant input clock, every 0.025 s from 0.005 s — at each
 *     tick e (6) = r (5) - x and samples (7) += 1; r may be set only while
 *     sample is active;
 *   echo (8): a countdown input clock that each tick of sample sets to tick
 *     10 ms later (fmi3GetIntervalDecimal tells it once) — echoes (9) += 1.
 * It holds the importer to the clocks' rules, failing with fmi3Error: time
 * must not pass an unhandled tick of sample or echo (fmi3SetTime, 10 µs of
 * slack for an importer's finite differences), fmi3SetClock must name them at
 * their ticks' times in Event Mode, r is set only while sample is active, and
 * fmi3UpdateDiscreteStates ends the clocks' activity before Continuous-Time
 * Mode. FMU state: a copy of the instance. */
#include <math.h>

#include "fmu3_common.h"
#include "sample_clocks.h"

#define PAST_TICK 1e-5 /* how far time may look past a pending tick */

typedef struct {
  double time, x, v;
  int in_event_mode;
  SampleClocks clocks; /* sample (4) and echo (8) */
} Sampled;

/* The partitions of the active clocks, once per activation. */
static void compute(Sampled* fmu) {
  sample_clocks_compute(&fmu->clocks, fmu->time, fmu->x);
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
  Sampled* fmu = calloc(1, sizeof *fmu);
  if (fmu == NULL) return NULL;
  fmu->v = 1.0;
  sample_clocks_init(&fmu->clocks);
  return fmu;
}

EXPORT void fmi3FreeInstance(fmi3Instance instance) {
  free(instance);
}

EXPORT fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                              fmi3Float64 tolerance, fmi3Float64 startTime,
                                              fmi3Boolean stopTimeDefined, fmi3Float64 stopTime) {
  (void)toleranceDefined, (void)tolerance, (void)stopTimeDefined, (void)stopTime;
  Sampled* fmu = instance;
  fmu->time = startTime;
  sample_clocks_start(&fmu->clocks, startTime);
  return fmi3OK;
}

/* The instance is in Event Mode afterwards (FMI 3.0 §3.2). */
EXPORT fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
  ((Sampled*)instance)->in_event_mode = 1;
  return fmi3OK;
}

EXPORT fmi3Status fmi3EnterEventMode(fmi3Instance instance) {
  Sampled* fmu = instance;
  if (fmu->in_event_mode) return fmi3Error;
  fmu->in_event_mode = 1;
  return fmi3OK;
}

EXPORT fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                               const fmi3Clock values[]) {
  Sampled* fmu = instance;
  if (!fmu->in_event_mode) return fmi3Error;
  for (size_t i = 0; i < n; ++i) {
    if (values[i] && sample_clocks_set(&fmu->clocks, r[i], 4, 8, fmu->time) <= 0)
      return fmi3Error; /* not its tick, or no such clock */
  }
  return fmi3OK;
}

/* echo's interval, told once after each tick of sample (FMI 3.0 §2.3.4). */
EXPORT fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference r[],
                                         size_t n, fmi3Float64 intervals[],
                                         fmi3IntervalQualifier qualifiers[]) {
  Sampled* fmu = instance;
  compute(fmu);
  for (size_t i = 0; i < n; ++i) {
    if (r[i] != 8) return fmi3Error;
    sample_clocks_interval(&fmu->clocks, &intervals[i], &qualifiers[i]);
  }
  return fmi3OK;
}

/* Ends the clocks' activity (their partitions computed if nobody asked). */
EXPORT fmi3Status fmi3UpdateDiscreteStates(
    fmi3Instance instance, fmi3Boolean* discreteStatesNeedUpdate, fmi3Boolean* terminateSimulation,
    fmi3Boolean* nominalsOfContinuousStatesChanged, fmi3Boolean* valuesOfContinuousStatesChanged,
    fmi3Boolean* nextEventTimeDefined, fmi3Float64* nextEventTime) {
  Sampled* fmu = instance;
  if (!fmu->in_event_mode) return fmi3Error;
  compute(fmu);
  sample_clocks_update(&fmu->clocks);
  *discreteStatesNeedUpdate = fmi3False;
  *terminateSimulation = fmi3False;
  *nominalsOfContinuousStatesChanged = fmi3False;
  *valuesOfContinuousStatesChanged = fmi3False;
  *nextEventTimeDefined = fmi3False; /* the clocks' ticks are the importer's to keep */
  *nextEventTime = 0.0;
  return fmi3OK;
}

EXPORT fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance) {
  Sampled* fmu = instance;
  if (!fmu->in_event_mode || sample_clocks_active(&fmu->clocks)) return fmi3Error;
  fmu->in_event_mode = 0;
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

/* Time must not pass a tick that has not been handled. */
EXPORT fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time) {
  Sampled* fmu = instance;
  if (!fmu->in_event_mode && time > sample_clocks_pending(&fmu->clocks) + PAST_TICK)
    return fmi3Error;
  fmu->time = time;
  return fmi3OK;
}

EXPORT fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 states[],
                                          size_t n) {
  if (n != 1) return fmi3Error;
  ((Sampled*)instance)->x = states[0];
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 states[], size_t n) {
  if (n != 1) return fmi3Error;
  states[0] = ((const Sampled*)instance)->x;
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance,
                                                    fmi3Float64 derivatives[], size_t n) {
  if (n != 1) return fmi3Error;
  derivatives[0] = ((const Sampled*)instance)->v;
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 indicators[],
                                         size_t n) {
  (void)instance, (void)indicators;
  return n == 0 ? fmi3OK : fmi3Error;
}

EXPORT fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t* n) {
  (void)instance;
  *n = 1;
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t* n) {
  (void)instance;
  *n = 0;
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                                 fmi3Float64 values[], size_t nValues) {
  Sampled* fmu = instance;
  if (n != nValues) return fmi3Error;
  compute(fmu);
  for (size_t i = 0; i < n; ++i) {
    switch (r[i]) {
      case 1:
        values[i] = fmu->x;
        break;
      case 2:
      case 3:
        values[i] = fmu->v;
        break;
      case 5:
        values[i] = fmu->clocks.r;
        break;
      case 6:
        values[i] = fmu->clocks.e;
        break;
      default:
        return fmi3Error;
    }
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                                 const fmi3Float64 values[], size_t nValues) {
  Sampled* fmu = instance;
  if (n != nValues) return fmi3Error;
  for (size_t i = 0; i < n; ++i) {
    if (r[i] == 1) {
      fmu->x = values[i];
    } else if (r[i] == 3) {
      fmu->v = values[i];
    } else if (r[i] == 5) {
      if (!fmu->clocks.sample_active) return fmi3Error; /* a clocked input, set at its tick */
      fmu->clocks.r = values[i];
    } else {
      return fmi3Error;
    }
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetInt32(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                               fmi3Int32 values[], size_t nValues) {
  Sampled* fmu = instance;
  if (n != nValues) return fmi3Error;
  compute(fmu);
  for (size_t i = 0; i < n; ++i) {
    if (r[i] == 7)
      values[i] = fmu->clocks.samples;
    else if (r[i] == 9)
      values[i] = fmu->clocks.echoes;
    else
      return fmi3Error;
  }
  return fmi3OK;
}

/* Its Int32 variables are all outputs. */
EXPORT fmi3Status fmi3SetInt32(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                               const fmi3Int32 values[], size_t nValues) {
  (void)instance, (void)r, (void)n, (void)values, (void)nValues;
  return fmi3Error;
}

FMU3_COPYABLE_STATE(Sampled)
