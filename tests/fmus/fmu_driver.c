/* A hand-run check of the test FMUs' binaries (not part of ctest): dlopens
 * the .so files from the build folder (paths and modelDescription.xml given
 * by tests/fmus/CMakeLists.txt as FMU_SO_<NAME>, FMU_XML_<NAME>) and checks
 *   - co-simulation Jacobi of switch_left/switch_right to t = 200, step 0.01
 *     and 0.001, against a monolithic RK4 reference of the same equations;
 *     with extrapolated inputs (input/output derivatives); the basic variants
 *     at their fixed step, bit for bit against the advanced ones;
 *   - FMU states: a re-run after fmi2SetFMUstate is bit-identical;
 *   - output derivatives against finite differences of the step result;
 *   - model exchange of the pair with the time event at switch_time;
 *   - the bouncing ball's bounces, located on its event indicator;
 *   - the fault fixtures and the refusals (GUID, fmuType, step size, ...).
 * Prints one line per check; exit status 1 if any failed.
 *   cmake --build <build> --target couplet_fmu_driver && <build>/tests/fmus/couplet_fmu_driver [-v] */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2.h"

static int failures = 0;
static int verbose = 0;

static void check(int ok, const char* format, ...) {
  va_list args;
  va_start(args, format);
  printf("%s ", ok ? "PASS" : "FAIL");
  vprintf(format, args);
  printf("\n");
  va_end(args);
  if (!ok) ++failures;
}

/* ------------------------------------------------------------ loading */

typedef struct {
  void* handle;
  char guid[128];
  fmi2InstantiateTYPE* Instantiate;
  fmi2FreeInstanceTYPE* FreeInstance;
  fmi2SetupExperimentTYPE* SetupExperiment;
  fmi2EnterInitializationModeTYPE* EnterInitializationMode;
  fmi2ExitInitializationModeTYPE* ExitInitializationMode;
  fmi2TerminateTYPE* Terminate;
  fmi2GetRealTYPE* GetReal;
  fmi2SetRealTYPE* SetReal;
  fmi2GetFMUstateTYPE* GetFMUstate;
  fmi2SetFMUstateTYPE* SetFMUstate;
  fmi2FreeFMUstateTYPE* FreeFMUstate;
  fmi2SetRealInputDerivativesTYPE* SetRealInputDerivatives;
  fmi2GetRealOutputDerivativesTYPE* GetRealOutputDerivatives;
  fmi2DoStepTYPE* DoStep;
  fmi2GetRealStatusTYPE* GetRealStatus;
  fmi2EnterEventModeTYPE* EnterEventMode;
  fmi2NewDiscreteStatesTYPE* NewDiscreteStates;
  fmi2EnterContinuousTimeModeTYPE* EnterContinuousTimeMode;
  fmi2SetTimeTYPE* SetTime;
  fmi2SetContinuousStatesTYPE* SetContinuousStates;
  fmi2GetContinuousStatesTYPE* GetContinuousStates;
  fmi2GetDerivativesTYPE* GetDerivatives;
  fmi2GetEventIndicatorsTYPE* GetEventIndicators;
} Api;

/* dlsym's object pointer into a function pointer without a cast ISO C forbids. */
#define RESOLVE(api, name)                                                     \
  do {                                                                         \
    void* symbol = dlsym((api)->handle, "fmi2" #name);                         \
    memcpy(&(api)->name, &symbol, sizeof symbol);                              \
    if (symbol == NULL) fprintf(stderr, "  (%s lacks fmi2%s)\n", so, #name);   \
  } while (0)

static void read_guid(const char* xml, char* guid, size_t size) {
  char text[1 << 16];
  size_t n;
  const char* start;
  const char* end;
  FILE* file = fopen(xml, "rb");
  guid[0] = '\0';
  if (file == NULL) return;
  n = fread(text, 1, sizeof text - 1, file);
  fclose(file);
  text[n] = '\0';
  start = strstr(text, "guid=\"");
  if (start == NULL) return;
  start += 6;
  end = strchr(start, '"');
  if (end == NULL || (size_t)(end - start) >= size) return;
  memcpy(guid, start, (size_t)(end - start));
  guid[end - start] = '\0';
}

static int load(Api* api, const char* so, const char* xml) {
  memset(api, 0, sizeof *api);
  api->handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (api->handle == NULL) {
    fprintf(stderr, "dlopen %s: %s\n", so, dlerror());
    return 0;
  }
  read_guid(xml, api->guid, sizeof api->guid);
  RESOLVE(api, Instantiate);
  RESOLVE(api, FreeInstance);
  RESOLVE(api, SetupExperiment);
  RESOLVE(api, EnterInitializationMode);
  RESOLVE(api, ExitInitializationMode);
  RESOLVE(api, Terminate);
  RESOLVE(api, GetReal);
  RESOLVE(api, SetReal);
  RESOLVE(api, GetFMUstate);
  RESOLVE(api, SetFMUstate);
  RESOLVE(api, FreeFMUstate);
  RESOLVE(api, SetRealInputDerivatives);
  RESOLVE(api, GetRealOutputDerivatives);
  RESOLVE(api, DoStep);
  RESOLVE(api, GetRealStatus);
  RESOLVE(api, EnterEventMode);
  RESOLVE(api, NewDiscreteStates);
  RESOLVE(api, EnterContinuousTimeMode);
  RESOLVE(api, SetTime);
  RESOLVE(api, SetContinuousStates);
  RESOLVE(api, GetContinuousStates);
  RESOLVE(api, GetDerivatives);
  RESOLVE(api, GetEventIndicators);
  return 1;
}

static char last_message[1024];
static fmi2Status last_status;

static void logger(fmi2ComponentEnvironment environment, fmi2String instance, fmi2Status status,
                   fmi2String category, fmi2String message, ...) {
  va_list args;
  (void)environment;
  va_start(args, message);
  vsnprintf(last_message, sizeof last_message, message, args);
  va_end(args);
  last_status = status;
  if (verbose) printf("  [log %s %s status %d] %s\n", instance, category, (int)status, last_message);
}

static const fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};

static fmi2Component instantiate(const Api* api, const char* name, fmi2Type type) {
  return api->Instantiate(name, type, api->guid, "file:///nowhere", &callbacks, fmi2False, fmi2False);
}

/* Instantiated and initialized at t = 0, parameters (vr, value) set before. */
static fmi2Component start(const Api* api, const char* name, fmi2Type type, size_t n, const fmi2ValueReference* vr,
                           const double* value) {
  fmi2Component c = instantiate(api, name, type);
  if (c == NULL) return NULL;
  if (api->SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0) != fmi2OK ||
      api->EnterInitializationMode(c) != fmi2OK || (n > 0 && api->SetReal(c, vr, n, value) != fmi2OK) ||
      api->ExitInitializationMode(c) != fmi2OK) {
    api->FreeInstance(c);
    return NULL;
  }
  return c;
}

static double get1(const Api* api, fmi2Component c, fmi2ValueReference vr) {
  double value = NAN;
  api->GetReal(c, &vr, 1, &value);
  return value;
}

static fmi2Status set1(const Api* api, fmi2Component c, fmi2ValueReference vr, double value) {
  return api->SetReal(c, &vr, 1, &value);
}

/* Value references (tests/fmus/README.md). */
enum { L_F = 0, L_X = 1, L_V = 2 };
enum { R_X = 0, R_V = 1, R_F = 2, R_POSITION = 3, R_VELOCITY = 4 };

/* ------------------------------------------------- monolithic reference */

/* The coupled 4-state system (left x, v; right position, velocity), RK4 at
 * step h (h must divide 100: a step ending at 100 uses the old wall, one
 * starting there the new one, as the FMUs do). */
static void reference_rhs(int switched, const double s[4], double ds[4]) {
  const double f = 1.0 * (s[2] - s[0]) + 0.2 * (s[3] - s[1]);
  const double wall = switched ? 4.0 : 1.0, anchor = switched ? 1.0 : 0.0;
  ds[0] = s[1];
  ds[1] = (-1.0 * s[0] - 0.1 * s[1] + f) / 10.0;
  ds[2] = s[3];
  ds[3] = (-wall * (s[2] - anchor) - 0.1 * s[3] - f) / 1.0;
}

static double reference_left_x(double end, double h) {
  double s[4] = {1.0, 0.0, 0.0, 0.0}, k1[4], k2[4], k3[4], k4[4], y[4];
  const long n = lround(end / h), n_switch = lround(100.0 / h);
  long k;
  int i;
  for (k = 0; k < n; ++k) {
    const int switched = k >= n_switch;
    reference_rhs(switched, s, k1);
    for (i = 0; i < 4; ++i) y[i] = s[i] + h / 2.0 * k1[i];
    reference_rhs(switched, y, k2);
    for (i = 0; i < 4; ++i) y[i] = s[i] + h / 2.0 * k2[i];
    reference_rhs(switched, y, k3);
    for (i = 0; i < 4; ++i) y[i] = s[i] + h * k3[i];
    reference_rhs(switched, y, k4);
    for (i = 0; i < 4; ++i) s[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
  }
  return s[0];
}

/* ------------------------------------------------------ co-simulation */

typedef struct {
  double left_x_end;
  int ok;
} CsRun;

/* Jacobi: outputs at t, inputs held (order 0) or extrapolated with the
 * partners' output derivatives (orders 1, 2), both FMUs step to t + step. */
static CsRun jacobi(const Api* left_api, const Api* right_api, double step, double end, int extrapolate) {
  CsRun run = {NAN, 0};
  fmi2Component left = start(left_api, "left", fmi2CoSimulation, 0, NULL, NULL);
  fmi2Component right = start(right_api, "right", fmi2CoSimulation, 0, NULL, NULL);
  long n = lround(end / step), k;
  if (left == NULL || right == NULL) return run;
  for (k = 0; k < n; ++k) {
    const double t = (double)k * step;
    const fmi2ValueReference left_out[2] = {L_X, L_V}, right_in[2] = {R_X, R_V};
    double xv[2], f;
    left_api->GetReal(left, left_out, 2, xv);
    right_api->SetReal(right, right_in, 2, xv);
    f = get1(right_api, right, R_F);
    if (extrapolate) {
      const fmi2ValueReference lvr[4] = {L_X, L_X, L_V, L_V}, rvr[4] = {R_X, R_X, R_V, R_V};
      const fmi2ValueReference fvr[2] = {R_F, R_F}, lin[2] = {L_F, L_F};
      const fmi2Integer orders[4] = {1, 2, 1, 2};
      double dl[4], df[2];
      if (left_api->GetRealOutputDerivatives(left, lvr, 4, orders, dl) != fmi2OK ||
          right_api->SetRealInputDerivatives(right, rvr, 4, orders, dl) != fmi2OK ||
          right_api->GetRealOutputDerivatives(right, fvr, 2, orders, df) != fmi2OK ||
          left_api->SetRealInputDerivatives(left, lin, 2, orders, df) != fmi2OK)
        goto done;
    }
    set1(left_api, left, L_F, f);
    if (left_api->DoStep(left, t, step, fmi2True) != fmi2OK || right_api->DoStep(right, t, step, fmi2True) != fmi2OK)
      goto done;
  }
  run.left_x_end = get1(left_api, left, L_X);
  run.ok = 1;
done:
  left_api->FreeInstance(left);
  right_api->FreeInstance(right);
  return run;
}

static void co_simulation_checks(const Api* left, const Api* right, const Api* left_basic, const Api* right_basic) {
  const double reference = reference_left_x(200.0, 1e-4);
  const CsRun coarse = jacobi(left, right, 0.01, 200.0, 0);
  const CsRun fine = jacobi(left, right, 0.001, 200.0, 0);
  const CsRun extrapolated = jacobi(left, right, 0.01, 200.0, 1);
  const CsRun advanced_05 = jacobi(left, right, 0.05, 200.0, 0);
  const CsRun basic_05 = jacobi(left_basic, right_basic, 0.05, 200.0, 0);
  printf("  monolithic reference left.x(200) = %.10f\n", reference);
  printf("  Jacobi step 0.01 (hold)          = %.10f  error %.3e\n", coarse.left_x_end,
         coarse.left_x_end - reference);
  printf("  Jacobi step 0.001 (hold)         = %.10f  error %.3e\n", fine.left_x_end, fine.left_x_end - reference);
  printf("  Jacobi step 0.01 (order 2)       = %.10f  error %.3e\n", extrapolated.left_x_end,
         extrapolated.left_x_end - reference);
  check(coarse.ok && fine.ok && extrapolated.ok, "co-simulation runs to t = 200");
  check(fabs(coarse.left_x_end - fine.left_x_end) <= 1e-2 * fabs(fine.left_x_end),
        "left.x(200): step 0.01 vs 0.001 agree within 1e-2 relative (%.3e)",
        fabs(coarse.left_x_end - fine.left_x_end) / fabs(fine.left_x_end));
  check(fabs(fine.left_x_end - reference) < fabs(coarse.left_x_end - reference) / 5.0,
        "Jacobi error shrinks with the step (first order)");
  check(fabs(extrapolated.left_x_end - reference) < fabs(coarse.left_x_end - reference) / 10.0,
        "extrapolated inputs (orders 1, 2) beat holding them");
  check(basic_05.ok && advanced_05.ok && basic_05.left_x_end == advanced_05.left_x_end,
        "basic variants at step 0.05 equal the advanced ones bit for bit (%.10f)", basic_05.left_x_end);
}

/* A re-run from a saved FMU state is bit-identical. */
static void state_checks(const Api* left_api, const Api* right_api) {
  fmi2Component left = start(left_api, "left", fmi2CoSimulation, 0, NULL, NULL);
  fmi2Component right = start(right_api, "right", fmi2CoSimulation, 0, NULL, NULL);
  fmi2FMUstate left_state = NULL, right_state = NULL;
  double first[2] = {0, 0}, second[2] = {0, 0};
  int pass, k, ok = left != NULL && right != NULL;
  double t = 0.0;
  for (k = 0; ok && k < 9990; ++k, t = (double)k * 0.01) { /* to t = 99.9 */
    double xv[2];
    const fmi2ValueReference lo[2] = {L_X, L_V}, ri[2] = {R_X, R_V};
    left_api->GetReal(left, lo, 2, xv);
    right_api->SetReal(right, ri, 2, xv);
    set1(left_api, left, L_F, get1(right_api, right, R_F));
    ok = left_api->DoStep(left, t, 0.01, fmi2False) == fmi2OK && right_api->DoStep(right, t, 0.01, fmi2False) == fmi2OK;
  }
  ok = ok && left_api->GetFMUstate(left, &left_state) == fmi2OK && right_api->GetFMUstate(right, &right_state) == fmi2OK;
  for (pass = 0; ok && pass < 2; ++pass) {
    double* result = pass == 0 ? first : second;
    double tt = t;
    if (pass == 1)
      ok = left_api->SetFMUstate(left, left_state) == fmi2OK && right_api->SetFMUstate(right, right_state) == fmi2OK;
    for (k = 0; ok && k < 7; ++k, tt += 0.03) { /* across the switch at 100 */
      double xv[2];
      const fmi2ValueReference lo[2] = {L_X, L_V}, ri[2] = {R_X, R_V};
      left_api->GetReal(left, lo, 2, xv);
      right_api->SetReal(right, ri, 2, xv);
      set1(left_api, left, L_F, get1(right_api, right, R_F));
      ok = left_api->DoStep(left, tt, 0.03, fmi2False) == fmi2OK &&
           right_api->DoStep(right, tt, 0.03, fmi2False) == fmi2OK;
    }
    result[0] = get1(left_api, left, L_X);
    result[1] = get1(right_api, right, R_POSITION);
  }
  check(ok && first[0] == second[0] && first[1] == second[1],
        "fmi2SetFMUstate: re-run from t = 99.9 across the switch is bit-identical (%.17g, %.17g)", first[0],
        first[1]);
  if (left_state != NULL) left_api->FreeFMUstate(left, &left_state);
  if (right_state != NULL) right_api->FreeFMUstate(right, &right_state);
  check(left_state == NULL, "fmi2FreeFMUstate clears the pointer");
  left_api->FreeInstance(left);
  right_api->FreeInstance(right);
}

/* Output derivatives vs finite differences of step results from one saved state. */
static void derivative_checks(const Api* left_api, const Api* right_api) {
  const fmi2ValueReference lvr[4] = {L_X, L_X, L_V, L_V}, fvr[2] = {R_F, R_F};
  const fmi2ValueReference lin[3] = {L_F, L_F, L_F}, rin[4] = {R_X, R_X, R_V, R_V};
  const fmi2Integer orders[4] = {1, 2, 1, 2}, forders[3] = {1, 2, 3};
  const double fd[3] = {0.2, -0.05, 0.01}, xvd[4] = {0.3, -0.2, 0.1, 0.4};
  const double h = 1e-3;
  double dl[4], df[2], x[3], v[3], f[3];
  fmi2FMUstate state = NULL;
  int i, ok;
  /* Left, standalone: at t = 5 with f = 0.3 and f', f'', f''' given. */
  fmi2Component left = start(left_api, "left", fmi2CoSimulation, 0, NULL, NULL);
  fmi2Component right = start(right_api, "right", fmi2CoSimulation, 0, NULL, NULL);
  ok = left != NULL && right != NULL;
  for (i = 0; ok && i < 50; ++i) ok = left_api->DoStep(left, i * 0.1, 0.1, fmi2False) == fmi2OK;
  ok = ok && set1(left_api, left, L_F, 0.3) == fmi2OK &&
       left_api->SetRealInputDerivatives(left, lin, 3, forders, fd) == fmi2OK &&
       left_api->GetRealOutputDerivatives(left, lvr, 4, orders, dl) == fmi2OK &&
       left_api->GetFMUstate(left, &state) == fmi2OK;
  for (i = 0; ok && i < 3; ++i) {
    ok = left_api->SetFMUstate(left, state) == fmi2OK && (i == 0 || left_api->DoStep(left, 5.0, i * h, fmi2False) == fmi2OK);
    x[i] = get1(left_api, left, L_X);
    v[i] = get1(left_api, left, L_V);
  }
  if (state != NULL) left_api->FreeFMUstate(left, &state);
  {
    const double x1 = (4 * x[1] - x[2] - 3 * x[0]) / (2 * h), x2 = (x[0] - 2 * x[1] + x[2]) / (h * h);
    const double v1 = (4 * v[1] - v[2] - 3 * v[0]) / (2 * h), v2 = (v[0] - 2 * v[1] + v[2]) / (h * h);
    printf("  left  x' %.9f (fd %.9f)  x'' %.9f (fd %.9f)\n", dl[0], x1, dl[1], x2);
    printf("  left  v' %.9f (fd %.9f)  v'' %.9f (fd %.9f)\n", dl[2], v1, dl[3], v2);
    check(ok && fabs(dl[0] - x1) < 1e-6 && fabs(dl[1] - x2) < 1e-3 * (1 + fabs(x2)) && fabs(dl[2] - v1) < 1e-6 &&
              fabs(dl[3] - v2) < 1e-3 * (1 + fabs(v2)),
          "switch_left output derivatives match finite differences");
  }
  /* Right, standalone: at t = 5 with x, v and their derivatives given; and after the switch. */
  {
    int phase;
    for (phase = 0; phase < 2; ++phase) {
      const double t0 = phase == 0 ? 5.0 : 100.0;
      const fmi2ValueReference ri[2] = {R_X, R_V};
      const double xv[2] = {0.5, -0.1};
      const int steps = (int)lround(t0 / 0.1);
      const fmi2ValueReference initial_vr[2] = {12, 13}; /* x0, v0 */
      const double initial[2] = {0.3, -0.2};
      right_api->FreeInstance(right);
      right = start(right_api, "right", fmi2CoSimulation, 2, initial_vr, initial);
      ok = right != NULL;
      for (i = 0; ok && i < steps; ++i) ok = right_api->DoStep(right, i * 0.1, 0.1, fmi2False) == fmi2OK;
      ok = ok && right_api->SetReal(right, ri, 2, xv) == fmi2OK &&
           right_api->SetRealInputDerivatives(right, rin, 4, orders, xvd) == fmi2OK &&
           right_api->GetRealOutputDerivatives(right, fvr, 2, orders, df) == fmi2OK &&
           right_api->GetFMUstate(right, &state) == fmi2OK;
      for (i = 0; ok && i < 3; ++i) {
        ok = right_api->SetFMUstate(right, state) == fmi2OK &&
             (i == 0 || right_api->DoStep(right, t0, i * h, fmi2False) == fmi2OK);
        f[i] = get1(right_api, right, R_F);
      }
      if (state != NULL) right_api->FreeFMUstate(right, &state);
      {
        const double f1 = (4 * f[1] - f[2] - 3 * f[0]) / (2 * h), f2 = (f[0] - 2 * f[1] + f[2]) / (h * h);
        printf("  right f' %.9f (fd %.9f)  f'' %.9f (fd %.9f)  at t = %g\n", df[0], f1, df[1], f2, t0);
        check(ok && fabs(df[0] - f1) < 1e-5 && fabs(df[1] - f2) < 1e-2 * (1 + fabs(f2)),
              "switch_right output derivatives match finite differences at t = %g (f read after the step uses the "
              "extrapolated inputs)",
              t0);
      }
    }
  }
  left_api->FreeInstance(left);
  right_api->FreeInstance(right);
}

/* ----------------------------------------------------- model exchange */

typedef struct {
  const Api *la, *ra;
  fmi2Component l, r;
} MePair;

/* Derivatives of the pair at (t, s = left x, v, right position, velocity). */
static void pair_rhs(const MePair* p, double t, const double s[4], double ds[4]) {
  const fmi2ValueReference lo[2] = {L_X, L_V}, ri[2] = {R_X, R_V};
  double xv[2];
  p->la->SetTime(p->l, t);
  p->ra->SetTime(p->r, t);
  p->la->SetContinuousStates(p->l, s, 2);
  p->ra->SetContinuousStates(p->r, s + 2, 2);
  p->la->GetReal(p->l, lo, 2, xv);
  p->ra->SetReal(p->r, ri, 2, xv);
  set1(p->la, p->l, L_F, get1(p->ra, p->r, R_F));
  p->la->GetDerivatives(p->l, ds, 2);
  p->ra->GetDerivatives(p->r, ds + 2, 2);
}

static void model_exchange_checks(const Api* la, const Api* ra) {
  MePair p = {la, ra, NULL, NULL};
  fmi2EventInfo info;
  double s[4], t = 0.0, next_event;
  const double h = 1e-3, reference = reference_left_x(200.0, 1e-3);
  int ok, events = 0;
  p.l = start(la, "left", fmi2ModelExchange, 0, NULL, NULL);
  p.r = start(ra, "right", fmi2ModelExchange, 0, NULL, NULL);
  ok = p.l != NULL && p.r != NULL;
  ok = ok && la->NewDiscreteStates(p.l, &info) == fmi2OK && !info.nextEventTimeDefined;
  ok = ok && ra->NewDiscreteStates(p.r, &info) == fmi2OK;
  next_event = info.nextEventTimeDefined ? info.nextEventTime : INFINITY;
  check(ok && next_event == 100.0, "ME: switch_right announces nextEventTime = %g after initialization", next_event);
  ok = ok && la->EnterContinuousTimeMode(p.l) == fmi2OK && ra->EnterContinuousTimeMode(p.r) == fmi2OK;
  ok = ok && la->GetContinuousStates(p.l, s, 2) == fmi2OK && ra->GetContinuousStates(p.r, s + 2, 2) == fmi2OK;
  while (ok && t < 200.0 - 1e-9) {
    double k1[4], k2[4], k3[4], k4[4], y[4];
    const double step = fmin(h, fmin(next_event, 200.0) - t);
    int i;
    pair_rhs(&p, t, s, k1);
    for (i = 0; i < 4; ++i) y[i] = s[i] + step / 2 * k1[i];
    pair_rhs(&p, t + step / 2, y, k2);
    for (i = 0; i < 4; ++i) y[i] = s[i] + step / 2 * k2[i];
    pair_rhs(&p, t + step / 2, y, k3);
    for (i = 0; i < 4; ++i) y[i] = s[i] + step * k3[i];
    pair_rhs(&p, t + step, y, k4);
    for (i = 0; i < 4; ++i) s[i] += step / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    t = fabs(t + step - next_event) < 1e-9 ? next_event : t + step;
    if (t == next_event) { /* the time event */
      la->SetTime(p.l, t);
      ra->SetTime(p.r, t);
      la->SetContinuousStates(p.l, s, 2);
      ra->SetContinuousStates(p.r, s + 2, 2);
      ok = la->EnterEventMode(p.l) == fmi2OK && ra->EnterEventMode(p.r) == fmi2OK &&
           ra->NewDiscreteStates(p.r, &info) == fmi2OK && !info.valuesOfContinuousStatesChanged &&
           ra->EnterContinuousTimeMode(p.r) == fmi2OK && la->NewDiscreteStates(p.l, &info) == fmi2OK &&
           la->EnterContinuousTimeMode(p.l) == fmi2OK;
      next_event = INFINITY;
      ++events;
    }
  }
  printf("  ME RK4 h=1e-3 left.x(200) = %.12f, reference (same h) %.12f\n", s[0], reference);
  check(ok && events == 1 && fabs(s[0] - reference) < 1e-9,
        "ME: the pair with the time event at 100 matches the monolithic reference (%.2e)", fabs(s[0] - reference));
  la->FreeInstance(p.l);
  ra->FreeInstance(p.r);
}

/* Bouncing ball: RK4 at 1e-3 (exact for a parabola), bounces located by bisection on z = h. */
static void bouncing_ball_checks(const Api* api) {
  fmi2Component c = start(api, "ball", fmi2ModelExchange, 0, NULL, NULL);
  fmi2EventInfo info;
  double x[2], z, t = 0.0, first_bounce = NAN, v_after = NAN;
  const double h = 1e-3;
  int ok = c != NULL, bounces = 0;
  ok = ok && api->NewDiscreteStates(c, &info) == fmi2OK && !info.nextEventTimeDefined;
  ok = ok && api->EnterContinuousTimeMode(c) == fmi2OK && api->GetContinuousStates(c, x, 2) == fmi2OK;
  while (ok && t < 3.0 - 1e-12) {
    double x_new[2], dx[2];
    /* h' = v, v' = const between events: one Taylor step is exact. */
    api->SetTime(c, t);
    api->SetContinuousStates(c, x, 2);
    api->GetDerivatives(c, dx, 2);
    x_new[0] = x[0] + h * dx[0] + h * h / 2 * dx[1];
    x_new[1] = x[1] + h * dx[1];
    api->SetTime(c, t + h);
    api->SetContinuousStates(c, x_new, 2);
    api->GetEventIndicators(c, &z, 1);
    if (z <= 0.0) { /* crossed: bisect the step for z = 0 */
      double lo = 0.0, hi = h, xe[2];
      int k;
      for (k = 0; k < 60; ++k) {
        const double mid = (lo + hi) / 2;
        xe[0] = x[0] + mid * dx[0] + mid * mid / 2 * dx[1];
        api->SetContinuousStates(c, xe, 2); /* (only h matters for z) */
        api->GetEventIndicators(c, &z, 1);
        if (z > 0.0) lo = mid;
        else hi = mid;
      }
      xe[0] = x[0] + hi * dx[0] + hi * hi / 2 * dx[1];
      xe[1] = x[1] + hi * dx[1];
      t += hi;
      api->SetTime(c, t);
      api->SetContinuousStates(c, xe, 2);
      ok = api->EnterEventMode(c) == fmi2OK && api->NewDiscreteStates(c, &info) == fmi2OK &&
           info.valuesOfContinuousStatesChanged && api->EnterContinuousTimeMode(c) == fmi2OK &&
           api->GetContinuousStates(c, x, 2) == fmi2OK;
      if (bounces++ == 0) {
        first_bounce = t;
        v_after = x[1];
      }
    } else {
      x[0] = x_new[0];
      x[1] = x_new[1];
      t += h;
    }
  }
  printf("  first bounce at t = %.9f (sqrt(2 h0 / g) = %.9f), v after it %.6f; %d bounces to t = 3, h(3) = %g\n",
         first_bounce, sqrt(2.0 / 9.81), v_after, bounces, x[0]);
  check(ok && fabs(first_bounce - sqrt(2.0 / 9.81)) < 1e-9, "bouncing_ball: first bounce at sqrt(2 h0 / g)");
  check(fabs(v_after - 0.7 * sqrt(2.0 * 9.81)) < 1e-6, "bouncing_ball: v = -e v at the bounce");
  check(bounces > 5 && bounces < 20 && x[0] == 0.0 && x[1] == 0.0,
        "bouncing_ball: finitely many bounces, then the ball rests (v_min)");
  api->FreeInstance(c);
}

/* ------------------------------------------------------------- faults */

static void refusal_checks(const Api* left, const Api* left_basic, const Api* faulty, const Api* null_instance,
                           const Api* missing, const Api* ball) {
  fmi2Component c;
  char guid[128];
  fmi2FMUstate state = NULL;
  fmi2Real value;
  const fmi2ValueReference fvr = L_F, fail_vr[2] = {2, 3};
  const fmi2Integer order = 1;
  const double one = 1.0;

  strcpy(guid, left->guid);
  guid[1] = guid[1] == 'x' ? 'y' : 'x';
  check(left->Instantiate("x", fmi2CoSimulation, guid, "", &callbacks, 0, 0) == NULL && strstr(last_message, "GUID"),
        "wrong GUID refused: %s", last_message);
  check(instantiate(left_basic, "x", fmi2ModelExchange) == NULL, "basic: no model exchange: %s", last_message);
  check(instantiate(ball, "x", fmi2CoSimulation) == NULL, "bouncing_ball: no co-simulation: %s", last_message);
  check(instantiate(faulty, "x", fmi2ModelExchange) == NULL, "faulty: no model exchange");

  c = start(left_basic, "basic", fmi2CoSimulation, 0, NULL, NULL);
  check(c != NULL && left_basic->DoStep(c, 0.0, 0.05, fmi2False) == fmi2OK &&
            left_basic->DoStep(c, 0.05, 0.04, fmi2False) == fmi2Error,
        "basic: a step size other than the first refused: %s", last_message);
  check(left_basic->SetRealInputDerivatives(c, &fvr, 1, &order, &one) == fmi2Error,
        "basic: fmi2SetRealInputDerivatives refused: %s", last_message);
  check(left_basic->GetRealOutputDerivatives(c, &fvr, 1, &order, &value) == fmi2Error,
        "basic: fmi2GetRealOutputDerivatives refused");
  check(left_basic->GetFMUstate(c, &state) == fmi2Error, "basic: fmi2GetFMUstate refused: %s", last_message);
  check(left_basic->DoStep(c, 0.0, 0.05, fmi2False) == fmi2Error,
        "a communication point other than the FMU's time refused: %s", last_message);
  check(set1(left_basic, c, 5, 3.0) == fmi2Error, "a parameter set after initialization refused: %s", last_message);
  left_basic->FreeInstance(c);

  {
    const double params[2] = {1.0, 2.0};
    int k, ok;
    c = start(faulty, "faulty", fmi2CoSimulation, 2, fail_vr, params);
    for (k = 0, ok = c != NULL; ok && k < 10; ++k) ok = faulty->DoStep(c, k * 0.1, 0.1, fmi2False) == fmi2OK;
    check(ok && fabs(get1(faulty, c, 1) - 1.0) < 1e-12, "faulty: steps to fail_time = 1 succeed, y = time");
    check(faulty->DoStep(c, 1.0, 0.1, fmi2False) == fmi2Discard && last_status == fmi2Discard &&
              strstr(last_message, "refused: fail_time reached"),
          "faulty (fail_status 2): fmi2Discard past fail_time: %s", last_message);
    check(faulty->GetRealStatus(c, fmi2LastSuccessfulTime, &value) == fmi2OK && value == 1.0,
          "faulty: fmi2LastSuccessfulTime = %g", value);
    faulty->FreeInstance(c);
  }
  {
    const double params[2] = {0.5, 3.0};
    c = start(faulty, "faulty", fmi2CoSimulation, 2, fail_vr, params);
    check(c != NULL && faulty->DoStep(c, 0.0, 0.6, fmi2False) == fmi2Error && last_status == fmi2Error,
          "faulty (fail_status 3): fmi2Error past fail_time: %s", last_message);
    faulty->FreeInstance(c);
  }
  last_message[0] = '\0';
  check(instantiate(null_instance, "n", fmi2CoSimulation) == NULL && last_message[0] != '\0',
        "null_instance: fmi2Instantiate returns NULL: %s", last_message);
  check(missing->DoStep == NULL && missing->Instantiate != NULL, "missing_symbol: no fmi2DoStep, fmi2Instantiate present");
}

int main(int argc, char** argv) {
  Api left, right, left_basic, right_basic, ball, faulty, null_instance, missing;
  verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
  if (!load(&left, FMU_SO_SWITCH_LEFT, FMU_XML_SWITCH_LEFT) || !load(&right, FMU_SO_SWITCH_RIGHT, FMU_XML_SWITCH_RIGHT) ||
      !load(&left_basic, FMU_SO_SWITCH_LEFT_BASIC, FMU_XML_SWITCH_LEFT_BASIC) ||
      !load(&right_basic, FMU_SO_SWITCH_RIGHT_BASIC, FMU_XML_SWITCH_RIGHT_BASIC) ||
      !load(&ball, FMU_SO_BOUNCING_BALL, FMU_XML_BOUNCING_BALL) || !load(&faulty, FMU_SO_FAULTY, FMU_XML_FAULTY) ||
      !load(&null_instance, FMU_SO_NULL_INSTANCE, FMU_XML_NULL_INSTANCE) ||
      !load(&missing, FMU_SO_MISSING_SYMBOL, FMU_XML_MISSING_SYMBOL))
    return 2;
  co_simulation_checks(&left, &right, &left_basic, &right_basic);
  state_checks(&left, &right);
  derivative_checks(&left, &right);
  model_exchange_checks(&left, &right);
  bouncing_ball_checks(&ball);
  refusal_checks(&left, &left_basic, &faulty, &null_instance, &missing, &ball);
  printf("%s: %d failed\n", failures ? "FAILED" : "all passed", failures);
  return failures ? 1 : 0;
}
