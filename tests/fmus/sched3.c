/* sched3: an FMI 3.0 scheduled-execution FMU, written against the FMI 3.0 API
 * only (models/fmi/fmi3.h). Three model partitions, one per input clock:
 *   fast (1): every 0.01 s, priority 2 — fast_count (5) += 1; a fixed clock
 *             whose interval the FMU tells (fmi3GetIntervalDecimal, in
 *             Initialization Mode), not its modelDescription.xml;
 *   slow (2): every 0.05 s from 0.02 s, priority 1 — slow_sum (6) += u (4),
 *             slow_seen_fast (7) = fast_count, so at a shared tick it shows
 *             whether slow ran first (it should: smaller priority first);
 *   kick (3): triggered — kicks (8) += 1;
 *   burst (9): countdown, priority 3 — set by slow to tick burst_delay (14,
 *             a parameter, 3 ms) after it
 *             (fmi3GetIntervalDecimal says fmi3IntervalChanged once); bursts
 *             (11) += 1, burst_time (12) = its activation time.
 * The output clock tick (10) ticks where fast_count reaches a multiple of 25
 * (clockUpdate, then fmi3GetClock says so once). activations (13), of no
 * clock, counts every activation.
 * Activations must come in non-decreasing time. FMU state: a copy. */
#include "fmu3_common.h"

typedef struct {
  double u, slow_sum, last_activation, burst_time, burst_delay;
  fmi3Int32 fast_count, slow_seen_fast, kicks, bursts, activations;
  int initializing, initialized;
  int burst_set, tick; /* a countdown interval to tell, an output clock tick to tell */
  fmi3ClockUpdateCallback clock_update;
  fmi3InstanceEnvironment environment;
} Scheduled;

FMU3_VERSION_AND_TERMINATE

EXPORT fmi3Instance fmi3InstantiateScheduledExecution(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
    fmi3Boolean visible, fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3ClockUpdateCallback clockUpdate,
    fmi3LockPreemptionCallback lockPreemption, fmi3UnlockPreemptionCallback unlockPreemption) {
  (void)instanceName, (void)resourcePath, (void)visible, (void)loggingOn;
  (void)logMessage, (void)lockPreemption, (void)unlockPreemption;
  if (instantiationToken == NULL || strcmp(instantiationToken, COUPLET_FMU_GUID) != 0) return NULL;
  Scheduled* fmu = calloc(1, sizeof(Scheduled));
  if (fmu == NULL) return NULL;
  fmu->clock_update = clockUpdate;
  fmu->burst_delay = 0.003;
  fmu->environment = instanceEnvironment;
  return fmu;
}

EXPORT void fmi3FreeInstance(fmi3Instance instance) {
  free(instance);
}

EXPORT fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                              fmi3Float64 tolerance, fmi3Float64 startTime,
                                              fmi3Boolean stopTimeDefined, fmi3Float64 stopTime) {
  (void)toleranceDefined, (void)tolerance, (void)stopTimeDefined, (void)stopTime;
  ((Scheduled*)instance)->last_activation = startTime;
  ((Scheduled*)instance)->initializing = 1;
  return fmi3OK;
}

EXPORT fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
  ((Scheduled*)instance)->initializing = 0;
  ((Scheduled*)instance)->initialized = 1;
  return fmi3OK;
}

/* The fast clock's interval, told in Initialization Mode; burst's countdown,
 * told once after slow set it. */
EXPORT fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance,
                                         const fmi3ValueReference valueReferences[],
                                         size_t nValueReferences, fmi3Float64 intervals[],
                                         fmi3IntervalQualifier qualifiers[]) {
  Scheduled* fmu = instance;
  for (size_t i = 0; i < nValueReferences; ++i) {
    if (valueReferences[i] == 1 && fmu->initializing) {
      intervals[i] = 0.01;
      qualifiers[i] = fmi3IntervalChanged;
    } else if (valueReferences[i] == 9) {
      intervals[i] = fmu->burst_delay;
      qualifiers[i] = fmu->burst_set ? fmi3IntervalChanged : fmi3IntervalUnchanged;
      fmu->burst_set = 0;
    } else {
      return fmi3Error;
    }
  }
  return fmi3OK;
}

/* tick, once per time it ticked. */
EXPORT fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                               size_t nValueReferences, fmi3Clock values[]) {
  Scheduled* fmu = instance;
  for (size_t i = 0; i < nValueReferences; ++i) {
    if (valueReferences[i] != 10) return fmi3Error;
    values[i] = fmu->tick;
    fmu->tick = 0;
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3ActivateModelPartition(fmi3Instance instance,
                                             fmi3ValueReference clockReference,
                                             fmi3Float64 activationTime) {
  Scheduled* fmu = instance;
  if (!fmu->initialized || activationTime < fmu->last_activation) return fmi3Error;
  fmu->last_activation = activationTime;
  ++fmu->activations;
  switch (clockReference) {
    case 1:
      ++fmu->fast_count;
      if (fmu->fast_count % 25 == 0) {
        fmu->tick = 1;
        fmu->clock_update(fmu->environment);
      }
      return fmi3OK;
    case 2:
      fmu->slow_sum += fmu->u;
      fmu->slow_seen_fast = fmu->fast_count;
      fmu->burst_set = 1;
      fmu->clock_update(fmu->environment);
      return fmi3OK;
    case 3:
      ++fmu->kicks;
      return fmi3OK;
    case 9:
      ++fmu->bursts;
      fmu->burst_time = activationTime;
      return fmi3OK;
    default:
      return fmi3Error;
  }
}

EXPORT fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                                 fmi3Float64 values[], size_t nValues) {
  const Scheduled* fmu = instance;
  if (n != nValues) return fmi3Error;
  for (size_t i = 0; i < n; ++i) {
    if (r[i] == 4)
      values[i] = fmu->u;
    else if (r[i] == 6)
      values[i] = fmu->slow_sum;
    else if (r[i] == 12)
      values[i] = fmu->burst_time;
    else if (r[i] == 14)
      values[i] = fmu->burst_delay;
    else
      return fmi3Error;
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                                 const fmi3Float64 values[], size_t nValues) {
  if (n != nValues) return fmi3Error;
  for (size_t i = 0; i < n; ++i) {
    if (r[i] == 4)
      ((Scheduled*)instance)->u = values[i];
    else if (r[i] == 14)
      ((Scheduled*)instance)->burst_delay = values[i];
    else
      return fmi3Error;
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetInt32(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                               fmi3Int32 values[], size_t nValues) {
  const Scheduled* fmu = instance;
  if (n != nValues) return fmi3Error;
  for (size_t i = 0; i < n; ++i) {
    if (r[i] == 5)
      values[i] = fmu->fast_count;
    else if (r[i] == 7)
      values[i] = fmu->slow_seen_fast;
    else if (r[i] == 8)
      values[i] = fmu->kicks;
    else if (r[i] == 11)
      values[i] = fmu->bursts;
    else if (r[i] == 13)
      values[i] = fmu->activations;
    else
      return fmi3Error;
  }
  return fmi3OK;
}

/* Outputs only: nothing to set. */
EXPORT fmi3Status fmi3SetInt32(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                               const fmi3Int32 values[], size_t nValues) {
  (void)instance, (void)r, (void)values;
  return n == 0 && nValues == 0 ? fmi3OK : fmi3Error;
}

FMU3_COPYABLE_STATE(Scheduled)
