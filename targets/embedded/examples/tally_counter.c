#include "tally_counter.h"

enum { IN_INCREMENT, IN_ENABLE };
enum { OUT_COUNT, OUT_PHASE, OUT_ODD };
enum { P_PERIOD, P_STOP_COUNT };

static const couplet_output outputs[] = {{"level", NULL, false}};
static const couplet_parameter parameters[] = {{"period", 1.0}, {"stop_count", 0.0}};
static const couplet_discrete_port discrete_inputs[] = {{"increment", NULL, false, 1},
                                                        {"enable", NULL, true, 1}};
static const couplet_discrete_port discrete_outputs[] = {
    {"count", NULL, false, 0}, {"phase", NULL, false, 0}, {"odd", NULL, true, 0}};

static const char* initialize(void* model, couplet_time start, const double* values) {
  tally_counter* tally = (tally_counter*)model;
  const double period_ns = values[P_PERIOD] * COUPLET_TICKS_PER_SECOND;
  if (!(period_ns >= 1.0 && period_ns < 1.0e18)) return "parameter period must be at least 1 ns";
  tally->start = start;
  tally->period = (couplet_time)(period_ns + 0.5);
  tally->ticks = 0;
  tally->count = 0;
  if (!(values[P_STOP_COUNT] >= 0.0 && values[P_STOP_COUNT] < 9.0e18))
    return "parameter stop_count must be at least 0";
  tally->stop_count = (int64_t)values[P_STOP_COUNT];
  return 0;
}

static const char* outputs_now(void* model, couplet_time now, const couplet_polynomial* in,
                               double* values) {
  const tally_counter* tally = (const tally_counter*)model;
  (void)now;
  (void)in;
  values[0] = (double)tally->count / 2.0;
  return 0;
}

/* Each tick due by the step's end counts with the inputs held over the step. */
static const char* step(void* model, const couplet_step_request* request, double* end_outputs,
                        double* samples) {
  tally_counter* tally = (tally_counter*)model;
  (void)samples;
  while (request->end >= tally->start + (tally->ticks + 1) * tally->period) {
    ++tally->ticks;
    if (request->discrete_inputs[IN_ENABLE]) tally->count += request->discrete_inputs[IN_INCREMENT];
  }
  end_outputs[0] = (double)tally->count / 2.0;
  return 0;
}

static const char* discrete_outputs_now(void* model, couplet_time now, int64_t* values) {
  const tally_counter* tally = (const tally_counter*)model;
  (void)now;
  values[OUT_COUNT] = tally->count;
  values[OUT_PHASE] = tally->count < 10 ? 1 : 2;
  values[OUT_ODD] = tally->count % 2 != 0;
  return 0;
}

/* With stop_count > 0, the counter ends the simulation once count reaches it. */
static bool stop_requested(void* model, couplet_time now, const char** reason) {
  const tally_counter* tally = (const tally_counter*)model;
  (void)now;
  *reason = "count reached stop_count";
  return tally->stop_count > 0 && tally->count >= tally->stop_count;
}

const couplet_description tally_counter_description = {
    .name = "tally",
    .inputs = NULL,
    .input_count = 0,
    .outputs = outputs,
    .output_count = 1,
    .parameters = parameters,
    .parameter_count = 2,
    .input_degree = 0,
    .output_derivative_order = 0,
    .sample_period = 0,
    .intermediate_samples = false,
    .discrete_inputs = discrete_inputs,
    .discrete_input_count = 2,
    .discrete_outputs = discrete_outputs,
    .discrete_output_count = 3,
};

const couplet_callbacks tally_counter_callbacks = {
    .initialize = initialize,
    .outputs = outputs_now,
    .step = step,
    .discrete_outputs = discrete_outputs_now,
    .stop_requested = stop_requested,
};
