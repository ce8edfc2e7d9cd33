/* Fault fixtures for the importer's error paths (co-simulation only): one
 * Real output y = time, one Real input u (stored, unused), parameters
 * fail_time (default 1e300) and fail_status (default 3 = fmi2Error; 2 =
 * fmi2Discard, 1 = fmi2Warning, 4 = fmi2Fatal; 6 = abort() the process: a
 * crash, for `couplet test`; 7 = a segmentation fault (a write through a null
 * pointer); 8 = hang (never return: an endless loop that sleeps); 9 =
 * exit(3); other values mean 3). 7 to 9 are the faults an isolated FMU must
 * survive (docs/fmi.md, "Isolated FMUs").
 *   faulty          fmi2DoStep refuses with fail_status, after logging why,
 *                   once the step end exceeds fail_time (fmi2Warning: the
 *                   step is done and returns fmi2Warning)
 *   null_instance   COUPLET_FMU_NULL_INSTANCE: fmi2Instantiate logs and returns NULL
 *   missing_symbol  COUPLET_FMU_OMIT_DO_STEP: no fmi2DoStep in the binary
 *   exiting         COUPLET_FMU_EXIT_IN_STEP: fmi2DoStep calls exit(0) once the
 *                   step end exceeds fail_time (an FMU that ends its importer) */
/* nanosleep and struct timespec are POSIX, beyond the C99 the FMUs are built as. */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include "fmu_common.h"

/* Value references = order in faulty.xml.in. */
enum { VR_U, VR_Y, VR_FAIL_TIME, VR_FAIL_STATUS, N_REALS };

static const FmuVariable variables[N_REALS] = {
    [VR_U] = {"u", FMU_INPUT, 0.0},
    [VR_Y] = {"y", FMU_COMPUTED, 0.0},
    [VR_FAIL_TIME] = {"fail_time", FMU_PARAMETER, 1e300},
    [VR_FAIL_STATUS] = {"fail_status", FMU_PARAMETER, 3.0},
};

static const fmi2ValueReference input_vrs[] = {VR_U};

static void initialize(FmuData* data) { (void)data; }

static double computed(const FmuData* data, fmi2ValueReference vr) { return vr == VR_Y ? data->time : 0.0; }

static fmi2Status fail_status(const FmuData* data) {
  const double s = data->r[VR_FAIL_STATUS];
  if (s == 1.0) return fmi2Warning;
  if (s == 2.0) return fmi2Discard;
  if (s == 4.0) return fmi2Fatal;
  return fmi2Error;
}

static fmi2Status before_step(FmuInstance* instance, double tc, double h) {
  const FmuData* data = &instance->data;
  fmi2Status status;
  if (!(tc + h > data->r[VR_FAIL_TIME])) return fmi2OK;
  /* A crash of the importing process (SIGABRT), as a broken FMU may cause. */
  if (data->r[VR_FAIL_STATUS] == 6.0) abort();
  if (data->r[VR_FAIL_STATUS] == 7.0) {
    /* What a wild pointer does; raise() keeps the compiler from proving the
     * write away. */
    volatile int* volatile nowhere = NULL;
    *nowhere = 1;
    raise(SIGSEGV);
  }
  if (data->r[VR_FAIL_STATUS] == 8.0) {
    const struct timespec pause = {0, 10 * 1000 * 1000};
    for (;;) nanosleep(&pause, NULL);
  }
  if (data->r[VR_FAIL_STATUS] == 9.0) exit(3);
#ifdef COUPLET_FMU_EXIT_IN_STEP
  exit(0);
#endif
  status = fail_status(data);
  if (status == fmi2Warning) {
    fmu_log(instance, status, "logStatusWarning", "step to t = %.17g: warning: fail_time %.17g reached", tc + h,
            data->r[VR_FAIL_TIME]);
  } else {
    fmu_log(instance, status, status == fmi2Discard ? "logStatusDiscard" : "logError",
            "step to t = %.17g refused: fail_time reached (fail_time = %.17g)", tc + h, data->r[VR_FAIL_TIME]);
  }
  return status;
}

static const char* check_parameters(const FmuData* data) {
  return isnan(data->r[VR_FAIL_TIME]) ? "parameter fail_time is NaN" : NULL;
}

const FmuModel fmu_model = {
    .name = FMU_MODEL_NAME,
    .offers_co_simulation = 1,
    .offers_model_exchange = 0,
    .n_reals = N_REALS,
    .variables = variables,
    .n_states = 0,
    .n_event_indicators = 0,
    .n_inputs = 1,
    .input_vrs = input_vrs,
    .max_output_derivative_order = 0,
    .initialize = initialize,
    .computed = computed,
    .before_step = before_step,
    .check_parameters = check_parameters,
};
