/* Board support of the MPS2+ AN386 (Cortex-M4, 25 MHz) for the couplet
 * embedded core: examples/board.h on the board's registers, no vendor HAL.
 *   - UART0 (CMSDK APB UART) carries the couplet link: every received byte
 *     raises the receive interrupt, whose handler hands it to the core; bytes
 *     are sent by polling the transmit-full flag.
 *   - SysTick counts processor cycles; its wraps extend it to 64 bits.
 *   - UART1 is a text console for start-up, fatal errors and statistics.
 * QEMU's mps2-an386 machine emulates exactly these registers. */
#include "mps2_an386.h"

#define SYST_CSR (*(volatile uint32_t*)0xE000E010u) /* control and status */
#define SYST_RVR (*(volatile uint32_t*)0xE000E014u) /* reload value */
#define SYST_CVR (*(volatile uint32_t*)0xE000E018u) /* current value */
#define ICSR (*(volatile uint32_t*)0xE000ED04u)     /* interrupt control and state */
#define NVIC_ISER0 (*(volatile uint32_t*)0xE000E100u)

#define SYST_CSR_ENABLE (1u << 0)
#define SYST_CSR_TICKINT (1u << 1)
#define SYST_CSR_CLKSOURCE_CPU (1u << 2)
#define ICSR_PENDSTSET (1u << 26)
#define SYSTICK_MASK 0x00FFFFFFu /* SysTick is a 24-bit down-counter */

void uart0_rx_handler(void);
void systick_handler(void);

static volatile uint32_t systick_wraps;
/* Set by the receive interrupt, cleared by board_idle: a byte came in. */
static volatile uint8_t byte_arrived;

static void uart_setup(cmsdk_uart* uart, uint32_t baud, uint32_t ctrl) {
  uart->bauddiv = MPS2_CPU_HZ / baud;
  uart->ctrl = ctrl;
}

void board_init(uint32_t baud) {
  uart_setup(MPS2_UART0, baud,
             CMSDK_UART_CTRL_TX_ENABLE | CMSDK_UART_CTRL_RX_ENABLE | CMSDK_UART_CTRL_RX_INTERRUPT);
  uart_setup(MPS2_UART1, 115200u, CMSDK_UART_CTRL_TX_ENABLE);
  SYST_RVR = SYSTICK_MASK;
  SYST_CVR = 0;
  SYST_CSR = SYST_CSR_ENABLE | SYST_CSR_TICKINT | SYST_CSR_CLKSOURCE_CPU;
  NVIC_ISER0 = 1u << MPS2_UART0_RX_IRQ;
}

/* The UART holds one received byte. The interrupt is cleared before the byte
 * is read: a byte arriving after the read raises it again, none is left
 * unnoticed in the holding register. */
void uart0_rx_handler(void) {
  MPS2_UART0->intstatus = CMSDK_UART_INT_RX;
  while ((MPS2_UART0->state & CMSDK_UART_STATE_RX_FULL) != 0) {
    board_uart_received((uint8_t)MPS2_UART0->data);
    byte_arrived = 1;
  }
}

static void uart_put(cmsdk_uart* uart, uint8_t byte) {
  while ((uart->state & CMSDK_UART_STATE_TX_FULL) != 0) {
  }
  uart->data = byte;
}

void board_uart_write(const uint8_t* bytes, size_t count) {
  size_t k;
  for (k = 0; k < count; ++k) uart_put(MPS2_UART0, bytes[k]);
}

void systick_handler(void) {
  ++systick_wraps;
}

/* A wrap the handler has not counted yet (the read raced the wrap) shows as a
 * pending SysTick with a counter just reloaded, near the top. */
uint64_t board_cycles(void) {
  uint32_t wraps;
  uint32_t value;
  uint32_t pending;
  do {
    wraps = systick_wraps;
    value = SYST_CVR & SYSTICK_MASK;
    pending = ICSR & ICSR_PENDSTSET;
  } while (wraps != systick_wraps);
  if (pending != 0 && value > SYSTICK_MASK / 2) ++wraps;
  return ((uint64_t)wraps << 24) + (SYSTICK_MASK - value);
}

uint64_t board_time_us(void) {
  return board_cycles() / (MPS2_CPU_HZ / 1000000u);
}

/* Sleeps until an interrupt (a received byte, or SysTick), unless a byte came
 * in since the last call: the main loop's poll may have missed it. Interrupts
 * are masked across the test and the WFI, so a byte arriving in between still
 * wakes the core (WFI wakes on a pending interrupt even while masked). */
void board_idle(void) {
  __asm__ volatile("cpsid i" ::: "memory");
  if (byte_arrived == 0) __asm__ volatile("wfi" ::: "memory");
  byte_arrived = 0;
  __asm__ volatile("cpsie i" ::: "memory");
}

void board_console_write(const char* text) {
  while (*text != '\0') uart_put(MPS2_UART1, (uint8_t)*text++);
}

void board_console_number(uint64_t value) {
  char digits[21];
  size_t count = 0;
  do {
    digits[count++] = (char)('0' + value % 10u);
    value /= 10u;
  } while (value != 0);
  while (count > 0) uart_put(MPS2_UART1, (uint8_t)digits[--count]);
}

void board_fatal(const char* message) {
  __asm__ volatile("cpsid i");
  board_console_write("fatal: ");
  board_console_write(message);
  board_console_write("\n");
  for (;;) {
  }
}
