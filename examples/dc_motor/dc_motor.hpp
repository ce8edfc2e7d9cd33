#pragma once
// A DC motor drive as a couplet device: PWM duty and the load machine's torque
// in, the encoder's position and speed out, sampled every millisecond.
//
// The device code (dc_motor.cpp) talks to the hardware only through `Drive`,
// the hardware-access seam. SimulatedDrive stands in for a real drive so that
// the example runs anywhere; on a test bench you implement Drive with your
// driver calls (a PWM timer, an encoder counter, the torque command of a load
// machine) and serve the device with --realtime.
#include <couplet/device.hpp>
#include <cstdint>

namespace dc_motor {

// ======================= HARDWARE-ACCESS SEAM ==============================
// Replace SimulatedDrive by a class of yours that calls your drivers.
class Drive {
 public:
  virtual ~Drive() = default;
  /// Power-up state at the start of a session. `parameters`: the device's
  /// parameters with the scenario's values (a real drive may ignore those of
  /// the simulated motor).
  virtual void reset(const couplet::DeviceParameters& parameters) = 0;
  /// PWM duty cycle in [-1, 1] (sign: direction) until the next call.
  virtual void set_duty(double duty) = 0;
  /// Torque the load machine applies to the shaft [N m] until the next call.
  virtual void set_load_torque(double torque) = 0;
  /// One sample period passes. Simulated: integrate the motor over it. Real
  /// hardware: nothing to do, the wall clock has moved on (--realtime).
  virtual void advance(double seconds) = 0;
  /// Quadrature encoder count since reset.
  virtual std::int64_t encoder_count() const = 0;
};
// ===========================================================================

/// The motor as equations: armature L di/dt = V d − R i − k ω, rotor
/// J dω/dt = k i − b ω + τ_load, dθ/dt = ω, integrated with classical
/// Runge–Kutta in `substeps` per sample period; the encoder quantizes θ.
class SimulatedDrive final : public Drive {
 public:
  void reset(const couplet::DeviceParameters& parameters) override;
  void set_duty(double duty) override { duty_ = duty < -1.0 ? -1.0 : duty > 1.0 ? 1.0 : duty; }
  void set_load_torque(double torque) override { load_torque_ = torque; }
  void advance(double seconds) override;
  std::int64_t encoder_count() const override;

 private:
  struct State {
    double current = 0.0;  ///< armature current [A]
    double speed = 0.0;    ///< rotor speed [rad/s]
    double angle = 0.0;    ///< rotor angle [rad]
  };
  State derivative(const State& state) const;

  double resistance_ = 1.0, inductance_ = 1e-3, torque_constant_ = 0.05;
  double inertia_ = 1e-4, friction_ = 1e-5, supply_voltage_ = 24.0;
  double counts_per_radian_ = 0.0;
  int substeps_ = 20;
  double duty_ = 0.0, load_torque_ = 0.0;
  State state_;
};

/// The device: its description (ports, units, parameters, a 1 ms sample
/// period) and the callbacks that drive `drive`, which must outlive it.
couplet::Device make_device(Drive& drive);

}  // namespace dc_motor
