/* smooth3: an FMI 3.0 co-simulation FMU with intermediate update, written
 * against the FMI 3.0 API only (models/fmi/fmi3.h). y' = k u, integrated over
 * each communication step by the midpoint rule on 8 equal substeps; at each
 * substep's midpoint it calls the importer's intermediateUpdate callback
 * (intermediateVariableSetRequested), in which the importer may set u to its
 * value there. The midpoint rule is exact for u linear in t: fed u = t, y(t) =
 * k t^2 / 2; with u only held at the communication points, the held-input
 * value instead. `updates` counts the callbacks in which u was set.
 * Value references: 1 k (parameter), 2 u (input), 3 y, 4 updates (outputs). */
#include "fmu3_common.h"

#define SUBSTEPS 8

typedef struct {
  double time, k, u, y;
  fmi3Int32 updates;
  int in_update, set_in_update;
  fmi3IntermediateUpdateCallback update;
  fmi3InstanceEnvironment environment;
} Smooth;

FMU3_VERSION_AND_TERMINATE

EXPORT fmi3Instance fmi3InstantiateCoSimulation(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
    fmi3Boolean visible, fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
    fmi3Boolean earlyReturnAllowed, const fmi3ValueReference requiredIntermediateVariables[],
    size_t nRequiredIntermediateVariables, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3IntermediateUpdateCallback intermediateUpdate) {
  (void)instanceName, (void)resourcePath, (void)visible, (void)loggingOn, (void)eventModeUsed;
  (void)earlyReturnAllowed, (void)logMessage;
  if (instantiationToken == NULL || strcmp(instantiationToken, COUPLET_FMU_GUID) != 0) return NULL;
  /* u may be set in the callback only when the importer named it. */
  int u_required = 0;
  for (size_t i = 0; i < nRequiredIntermediateVariables; ++i)
    u_required = u_required || requiredIntermediateVariables[i] == 2;
  Smooth* fmu = calloc(1, sizeof *fmu);
  if (fmu == NULL) return NULL;
  fmu->k = 1.0;
  fmu->update = u_required ? intermediateUpdate : NULL;
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
  ((Smooth*)instance)->time = startTime;
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
  Smooth* fmu = instance;
  *eventHandlingNeeded = fmi3False;
  *terminateSimulation = fmi3False;
  *earlyReturn = fmi3False;
  if (currentCommunicationPoint != fmu->time) return fmi3Error;
  const double h = communicationStepSize / SUBSTEPS;
  for (int k = 0; k < SUBSTEPS; ++k) {
    const double middle = currentCommunicationPoint + (k + 0.5) * h;
    if (fmu->update != NULL) {
      fmi3Boolean early_requested = fmi3False;
      fmi3Float64 early_time = 0.0;
      fmu->in_update = 1;
      fmu->set_in_update = 0;
      fmu->update(fmu->environment, middle, fmi3True, fmi3False, fmi3False, fmi3False,
                  &early_requested, &early_time);
      fmu->in_update = 0;
      if (fmu->set_in_update) ++fmu->updates;
    }
    fmu->y += fmu->k * fmu->u * h;
  }
  fmu->time = currentCommunicationPoint + communicationStepSize;
  *lastSuccessfulTime = fmu->time;
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                                 fmi3Float64 values[], size_t nValues) {
  const Smooth* fmu = instance;
  if (n != nValues) return fmi3Error;
  for (size_t i = 0; i < n; ++i) {
    if (r[i] == 1)
      values[i] = fmu->k;
    else if (r[i] == 2)
      values[i] = fmu->u;
    else if (r[i] == 3)
      values[i] = fmu->y;
    else
      return fmi3Error;
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                                 const fmi3Float64 values[], size_t nValues) {
  Smooth* fmu = instance;
  if (n != nValues) return fmi3Error;
  for (size_t i = 0; i < n; ++i) {
    if (r[i] == 1 && !fmu->in_update) {
      fmu->k = values[i];
    } else if (r[i] == 2) {
      fmu->u = values[i];
      fmu->set_in_update = fmu->set_in_update || fmu->in_update;
    } else {
      return fmi3Error;
    }
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetInt32(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                               fmi3Int32 values[], size_t nValues) {
  if (n != nValues) return fmi3Error;
  for (size_t i = 0; i < n; ++i) {
    if (r[i] != 4) return fmi3Error;
    values[i] = ((const Smooth*)instance)->updates;
  }
  return fmi3OK;
}

/* updates is an output: nothing to set. */
EXPORT fmi3Status fmi3SetInt32(fmi3Instance instance, const fmi3ValueReference r[], size_t n,
                               const fmi3Int32 values[], size_t nValues) {
  (void)instance, (void)r, (void)values;
  return n == 0 && nValues == 0 ? fmi3OK : fmi3Error;
}
