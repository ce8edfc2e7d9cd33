/* The fmi2 functions of couplet's test FMUs, written once for every model
 * (see fmu_common.h): FMI 2.0 §2.1 (common), §3.2 (model exchange), §4.2
 * (co-simulation). C99, no dependency but the C library. */
#include "fmu_common.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef COUPLET_FMU_GUID
#error "COUPLET_FMU_GUID must be defined (couplet_add_fmu(... GUID <guid>))"
#endif

/* Internal RK4 substeps of a co-simulation step are at most this long [s]. */
#define FMU_MAX_SUBSTEP 1e-3

/* Every exported function is first declared with its fmi2XxxTYPE, so that a
 * definition whose signature differs from the standard's is a compile error
 * ("conflicting types"), not a crash in the importer. */
#define FMU_DECLARE(name) FMU_EXPORT fmi2##name##TYPE fmi2##name
FMU_DECLARE(GetTypesPlatform);
FMU_DECLARE(GetVersion);
FMU_DECLARE(SetDebugLogging);
FMU_DECLARE(Instantiate);
FMU_DECLARE(FreeInstance);
FMU_DECLARE(SetupExperiment);
FMU_DECLARE(EnterInitializationMode);
FMU_DECLARE(ExitInitializationMode);
FMU_DECLARE(Terminate);
FMU_DECLARE(Reset);
FMU_DECLARE(GetReal);
FMU_DECLARE(GetInteger);
FMU_DECLARE(GetBoolean);
FMU_DECLARE(GetString);
FMU_DECLARE(SetReal);
FMU_DECLARE(SetInteger);
FMU_DECLARE(SetBoolean);
FMU_DECLARE(SetString);
FMU_DECLARE(GetFMUstate);
FMU_DECLARE(SetFMUstate);
FMU_DECLARE(FreeFMUstate);
FMU_DECLARE(SerializedFMUstateSize);
FMU_DECLARE(SerializeFMUstate);
FMU_DECLARE(DeSerializeFMUstate);
FMU_DECLARE(GetDirectionalDerivative);
FMU_DECLARE(EnterEventMode);
FMU_DECLARE(NewDiscreteStates);
FMU_DECLARE(EnterContinuousTimeMode);
FMU_DECLARE(CompletedIntegratorStep);
FMU_DECLARE(SetTime);
FMU_DECLARE(SetContinuousStates);
FMU_DECLARE(GetDerivatives);
FMU_DECLARE(GetEventIndicators);
FMU_DECLARE(GetContinuousStates);
FMU_DECLARE(GetNominalsOfContinuousStates);
FMU_DECLARE(SetRealInputDerivatives);
FMU_DECLARE(GetRealOutputDerivatives);
#ifndef COUPLET_FMU_OMIT_DO_STEP
FMU_DECLARE(DoStep);
#endif
FMU_DECLARE(CancelStep);
FMU_DECLARE(GetStatus);
FMU_DECLARE(GetRealStatus);
FMU_DECLARE(GetIntegerStatus);
FMU_DECLARE(GetBooleanStatus);
FMU_DECLARE(GetStringStatus);

/* ------------------------------------------------------------------ logging */

/* The <LogCategories> of every test FMU, in this order (bit i of the mask). */
static const char* const fmu_categories[] = {"logEvents", "logError", "logStatusDiscard", "logStatusWarning"};
#define FMU_CATEGORY_COUNT (sizeof fmu_categories / sizeof fmu_categories[0])

static int category_enabled(const FmuInstance* instance, const char* category) {
  size_t i;
  for (i = 0; i < FMU_CATEGORY_COUNT; ++i) {
    if (strcmp(category, fmu_categories[i]) == 0) return (instance->categories >> i) & 1u;
  }
  return 1;
}

void fmu_log(const FmuInstance* instance, fmi2Status status, const char* category, const char* format, ...) {
  char message[1024];
  char escaped[2 * sizeof message];
  size_t i, j;
  va_list args;
  if (instance == NULL || instance->logger == NULL) return;
  if (status == fmi2OK && !(instance->logging_on && category_enabled(instance, category))) return;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  /* The logger treats the message as a printf format (FMI 2.0 §2.1.5). */
  for (i = 0, j = 0; message[i] != '\0' && j + 2 < sizeof escaped; ++i) {
    if (message[i] == '%') escaped[j++] = '%';
    escaped[j++] = message[i];
  }
  escaped[j] = '\0';
  instance->logger(instance->environment, instance->name != NULL ? instance->name : "", status, category,
                   escaped);
}

#define LOG_ERROR(instance, ...) fmu_log((instance), fmi2Error, "logError", __VA_ARGS__)

/* ------------------------------------------------------------------ helpers */

static const char* mode_name(FmuMode mode) {
  switch (mode) {
    case FMU_MODE_INSTANTIATED: return "Instantiated";
    case FMU_MODE_INITIALIZATION: return "Initialization Mode";
    case FMU_MODE_STEP: return "Step Mode";
    case FMU_MODE_EVENT: return "Event Mode";
    case FMU_MODE_CONTINUOUS: return "Continuous-Time Mode";
    case FMU_MODE_TERMINATED: return "Terminated";
  }
  return "?";
}

#define MODE(m) (1u << FMU_MODE_##m)
#define ANY_MODE (MODE(INSTANTIATED) | MODE(INITIALIZATION) | MODE(STEP) | MODE(EVENT) | MODE(CONTINUOUS) | MODE(TERMINATED))
#define AFTER_INSTANTIATION (ANY_MODE & ~MODE(INSTANTIATED))

/* Nonzero if the call is allowed in the instance's mode; logs otherwise. */
static int in_mode(FmuInstance* instance, const char* function, unsigned modes) {
  if (modes & (1u << instance->data.mode)) return 1;
  LOG_ERROR(instance, "%s: not allowed in %s", function, mode_name(instance->data.mode));
  return 0;
}

static int of_type(FmuInstance* instance, const char* function, fmi2Type type) {
  if (instance->type == type) return 1;
  LOG_ERROR(instance, "%s: only for a %s instance", function,
            type == fmi2CoSimulation ? "co-simulation" : "model-exchange");
  return 0;
}

static int valid_vr(FmuInstance* instance, const char* function, fmi2ValueReference vr) {
  if (vr < instance->model->n_reals) return 1;
  LOG_ERROR(instance, "%s: no Real variable has value reference %u", function, vr);
  return 0;
}

/* Index of input vr among the model's inputs, or -1. */
static int input_index(const FmuModel* model, fmi2ValueReference vr) {
  size_t i;
  for (i = 0; i < model->n_inputs; ++i) {
    if (model->input_vrs[i] == vr) return (int)i;
  }
  return -1;
}

/* Before fmi2ExitInitializationMode the states follow the parameters. */
static void refresh_initial_state(FmuInstance* instance) {
  FmuData* data = &instance->data;
  if (data->mode == FMU_MODE_INSTANTIATED || data->mode == FMU_MODE_INITIALIZATION) {
    data->time = data->start_time;
    data->step_start = data->start_time;
    instance->model->initialize(data);
  }
}

static void reset_data(FmuInstance* instance) {
  const FmuModel* model = instance->model;
  FmuData* data = &instance->data;
  size_t i;
  memset(data, 0, sizeof *data);
  for (i = 0; i < model->n_reals; ++i) {
    if (model->variables[i].kind != FMU_COMPUTED) data->r[i] = model->variables[i].start;
  }
  for (i = 0; i < FMU_MAX_DISCRETE; ++i) {
    data->integers[i] = model->integer_starts[i];
    data->booleans[i] = model->boolean_starts[i];
  }
  data->mode = FMU_MODE_INSTANTIATED;
  refresh_initial_state(instance);
}

/* Current input values (model exchange: inputs are held between fmi2SetReal calls). */
static void current_inputs(const FmuData* data, const FmuModel* model, double u[]) {
  size_t i;
  for (i = 0; i < model->n_inputs; ++i) u[i] = data->r[model->input_vrs[i]];
}

/* --------------------------------------------------------- common functions */

const char* fmi2GetTypesPlatform(void) { return COUPLET_FMI2_TYPES_PLATFORM; }

const char* fmi2GetVersion(void) { return COUPLET_FMI2_VERSION; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                               const fmi2String categories[]) {
  FmuInstance* instance = (FmuInstance*)c;
  unsigned mask = 0;
  size_t i, k;
  if (instance == NULL) return fmi2Error;
  if (nCategories == 0) {
    mask = (1u << FMU_CATEGORY_COUNT) - 1u;
  } else {
    if (categories == NULL) {
      LOG_ERROR(instance, "fmi2SetDebugLogging: categories is NULL");
      return fmi2Error;
    }
    for (i = 0; i < nCategories; ++i) {
      for (k = 0; k < FMU_CATEGORY_COUNT; ++k) {
        if (categories[i] != NULL && strcmp(categories[i], fmu_categories[k]) == 0) break;
      }
      if (k == FMU_CATEGORY_COUNT) {
        LOG_ERROR(instance, "fmi2SetDebugLogging: unknown log category '%s'",
                  categories[i] != NULL ? categories[i] : "(null)");
        return fmi2Error;
      }
      mask |= 1u << k;
    }
  }
  instance->logging_on = loggingOn ? 1 : 0;
  instance->categories = mask;
  return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation, const fmi2CallbackFunctions* functions,
                              fmi2Boolean visible, fmi2Boolean loggingOn) {
  const FmuModel* model = &fmu_model;
  FmuInstance probe; /* only to log before the instance exists */
  (void)fmuResourceLocation;
  (void)visible;
  if (functions == NULL) return NULL;
  memset(&probe, 0, sizeof probe);
  probe.name = (char*)(instanceName != NULL ? instanceName : "");
  probe.logger = functions->logger;
  probe.environment = functions->componentEnvironment;
  probe.model = model;
  if (instanceName == NULL || instanceName[0] == '\0') {
    LOG_ERROR(&probe, "fmi2Instantiate: the instance name is missing or empty");
    return NULL;
  }
#ifdef COUPLET_FMU_NULL_INSTANCE
  (void)fmuType;
  (void)fmuGUID;
  (void)loggingOn;
  LOG_ERROR(&probe,
            "fmi2Instantiate: %s refuses every instance (test fixture built with COUPLET_FMU_NULL_INSTANCE)",
            model->name);
  return NULL;
#else
  {
    FmuInstance* instance;
    size_t length;
    const int offered = fmuType == fmi2CoSimulation    ? model->offers_co_simulation
                        : fmuType == fmi2ModelExchange ? model->offers_model_exchange
                                                       : 0;
    if (fmuGUID == NULL || strcmp(fmuGUID, COUPLET_FMU_GUID) != 0) {
      LOG_ERROR(&probe, "fmi2Instantiate: GUID '%s' does not match %s's GUID '%s'",
                fmuGUID != NULL ? fmuGUID : "(null)", model->name, COUPLET_FMU_GUID);
      return NULL;
    }
    if (!offered) {
      LOG_ERROR(&probe, "fmi2Instantiate: %s does not offer %s", model->name,
                fmuType == fmi2CoSimulation    ? "co-simulation"
                : fmuType == fmi2ModelExchange ? "model exchange"
                                               : "this fmuType");
      return NULL;
    }
    instance = (FmuInstance*)calloc(1, sizeof *instance);
    length = strlen(instanceName);
    if (instance != NULL) instance->name = (char*)malloc(length + 1);
    if (instance == NULL || instance->name == NULL) {
      free(instance);
      LOG_ERROR(&probe, "fmi2Instantiate: out of memory");
      return NULL;
    }
    memcpy(instance->name, instanceName, length + 1);
    instance->model = model;
    instance->type = fmuType;
    instance->logger = functions->logger;
    instance->environment = functions->componentEnvironment;
    instance->logging_on = loggingOn ? 1 : 0;
    instance->categories = (1u << FMU_CATEGORY_COUNT) - 1u;
    reset_data(instance);
    return instance;
  }
#endif
}

void fmi2FreeInstance(fmi2Component c) {
  FmuInstance* instance = (FmuInstance*)c;
  if (instance == NULL) return;
  free(instance->name);
  free(instance);
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance,
                               fmi2Real startTime, fmi2Boolean stopTimeDefined, fmi2Real stopTime) {
  FmuInstance* instance = (FmuInstance*)c;
  (void)toleranceDefined;
  (void)tolerance;
  if (instance == NULL) return fmi2Error;
  if (!in_mode(instance, "fmi2SetupExperiment", MODE(INSTANTIATED))) return fmi2Error;
  if (!isfinite(startTime) || (stopTimeDefined && !(stopTime >= startTime))) {
    LOG_ERROR(instance, "fmi2SetupExperiment: bad start time %g or stop time %g", startTime, stopTime);
    return fmi2Error;
  }
  instance->data.start_time = startTime;
  refresh_initial_state(instance);
  return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c) {
  FmuInstance* instance = (FmuInstance*)c;
  if (instance == NULL) return fmi2Error;
  if (!in_mode(instance, "fmi2EnterInitializationMode", MODE(INSTANTIATED))) return fmi2Error;
  instance->data.mode = FMU_MODE_INITIALIZATION;
  refresh_initial_state(instance);
  return fmi2OK;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c) {
  FmuInstance* instance = (FmuInstance*)c;
  const char* problem;
  if (instance == NULL) return fmi2Error;
  if (!in_mode(instance, "fmi2ExitInitializationMode", MODE(INITIALIZATION))) return fmi2Error;
  problem = instance->model->check_parameters != NULL ? instance->model->check_parameters(&instance->data) : NULL;
  if (problem != NULL) {
    LOG_ERROR(instance, "fmi2ExitInitializationMode: %s", problem);
    return fmi2Error;
  }
  refresh_initial_state(instance);
  instance->data.mode = instance->type == fmi2CoSimulation ? FMU_MODE_STEP : FMU_MODE_EVENT;
  return fmi2OK;
}

fmi2Status fmi2Terminate(fmi2Component c) {
  FmuInstance* instance = (FmuInstance*)c;
  if (instance == NULL) return fmi2Error;
  if (!in_mode(instance, "fmi2Terminate", AFTER_INSTANTIATION)) return fmi2Error;
  instance->data.mode = FMU_MODE_TERMINATED;
  return fmi2OK;
}

fmi2Status fmi2Reset(fmi2Component c) {
  FmuInstance* instance = (FmuInstance*)c;
  if (instance == NULL) return fmi2Error;
  reset_data(instance);
  return fmi2OK;
}

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[]) {
  FmuInstance* instance = (FmuInstance*)c;
  size_t i;
  if (instance == NULL) return fmi2Error;
  if (nvr == 0) return fmi2OK;
  if (vr == NULL || value == NULL) {
    LOG_ERROR(instance, "fmi2GetReal: NULL argument");
    return fmi2Error;
  }
  refresh_initial_state(instance);
  for (i = 0; i < nvr; ++i) {
    if (!valid_vr(instance, "fmi2GetReal", vr[i])) return fmi2Error;
    value[i] = instance->model->variables[vr[i]].kind == FMU_COMPUTED
                   ? instance->model->computed(&instance->data, vr[i])
                   : instance->data.r[vr[i]];
  }
  return fmi2OK;
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[]) {
  FmuInstance* instance = (FmuInstance*)c;
  FmuData* data;
  size_t i;
  if (instance == NULL) return fmi2Error;
  if (nvr == 0) return fmi2OK;
  data = &instance->data;
  if (vr == NULL || value == NULL) {
    LOG_ERROR(instance, "fmi2SetReal: NULL argument");
    return fmi2Error;
  }
  /* Check all first: a refused call changes nothing. */
  for (i = 0; i < nvr; ++i) {
    const FmuVariable* variable;
    if (!valid_vr(instance, "fmi2SetReal", vr[i])) return fmi2Error;
    variable = &instance->model->variables[vr[i]];
    if (variable->kind == FMU_COMPUTED) {
      LOG_ERROR(instance, "fmi2SetReal: '%s' (value reference %u) cannot be set", variable->name, vr[i]);
      return fmi2Error;
    }
    if (variable->kind == FMU_PARAMETER && data->mode != FMU_MODE_INSTANTIATED &&
        data->mode != FMU_MODE_INITIALIZATION) {
      LOG_ERROR(instance,
                "fmi2SetReal: parameter '%s' (value reference %u) is fixed: set it before "
                "fmi2ExitInitializationMode",
                variable->name, vr[i]);
      return fmi2Error;
    }
    if (variable->kind == FMU_INPUT && data->mode == FMU_MODE_TERMINATED) {
      LOG_ERROR(instance, "fmi2SetReal: input '%s': not allowed in %s", variable->name, mode_name(data->mode));
      return fmi2Error;
    }
  }
  for (i = 0; i < nvr; ++i) {
    const int input = input_index(instance->model, vr[i]);
    data->r[vr[i]] = value[i];
    /* A new value without new derivatives: the input is held constant from here. */
    if (input >= 0 && !data->du_given[input]) memset(data->du[input], 0, sizeof data->du[input]);
  }
  refresh_initial_state(instance);
  return fmi2OK;
}

static fmi2Status no_variables(fmi2Component c, const char* function, const char* type, size_t nvr,
                               const fmi2ValueReference vr[]) {
  FmuInstance* instance = (FmuInstance*)c;
  if (instance == NULL) return fmi2Error;
  if (nvr == 0) return fmi2OK;
  LOG_ERROR(instance, "%s: %s has no %s variables (value reference %u)", function, instance->model->name, type,
            vr != NULL ? vr[0] : 0u);
  return fmi2Error;
}

/* Integer and Boolean variables through the model's hooks, one value
 * reference at a time; without a hook the model has none of that type. */
#define DISCRETE_ACCESS(function, type_name, hook, value_expression)                                     \
  do {                                                                                                   \
    FmuInstance* instance = (FmuInstance*)c;                                                             \
    size_t k;                                                                                            \
    if (instance == NULL) return fmi2Error;                                                              \
    if (instance->model->hook == NULL) return no_variables(c, function, type_name, nvr, vr);             \
    if (nvr > 0 && (vr == NULL || value == NULL)) return fmi2Error;                                      \
    for (k = 0; k < nvr; ++k) {                                                                          \
      if (instance->model->hook(&instance->data, vr[k], value_expression) != 0) {                        \
        LOG_ERROR(instance, "%s: %s has no settable %s variable with value reference %u", function,      \
                  instance->model->name, type_name, vr[k]);                                              \
        return fmi2Error;                                                                                \
      }                                                                                                  \
    }                                                                                                    \
    return fmi2OK;                                                                                       \
  } while (0)

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Integer value[]) {
  DISCRETE_ACCESS("fmi2GetInteger", "Integer", get_integer, &value[k]);
}

fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Boolean value[]) {
  DISCRETE_ACCESS("fmi2GetBoolean", "Boolean", get_boolean, &value[k]);
}

fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2String value[]) {
  (void)value;
  return no_variables(c, "fmi2GetString", "String", nvr, vr);
}

/* A model-exchange instance takes discrete inputs outside continuous-time
 * mode only (FMI 2.0 §3.2.3: a change of one is an event). */
static int discrete_input_settable(fmi2Component c, const char* function) {
  FmuInstance* instance = (FmuInstance*)c;
  if (instance == NULL || instance->type != fmi2ModelExchange) return 1;
  return in_mode(instance, function, ~MODE(CONTINUOUS));
}

fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Integer value[]) {
  if (!discrete_input_settable(c, "fmi2SetInteger")) return fmi2Error;
  DISCRETE_ACCESS("fmi2SetInteger", "Integer", set_integer, value[k]);
}

fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Boolean value[]) {
  if (!discrete_input_settable(c, "fmi2SetBoolean")) return fmi2Error;
  DISCRETE_ACCESS("fmi2SetBoolean", "Boolean", set_boolean, value[k]);
}

fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2String value[]) {
  (void)value;
  return no_variables(c, "fmi2SetString", "String", nvr, vr);
}

/* ------------------------------------------------------------- FMU states */

/* What fmi2GetFMUstate hands out: the instance data and whose it is. */
typedef struct {
  const FmuModel* owner;
  FmuData data;
} FmuStateBlock;

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate* FMUstate) {
  FmuInstance* instance = (FmuInstance*)c;
  if (instance == NULL) return fmi2Error;
#ifdef COUPLET_FMU_BASIC
  (void)FMUstate;
  LOG_ERROR(instance, "fmi2GetFMUstate: not supported by %s (canGetAndSetFMUstate=\"false\")", instance->model->name);
  return fmi2Error;
#else
  FmuStateBlock* block;
  if (FMUstate == NULL) {
    LOG_ERROR(instance, "fmi2GetFMUstate: FMUstate is NULL");
    return fmi2Error;
  }
  block = (FmuStateBlock*)*FMUstate;
  if (block != NULL && block->owner != instance->model) {
    LOG_ERROR(instance, "fmi2GetFMUstate: *FMUstate is not a state of %s", instance->model->name);
    return fmi2Error;
  }
  if (block == NULL) block = (FmuStateBlock*)calloc(1, sizeof *block);
  if (block == NULL) {
    LOG_ERROR(instance, "fmi2GetFMUstate: out of memory");
    return fmi2Error;
  }
  block->owner = instance->model;
  block->data = instance->data;
  *FMUstate = block;
  return fmi2OK;
#endif
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate) {
  FmuInstance* instance = (FmuInstance*)c;
  const FmuStateBlock* block = (const FmuStateBlock*)FMUstate;
  if (instance == NULL) return fmi2Error;
#ifdef COUPLET_FMU_BASIC
  (void)block;
  LOG_ERROR(instance, "fmi2SetFMUstate: not supported by %s (canGetAndSetFMUstate=\"false\")", instance->model->name);
  return fmi2Error;
#else
  if (block == NULL || block->owner != instance->model) {
    LOG_ERROR(instance, "fmi2SetFMUstate: not a state of %s", instance->model->name);
    return fmi2Error;
  }
  instance->data = block->data;
  return fmi2OK;
#endif
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate* FMUstate) {
  FmuInstance* instance = (FmuInstance*)c;
  if (instance == NULL) return fmi2Error;
#ifdef COUPLET_FMU_BASIC
  (void)FMUstate;
  LOG_ERROR(instance, "fmi2FreeFMUstate: not supported by %s (canGetAndSetFMUstate=\"false\")", instance->model->name);
  return fmi2Error;
#else
  if (FMUstate == NULL) return fmi2OK;
  free(*FMUstate);
  *FMUstate = NULL;
  return fmi2OK;
#endif
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t* size) {
  FmuInstance* instance = (FmuInstance*)c;
  (void)FMUstate;
  (void)size;
  if (instance == NULL) return fmi2Error;
  LOG_ERROR(instance, "fmi2SerializedFMUstateSize: not supported (canSerializeFMUstate=\"false\")");
  return fmi2Error;
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate, fmi2Byte serializedState[],
                                 size_t size) {
  FmuInstance* instance = (FmuInstance*)c;
  (void)FMUstate;
  (void)serializedState;
  (void)size;
  if (instance == NULL) return fmi2Error;
  LOG_ERROR(instance, "fmi2SerializeFMUstate: not supported (canSerializeFMUstate=\"false\")");
  return fmi2Error;
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[], size_t size,
                                   fmi2FMUstate* FMUstate) {
  FmuInstance* instance = (FmuInstance*)c;
  (void)serializedState;
  (void)size;
  (void)FMUstate;
  if (instance == NULL) return fmi2Error;
  LOG_ERROR(instance, "fmi2DeSerializeFMUstate: not supported (canSerializeFMUstate=\"false\")");
  return fmi2Error;
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[], size_t nUnknown,
                                        const fmi2ValueReference vKnown_ref[], size_t nKnown,
                                        const fmi2Real dvKnown[], fmi2Real dvUnknown[]) {
  FmuInstance* instance = (FmuInstance*)c;
  (void)vUnknown_ref;
  (void)nUnknown;
  (void)vKnown_ref;
  (void)nKnown;
  (void)dvKnown;
  (void)dvUnknown;
  if (instance == NULL) return fmi2Error;
  LOG_ERROR(instance, "fmi2GetDirectionalDerivative: not supported (providesDirectionalDerivative=\"false\")");
  return fmi2Error;
}

/* --------------------------------------------------------- model exchange */

#define ME_EVALUATION_MODES (MODE(INITIALIZATION) | MODE(EVENT) | MODE(CONTINUOUS) | MODE(TERMINATED))

static int me_call(FmuInstance* instance, const char* function, unsigned modes) {
  return of_type(instance, function, fmi2ModelExchange) && in_mode(instance, function, modes);
}

static int state_count(FmuInstance* instance, const char* function, size_t n, size_t expected, const void* array) {
  if (n != expected) {
    LOG_ERROR(instance, "%s: %s has %lu, not %lu", function, instance->model->name, (unsigned long)expected,
              (unsigned long)n);
    return 0;
  }
  if (n > 0 && array == NULL) {
    LOG_ERROR(instance, "%s: NULL array", function);
    return 0;
  }
  return 1;
}

/* Whether the model asks to end the simulation at t; logs it once. */
static int stops_at(FmuInstance* instance, double t) {
  const FmuModel* model = instance->model;
  if (model->stop_requested == NULL || !model->stop_requested(&instance->data, t)) return 0;
  if (!instance->terminated)
    fmu_log(instance, fmi2OK, "logEvents", "t = %.17g: the model asks to end the simulation", t);
  instance->terminated = 1;
  return 1;
}

fmi2Status fmi2EnterEventMode(fmi2Component c) {
  FmuInstance* instance = (FmuInstance*)c;
  if (instance == NULL) return fmi2Error;
  if (!me_call(instance, "fmi2EnterEventMode", MODE(EVENT) | MODE(CONTINUOUS))) return fmi2Error;
  instance->data.mode = FMU_MODE_EVENT;
  return fmi2OK;
}

fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo* eventInfo) {
  FmuInstance* instance = (FmuInstance*)c;
  const FmuModel* model;
  double next;
  int changed;
  if (instance == NULL) return fmi2Error;
  if (!me_call(instance, "fmi2NewDiscreteStates", MODE(EVENT))) return fmi2Error;
  if (eventInfo == NULL) {
    LOG_ERROR(instance, "fmi2NewDiscreteStates: eventInfo is NULL");
    return fmi2Error;
  }
  model = instance->model;
  changed = model->event_update != NULL ? model->event_update(instance, instance->data.time) : 0;
  next = model->next_time_event != NULL ? model->next_time_event(&instance->data, instance->data.time) : INFINITY;
  eventInfo->newDiscreteStatesNeeded = fmi2False;
  eventInfo->terminateSimulation = stops_at(instance, instance->data.time) ? fmi2True : fmi2False;
  eventInfo->nominalsOfContinuousStatesChanged = fmi2False;
  eventInfo->valuesOfContinuousStatesChanged = changed ? fmi2True : fmi2False;
  eventInfo->nextEventTimeDefined = isfinite(next) ? fmi2True : fmi2False;
  eventInfo->nextEventTime = isfinite(next) ? next : 0.0;
  return fmi2OK;
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c) {
  FmuInstance* instance = (FmuInstance*)c;
  if (instance == NULL) return fmi2Error;
  if (!me_call(instance, "fmi2EnterContinuousTimeMode", MODE(EVENT))) return fmi2Error;
  instance->data.mode = FMU_MODE_CONTINUOUS;
  return fmi2OK;
}

fmi2Status fmi2CompletedIntegratorStep(fmi2Component c, fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi2Boolean* enterEventMode, fmi2Boolean* terminateSimulation) {
  FmuInstance* instance = (FmuInstance*)c;
  (void)noSetFMUStatePriorToCurrentPoint;
  if (instance == NULL) return fmi2Error;
  if (!me_call(instance, "fmi2CompletedIntegratorStep", MODE(CONTINUOUS))) return fmi2Error;
  if (enterEventMode != NULL) *enterEventMode = fmi2False;
  if (terminateSimulation != NULL) *terminateSimulation = fmi2False;
  return fmi2OK;
}

fmi2Status fmi2SetTime(fmi2Component c, fmi2Real time) {
  FmuInstance* instance = (FmuInstance*)c;
  if (instance == NULL) return fmi2Error;
  if (!me_call(instance, "fmi2SetTime", MODE(EVENT) | MODE(CONTINUOUS))) return fmi2Error;
  if (!isfinite(time)) {
    LOG_ERROR(instance, "fmi2SetTime: time %g is not finite", time);
    return fmi2Error;
  }
  instance->data.time = time;
  return fmi2OK;
}

fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t nx) {
  FmuInstance* instance = (FmuInstance*)c;
  size_t i;
  if (instance == NULL) return fmi2Error;
  if (!me_call(instance, "fmi2SetContinuousStates", MODE(EVENT) | MODE(CONTINUOUS))) return fmi2Error;
  if (!state_count(instance, "fmi2SetContinuousStates", nx, instance->model->n_states, x)) return fmi2Error;
  for (i = 0; i < nx; ++i) instance->data.x[i] = x[i];
  return fmi2OK;
}

fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real derivatives[], size_t nx) {
  FmuInstance* instance = (FmuInstance*)c;
  double u[FMU_MAX_INPUTS];
  if (instance == NULL) return fmi2Error;
  if (!me_call(instance, "fmi2GetDerivatives", ME_EVALUATION_MODES)) return fmi2Error;
  if (!state_count(instance, "fmi2GetDerivatives", nx, instance->model->n_states, derivatives)) return fmi2Error;
  if (nx == 0) return fmi2OK;
  refresh_initial_state(instance);
  current_inputs(&instance->data, instance->model, u);
  instance->model->derivatives(&instance->data, instance->data.time, instance->data.x, u, derivatives);
  return fmi2OK;
}

fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real eventIndicators[], size_t ni) {
  FmuInstance* instance = (FmuInstance*)c;
  if (instance == NULL) return fmi2Error;
  if (!me_call(instance, "fmi2GetEventIndicators", ME_EVALUATION_MODES)) return fmi2Error;
  if (!state_count(instance, "fmi2GetEventIndicators", ni, instance->model->n_event_indicators, eventIndicators))
    return fmi2Error;
  if (ni == 0) return fmi2OK;
  refresh_initial_state(instance);
  instance->model->event_indicators(&instance->data, eventIndicators);
  return fmi2OK;
}

fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t nx) {
  FmuInstance* instance = (FmuInstance*)c;
  size_t i;
  if (instance == NULL) return fmi2Error;
  if (!me_call(instance, "fmi2GetContinuousStates", ME_EVALUATION_MODES)) return fmi2Error;
  if (!state_count(instance, "fmi2GetContinuousStates", nx, instance->model->n_states, x)) return fmi2Error;
  refresh_initial_state(instance);
  for (i = 0; i < nx; ++i) x[i] = instance->data.x[i];
  return fmi2OK;
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x_nominal[], size_t nx) {
  FmuInstance* instance = (FmuInstance*)c;
  size_t i;
  if (instance == NULL) return fmi2Error;
  if (!of_type(instance, "fmi2GetNominalsOfContinuousStates", fmi2ModelExchange)) return fmi2Error;
  if (!state_count(instance, "fmi2GetNominalsOfContinuousStates", nx, instance->model->n_states, x_nominal))
    return fmi2Error;
  for (i = 0; i < nx; ++i) x_nominal[i] = 1.0;
  return fmi2OK;
}

/* ----------------------------------------------------------- co-simulation */

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                       const fmi2Integer order[], const fmi2Real value[]) {
  FmuInstance* instance = (FmuInstance*)c;
  size_t i;
  if (instance == NULL) return fmi2Error;
#ifdef COUPLET_FMU_BASIC
  (void)vr;
  (void)nvr;
  (void)order;
  (void)value;
  (void)i;
  LOG_ERROR(instance, "fmi2SetRealInputDerivatives: not supported by %s (canInterpolateInputs=\"false\")",
            instance->model->name);
  return fmi2Error;
#else
  if (!of_type(instance, "fmi2SetRealInputDerivatives", fmi2CoSimulation) ||
      !in_mode(instance, "fmi2SetRealInputDerivatives", MODE(INSTANTIATED) | MODE(INITIALIZATION) | MODE(STEP)))
    return fmi2Error;
  if (nvr == 0) return fmi2OK;
  if (vr == NULL || order == NULL || value == NULL) {
    LOG_ERROR(instance, "fmi2SetRealInputDerivatives: NULL argument");
    return fmi2Error;
  }
  for (i = 0; i < nvr; ++i) {
    if (input_index(instance->model, vr[i]) < 0) {
      LOG_ERROR(instance, "fmi2SetRealInputDerivatives: value reference %u is not an input", vr[i]);
      return fmi2Error;
    }
    if (order[i] < 1 || order[i] > FMU_MAX_INPUT_ORDER) {
      LOG_ERROR(instance, "fmi2SetRealInputDerivatives: order %d of input '%s' is not in 1..%d", order[i],
                instance->model->variables[vr[i]].name, FMU_MAX_INPUT_ORDER);
      return fmi2Error;
    }
  }
  for (i = 0; i < nvr; ++i) {
    const int input = input_index(instance->model, vr[i]);
    FmuData* data = &instance->data;
    /* The first derivative given for this step: forget the previous polynomial's. */
    if (!data->du_given[input]) {
      memset(data->du[input], 0, sizeof data->du[input]);
      data->du_given[input] = 1;
    }
    data->du[input][order[i] - 1] = value[i];
  }
  return fmi2OK;
#endif
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                        const fmi2Integer order[], fmi2Real value[]) {
  FmuInstance* instance = (FmuInstance*)c;
  const FmuModel* model;
  size_t i;
  if (instance == NULL) return fmi2Error;
  model = instance->model;
#ifdef COUPLET_FMU_BASIC
  (void)vr;
  (void)nvr;
  (void)order;
  (void)value;
  (void)i;
  (void)model;
  LOG_ERROR(instance, "fmi2GetRealOutputDerivatives: not supported by %s (maxOutputDerivativeOrder=\"0\")",
            instance->model->name);
  return fmi2Error;
#else
  if (!of_type(instance, "fmi2GetRealOutputDerivatives", fmi2CoSimulation) ||
      !in_mode(instance, "fmi2GetRealOutputDerivatives", MODE(INITIALIZATION) | MODE(STEP) | MODE(TERMINATED)))
    return fmi2Error;
  if (nvr == 0) return fmi2OK;
  if (vr == NULL || order == NULL || value == NULL) {
    LOG_ERROR(instance, "fmi2GetRealOutputDerivatives: NULL argument");
    return fmi2Error;
  }
  refresh_initial_state(instance);
  for (i = 0; i < nvr; ++i) {
    if (order[i] < 1 || order[i] > model->max_output_derivative_order) {
      LOG_ERROR(instance, "fmi2GetRealOutputDerivatives: order %d is not in 1..%d (maxOutputDerivativeOrder)",
                order[i], model->max_output_derivative_order);
      return fmi2Error;
    }
    if (!valid_vr(instance, "fmi2GetRealOutputDerivatives", vr[i])) return fmi2Error;
    if (model->output_derivative == NULL || !model->output_derivative(&instance->data, vr[i], order[i], &value[i])) {
      LOG_ERROR(instance, "fmi2GetRealOutputDerivatives: '%s' (value reference %u) is not an output",
                model->variables[vr[i]].name, vr[i]);
      return fmi2Error;
    }
  }
  return fmi2OK;
#endif
}

#ifndef COUPLET_FMU_OMIT_DO_STEP
/* Input values at time t of a co-simulation step: the polynomials around step_start. */
static void inputs_at(const FmuData* data, const FmuModel* model, double t, double u[]) {
  const double dt = t - data->step_start;
  size_t i;
  for (i = 0; i < model->n_inputs; ++i) {
    const double* du = data->du[i];
    u[i] = data->r[model->input_vrs[i]] + dt * (du[0] + dt * (du[1] / 2.0 + dt * du[2] / 6.0));
  }
}

/* One RK4 substep of length h from t, inputs from the step's polynomials. */
static void rk4_substep(FmuData* data, const FmuModel* model, double t, double h) {
  const size_t n = model->n_states;
  double k1[FMU_MAX_STATES], k2[FMU_MAX_STATES], k3[FMU_MAX_STATES], k4[FMU_MAX_STATES];
  double y[FMU_MAX_STATES], u[FMU_MAX_INPUTS];
  size_t i;
  inputs_at(data, model, t, u);
  model->derivatives(data, t, data->x, u, k1);
  inputs_at(data, model, t + h / 2.0, u);
  for (i = 0; i < n; ++i) y[i] = data->x[i] + h / 2.0 * k1[i];
  model->derivatives(data, t + h / 2.0, y, u, k2);
  for (i = 0; i < n; ++i) y[i] = data->x[i] + h / 2.0 * k2[i];
  model->derivatives(data, t + h / 2.0, y, u, k3);
  inputs_at(data, model, t + h, u);
  for (i = 0; i < n; ++i) y[i] = data->x[i] + h * k3[i];
  model->derivatives(data, t + h, y, u, k4);
  for (i = 0; i < n; ++i) data->x[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
}

/* Integrates one smooth segment [a, b] in equal substeps of at most FMU_MAX_SUBSTEP. */
static void rk4_segment(FmuData* data, const FmuModel* model, double a, double b) {
  const double length = b - a;
  double count = ceil(length / FMU_MAX_SUBSTEP * (1.0 - 1e-12));
  size_t n, k;
  if (model->n_states == 0 || !(length > 0.0)) return;
  if (count < 1.0) count = 1.0;
  n = (size_t)count;
  for (k = 0; k < n; ++k) {
    const double t0 = a + length * (double)k / (double)n;
    const double t1 = k + 1 == n ? b : a + length * (double)(k + 1) / (double)n;
    rk4_substep(data, model, t0, t1 - t0);
  }
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint, fmi2Real communicationStepSize,
                      fmi2Boolean noSetFMUStatePriorToCurrentPoint) {
  FmuInstance* instance = (FmuInstance*)c;
  const FmuModel* model;
  FmuData* data;
  const double tc = currentCommunicationPoint, h = communicationStepSize;
  double t, end;
  fmi2Status status = fmi2OK;
  size_t i;
  (void)noSetFMUStatePriorToCurrentPoint;
  if (instance == NULL) return fmi2Error;
  model = instance->model;
  data = &instance->data;
  if (!of_type(instance, "fmi2DoStep", fmi2CoSimulation) || !in_mode(instance, "fmi2DoStep", MODE(STEP)))
    return fmi2Error;
  if (!isfinite(tc) || !isfinite(h) || !(h > 0.0)) {
    LOG_ERROR(instance, "fmi2DoStep: bad communication point %.17g or step size %.17g", tc, h);
    return fmi2Error;
  }
  if (fabs(tc - data->time) > 1e-9 * fmax(1.0, fabs(data->time))) {
    LOG_ERROR(instance, "fmi2DoStep: communication point %.17g is not the FMU's time %.17g", tc, data->time);
    return fmi2Error;
  }
#ifdef COUPLET_FMU_BASIC
  if (data->first_step == 0.0) {
    data->first_step = h;
  } else if (fabs(h - data->first_step) > 1e-9 * data->first_step) {
    LOG_ERROR(instance,
              "fmi2DoStep: step size %.17g differs from the first step size %.17g "
              "(canHandleVariableCommunicationStepSize=\"false\")",
              h, data->first_step);
    return fmi2Error;
  }
#endif
  if (model->before_step != NULL) {
    status = model->before_step(instance, tc, h);
    if (status != fmi2OK && status != fmi2Warning) return status;
  }

  data->time = tc;
  data->step_start = tc;
  for (i = 0; i < model->n_inputs; ++i) {
    if (!data->du_given[i]) memset(data->du[i], 0, sizeof data->du[i]);
  }
  /* Time events due at the step start (a step starting exactly at one uses the new equations). */
  if (model->event_update != NULL) model->event_update(instance, tc);
  if (stops_at(instance, tc)) return fmi2Discard; /* fmi2Terminated, last successful time tc */
  end = tc + h;
  for (t = tc; t < end;) {
    double segment_end = end;
    if (model->next_time_event != NULL) {
      const double event = model->next_time_event(data, t);
      if (event > t && event < end) segment_end = event;
    }
    rk4_segment(data, model, t, segment_end);
    t = segment_end;
    data->time = t;
    if (model->event_update != NULL) model->event_update(instance, t);
    if (t < end && stops_at(instance, t)) return fmi2Discard; /* stopped inside the step, at t */
  }
  data->time = end;

  /* Move the inputs along their polynomials to the step end; their derivatives
   * serve output derivatives read now, but the next step needs them given again. */
  for (i = 0; i < model->n_inputs; ++i) {
    double* du = data->du[i];
    const fmi2ValueReference vr = model->input_vrs[i];
    data->r[vr] += h * (du[0] + h * (du[1] / 2.0 + h * du[2] / 6.0));
    du[0] += h * (du[1] + h * du[2] / 2.0);
    du[1] += h * du[2];
    data->du_given[i] = 0;
  }
  data->step_start = end;
  return status;
}
#endif

fmi2Status fmi2CancelStep(fmi2Component c) {
  FmuInstance* instance = (FmuInstance*)c;
  if (instance == NULL) return fmi2Error;
  LOG_ERROR(instance, "fmi2CancelStep: not supported (canRunAsynchronuously=\"false\")");
  return fmi2Error;
}

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status* value) {
  (void)s;
  (void)value;
  return c == NULL ? fmi2Error : fmi2Discard;
}

/* fmi2LastSuccessfulTime: the FMU's time (a refused step leaves it at the step start). */
fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real* value) {
  FmuInstance* instance = (FmuInstance*)c;
  if (instance == NULL) return fmi2Error;
  if (s == fmi2LastSuccessfulTime && value != NULL) {
    *value = instance->data.time;
    return fmi2OK;
  }
  return fmi2Discard;
}

fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer* value) {
  (void)s;
  (void)value;
  return c == NULL ? fmi2Error : fmi2Discard;
}

/* fmi2Terminated: the model asked to end the simulation (a step refused for
 * another reason may be retried or the run ended by the importer). */
fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean* value) {
  if (c == NULL) return fmi2Error;
  if (s == fmi2Terminated && value != NULL) {
    *value = ((FmuInstance*)c)->terminated ? fmi2True : fmi2False;
    return fmi2OK;
  }
  return fmi2Discard;
}

fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String* value) {
  (void)s;
  (void)value;
  return c == NULL ? fmi2Error : fmi2Discard;
}
