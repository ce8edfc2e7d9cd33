/* integrator3: an FMI 3.0 co-simulation FMU, written against the FMI 3.0 API
 * only (models/fmi/fmi3.h). y' = k u, with the input u held over each
 * communication step, so fmi3DoStep is exact: y(t + h) = y(t) + k u h.
 * Value references: 1 k, 2 y0 (parameters), 3 u (input), 4 y (output),
 * 5 stop_time (the FMU asks to end the simulation when it is reached; 0: never).
 * Output derivative of order 1: k u. FMU state: a copy of the instance. */
#include "fmu3_common.h"

typedef struct {
  double k, y0, u, y, stop_time, time;
  fmi3LogMessageCallback log;
  fmi3InstanceEnvironment environment;
} Integrator;

static void say(const Integrator* fmu, fmi3Status status, const char* message) {
  if (fmu->log) fmu->log(fmu->environment, status, "logStatusError", message);
}

static double* variable(Integrator* fmu, fmi3ValueReference reference) {
  switch (reference) {
    case 1:
      return &fmu->k;
    case 2:
      return &fmu->y0;
    case 3:
      return &fmu->u;
    case 4:
      return &fmu->y;
    case 5:
      return &fmu->stop_time;
    default:
      return NULL;
  }
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
  (void)nRequiredIntermediateVariables, (void)intermediateUpdate;
  if (instantiationToken == NULL || strcmp(instantiationToken, COUPLET_FMU_GUID) != 0) {
    if (logMessage) logMessage(instanceEnvironment, fmi3Error, "logStatusError", "wrong token");
    return NULL;
  }
  Integrator* fmu = calloc(1, sizeof *fmu);
  if (fmu == NULL) return NULL;
  fmu->k = 1.0;
  fmu->log = logMessage;
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
  Integrator* fmu = instance;
  fmu->time = startTime;
  return fmi3OK;
}

EXPORT fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
  Integrator* fmu = instance;
  fmu->y = fmu->y0;
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference references[],
                                 size_t count, fmi3Float64 values[], size_t nValues) {
  if (nValues != count) return fmi3Error;
  for (size_t i = 0; i < count; ++i) {
    const double* value = variable(instance, references[i]);
    if (value == NULL) {
      say(instance, fmi3Error, "fmi3GetFloat64: unknown value reference");
      return fmi3Error;
    }
    values[i] = *value;
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference references[],
                                 size_t count, const fmi3Float64 values[], size_t nValues) {
  if (nValues != count) return fmi3Error;
  for (size_t i = 0; i < count; ++i) {
    double* value = variable(instance, references[i]);
    if (value == NULL || references[i] == 4) {
      say(instance, fmi3Error, "fmi3SetFloat64: not a settable value reference");
      return fmi3Error;
    }
    *value = values[i];
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance,
                                           const fmi3ValueReference references[], size_t count,
                                           const fmi3Int32 orders[], fmi3Float64 values[],
                                           size_t nValues) {
  const Integrator* fmu = instance;
  if (nValues != count) return fmi3Error;
  for (size_t i = 0; i < count; ++i) {
    if (references[i] != 4 || orders[i] < 1) return fmi3Error;
    values[i] = orders[i] == 1 ? fmu->k * fmu->u : 0.0;
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                             fmi3Float64 communicationStepSize,
                             fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                             fmi3Boolean* eventHandlingNeeded, fmi3Boolean* terminateSimulation,
                             fmi3Boolean* earlyReturn, fmi3Float64* lastSuccessfulTime) {
  (void)noSetFMUStatePriorToCurrentPoint;
  Integrator* fmu = instance;
  *eventHandlingNeeded = fmi3False;
  *earlyReturn = fmi3False;
  *terminateSimulation = fmi3False;
  if (currentCommunicationPoint != fmu->time) {
    say(fmu, fmi3Error, "fmi3DoStep: not at the last communication point");
    return fmi3Error;
  }
  fmu->y += fmu->k * fmu->u * communicationStepSize;
  fmu->time = currentCommunicationPoint + communicationStepSize;
  *lastSuccessfulTime = fmu->time;
  if (fmu->stop_time > 0.0 && fmu->time >= fmu->stop_time) *terminateSimulation = fmi3True;
  return fmi3OK;
}

FMU3_COPYABLE_STATE(Integrator)
