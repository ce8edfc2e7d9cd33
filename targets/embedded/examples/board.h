/* What examples/bare_metal_main.c needs from a board support package: a UART
 * and a free-running microsecond timer. Write these for your board (vendor HAL,
 * registers); docs/embedded.md shows them for a typical Cortex-M4. */
#ifndef COUPLET_EXAMPLE_BOARD_H
#define COUPLET_EXAMPLE_BOARD_H

#include <stddef.h>
#include <stdint.h>

/* Clocks, the UART at `baud` (8N1, receive interrupt on), the timer. */
void board_init(uint32_t baud);
/* Sends bytes; returns once they are in the UART (or its DMA queue). */
void board_uart_write(const uint8_t* bytes, size_t count);
/* Microseconds since reset, monotonic, 64 bits (extend a 32-bit timer). */
uint64_t board_time_us(void);
/* Sleeps until the next interrupt (WFI), or returns at once. */
void board_idle(void);
/* Halts with a message the board can show (LED code, debug probe). */
void board_fatal(const char* message);

/* The board's UART receive interrupt calls this with each received byte. */
void board_uart_received(uint8_t byte);

#endif /* COUPLET_EXAMPLE_BOARD_H */
