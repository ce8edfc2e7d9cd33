/* A stand-in board support for the Cortex-M4 footprint check: enough to link
 * examples/bare_metal_main.c into an image and measure it. The registers are
 * those of a generic UART and timer; nothing here runs. */
#include "board.h"

#define UART_DATA (*(volatile uint32_t*)0x40004404u)
#define UART_STATUS (*(volatile uint32_t*)0x40004400u)
#define TIMER_COUNT (*(volatile uint32_t*)0x40000024u)

static uint32_t timer_high;
static uint32_t timer_last;

void board_init(uint32_t baud) { UART_STATUS = baud; }

void board_uart_write(const uint8_t* bytes, size_t count) {
  size_t k;
  for (k = 0; k < count; ++k) {
    while ((UART_STATUS & 0x80u) == 0) {
    }
    UART_DATA = bytes[k];
  }
}

uint64_t board_time_us(void) {
  const uint32_t now = TIMER_COUNT;
  if (now < timer_last) ++timer_high;
  timer_last = now;
  return ((uint64_t)timer_high << 32) | now;
}

void board_idle(void) { __asm__ volatile("wfi"); }

void board_fatal(const char* message) {
  (void)message;
  for (;;) {
  }
}

void uart_interrupt_handler(void) { board_uart_received((uint8_t)UART_DATA); }
