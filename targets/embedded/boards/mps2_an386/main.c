/* Firmware of the MPS2+ AN386 board (Cortex-M4): the translational mass of
 * examples/translational_mass.c served as a couplet slave over UART0. The main
 * loop of examples/bare_metal_main.c, on this board's support (board.c), plus
 * what a port wants to know about itself: the processor cycles each step
 * costs and the stack it used. Those go to the console (UART1) when a session
 * ends, as one line:
 *
 *   session: frames F rejected R repeats P stale S overrun O steps N step_cycles_min A
 *   step_cycles_max B step_cycles_total C stack_used U stack_size T
 *
 * A step's cycles are those of the couplet_slave_poll call that decoded the
 * request, stepped the model and sent the result (receive interrupts
 * included), counted by SysTick at the processor clock. docs/embedded.md
 * explains the port and how QEMU runs it. */
#include "couplet_embedded.h"
#include "mps2_an386.h"
#include "translational_mass.h"

#define LINK_BAUD 921600u

static couplet_slave slave;
static translational_mass mass;

/* Step costs in processor cycles, since the session began. */
typedef struct {
  uint32_t steps;
  uint64_t min, max, total;
} step_cycles;

static step_cycles cycles;

/* Called from the UART receive interrupt: only queues the byte. */
void board_uart_received(uint8_t byte) {
  couplet_slave_receive(&slave, &byte, 1);
}

static void write_uart(void* context, const uint8_t* bytes, size_t count) {
  (void)context;
  board_uart_write(bytes, count);
}

static uint64_t monotonic_ns(void* context) {
  (void)context;
  return board_cycles() * (1000000000u / MPS2_CPU_HZ);
}

static void record_step(uint64_t spent) {
  if (cycles.steps == 0 || spent < cycles.min) cycles.min = spent;
  if (spent > cycles.max) cycles.max = spent;
  cycles.total += spent;
  ++cycles.steps;
}

static void report_field(const char* name, uint64_t value) {
  board_console_write(" ");
  board_console_write(name);
  board_console_write(" ");
  board_console_number(value);
}

static void report_session(void) {
  const couplet_counters* counters = couplet_slave_counters(&slave);
  board_console_write("session:");
  report_field("frames", counters->frames);
  report_field("rejected", counters->rejected);
  report_field("repeats", counters->repeats);
  report_field("stale", counters->stale);
  report_field("overrun", counters->overrun);
  report_field("steps", counters->steps);
  report_field("step_cycles_min", cycles.min);
  report_field("step_cycles_max", cycles.max);
  report_field("step_cycles_total", cycles.total);
  report_field("stack_used", board_stack_used());
  report_field("stack_size", board_stack_size());
  board_console_write("\n");
}

int main(void) {
  static const couplet_platform platform = {write_uart, monotonic_ns, 0};
  /* Virtual time: the board steps when the master asks. */
  static const couplet_slave_options options = {false, 3000000000u, 0 /* no key */};
  const char* problem;
  bool reported = false;
  /* The slave first: init clears its receive ring, so a byte the interrupt
   * queued before it (the master may already be sending) would be lost and
   * the frame it began rejected. */
  problem = couplet_slave_init(&slave, &translational_mass_description,
                               &translational_mass_callbacks, &mass, &platform, &options);
  board_init(LINK_BAUD);
  if (problem != 0) board_fatal(problem);
  board_console_write("translational_mass ready on UART0\n");
  for (;;) {
    const uint32_t steps_before = couplet_slave_counters(&slave)->steps;
    const uint64_t poll_start = board_cycles();
    uint64_t next_ns;
    couplet_slave_poll(&slave);
    if (couplet_slave_counters(&slave)->steps != steps_before) {
      record_step(board_cycles() - poll_start);
    }
    if (couplet_slave_session_ended(&slave)) {
      if (!reported) report_session();
      reported = true;
    } else {
      reported = false;
    }
    /* Sleep until the next byte, unless a real-time period ends sooner. */
    if (!couplet_slave_next_deadline(&slave, &next_ns)) board_idle();
  }
}
