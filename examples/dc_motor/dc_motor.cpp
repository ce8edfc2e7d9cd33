#include "dc_motor.hpp"

#include <cmath>
#include <memory>
#include <numbers>
#include <stdexcept>

namespace dc_motor {

namespace {

constexpr couplet::Time kSamplePeriod = 1'000'000;  // 1 ms in nanoseconds
constexpr double kTwoPi = 2.0 * std::numbers::pi;

/// What the device measured last: the encoder's position and speed.
struct Measurement {
  std::int64_t count = 0;
  double position = 0.0;  ///< [rad]
  double speed = 0.0;     ///< [rad/s], from the count difference over one period
  double radians_per_count = 0.0;
};

}  // namespace

void SimulatedDrive::reset(const couplet::DeviceParameters& parameters) {
  resistance_ = parameters.at("R");
  inductance_ = parameters.at("L");
  torque_constant_ = parameters.at("k");
  inertia_ = parameters.at("J");
  friction_ = parameters.at("b");
  supply_voltage_ = parameters.at("V");
  counts_per_radian_ = parameters.at("counts_per_revolution") / kTwoPi;
  substeps_ = static_cast<int>(parameters.at("substeps"));
  duty_ = 0.0;
  load_torque_ = 0.0;
  state_ = {};
}

SimulatedDrive::State SimulatedDrive::derivative(const State& state) const {
  return {(supply_voltage_ * duty_ - resistance_ * state.current - torque_constant_ * state.speed) /
              inductance_,
          (torque_constant_ * state.current - friction_ * state.speed + load_torque_) / inertia_,
          state.speed};
}

void SimulatedDrive::advance(double seconds) {
  const double h = seconds / substeps_;
  const auto plus = [](const State& x, double factor, const State& dx) {
    return State{x.current + factor * dx.current, x.speed + factor * dx.speed,
                 x.angle + factor * dx.angle};
  };
  for (int n = 0; n < substeps_; ++n) {
    const State k1 = derivative(state_);
    const State k2 = derivative(plus(state_, h / 2, k1));
    const State k3 = derivative(plus(state_, h / 2, k2));
    const State k4 = derivative(plus(state_, h, k3));
    state_.current += h / 6 * (k1.current + 2 * k2.current + 2 * k3.current + k4.current);
    state_.speed += h / 6 * (k1.speed + 2 * k2.speed + 2 * k3.speed + k4.speed);
    state_.angle += h / 6 * (k1.angle + 2 * k2.angle + 2 * k3.angle + k4.angle);
  }
}

std::int64_t SimulatedDrive::encoder_count() const {
  return static_cast<std::int64_t>(std::floor(state_.angle * counts_per_radian_));
}

couplet::Device make_device(Drive& drive) {
  couplet::Device device;
  device.description = {
      .name = "dc_motor",
      .inputs = {{.name = "duty", .unit = "1", .default_value = 0.5},
                 {.name = "load_torque", .unit = "N m"}},
      .outputs = {{.name = "position", .unit = "rad"}, {.name = "speed", .unit = "rad/s"}},
      .parameters = {{"R", 1.0, "Ohm"},
                     {"L", 1e-3, "H"},
                     {"k", 0.05, "N m/A"},
                     {"J", 1e-4, "kg m^2"},
                     {"b", 1e-5, "N m s/rad"},
                     {"V", 24.0, "V"},
                     {"counts_per_revolution", 16384.0},
                     {"substeps", 20.0}},
      .input_degree = 0,  // PWM and torque commands hold over a period
      .sample_period = kSamplePeriod,
  };
  // Shared by the callbacks (and by the copies couplet::serve makes of them).
  auto measured = std::make_shared<Measurement>();

  device.callbacks.initialize = [&drive, measured](couplet::Time,
                                                   const couplet::DeviceParameters& parameters) {
    if (!(parameters.at("substeps") >= 1.0) || !(parameters.at("counts_per_revolution") >= 1.0))
      throw std::invalid_argument("substeps and counts_per_revolution must be at least 1");
    drive.reset(parameters);
    *measured = {drive.encoder_count(), 0.0, 0.0,
                 kTwoPi / parameters.at("counts_per_revolution")};
  };
  device.callbacks.outputs = [measured](couplet::Time, std::span<const couplet::Polynomial>,
                                        std::span<double> values) {
    values[0] = measured->position;
    values[1] = measured->speed;
  };
  device.callbacks.step = [&drive, measured](const couplet::StepRequest& request,
                                             const couplet::OutputBuffers& result) {
    const double period = couplet::to_seconds(kSamplePeriod);
    std::int64_t previous = measured->count;
    for (couplet::Time t = request.start; t < request.end; t += kSamplePeriod) {
      const double now = couplet::to_seconds(t);
      drive.set_duty(request.inputs[0].value(now));
      drive.set_load_torque(request.inputs[1].value(now));
      drive.advance(period);
      previous = measured->count;
      measured->count = drive.encoder_count();
    }
    measured->position = static_cast<double>(measured->count) * measured->radians_per_count;
    measured->speed =
        static_cast<double>(measured->count - previous) * measured->radians_per_count / period;
    result.end_outputs[0] = measured->position;
    result.end_outputs[1] = measured->speed;
  };
  return device;
}

}  // namespace dc_motor
