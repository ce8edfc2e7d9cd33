/* Capacities of the couplet embedded core: every buffer is sized from these at
 * compile time (no heap). Override any of them with -D on the compiler's
 * command line, or put your values in a header of your own and compile with
 * -DCOUPLET_EMBEDDED_CONFIG='"my_couplet_config.h"'. docs/embedded.md explains
 * how each one changes RAM and what a master may send. */
#ifndef COUPLET_EMBEDDED_CONFIG_H
#define COUPLET_EMBEDDED_CONFIG_H

#ifdef COUPLET_EMBEDDED_CONFIG
#include COUPLET_EMBEDDED_CONFIG
#endif

/* Inputs and outputs of the device (the wire protocol carries up to 16). */
#ifndef COUPLET_MAX_INPUTS
#define COUPLET_MAX_INPUTS 4
#endif
#ifndef COUPLET_MAX_OUTPUTS
#define COUPLET_MAX_OUTPUTS 4
#endif
/* Integer and Boolean inputs and outputs of the device (the wire protocol
 * carries up to 16 of each). */
#ifndef COUPLET_MAX_DISCRETE_INPUTS
#define COUPLET_MAX_DISCRETE_INPUTS 4
#endif
#ifndef COUPLET_MAX_DISCRETE_OUTPUTS
#define COUPLET_MAX_DISCRETE_OUTPUTS 4
#endif
/* Highest degree of the input polynomials a step takes (at most 7). */
#ifndef COUPLET_MAX_INPUT_DEGREE
#define COUPLET_MAX_INPUT_DEGREE 3
#endif
/* Highest order of output time derivatives the device reports (at most 3). */
#ifndef COUPLET_MAX_OUTPUT_DERIVATIVE_ORDER
#define COUPLET_MAX_OUTPUT_DERIVATIVE_ORDER 1
#endif
/* Parameters the device declares. */
#ifndef COUPLET_MAX_PARAMETERS
#define COUPLET_MAX_PARAMETERS 8
#endif
/* Intermediate output samples per step (0: the device reports none). */
#ifndef COUPLET_MAX_SAMPLES
#define COUPLET_MAX_SAMPLES 8
#endif
/* Largest frame received (decoded, with header and CRC). A Configure carrying
 * every parameter by name is the largest request: about 90 bytes plus 12 per
 * parameter plus the length of the names. */
#ifndef COUPLET_RX_FRAME_BYTES
#define COUPLET_RX_FRAME_BYTES 768
#endif
/* Largest answer (raw frame, kept as the answer cache): a Describe with every
 * port name and unit, or a StepResult with its samples. */
#ifndef COUPLET_TX_FRAME_BYTES
#define COUPLET_TX_FRAME_BYTES 768
#endif
/* Receive ring between the UART interrupt (couplet_slave_receive) and the
 * main loop (couplet_slave_poll). */
#ifndef COUPLET_RX_RING_BYTES
#define COUPLET_RX_RING_BYTES 1024
#endif

#endif /* COUPLET_EMBEDDED_CONFIG_H */
