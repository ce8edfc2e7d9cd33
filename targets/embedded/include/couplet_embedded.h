/* couplet embedded core: makes a microcontroller board a couplet slave over a
 * serial line. Portable C99, no heap, no operating system (docs/embedded.md).
 *
 * A device is a description (ports, parameters, what it can do) plus three
 * callbacks; the board supplies a byte writer, received bytes and a monotonic
 * clock. The core speaks the couplet wire protocol (docs/links.md): COBS frames
 * with a CRC-32, delimited at both ends, sealed with a pre-shared key if it is
 * given one; nanopb messages of the same schema as
 * the host; sessions; exactly-once requests (a repeated request is answered
 * from the answer cache without running the step again, older ones are
 * ignored); heartbeats; virtual-time and real-time modes.
 *
 *   static couplet_slave slave;      // all buffers inside: no heap
 *   couplet_slave_init(&slave, &description, &callbacks, &model, &platform, &options);
 *   UART interrupt:  couplet_slave_receive(&slave, &byte, 1);
 *   main loop:       for (;;) couplet_slave_poll(&slave);
 *
 * Call couplet_slave_init before the receive interrupt is enabled: it clears
 * the receive ring, so bytes queued earlier would be lost mid-frame.
 *
 * Calling contract: couplet_slave_receive may run in an interrupt handler while
 * the main loop is inside couplet_slave_poll (a single-producer, single-consumer
 * ring; on a single core where size_t stores are atomic). Everything else,
 * callbacks included, runs inside couplet_slave_poll on the main loop, never
 * concurrently. */
#ifndef COUPLET_EMBEDDED_H
#define COUPLET_EMBEDDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "couplet_embedded_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Model time in nanoseconds (integer time, as on the host). */
typedef int64_t couplet_time;
#define COUPLET_TICKS_PER_SECOND 1000000000

/* Seconds of a model time: ticks / 1e9, exactly as the host computes it. */
double couplet_seconds(couplet_time time);

/* An input over a step: p(t) = sum_k c_k s^k with s = (t - origin) / scale,
 * t in seconds (the same polynomials the host's master sends). */
typedef struct {
  double origin;
  double scale;
  unsigned degree;
  double coefficients[COUPLET_MAX_INPUT_DEGREE + 1]; /* lowest degree first */
} couplet_polynomial;

/* p(t), by Horner's scheme in s. */
double couplet_polynomial_value(const couplet_polynomial* polynomial, double t);
/* d^order p / dt^order at t. */
double couplet_polynomial_derivative(const couplet_polynomial* polynomial, double t,
                                     unsigned order);

typedef struct {
  const char* name;
  const char* unit;     /* e.g. "N"; NULL or "" when not declared */
  double default_value; /* held while the scenario connects nothing to it */
} couplet_input;

typedef struct {
  const char* name;
  const char* unit;
  bool direct_feedthrough; /* the output depends on an input at the same instant */
} couplet_output;

typedef struct {
  const char* name;
  double default_value; /* a scenario's `parameters:` override it */
} couplet_parameter;

/* An Integer (64-bit) or Boolean port: piecewise constant, exchanged at
 * communication points and held in between (a gear, a mode, a fault flag). */
typedef struct {
  const char* name;
  const char* unit;      /* Integer ports may declare one; NULL or "" otherwise */
  bool is_boolean;       /* values 0 or 1 */
  int64_t default_value; /* an input's value while the scenario connects nothing to it */
} couplet_discrete_port;

/* What the device is. A scenario couples it with `device: NAME` and a serial
 * link; the master sees the model "device:NAME". All pointers must stay valid
 * while the slave runs (static data in practice). */
typedef struct {
  const char* name;
  const couplet_input* inputs;
  size_t input_count;
  const couplet_output* outputs;
  size_t output_count;
  const couplet_parameter* parameters;
  size_t parameter_count;
  unsigned input_degree;            /* highest input degree a step takes (0: hold) */
  unsigned output_derivative_order; /* output derivatives reported (0: values only) */
  couplet_time sample_period;       /* > 0: steps span whole periods */
  bool intermediate_samples;        /* the step reports outputs at requested times */
  const couplet_discrete_port* discrete_inputs;
  size_t discrete_input_count;
  const couplet_discrete_port* discrete_outputs;
  size_t discrete_output_count;
} couplet_description;

/* One step: from start (the current time) to end, inputs over the step. */
typedef struct {
  couplet_time start;
  couplet_time end;
  const couplet_polynomial* inputs; /* one per declared input, declaration order */
  const couplet_time* sample_times; /* increasing, inside (start, end] */
  size_t sample_count;
  const int64_t* discrete_inputs; /* one per discrete input, held over the step */
} couplet_step_request;

/* The device's behaviour. Each callback returns NULL on success, or a static
 * text saying what failed: the master ends the run with it, naming the slave.
 * `model` is the pointer given to couplet_slave_init. */
typedef struct {
  /* Optional. A new session starts at `start`; parameters[k] belongs to
   * description.parameters[k], with the scenario's overrides applied. */
  const char* (*initialize)(void* model, couplet_time start, const double* parameters);
  /* Required. Outputs at the current time `now` into values: one per output,
   * then output_derivative_order rows of derivatives. `inputs` (one per input)
   * matter for outputs with direct feedthrough. */
  const char* (*outputs)(void* model, couplet_time now, const couplet_polynomial* inputs,
                         double* values);
  /* Required. Advances over the request; writes the outputs at request->end
   * into end_outputs (as for outputs) and one row of outputs per sample time
   * into samples. */
  const char* (*step)(void* model, const couplet_step_request* request, double* end_outputs,
                      double* samples);
  /* Required with discrete outputs. Their values at the current time `now`,
   * one per discrete output (Boolean: 0 or 1): called after initialize and
   * after every step. */
  const char* (*discrete_outputs)(void* model, couplet_time now, int64_t* values);
  /* Optional. Asked before every step, at its start `now` (the time the last
   * step reached, whose outputs the master has): return true to end the
   * simulation there instead of taking the step (as FMI's
   * terminateSimulation), with *reason a static text for the master (or left
   * NULL). The master ends the run at `now` with status `stopped`, naming the
   * slave and the reason (docs/embedded.md, "Stop requests"). */
  bool (*stop_requested)(void* model, couplet_time now, const char** reason);
} couplet_callbacks;

/* What the board supplies. */
typedef struct {
  /* Sends bytes on the serial line; returns when they are queued or sent. */
  void (*write)(void* context, const uint8_t* bytes, size_t count);
  /* A monotonic clock in nanoseconds (a microsecond timer times 1000 is fine). */
  uint64_t (*monotonic_ns)(void* context);
  void* context;
} couplet_platform;

typedef struct {
  /* Real-time mode: after Start the model advances on the wall clock and the
   * outputs are pushed at each communication time; the newest input applies
   * from its arrival (at the next sample for a sampling device). */
  bool realtime;
  /* A session nobody speaks in for this long may be taken over (> 0). */
  uint64_t session_timeout_ns;
  /* NULL: plain frames (format version 1), as a master without a key sends.
   * Otherwise the pre-shared key, COUPLET_KEY_BYTES bytes (the host's
   * `link: {key_file: F}`), copied by couplet_slave_init: every frame is
   * sealed (format version 2, a SipHash-2-4-128 tag and a session nonce) and
   * frames without the key's tag are dropped (docs/embedded.md, "Keys"). */
  const uint8_t* key;
} couplet_slave_options;

#define COUPLET_KEY_BYTES 16

typedef struct {
  uint32_t frames;          /* frames received whole */
  uint32_t rejected;        /* bad COBS, truncated, corrupted, malformed, too long */
  uint32_t foreign;         /* of another session */
  uint32_t stale;           /* older than the last request executed */
  uint32_t repeats;         /* answered from the answer cache */
  uint32_t executed;        /* requests carried out */
  uint32_t steps;           /* of which steps */
  uint32_t busy;            /* Hellos refused while another session was alive */
  uint32_t overrun;         /* received bytes lost: the ring was full */
  uint32_t periods;         /* real-time mode: communication times reached */
  uint32_t starved_periods; /* real-time mode: periods without a fresh input */
  uint32_t unauthenticated; /* with a key: plain frames, sealed ones with a wrong tag */
} couplet_counters;

/* The slave: declare one (static storage); its fields are private. */
typedef struct couplet_slave couplet_slave;

/* Sets up `slave` to serve the device. Returns NULL, or a static text saying
 * why the description does not fit the protocol or this build's capacities
 * (couplet_embedded_config.h). */
const char* couplet_slave_init(couplet_slave* slave, const couplet_description* description,
                               const couplet_callbacks* callbacks, void* model,
                               const couplet_platform* platform,
                               const couplet_slave_options* options);

/* Hands over received bytes (from the UART interrupt or the main loop).
 * Returns how many were taken; the rest were lost (counted as overrun). */
size_t couplet_slave_receive(couplet_slave* slave, const uint8_t* bytes, size_t count);

/* Handles what was received and, in real-time mode, advances the model when a
 * communication time has come. Call it from the main loop, often. */
void couplet_slave_poll(couplet_slave* slave);

/* Real-time mode: true and *when_ns (monotonic_ns clock) when the model has a
 * next communication time; the main loop may sleep until then. */
bool couplet_slave_next_deadline(const couplet_slave* slave, uint64_t* when_ns);

/* True once the current session has stopped (a Stop from the master) or was
 * abandoned (silent for the session timeout). */
bool couplet_slave_session_ended(const couplet_slave* slave);

/* True while a session is open (Hello received, not yet ended). */
bool couplet_slave_in_session(const couplet_slave* slave);

const couplet_counters* couplet_slave_counters(const couplet_slave* slave);

/* The identity a scenario's master checks: "device:NAME". */
const char* couplet_slave_model(const couplet_slave* slave);

#ifdef __cplusplus
}
#endif

#include "couplet_embedded_slave.h" /* the struct's layout, for static storage */

#endif /* COUPLET_EMBEDDED_H */
