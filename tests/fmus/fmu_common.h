/* The bookkeeping shared by couplet's test FMUs (FMI 2.0, C99, FMI API only).
 *
 * fmu_common.c implements every fmi2 function once: instance life cycle and
 * modes, value references, logging, input polynomials, the RK4 co-simulation
 * step split at time events, FMU states, the model-exchange calls. A model
 * file (switch_left.c, switch_right.c, bouncing_ball.c, faulty.c) supplies
 * only its equations through one `FmuModel` named `fmu_model`.
 *
 * Value references: every variable of these FMUs is a Real and its value
 * reference is its 0-based position in modelDescription.xml, so the
 * ScalarVariable index used by <ModelStructure> is value reference + 1.
 *
 * Compile-time switches (set per FMU by tests/fmus/CMakeLists.txt):
 *   COUPLET_FMU_GUID          the GUID string, checked by fmi2Instantiate
 *   COUPLET_FMU_BASIC         fixed communication step, no input or output
 *                             derivatives, no FMU state (fmi2Error, logged)
 *   COUPLET_FMU_NULL_INSTANCE fmi2Instantiate logs a reason and returns NULL
 *   COUPLET_FMU_OMIT_DO_STEP  fmi2DoStep is not defined at all
 *
 * Inputs of a co-simulation step (FMI 2.0 §4.2.1, canInterpolateInputs):
 * input i is the polynomial
 *   u_i(t) = u_i + u_i' (t - tc) + u_i'' (t - tc)^2 / 2 + u_i''' (t - tc)^3 / 6
 * around the communication point tc, with u_i from fmi2SetReal and the
 * derivatives from fmi2SetRealInputDerivatives (orders 1 to 3). Derivatives
 * apply to the next fmi2DoStep only: an input whose derivatives were not given
 * since the previous fmi2DoStep is held constant during the step. After the
 * step, each input value and its derivatives are moved along the polynomial to
 * the step end (so outputs and output derivatives read then are those at the
 * step end, under the extrapolated input); the moved derivatives are dropped
 * when fmi2SetReal sets that input again without giving new derivatives, and
 * are never used for the next step unless given again. */
#ifndef COUPLET_TEST_FMU_COMMON_H
#define COUPLET_TEST_FMU_COMMON_H

#include <stddef.h>

#include "fmi2.h"

#define FMU_EXPORT __attribute__((visibility("default")))

/* The model identifier as a string, for messages (couplet_add_fmu defines
 * COUPLET_FMU_MODEL_IDENTIFIER as a bare identifier). */
#define FMU_STRINGIFY_(x) #x
#define FMU_STRINGIFY(x) FMU_STRINGIFY_(x)
#ifdef COUPLET_FMU_MODEL_IDENTIFIER
#define FMU_MODEL_NAME FMU_STRINGIFY(COUPLET_FMU_MODEL_IDENTIFIER)
#else
#define FMU_MODEL_NAME "fmu"
#endif

#define FMU_MAX_REALS 24
#define FMU_MAX_STATES 2
#define FMU_MAX_INPUTS 2
#define FMU_MAX_INPUT_ORDER 3
#define FMU_MAX_DISCRETE 2

/* What a value reference stands for. */
typedef enum {
  FMU_PARAMETER,  /* causality parameter, variability fixed: settable before fmi2ExitInitializationMode */
  FMU_INPUT,      /* causality input: settable at any time */
  FMU_COMPUTED    /* outputs, states, derivatives: read only, computed by the model */
} FmuVariableKind;

typedef struct {
  const char* name;
  FmuVariableKind kind;
  double start; /* parameters and inputs */
} FmuVariable;

typedef enum {
  FMU_MODE_INSTANTIATED,
  FMU_MODE_INITIALIZATION,
  FMU_MODE_STEP,       /* co-simulation, after fmi2ExitInitializationMode */
  FMU_MODE_EVENT,      /* model exchange */
  FMU_MODE_CONTINUOUS, /* model exchange */
  FMU_MODE_TERMINATED
} FmuMode;

/* Everything an FMU state (fmi2GetFMUstate) saves: plain data, copied whole. */
typedef struct {
  FmuMode mode;
  double start_time;
  double time;                                        /* current time */
  double step_start;                                  /* tc of the input polynomial */
  double r[FMU_MAX_REALS];                            /* parameters and inputs, by value reference */
  double x[FMU_MAX_STATES];                           /* continuous states */
  double du[FMU_MAX_INPUTS][FMU_MAX_INPUT_ORDER];     /* input derivatives, orders 1..3 */
  int du_given[FMU_MAX_INPUTS];                       /* derivatives given since the last fmi2DoStep */
  int discrete[FMU_MAX_DISCRETE];                     /* the model's discrete states */
  fmi2Integer integers[FMU_MAX_DISCRETE];             /* Integer inputs and parameters, by value reference */
  fmi2Boolean booleans[FMU_MAX_DISCRETE];             /* Boolean inputs and parameters, by value reference */
  double first_step;                                  /* COUPLET_FMU_BASIC: the first step size, 0 before */
} FmuData;

typedef struct FmuInstance FmuInstance;

typedef struct {
  const char* name;               /* for messages */
  int offers_co_simulation;
  int offers_model_exchange;
  size_t n_reals;                 /* value references 0 .. n_reals-1 */
  const FmuVariable* variables;   /* n_reals entries */
  size_t n_states;
  size_t n_event_indicators;
  size_t n_inputs;
  const fmi2ValueReference* input_vrs; /* input i has value reference input_vrs[i] */
  int max_output_derivative_order;     /* 0: fmi2GetRealOutputDerivatives refuses */

  /* States and discrete states at data->time from the parameters (data->r). */
  void (*initialize)(FmuData* data);
  /* dx/dt at t for states x and input values u (n_inputs entries). May be NULL when n_states == 0. */
  void (*derivatives)(const FmuData* data, double t, const double x[], const double u[], double dxdt[]);
  /* Value of a FMU_COMPUTED variable at data->time from data->x and the current inputs. */
  double (*computed)(const FmuData* data, fmi2ValueReference vr);
  /* d^order/dt^order of output vr at the current time; returns 0 if vr is not an output. May be NULL. */
  int (*output_derivative)(const FmuData* data, fmi2ValueReference vr, int order, double* value);
  /* The first time event after the discrete update at `t` (+INFINITY: none). May be NULL. */
  double (*next_time_event)(const FmuData* data, double t);
  /* Event update at time t: time events due (t >= their time), state events.
   * Returns nonzero when the continuous states were changed. May be NULL. */
  int (*event_update)(FmuInstance* instance, double t);
  /* Event indicators at the current time. May be NULL when n_event_indicators == 0. */
  void (*event_indicators)(const FmuData* data, double z[]);
  /* Whether the model asks to end the simulation at t, after the event update
   * there (FMI 2.0: terminateSimulation in model exchange; fmi2DoStep stops at
   * t, returns fmi2Discard and fmi2Terminated reads true). May be NULL. */
  int (*stop_requested)(const FmuData* data, double t);
  /* Called by fmi2DoStep after its checks; a status other than fmi2OK or
   * fmi2Warning refuses the step (the hook logs why). May be NULL. */
  fmi2Status (*before_step)(FmuInstance* instance, double tc, double h);
  /* Checked by fmi2ExitInitializationMode: NULL when the parameters are usable,
   * else why not (fmi2Error, logged). May be NULL. */
  const char* (*check_parameters)(const FmuData* data);
  /* Integer (and Enumeration) and Boolean variables, value references counted
   * per type (FMI 2.0 §2.2.7). Each returns 0, or nonzero for a value
   * reference the model lacks or cannot set. May be NULL: none of that type. */
  int (*get_integer)(const FmuData* data, fmi2ValueReference vr, fmi2Integer* value);
  int (*set_integer)(FmuData* data, fmi2ValueReference vr, fmi2Integer value);
  int (*get_boolean)(const FmuData* data, fmi2ValueReference vr, fmi2Boolean* value);
  int (*set_boolean)(FmuData* data, fmi2ValueReference vr, fmi2Boolean value);
  /* Start values of data->integers and data->booleans (zeros when not given). */
  fmi2Integer integer_starts[FMU_MAX_DISCRETE];
  fmi2Boolean boolean_starts[FMU_MAX_DISCRETE];
} FmuModel;

struct FmuInstance {
  FmuData data;
  const FmuModel* model;
  fmi2Type type;
  char* name;
  fmi2CallbackLogger logger;
  fmi2ComponentEnvironment environment;
  int terminated;     /* the model asked to end the simulation (fmi2Terminated) */
  int logging_on;     /* fmi2SetDebugLogging */
  unsigned categories; /* bit mask over fmu_categories */
};

/* Defined by the model file. */
extern const FmuModel fmu_model;

/* Logs through the importer's logger. Errors, discards and warnings are always
 * logged; fmi2OK messages (category "logEvents") only when debug logging is on. */
void fmu_log(const FmuInstance* instance, fmi2Status status, const char* category, const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif /* COUPLET_TEST_FMU_COMMON_H */
