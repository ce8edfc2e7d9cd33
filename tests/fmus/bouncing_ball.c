/* A bouncing ball (model exchange only): states h, v, both outputs;
 *   h' = v, v' = -g;
 * event indicator z = h. When z crosses zero from above the importer calls
 * fmi2EnterEventMode and fmi2NewDiscreteStates: then v = -e v and h = 0 if
 * h < 0. A bounce that leaves the ball slower than v_min ends the bouncing
 * (v = 0, the ball rests: h' = v' = 0, z = 1), so that a run past the limit
 * point of the bounce times (about 2.56 s with the defaults) does not stall on
 * ever closer events; v_min = 0 gives the pure model. */
#include "fmu_common.h"

/* Value references = order in bouncing_ball.xml.in. */
enum { VR_H, VR_V, VR_DER_H, VR_DER_V, VR_G, VR_E, VR_H0, VR_V0, VR_V_MIN, N_REALS };

static const FmuVariable variables[N_REALS] = {
    [VR_H] = {"h", FMU_COMPUTED, 0.0},
    [VR_V] = {"v", FMU_COMPUTED, 0.0},
    [VR_DER_H] = {"der(h)", FMU_COMPUTED, 0.0},
    [VR_DER_V] = {"der(v)", FMU_COMPUTED, 0.0},
    [VR_G] = {"g", FMU_PARAMETER, 9.81},
    [VR_E] = {"e", FMU_PARAMETER, 0.7},
    [VR_H0] = {"h0", FMU_PARAMETER, 1.0},
    [VR_V0] = {"v0", FMU_PARAMETER, 0.0},
    [VR_V_MIN] = {"v_min", FMU_PARAMETER, 0.1},
};

#define RESTING(data) ((data)->discrete[0])

static void initialize(FmuData* data) {
  data->x[0] = data->r[VR_H0];
  data->x[1] = data->r[VR_V0];
  RESTING(data) = 0;
}

static void derivatives(const FmuData* data, double t, const double x[], const double u[], double dxdt[]) {
  (void)t;
  (void)u;
  dxdt[0] = RESTING(data) ? 0.0 : x[1];
  dxdt[1] = RESTING(data) ? 0.0 : -data->r[VR_G];
}

static double computed(const FmuData* data, fmi2ValueReference vr) {
  switch (vr) {
    case VR_H: return data->x[0];
    case VR_V: return data->x[1];
    case VR_DER_H: return RESTING(data) ? 0.0 : data->x[1];
    case VR_DER_V: return RESTING(data) ? 0.0 : -data->r[VR_G];
    default: return 0.0;
  }
}

static void event_indicators(const FmuData* data, double z[]) { z[0] = RESTING(data) ? 1.0 : data->x[0]; }

static int event_update(FmuInstance* instance, double t) {
  FmuData* data = &instance->data;
  if (RESTING(data) || !(data->x[0] <= 0.0 && data->x[1] < 0.0)) return 0;
  if (data->x[0] < 0.0) data->x[0] = 0.0;
  data->x[1] = -data->r[VR_E] * data->x[1];
  if (data->x[1] < data->r[VR_V_MIN]) {
    data->x[1] = 0.0;
    RESTING(data) = 1;
  }
  fmu_log(instance, fmi2OK, "logEvents", "t = %.17g: bounce, v = %g%s", t, data->x[1],
          RESTING(data) ? " (the ball rests)" : "");
  return 1;
}

static const char* check_parameters(const FmuData* data) {
  if (!(data->r[VR_E] >= 0.0 && data->r[VR_E] <= 1.0)) return "parameter e must be in [0, 1]";
  if (!(data->r[VR_V_MIN] >= 0.0)) return "parameter v_min must be >= 0";
  return NULL;
}

const FmuModel fmu_model = {
    .name = FMU_MODEL_NAME,
    .offers_co_simulation = 0,
    .offers_model_exchange = 1,
    .n_reals = N_REALS,
    .variables = variables,
    .n_states = 2,
    .n_event_indicators = 1,
    .n_inputs = 0,
    .input_vrs = NULL,
    .max_output_derivative_order = 0,
    .initialize = initialize,
    .derivatives = derivatives,
    .computed = computed,
    .event_update = event_update,
    .event_indicators = event_indicators,
    .check_parameters = check_parameters,
};
