/* The main loop of a bare-metal board that is a couplet slave: the
 * translational mass of examples/translational_mass.c served over the UART.
 * Everything is static; there is no heap and no operating system. The board
 * support (board.h) is yours to write. docs/embedded.md walks through it. */
#include "board.h"
#include "couplet_embedded.h"
#include "translational_mass.h"

static couplet_slave slave;
static translational_mass mass;

/* Called from the UART receive interrupt: only queues the byte. */
void board_uart_received(uint8_t byte) { couplet_slave_receive(&slave, &byte, 1); }

static void write_uart(void* context, const uint8_t* bytes, size_t count) {
  (void)context;
  board_uart_write(bytes, count);
}

static uint64_t monotonic_ns(void* context) {
  (void)context;
  return board_time_us() * 1000u;
}

int main(void) {
  static const couplet_platform platform = {write_uart, monotonic_ns, 0};
  /* Virtual time: the board steps when the master asks. With realtime = true
   * the model runs on the board's clock instead (docs/embedded.md). */
  static const couplet_slave_options options = {false, 3000000000u, 0 /* no key */};
  const char* problem;
  /* The slave before the UART interrupt: init clears the receive ring (it
   * needs no board, so its problem is reported once the board is up). */
  problem = couplet_slave_init(&slave, &translational_mass_description,
                               &translational_mass_callbacks, &mass, &platform, &options);
  board_init(921600);
  if (problem != 0) board_fatal(problem);
  for (;;) {
    uint64_t next_ns;
    couplet_slave_poll(&slave);
    /* Sleep until the next byte, unless a real-time period ends sooner. */
    if (!couplet_slave_next_deadline(&slave, &next_ns)) board_idle();
  }
}
