#include "translational_mass.h"

enum { IN_F };
enum { OUT_X, OUT_V, OUTPUTS };
enum { P_M, P_C, P_D, P_X0, P_V0, P_SUBSTEPS };

static const couplet_input inputs[] = {{"f", "N", 0.0}};
static const couplet_output outputs[] = {{"x", "m", false}, {"v", "m/s", false}};
static const couplet_parameter parameters[] = {
    {"m", 10.0}, {"c", 1.0}, {"d", 0.1}, {"x0", 1.0}, {"v0", 0.0}, {"substeps", 1.0}};

/* v' = A_vx x + A_vv v + B_v f with A_vx = -c/m, A_vv = -d/m, B_v = 1/m: the
 * terms in the order in which the host's linear model sums A x + B u. */
static double acceleration(const translational_mass* mass, double x, double v, double f) {
  return ((-mass->c / mass->m) * x + (-mass->d / mass->m) * v) + (1.0 / mass->m) * f;
}

static const char* initialize(void* model, couplet_time start, const double* values) {
  translational_mass* mass = (translational_mass*)model;
  (void)start;
  if (!(values[P_M] > 0.0)) return "parameter m must be > 0";
  if (!(values[P_SUBSTEPS] >= 1.0 && values[P_SUBSTEPS] <= 1000000.0) ||
      values[P_SUBSTEPS] != (double)(unsigned)values[P_SUBSTEPS])
    return "parameter substeps must be a whole number from 1 to 10^6";
  mass->m = values[P_M];
  mass->c = values[P_C];
  mass->d = values[P_D];
  mass->substeps = (unsigned)values[P_SUBSTEPS];
  mass->x = values[P_X0];
  mass->v = values[P_V0];
  return 0;
}

/* Outputs x, v; their derivatives x' = v, v' = a(f(now)). */
static void write_outputs(const translational_mass* mass, double f, double* values) {
  values[OUT_X] = mass->x;
  values[OUT_V] = mass->v;
  values[OUTPUTS + OUT_X] = mass->v;
  values[OUTPUTS + OUT_V] = acceleration(mass, mass->x, mass->v, f);
}

static const char* outputs_now(void* model, couplet_time now, const couplet_polynomial* in,
                               double* values) {
  const translational_mass* mass = (const translational_mass*)model;
  write_outputs(mass, couplet_polynomial_value(&in[IN_F], couplet_seconds(now)), values);
  return 0;
}

/* x_{j+1} = x_j + h f(t_j, x_j, u(t_j)): the input taken at each substep's
 * start; a sample at s inside (t_j, t_{j+1}] lies on the polygon,
 * x_j + (s - t_j) f_j. */
static const char* step(void* model, const couplet_step_request* request, double* end_outputs,
                        double* samples) {
  translational_mass* mass = (translational_mass*)model;
  const double start = couplet_seconds(request->start);
  const double end = couplet_seconds(request->end);
  const double length = end - start;
  const unsigned count = mass->substeps;
  const double substep = length / (double)count;
  size_t next_sample = 0;
  unsigned j;
  for (j = 0; j < count; ++j) {
    const double substep_start = start + (double)j * substep;
    const double substep_end = j + 1 == count ? end : start + (double)(j + 1) * substep;
    const double f = couplet_polynomial_value(&request->inputs[IN_F], substep_start);
    const double slope_x = mass->v;
    const double slope_v = acceleration(mass, mass->x, mass->v, f);
    if (!(slope_v - slope_v == 0.0)) return "the acceleration is not finite";
    for (; next_sample < request->sample_count; ++next_sample) {
      const double sample_time = couplet_seconds(request->sample_times[next_sample]);
      const double h = sample_time - substep_start;
      if (sample_time > substep_end) break;
      samples[next_sample * OUTPUTS + OUT_X] = mass->x + h * slope_x;
      samples[next_sample * OUTPUTS + OUT_V] = mass->v + h * slope_v;
    }
    mass->x = mass->x + (substep_end - substep_start) * slope_x;
    mass->v = mass->v + (substep_end - substep_start) * slope_v;
  }
  write_outputs(mass, couplet_polynomial_value(&request->inputs[IN_F], end), end_outputs);
  return 0;
}

const couplet_description translational_mass_description = {
    .name = "translational_mass",
    .inputs = inputs,
    .input_count = sizeof inputs / sizeof inputs[0],
    .outputs = outputs,
    .output_count = OUTPUTS,
    .parameters = parameters,
    .parameter_count = sizeof parameters / sizeof parameters[0],
    .input_degree = 3,
    .output_derivative_order = 1,
    .sample_period = 0,
    .intermediate_samples = true,
};

const couplet_callbacks translational_mass_callbacks = {
    .initialize = initialize,
    .outputs = outputs_now,
    .step = step,
};
