/* A tally counter with Integer and Boolean ports (co-simulation, or model
 * exchange when built with TALLY_MODEL_EXCHANGE: tally_me): at every
 * whole `period` after the start, while the Boolean input `enable` is true,
 * the Integer output `count` grows by the Integer input `increment`. Outputs:
 * `count`, the Boolean `odd` (count is odd), the Enumeration `phase` (1 low
 * while count < 10, 2 high) and the Real `level` = count / 2. Integer and
 * Boolean value references are counted per type, as FMI 2.0 allows. */
#include "fmu_common.h"

/* Real value references = order in tally.xml.in. */
enum { VR_LEVEL, VR_PERIOD, N_REALS };
/* Integer (and Enumeration) value references. */
enum { VR_INCREMENT, VR_COUNT, VR_PHASE };
/* Boolean value references. */
enum { VR_ENABLE, VR_ODD };

static const FmuVariable variables[N_REALS] = {
    [VR_LEVEL] = {"level", FMU_COMPUTED, 0.0},
    [VR_PERIOD] = {"period", FMU_PARAMETER, 1.0},
};

#define TICKS(data) ((data)->discrete[0])
#define COUNT(data) ((data)->discrete[1])
#define INCREMENT(data) ((data)->integers[0])
#define ENABLE(data) ((data)->booleans[0])

static void initialize(FmuData* data) {
  TICKS(data) = 0;
  COUNT(data) = 0;
}

static double computed(const FmuData* data, fmi2ValueReference vr) {
  return vr == VR_LEVEL ? COUNT(data) / 2.0 : 0.0;
}

static double next_time_event(const FmuData* data, double t) {
  (void)t;
  return data->start_time + (TICKS(data) + 1) * data->r[VR_PERIOD];
}

/* Each tick due counts with the inputs held at that time. */
static int event_update(FmuInstance* instance, double t) {
  FmuData* data = &instance->data;
  while (t >= data->start_time + (TICKS(data) + 1) * data->r[VR_PERIOD]) {
    ++TICKS(data);
    if (ENABLE(data)) COUNT(data) += INCREMENT(data);
  }
  return 0;
}

static int get_integer(const FmuData* data, fmi2ValueReference vr, fmi2Integer* value) {
  switch (vr) {
    case VR_INCREMENT: *value = INCREMENT(data); return 0;
    case VR_COUNT: *value = COUNT(data); return 0;
    case VR_PHASE: *value = COUNT(data) < 10 ? 1 : 2; return 0;
    default: return 1;
  }
}

static int set_integer(FmuData* data, fmi2ValueReference vr, fmi2Integer value) {
  if (vr != VR_INCREMENT) return 1;
  INCREMENT(data) = value;
  return 0;
}

static int get_boolean(const FmuData* data, fmi2ValueReference vr, fmi2Boolean* value) {
  switch (vr) {
    case VR_ENABLE: *value = ENABLE(data); return 0;
    case VR_ODD: *value = COUNT(data) % 2 != 0 ? fmi2True : fmi2False; return 0;
    default: return 1;
  }
}

static int set_boolean(FmuData* data, fmi2ValueReference vr, fmi2Boolean value) {
  if (vr != VR_ENABLE) return 1;
  ENABLE(data) = value;
  return 0;
}

static const char* check_parameters(const FmuData* data) {
  return data->r[VR_PERIOD] > 0.0 ? NULL : "parameter period must be > 0";
}

const FmuModel fmu_model = {
    .name = FMU_MODEL_NAME,
#ifdef TALLY_MODEL_EXCHANGE
    .offers_co_simulation = 0,
    .offers_model_exchange = 1,
#else
    .offers_co_simulation = 1,
    .offers_model_exchange = 0,
#endif
    .n_reals = N_REALS,
    .variables = variables,
    .n_states = 0,
    .n_event_indicators = 0,
    .n_inputs = 0,
    .input_vrs = NULL,
    .max_output_derivative_order = 0,
    .initialize = initialize,
    .computed = computed,
    .next_time_event = next_time_event,
    .event_update = event_update,
    .check_parameters = check_parameters,
    .get_integer = get_integer,
    .set_integer = set_integer,
    .get_boolean = get_boolean,
    .set_boolean = set_boolean,
    .integer_starts = {1, 0},
    .boolean_starts = {fmi2True, fmi2False},
};
