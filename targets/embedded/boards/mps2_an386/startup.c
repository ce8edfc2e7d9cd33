/* Start-up code of the MPS2+ AN386 (Cortex-M4) port: the vector table, the
 * reset handler and the fault handlers. Nothing here is specific to couplet;
 * any Cortex-M4 port needs the same, with its own interrupt lines.
 *
 * At reset the core loads the main stack pointer from vector 0 (the linker
 * script puts __stack_top there) and jumps to vector 1, reset_handler. The
 * table sits at address 0, where VTOR points after reset; a part whose flash
 * is elsewhere sets VTOR to the table first. */
#include <stdint.h>

#include "mps2_an386.h"

/* From mps2_an386.ld. */
extern uint32_t __data_start[], __data_end[], __data_load[];
extern uint32_t __bss_start[], __bss_end[];
extern uint32_t __stack_bottom[], __stack_top[];

/* What an unused stack word holds, so that board_stack_used can find the
 * deepest word ever written. */
#define STACK_PAINT 0xC0DEC0DEu

int main(void);
void reset_handler(void);
void uart0_rx_handler(void);
void systick_handler(void);
static void default_handler(void);
static void hard_fault_handler(void);

#define CPACR (*(volatile uint32_t*)0xE000ED88u) /* coprocessor access */

typedef void (*vector)(void);

/* Vectors 1..15 are the core's exceptions, 16.. the board's interrupt lines
 * (AN386: line 0 is UART0 receive). */
__attribute__((section(".vectors"), used)) static const vector vectors[16 + 32] = {
    reset_handler,      /* 1 reset */
    default_handler,    /* 2 NMI */
    hard_fault_handler, /* 3 hard fault */
    hard_fault_handler, /* 4 memory management */
    hard_fault_handler, /* 5 bus fault */
    hard_fault_handler, /* 6 usage fault */
    0,
    0,
    0,
    0,                /* 7..10 reserved */
    default_handler,  /* 11 SVCall */
    default_handler,  /* 12 debug monitor */
    0,                /* 13 reserved */
    default_handler,  /* 14 PendSV */
    systick_handler,  /* 15 SysTick */
    uart0_rx_handler, /* IRQ 0: UART0 receive */
    default_handler,  /* IRQ 1: UART0 transmit (not enabled) */
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
    default_handler,
};

/* Paints the stack below the current frame; the reset handler's own frame is
 * a few words, and 64 bytes of margin keep the paint clear of it. */
static void paint_stack(void) {
  uint32_t* word = __stack_bottom;
  uint8_t* stack_pointer;
  __asm__ volatile("mov %0, sp" : "=r"(stack_pointer));
  while ((uint8_t*)(word + 1) < stack_pointer - 64) *word++ = STACK_PAINT;
}

void reset_handler(void) {
  uint32_t* from = __data_load;
  uint32_t* to = __data_start;
  paint_stack();
  while (to < __data_end) *to++ = *from++;
  for (to = __bss_start; to < __bss_end; ++to) *to = 0;
  /* The model computes in double precision: give the core its FPU (CP10, CP11
   * full access) before any floating-point instruction runs. */
  CPACR |= 0xFu << 20;
  __asm__ volatile("dsb\n\tisb" ::: "memory");
  main();
  for (;;) {
  }
}

size_t board_stack_used(void) {
  const uint32_t* word = __stack_bottom;
  while (word < __stack_top && *word == STACK_PAINT) ++word;
  return (size_t)((const uint8_t*)__stack_top - (const uint8_t*)word);
}

size_t board_stack_size(void) {
  return (size_t)((const uint8_t*)__stack_top - (const uint8_t*)__stack_bottom);
}

static void default_handler(void) {
  board_fatal("unexpected interrupt");
}

static void hard_fault_handler(void) {
  board_fatal("fault");
}
