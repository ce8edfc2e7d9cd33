/* A counter that ends the simulation itself (co-simulation and model
 * exchange): output count = the whole periods elapsed since the start,
 * counted at time events every `period`; output x = the time since the start
 * (a state, x' = 1); input u stored and unused. At t >= stop_time the model
 * asks to end the simulation: in model exchange fmi2NewDiscreteStates sets
 * terminateSimulation at the time event stop_time; in co-simulation
 * fmi2DoStep stops there and returns fmi2Discard, fmi2Terminated true and
 * fmi2LastSuccessfulTime = stop_time. */
#include <math.h>

#include "fmu_common.h"

/* Value references = order in stopping.xml.in. */
enum { VR_U, VR_COUNT, VR_X, VR_DER_X, VR_PERIOD, VR_STOP_TIME, N_REALS };

static const FmuVariable variables[N_REALS] = {
    [VR_U] = {"u", FMU_INPUT, 0.0},
    [VR_COUNT] = {"count", FMU_COMPUTED, 0.0},
    [VR_X] = {"x", FMU_COMPUTED, 0.0},
    [VR_DER_X] = {"der(x)", FMU_COMPUTED, 0.0},
    [VR_PERIOD] = {"period", FMU_PARAMETER, 1.0},
    [VR_STOP_TIME] = {"stop_time", FMU_PARAMETER, 9.0},
};

static const fmi2ValueReference input_vrs[] = {VR_U};

#define COUNT(data) ((data)->discrete[0])

static void initialize(FmuData* data) {
  data->x[0] = 0.0;
  COUNT(data) = 0;
}

static void derivatives(const FmuData* data, double t, const double x[], const double u[], double dxdt[]) {
  (void)data;
  (void)t;
  (void)x;
  (void)u;
  dxdt[0] = 1.0;
}

static double computed(const FmuData* data, fmi2ValueReference vr) {
  switch (vr) {
    case VR_COUNT: return (double)COUNT(data);
    case VR_X: return data->x[0];
    case VR_DER_X: return 1.0;
    default: return 0.0;
  }
}

/* The tick after t, or the stop time when it comes first. */
static double next_time_event(const FmuData* data, double t) {
  const double period = data->r[VR_PERIOD];
  const double tick = data->start_time + (COUNT(data) + 1) * period;
  const double stop = data->r[VR_STOP_TIME];
  (void)t;
  return stop > t && stop < tick ? stop : tick;
}

static int event_update(FmuInstance* instance, double t) {
  FmuData* data = &instance->data;
  while (t >= data->start_time + (COUNT(data) + 1) * data->r[VR_PERIOD]) ++COUNT(data);
  return 0;
}

static int stop_requested(const FmuData* data, double t) { return t >= data->r[VR_STOP_TIME]; }

static const char* check_parameters(const FmuData* data) {
  return data->r[VR_PERIOD] > 0.0 ? NULL : "parameter period must be > 0";
}

const FmuModel fmu_model = {
    .name = FMU_MODEL_NAME,
    .offers_co_simulation = 1,
    .offers_model_exchange = 1,
    .n_reals = N_REALS,
    .variables = variables,
    .n_states = 1,
    .n_event_indicators = 0,
    .n_inputs = 1,
    .input_vrs = input_vrs,
    .max_output_derivative_order = 0,
    .initialize = initialize,
    .derivatives = derivatives,
    .computed = computed,
    .next_time_event = next_time_event,
    .event_update = event_update,
    .stop_requested = stop_requested,
    .check_parameters = check_parameters,
};
