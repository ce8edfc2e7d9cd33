/* The Arm MPS2+ AN386 board (Cortex-M4 at 25 MHz) as QEMU's mps2-an386 machine
 * emulates it: what examples/board.h asks for, plus the few extras this port's
 * main loop uses to measure itself. The register maps come from the Arm
 * "Cortex-M System Design Kit" technical reference (the APB UART) and the
 * Armv7-M architecture reference (SysTick, NVIC, SCB). */
#ifndef COUPLET_MPS2_AN386_H
#define COUPLET_MPS2_AN386_H

#include <stddef.h>
#include <stdint.h>

#include "board.h"

/* The processor clock: SysTick counts it (CLKSOURCE = 1). */
#define MPS2_CPU_HZ 25000000u

/* CMSDK APB UART: UART0 carries the couplet link, UART1 is the text console. */
typedef struct {
  volatile uint32_t data;      /* 0x00: received byte / byte to send */
  volatile uint32_t state;     /* 0x04: bit 0 TX full, bit 1 RX full, 2/3 overruns */
  volatile uint32_t ctrl;      /* 0x08: enables (TX, RX, their interrupts) */
  volatile uint32_t intstatus; /* 0x0c: read: pending; write 1: clear */
  volatile uint32_t bauddiv;   /* 0x10: PCLK / baud, at least 16 */
} cmsdk_uart;

#define MPS2_UART0 ((cmsdk_uart*)0x40004000u)
#define MPS2_UART1 ((cmsdk_uart*)0x40005000u)
#define MPS2_UART0_RX_IRQ 0u /* NVIC line of UART0's receive interrupt */

#define CMSDK_UART_STATE_TX_FULL (1u << 0)
#define CMSDK_UART_STATE_RX_FULL (1u << 1)
#define CMSDK_UART_CTRL_TX_ENABLE (1u << 0)
#define CMSDK_UART_CTRL_RX_ENABLE (1u << 1)
#define CMSDK_UART_CTRL_RX_INTERRUPT (1u << 3)
#define CMSDK_UART_INT_RX (1u << 1)

/* Processor cycles since reset (SysTick extended to 64 bits). */
uint64_t board_cycles(void);

/* Writes a text on the console UART (UART1; QEMU: the second -serial). */
void board_console_write(const char* text);
/* Writes an unsigned number in decimal on the console. */
void board_console_number(uint64_t value);

/* Bytes of the main stack ever used (the painted words overwritten) and the
 * stack's size (the linker script's __stack_size). */
size_t board_stack_used(void);
size_t board_stack_size(void);

#endif /* COUPLET_MPS2_AN386_H */
