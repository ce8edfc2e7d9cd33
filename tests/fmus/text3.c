/* text3: an FMI 3.0 co-simulation FMU with a String and a Binary parameter,
 * written against the FMI 3.0 API only (models/fmi/fmi3.h). It keeps copies
 * of what fmi3SetString and fmi3SetBinary give (their pointers are valid only
 * during the call) and shows them as numbers: greeting_length (4) and
 * greeting_first (5, its first byte) of greeting (1); key_size (6) and key_sum
 * (7, the sum of its bytes) of key (2); weighted (8) = gain (3) · key_sum.
 * motto (9) is a constant and cannot be set. */
#include "fmu3_common.h"

#define MAX_TEXT 256

typedef struct {
  char greeting[MAX_TEXT];
  unsigned char key[MAX_TEXT];
  size_t key_size;
  double gain, time;
  fmi3LogMessageCallback log;
  fmi3InstanceEnvironment environment;
} Text;

static fmi3Status fail(const Text* fmu, const char* message) {
  if (fmu->log) fmu->log(fmu->environment, fmi3Error, "logStatusError", message);
  return fmi3Error;
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
  Text* fmu = calloc(1, sizeof *fmu);
  if (fmu == NULL) return NULL;
  strcpy(fmu->greeting, "hello");
  fmu->key[0] = 0x01, fmu->key[1] = 0x02, fmu->key[2] = 0xff;
  fmu->key_size = 3;
  fmu->gain = 1.0;
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
  Text* fmu = instance;
  fmu->time = startTime;
  return fmi3OK;
}

EXPORT fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
  (void)instance;
  return fmi3OK;
}

EXPORT fmi3Status fmi3SetString(fmi3Instance instance, const fmi3ValueReference references[],
                                size_t count, const fmi3String values[], size_t nValues) {
  Text* fmu = instance;
  if (nValues != count) return fmi3Error;
  for (size_t i = 0; i < count; ++i) {
    if (references[i] != 1) return fail(fmu, "fmi3SetString: only greeting (1) can be set");
    if (values[i] == NULL || strlen(values[i]) >= MAX_TEXT)
      return fail(fmu, "fmi3SetString: greeting holds at most 255 bytes");
    strcpy(fmu->greeting, values[i]);
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference references[],
                                size_t count, const size_t sizes[], const fmi3Binary values[],
                                size_t nValues) {
  Text* fmu = instance;
  if (nValues != count) return fmi3Error;
  for (size_t i = 0; i < count; ++i) {
    if (references[i] != 2) return fail(fmu, "fmi3SetBinary: only key (2) can be set");
    if (sizes[i] > MAX_TEXT) return fail(fmu, "fmi3SetBinary: key holds at most 256 bytes");
    if (sizes[i] > 0) memcpy(fmu->key, values[i], sizes[i]);
    fmu->key_size = sizes[i];
  }
  return fmi3OK;
}

static int key_sum(const Text* fmu) {
  int sum = 0;
  for (size_t k = 0; k < fmu->key_size; ++k) sum += fmu->key[k];
  return sum;
}

EXPORT fmi3Status fmi3GetInt32(fmi3Instance instance, const fmi3ValueReference references[],
                               size_t count, fmi3Int32 values[], size_t nValues) {
  const Text* fmu = instance;
  if (nValues != count) return fmi3Error;
  for (size_t i = 0; i < count; ++i) {
    switch (references[i]) {
      case 4:
        values[i] = (fmi3Int32)strlen(fmu->greeting);
        break;
      case 5:
        values[i] = (unsigned char)fmu->greeting[0];
        break;
      case 6:
        values[i] = (fmi3Int32)fmu->key_size;
        break;
      case 7:
        values[i] = key_sum(fmu);
        break;
      default:
        return fail(fmu, "fmi3GetInt32: unknown value reference");
    }
  }
  return fmi3OK;
}

/* Its Int32 variables are outputs: couplet resolves the pair, nothing is set. */
EXPORT fmi3Status fmi3SetInt32(fmi3Instance instance, const fmi3ValueReference references[],
                               size_t count, const fmi3Int32 values[], size_t nValues) {
  (void)references, (void)count, (void)values, (void)nValues;
  return fail(instance, "fmi3SetInt32: the Int32 variables are outputs");
}

EXPORT fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference references[],
                                 size_t count, fmi3Float64 values[], size_t nValues) {
  const Text* fmu = instance;
  if (nValues != count) return fmi3Error;
  for (size_t i = 0; i < count; ++i) {
    if (references[i] == 3) {
      values[i] = fmu->gain;
    } else if (references[i] == 8) {
      values[i] = fmu->gain * key_sum(fmu);
    } else {
      return fail(fmu, "fmi3GetFloat64: unknown value reference");
    }
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference references[],
                                 size_t count, const fmi3Float64 values[], size_t nValues) {
  Text* fmu = instance;
  if (nValues != count) return fmi3Error;
  for (size_t i = 0; i < count; ++i) {
    if (references[i] != 3) return fail(fmu, "fmi3SetFloat64: only gain (3) can be set");
    fmu->gain = values[i];
  }
  return fmi3OK;
}

EXPORT fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                             fmi3Float64 communicationStepSize,
                             fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                             fmi3Boolean* eventHandlingNeeded, fmi3Boolean* terminateSimulation,
                             fmi3Boolean* earlyReturn, fmi3Float64* lastSuccessfulTime) {
  (void)noSetFMUStatePriorToCurrentPoint;
  Text* fmu = instance;
  *eventHandlingNeeded = fmi3False;
  *earlyReturn = fmi3False;
  *terminateSimulation = fmi3False;
  fmu->time = currentCommunicationPoint + communicationStepSize;
  *lastSuccessfulTime = fmu->time;
  return fmi3OK;
}

FMU3_COPYABLE_STATE(Text)
