/* integrator2: the FMI 2.0 twin of integrator3.c, written against the FMI 2.0
 * API only (models/fmi/fmi2.h), with the same arithmetic per step: y' = k u,
 * the input u held over each communication step, so fmi2DoStep is exact:
 * y(t + h) = y(t) + k u h. Value references (Real): 1 k, 2 y0 (parameters),
 * 3 u (input), 4 y (output). Output derivative of order 1: k u. FMU state: a
 * copy of the instance. fmu_step_bench runs it against integrator3 to compare
 * the cost of couplet's FMI 2.0 and 3.0 slaves on one model. */
#include <stdlib.h>
#include <string.h>

#include "fmi2.h"

#define EXPORT __attribute__((visibility("default")))

typedef struct {
  double k, y0, u, y, time;
  fmi2CallbackLogger log;
  fmi2ComponentEnvironment environment;
} Integrator;

static void say(const Integrator* fmu, fmi2Status status, const char* message) {
  if (fmu->log) fmu->log(fmu->environment, "integrator2", status, "logStatusError", "%s", message);
}

static double* variable(Integrator* fmu, fmi2ValueReference reference) {
  switch (reference) {
    case 1:
      return &fmu->k;
    case 2:
      return &fmu->y0;
    case 3:
      return &fmu->u;
    case 4:
      return &fmu->y;
    default:
      return NULL;
  }
}

EXPORT const char* fmi2GetTypesPlatform(void) {
  return COUPLET_FMI2_TYPES_PLATFORM;
}

EXPORT const char* fmi2GetVersion(void) {
  return COUPLET_FMI2_VERSION;
}

EXPORT fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                                      const fmi2String categories[]) {
  (void)c, (void)loggingOn, (void)nCategories, (void)categories;
  return fmi2OK;
}

EXPORT fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                                     fmi2String fmuResourceLocation,
                                     const fmi2CallbackFunctions* functions, fmi2Boolean visible,
                                     fmi2Boolean loggingOn) {
  (void)instanceName, (void)fmuResourceLocation, (void)visible, (void)loggingOn;
  if (fmuType != fmi2CoSimulation || fmuGUID == NULL || strcmp(fmuGUID, COUPLET_FMU_GUID) != 0)
    return NULL;
  Integrator* fmu = calloc(1, sizeof *fmu);
  if (fmu == NULL) return NULL;
  fmu->k = 1.0;
  if (functions != NULL) {
    fmu->log = functions->logger;
    fmu->environment = functions->componentEnvironment;
  }
  return fmu;
}

EXPORT void fmi2FreeInstance(fmi2Component c) {
  free(c);
}

EXPORT fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined,
                                      fmi2Real tolerance, fmi2Real startTime,
                                      fmi2Boolean stopTimeDefined, fmi2Real stopTime) {
  (void)toleranceDefined, (void)tolerance, (void)stopTimeDefined, (void)stopTime;
  ((Integrator*)c)->time = startTime;
  return fmi2OK;
}

EXPORT fmi2Status fmi2EnterInitializationMode(fmi2Component c) {
  (void)c;
  return fmi2OK;
}

EXPORT fmi2Status fmi2ExitInitializationMode(fmi2Component c) {
  Integrator* fmu = c;
  fmu->y = fmu->y0;
  return fmi2OK;
}

EXPORT fmi2Status fmi2Terminate(fmi2Component c) {
  (void)c;
  return fmi2OK;
}

EXPORT fmi2Status fmi2Reset(fmi2Component c) {
  Integrator* fmu = c;
  fmu->k = 1.0, fmu->y0 = 0.0, fmu->u = 0.0, fmu->y = 0.0, fmu->time = 0.0;
  return fmi2OK;
}

EXPORT fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                              fmi2Real value[]) {
  for (size_t i = 0; i < nvr; ++i) {
    const double* known = variable(c, vr[i]);
    if (known == NULL) {
      say(c, fmi2Error, "fmi2GetReal: unknown value reference");
      return fmi2Error;
    }
    value[i] = *known;
  }
  return fmi2OK;
}

EXPORT fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                              const fmi2Real value[]) {
  for (size_t i = 0; i < nvr; ++i) {
    double* known = variable(c, vr[i]);
    if (known == NULL || vr[i] == 4) {
      say(c, fmi2Error, "fmi2SetReal: not a settable value reference");
      return fmi2Error;
    }
    *known = value[i];
  }
  return fmi2OK;
}

/* No Integer, Boolean or String variables: only an empty request succeeds. */
EXPORT fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                 fmi2Integer value[]) {
  (void)c, (void)vr, (void)value;
  return nvr == 0 ? fmi2OK : fmi2Error;
}
EXPORT fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                 fmi2Boolean value[]) {
  (void)c, (void)vr, (void)value;
  return nvr == 0 ? fmi2OK : fmi2Error;
}
EXPORT fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                fmi2String value[]) {
  (void)c, (void)vr, (void)value;
  return nvr == 0 ? fmi2OK : fmi2Error;
}
EXPORT fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                 const fmi2Integer value[]) {
  (void)c, (void)vr, (void)value;
  return nvr == 0 ? fmi2OK : fmi2Error;
}
EXPORT fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                 const fmi2Boolean value[]) {
  (void)c, (void)vr, (void)value;
  return nvr == 0 ? fmi2OK : fmi2Error;
}
EXPORT fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                const fmi2String value[]) {
  (void)c, (void)vr, (void)value;
  return nvr == 0 ? fmi2OK : fmi2Error;
}

EXPORT fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                               size_t nvr, const fmi2Integer order[],
                                               fmi2Real value[]) {
  const Integrator* fmu = c;
  for (size_t i = 0; i < nvr; ++i) {
    if (vr[i] != 4 || order[i] < 1) return fmi2Error;
    value[i] = order[i] == 1 ? fmu->k * fmu->u : 0.0;
  }
  return fmi2OK;
}

EXPORT fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint,
                             fmi2Real communicationStepSize,
                             fmi2Boolean noSetFMUStatePriorToCurrentPoint) {
  (void)noSetFMUStatePriorToCurrentPoint;
  Integrator* fmu = c;
  if (currentCommunicationPoint != fmu->time) {
    say(fmu, fmi2Error, "fmi2DoStep: not at the last communication point");
    return fmi2Error;
  }
  fmu->y += fmu->k * fmu->u * communicationStepSize;
  fmu->time = currentCommunicationPoint + communicationStepSize;
  return fmi2OK;
}

EXPORT fmi2Status fmi2CancelStep(fmi2Component c) {
  (void)c;
  return fmi2Error;  // fmi2DoStep never returns fmi2Pending
}

EXPORT fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status* value) {
  (void)c, (void)s, (void)value;
  return fmi2Discard;
}
EXPORT fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real* value) {
  if (s != fmi2LastSuccessfulTime) return fmi2Discard;
  *value = ((const Integrator*)c)->time;
  return fmi2OK;
}
EXPORT fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s,
                                       fmi2Integer* value) {
  (void)c, (void)s, (void)value;
  return fmi2Discard;
}
EXPORT fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s,
                                       fmi2Boolean* value) {
  if (s != fmi2Terminated) return fmi2Discard;
  (void)c;
  *value = fmi2False;
  return fmi2OK;
}
EXPORT fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String* value) {
  (void)c, (void)s, (void)value;
  return fmi2Discard;
}

EXPORT fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate* state) {
  if (*state == NULL) *state = malloc(sizeof(Integrator));
  if (*state == NULL) return fmi2Error;
  memcpy(*state, c, sizeof(Integrator));
  return fmi2OK;
}

EXPORT fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate state) {
  memcpy(c, state, sizeof(Integrator));
  return fmi2OK;
}

EXPORT fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate* state) {
  (void)c;
  free(*state);
  *state = NULL;
  return fmi2OK;
}
