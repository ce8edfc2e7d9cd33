/* A fixture for unit conversion at connections (co-simulation: units; model
 * exchange when built with UNITS_MODEL_EXCHANGE: units_me; no states): every port carries a unit,
 * declared in units.xml.in's UnitDefinitions, and each output passes a value through unchanged, so
 * an importer that converts between units at a connection shows it in what it reads back. v input,
 * km/h (factor 1/3.6 to m/s) v_shown           output, km/h, = v (direct feedthrough) ambient
 * parameter, degC (offset 273.15 to K), default 20 temperature       output, degC, = ambient
 *   temperature_in    input, K
 *   temperature_seen  output, K, = temperature_in (direct feedthrough) */
#include "fmu_common.h"

/* Value references = order in units.xml.in. */
enum {
  VR_V,
  VR_V_SHOWN,
  VR_AMBIENT,
  VR_TEMPERATURE,
  VR_TEMPERATURE_IN,
  VR_TEMPERATURE_SEEN,
  N_REALS
};

static const FmuVariable variables[N_REALS] = {
    [VR_V] = {"v", FMU_INPUT, 0.0},
    [VR_V_SHOWN] = {"v_shown", FMU_COMPUTED, 0.0},
    [VR_AMBIENT] = {"ambient", FMU_PARAMETER, 20.0},
    [VR_TEMPERATURE] = {"temperature", FMU_COMPUTED, 0.0},
    [VR_TEMPERATURE_IN] = {"temperature_in", FMU_INPUT, 0.0},
    [VR_TEMPERATURE_SEEN] = {"temperature_seen", FMU_COMPUTED, 0.0},
};

static const fmi2ValueReference input_vrs[] = {VR_V, VR_TEMPERATURE_IN};

static void initialize(FmuData* data) {
  (void)data;
}

static double computed(const FmuData* data, fmi2ValueReference vr) {
  switch (vr) {
    case VR_V_SHOWN:
      return data->r[VR_V];
    case VR_TEMPERATURE:
      return data->r[VR_AMBIENT];
    case VR_TEMPERATURE_SEEN:
      return data->r[VR_TEMPERATURE_IN];
    default:
      return 0.0;
  }
}

const FmuModel fmu_model = {
    .name = FMU_MODEL_NAME,
#ifdef UNITS_MODEL_EXCHANGE
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
    .n_inputs = 2,
    .input_vrs = input_vrs,
    .max_output_derivative_order = 0,
    .initialize = initialize,
    .computed = computed,
};
