/* The left mass of the two-mass switch (models/translational.cpp,
 * translational.mass) as an FMU: states x, v; input f; outputs x, v;
 *   m v' = -c x - d v + f.
 * Co-simulation and model exchange in one binary; built also as
 * switch_left_basic (COUPLET_FMU_BASIC: co-simulation at a fixed step). */
#include "fmu_common.h"

/* Value references = order in switch_left.xml.in. */
enum { VR_F, VR_X, VR_V, VR_DER_X, VR_DER_V, VR_M, VR_C, VR_D, VR_X0, VR_V0, N_REALS };

static const FmuVariable variables[N_REALS] = {
    [VR_F] = {"f", FMU_INPUT, 0.0},
    [VR_X] = {"x", FMU_COMPUTED, 0.0},
    [VR_V] = {"v", FMU_COMPUTED, 0.0},
    [VR_DER_X] = {"der(x)", FMU_COMPUTED, 0.0},
    [VR_DER_V] = {"der(v)", FMU_COMPUTED, 0.0},
    [VR_M] = {"m", FMU_PARAMETER, 10.0},
    [VR_C] = {"c", FMU_PARAMETER, 1.0},
    [VR_D] = {"d", FMU_PARAMETER, 0.1},
    [VR_X0] = {"x0", FMU_PARAMETER, 1.0},
    [VR_V0] = {"v0", FMU_PARAMETER, 0.0},
};

static const fmi2ValueReference input_vrs[] = {VR_F};

static double acceleration(const FmuData* data, double x, double v, double f) {
  const double* r = data->r;
  return (-r[VR_C] * x - r[VR_D] * v + f) / r[VR_M];
}

static void initialize(FmuData* data) {
  data->x[0] = data->r[VR_X0];
  data->x[1] = data->r[VR_V0];
}

static void derivatives(const FmuData* data, double t, const double x[], const double u[], double dxdt[]) {
  (void)t;
  dxdt[0] = x[1];
  dxdt[1] = acceleration(data, x[0], x[1], u[0]);
}

static double computed(const FmuData* data, fmi2ValueReference vr) {
  switch (vr) {
    case VR_X: return data->x[0];
    case VR_V:
    case VR_DER_X: return data->x[1];
    case VR_DER_V: return acceleration(data, data->x[0], data->x[1], data->r[VR_F]);
    default: return 0.0;
  }
}

/* x' = v, x'' = a, v' = a, v'' = (-c v - d a + f') / m, with f' the input's first derivative. */
static int output_derivative(const FmuData* data, fmi2ValueReference vr, int order, double* value) {
  const double* r = data->r;
  const double a = acceleration(data, data->x[0], data->x[1], r[VR_F]);
  if (vr == VR_X) {
    *value = order == 1 ? data->x[1] : a;
    return 1;
  }
  if (vr == VR_V) {
    *value = order == 1 ? a : (-r[VR_C] * data->x[1] - r[VR_D] * a + data->du[0][0]) / r[VR_M];
    return 1;
  }
  return 0;
}

static const char* check_parameters(const FmuData* data) {
  return data->r[VR_M] > 0.0 ? NULL : "parameter m must be > 0";
}

const FmuModel fmu_model = {
    .name = FMU_MODEL_NAME,
    .offers_co_simulation = 1,
#ifdef COUPLET_FMU_BASIC
    .offers_model_exchange = 0,
    .max_output_derivative_order = 0,
#else
    .offers_model_exchange = 1,
    .max_output_derivative_order = 2,
#endif
    .n_reals = N_REALS,
    .variables = variables,
    .n_states = 2,
    .n_event_indicators = 0,
    .n_inputs = 1,
    .input_vrs = input_vrs,
    .initialize = initialize,
    .derivatives = derivatives,
    .computed = computed,
    .output_derivative = output_derivative,
    .check_parameters = check_parameters,
};
