/* chirp3: an FMI 3.0 scheduled-execution FMU with a changing clock, written
 * against the FMI 3.0 API only (models/fmi/fmi3.h).
 *   chirp (1): changing, priority 1 — ticks first at 0 (no shift); its
 *              interval, told by fmi3GetIntervalDecimal in Initialization
 *              Mode (8 ms) and after its n-th tick (8, 4, 4, 2, 1 ms at
 *              n mod 5 = 0 … 4; the repeated 4 ms as fmi3IntervalUnchanged),
 *              puts its ticks at 0, 4, 8, 10, 11, 19, 23, ... ms (19 ms a
 *              round); chirps (3) += 1, last_chirp (4) = its time;
 *   steady (2): fixed, every 19 ms, priority 2 — steady_seen_chirps (5) =
 *              chirps; its ticks coincide with chirp's every fifth, where
 *              chirp runs first.
 * Activations must come in non-decreasing time. FMU state: a copy. */
#include "fmu3_common.h"

static const double kIntervals[] = {0.008, 0.004, 0.004, 0.002, 0.001};

typedef struct {
  double last_chirp, last_activation;
  fmi3Int32 chirps, steady_seen_chirps;
  int initializing, initialized;
  int told; /* chirps when the interval was last told */
} Chirp;

FMU3_VERSION_AND_TERMINATE

EXPORT fmi3Instance fmi3InstantiateScheduledExecution(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
    fmi3Boolean visible, fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3ClockUpdateCallback clockUpdate,
    fmi3LockPreemptionCallback lockPreemption, fmi3UnlockPreemptionCallback unlockPreemption) {
  (void)instanceName, (void)resourcePath, (void)visible, (void)loggingOn, (void)logMessage;
  (void)instanceEnvironment, (void)clockUpdate, (void)lockPreemption, (void)unlockPreemption;
  if (instantiationToken == NULL || strcmp(instantiationToken, COUPLET_FMU_GUID) != 0) return NULL;
  Chirp* fmu = calloc(1, sizeof(Chirp));
  if (fmu == NULL) return NULL;
  fmu->last_chirp = -1.0;
  return fmu;
}

EXPORT void fmi3FreeInstance(fmi3Instance instance) {
  free(instance);
}

EXPORT fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                              fmi3Float64 tolerance, fmi3Float64 startTime,
                                              fmi3Boolean stopTimeDefined, fmi3Float64 stopTime) {
  (void)toleranceDefined, (void)tolerance, (void)stopTimeDefined, (void)stopTime;
  ((Chirp*)instance)->last_activation = startTime;
  ((Chirp*)instance)->initializing = 1;
  return fmi3OK;
}

EXPORT fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
  ((Chirp*)instance)->initializing = 0;
  ((Chirp*)instance)->initialized = 1;
  return fmi3OK;
}

/* chirp's next interval: the pattern at its tick count, unchanged when it
 * repeats the one before. */
EXPORT fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance,
                                         const fmi3ValueReference valueReferences[],
                                         size_t nValueReferences, fmi3Float64 intervals[],
                                         fmi3IntervalQualifier qualifiers[]) {
  Chirp* fmu = instance;
  for (size_t i = 0; i < nValueReferences; ++i) {
    if (valueReferences[i] != 1 || (!fmu->initializing && fmu->told == fmu->chirps + 1))
      return fmi3Error; /* only chirp, once per tick */
    const int k = fmu->chirps % 5;
    intervals[i] = kIntervals[k];
    qualifiers[i] =
        k > 0 && kIntervals[k] == kIntervals[k - 1] ? fmi3IntervalUnchanged : fmi3IntervalChanged;
    fmu->told = fmu->chirps + 1;
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3ActivateModelPartition(fmi3Instance instance,
                                             fmi3ValueReference clockReference,
                                             fmi3Float64 activationTime) {
  Chirp* fmu = instance;
  if (!fmu->initialized || activationTime < fmu->last_activation) return fmi3Error;
  fmu->last_activation = activationTime;
  switch (clockReference) {
    case 1:
      ++fmu->chirps;
      fmu->last_chirp = activationTime;
      return fmi3OK;
    case 2:
      fmu->steady_seen_chirps = fmu->chirps;
      return fmi3OK;
    default:
      return fmi3Error;
  }
}

EXPORT fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                                 fmi3Float64 values[], size_t nValues) {
  if (n != nValues) return fmi3Error;
  for (size_t i = 0; i < n; ++i) {
    if (r[i] != 4) return fmi3Error;
    values[i] = ((const Chirp*)instance)->last_chirp;
  }
  return fmi3OK;
}

/* Outputs only: nothing to set. */
EXPORT fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                                 const fmi3Float64 values[], size_t nValues) {
  (void)instance, (void)r, (void)values;
  return n == 0 && nValues == 0 ? fmi3OK : fmi3Error;
}

EXPORT fmi3Status fmi3GetInt32(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                               fmi3Int32 values[], size_t nValues) {
  const Chirp* fmu = instance;
  if (n != nValues) return fmi3Error;
  for (size_t i = 0; i < n; ++i) {
    if (r[i] == 3)
      values[i] = fmu->chirps;
    else if (r[i] == 5)
      values[i] = fmu->steady_seen_chirps;
    else
      return fmi3Error;
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3SetInt32(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                               const fmi3Int32 values[], size_t nValues) {
  (void)instance, (void)r, (void)values;
  return n == 0 && nValues == 0 ? fmi3OK : fmi3Error;
}

FMU3_COPYABLE_STATE(Chirp)
