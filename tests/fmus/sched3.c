/* sched3: an FMI 3.0 scheduled-execution FMU, written against the FMI 3.0 API
 * only (models/fmi/fmi3.h). Three model partitions, one per input clock:
 *   fast (1): every 0.01 s, priority 2 — fast_count (5) += 1; a fixed clock
 *             whose interval the FMU tells (fmi3GetIntervalDecimal, in
 *             Initialization Mode), not its modelDescription.xml;
 *   slow (2): every 0.05 s from 0.02 s, priority 1 — slow_sum (6) += u (4),
 *             slow_seen_fast (7) = fast_count, so at a shared tick it shows
 *             whether slow ran first (it should: smaller priority first);
 *   kick (3): triggered — kicks (8) += 1.
 * Activations must come in non-decreasing time. FMU state: a copy. */
#include "fmu3_common.h"

typedef struct {
  double u, slow_sum, last_activation;
  fmi3Int32 fast_count, slow_seen_fast, kicks;
  int initializing, initialized;
} Scheduled;

FMU3_VERSION_AND_TERMINATE

EXPORT fmi3Instance fmi3InstantiateScheduledExecution(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
    fmi3Boolean visible, fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3ClockUpdateCallback clockUpdate,
    fmi3LockPreemptionCallback lockPreemption, fmi3UnlockPreemptionCallback unlockPreemption) {
  (void)instanceName, (void)resourcePath, (void)visible, (void)loggingOn;
  (void)instanceEnvironment, (void)logMessage, (void)clockUpdate, (void)lockPreemption;
  (void)unlockPreemption;
  if (instantiationToken == NULL || strcmp(instantiationToken, COUPLET_FMU_GUID) != 0) return NULL;
  return calloc(1, sizeof(Scheduled));
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

/* The fast clock's interval, told in Initialization Mode. */
EXPORT fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance,
                                         const fmi3ValueReference valueReferences[],
                                         size_t nValueReferences, fmi3Float64 intervals[],
                                         fmi3IntervalQualifier qualifiers[]) {
  if (!((const Scheduled*)instance)->initializing) return fmi3Error;
  for (size_t i = 0; i < nValueReferences; ++i) {
    if (valueReferences[i] != 1) return fmi3Error;
    intervals[i] = 0.01;
    qualifiers[i] = fmi3IntervalChanged;
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3ActivateModelPartition(fmi3Instance instance,
                                             fmi3ValueReference clockReference,
                                             fmi3Float64 activationTime) {
  Scheduled* fmu = instance;
  if (!fmu->initialized || activationTime < fmu->last_activation) return fmi3Error;
  fmu->last_activation = activationTime;
  switch (clockReference) {
    case 1:
      ++fmu->fast_count;
      return fmi3OK;
    case 2:
      fmu->slow_sum += fmu->u;
      fmu->slow_seen_fast = fmu->fast_count;
      return fmi3OK;
    case 3:
      ++fmu->kicks;
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
    else
      return fmi3Error;
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                                 const fmi3Float64 values[], size_t nValues) {
  if (n != nValues) return fmi3Error;
  for (size_t i = 0; i < n; ++i) {
    if (r[i] != 4) return fmi3Error;
    ((Scheduled*)instance)->u = values[i];
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
