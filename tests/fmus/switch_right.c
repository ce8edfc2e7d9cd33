/* The right ("coupled") mass of the two-mass switch (models/translational.cpp,
 * translational.coupled_mass) as an FMU. Inputs x, v: the LEFT mass's position
 * and velocity; states position, velocity; output the coupling force on the
 * left mass (direct feedthrough):
 *   f = c_coupling (position - x) + d_coupling (velocity - v)
 *   m velocity' = -c_wall(t) (position - anchor(t)) - d_wall velocity - f
 * From t = switch_time on (a time event) the wall stiffness is c_wall_after and
 * the anchor anchor_after (0 before). Co-simulation splits its integration
 * exactly there; model exchange announces it as nextEventTime and switches in
 * fmi2NewDiscreteStates (the discrete state `switched`). Co-simulation and
 * model exchange in one binary; built also as switch_right_basic
 * (COUPLET_FMU_BASIC: co-simulation at a fixed step). */
#include <math.h>

#include "fmu_common.h"

/* Value references = order in switch_right.xml.in. */
enum {
  VR_X,
  VR_V,
  VR_F,
  VR_POSITION,
  VR_VELOCITY,
  VR_DER_POSITION,
  VR_DER_VELOCITY,
  VR_M,
  VR_C_WALL,
  VR_D_WALL,
  VR_C_COUPLING,
  VR_D_COUPLING,
  VR_X0,
  VR_V0,
  VR_SWITCH_TIME,
  VR_C_WALL_AFTER,
  VR_ANCHOR_AFTER,
  N_REALS
};

static const FmuVariable variables[N_REALS] = {
    [VR_X] = {"x", FMU_INPUT, 0.0},
    [VR_V] = {"v", FMU_INPUT, 0.0},
    [VR_F] = {"f", FMU_COMPUTED, 0.0},
    [VR_POSITION] = {"position", FMU_COMPUTED, 0.0},
    [VR_VELOCITY] = {"velocity", FMU_COMPUTED, 0.0},
    [VR_DER_POSITION] = {"der(position)", FMU_COMPUTED, 0.0},
    [VR_DER_VELOCITY] = {"der(velocity)", FMU_COMPUTED, 0.0},
    [VR_M] = {"m", FMU_PARAMETER, 1.0},
    [VR_C_WALL] = {"c_wall", FMU_PARAMETER, 1.0},
    [VR_D_WALL] = {"d_wall", FMU_PARAMETER, 0.1},
    [VR_C_COUPLING] = {"c_coupling", FMU_PARAMETER, 1.0},
    [VR_D_COUPLING] = {"d_coupling", FMU_PARAMETER, 0.2},
    [VR_X0] = {"x0", FMU_PARAMETER, 0.0},
    [VR_V0] = {"v0", FMU_PARAMETER, 0.0},
    [VR_SWITCH_TIME] = {"switch_time", FMU_PARAMETER, 100.0},
    [VR_C_WALL_AFTER] = {"c_wall_after", FMU_PARAMETER, 4.0},
    [VR_ANCHOR_AFTER] = {"anchor_after", FMU_PARAMETER, 1.0},
};

static const fmi2ValueReference input_vrs[] = {VR_X, VR_V};

#define SWITCHED(data) ((data)->discrete[0])

static double force(const FmuData* data, double position, double velocity, double x_in, double v_in) {
  return data->r[VR_C_COUPLING] * (position - x_in) + data->r[VR_D_COUPLING] * (velocity - v_in);
}

/* The wall of the current segment: before or after the switch. */
static double acceleration(const FmuData* data, double position, double velocity, double f) {
  const double* r = data->r;
  const double wall_stiffness = SWITCHED(data) ? r[VR_C_WALL_AFTER] : r[VR_C_WALL];
  const double anchor = SWITCHED(data) ? r[VR_ANCHOR_AFTER] : 0.0;
  return (-wall_stiffness * (position - anchor) - r[VR_D_WALL] * velocity - f) / r[VR_M];
}

static void initialize(FmuData* data) {
  data->x[0] = data->r[VR_X0];
  data->x[1] = data->r[VR_V0];
  SWITCHED(data) = data->time >= data->r[VR_SWITCH_TIME];
}

static void derivatives(const FmuData* data, double t, const double x[], const double u[], double dxdt[]) {
  (void)t;
  dxdt[0] = x[1];
  dxdt[1] = acceleration(data, x[0], x[1], force(data, x[0], x[1], u[0], u[1]));
}

static double current_force(const FmuData* data) {
  return force(data, data->x[0], data->x[1], data->r[VR_X], data->r[VR_V]);
}

static double computed(const FmuData* data, fmi2ValueReference vr) {
  switch (vr) {
    case VR_F: return current_force(data);
    case VR_POSITION: return data->x[0];
    case VR_VELOCITY:
    case VR_DER_POSITION: return data->x[1];
    case VR_DER_VELOCITY: return acceleration(data, data->x[0], data->x[1], current_force(data));
    default: return 0.0;
  }
}

/* f' = c_c (velocity - x') + d_c (a - v'),  f'' = c_c (a - x'') + d_c (a' - v''),
 * a = velocity', a' = (-c_wall velocity - d_wall a - f') / m (anchor constant
 * within a segment); x', x'', v', v'' are the inputs' derivatives. */
static int output_derivative(const FmuData* data, fmi2ValueReference vr, int order, double* value) {
  const double* r = data->r;
  const double* dx_in = data->du[0];
  const double* dv_in = data->du[1];
  const double f = current_force(data);
  const double a = acceleration(data, data->x[0], data->x[1], f);
  const double df = r[VR_C_COUPLING] * (data->x[1] - dx_in[0]) + r[VR_D_COUPLING] * (a - dv_in[0]);
  const double wall_stiffness = SWITCHED(data) ? r[VR_C_WALL_AFTER] : r[VR_C_WALL];
  const double da = (-wall_stiffness * data->x[1] - r[VR_D_WALL] * a - df) / r[VR_M];
  if (vr != VR_F) return 0;
  *value = order == 1 ? df : r[VR_C_COUPLING] * (a - dx_in[1]) + r[VR_D_COUPLING] * (da - dv_in[1]);
  return 1;
}

static double next_time_event(const FmuData* data, double t) {
  (void)t;
  return SWITCHED(data) ? INFINITY : data->r[VR_SWITCH_TIME];
}

static int event_update(FmuInstance* instance, double t) {
  FmuData* data = &instance->data;
  if (!SWITCHED(data) && t >= data->r[VR_SWITCH_TIME]) {
    SWITCHED(data) = 1;
    fmu_log(instance, fmi2OK, "logEvents", "t = %.17g: time event, wall stiffness %g, anchor %g from now on", t,
            data->r[VR_C_WALL_AFTER], data->r[VR_ANCHOR_AFTER]);
  }
  return 0;
}

static const char* check_parameters(const FmuData* data) {
  if (!(data->r[VR_M] > 0.0)) return "parameter m must be > 0";
  if (!isfinite(data->r[VR_SWITCH_TIME])) return "parameter switch_time must be finite";
  return NULL;
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
    .n_inputs = 2,
    .input_vrs = input_vrs,
    .initialize = initialize,
    .derivatives = derivatives,
    .computed = computed,
    .output_derivative = output_derivative,
    .next_time_event = next_time_event,
    .event_update = event_update,
    .check_parameters = check_parameters,
};
