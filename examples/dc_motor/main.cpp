// dc_motor_device — the DC motor drive served as a couplet slave.
//   dc_motor_device --describe
//   dc_motor_device --udp 0.0.0.0:5600            (virtual time: steps when asked)
//   dc_motor_device --udp 0.0.0.0:5600 --realtime (on the wall clock, real hardware)
#include "dc_motor.hpp"

int main(int argc, char** argv) {
  dc_motor::SimulatedDrive drive;  // the hardware seam: your Drive goes here
  return couplet::serve(dc_motor::make_device(drive), argc, argv);
}
