/* The layout of couplet_slave, so that a firmware can give it static storage.
 * Private: use the functions of couplet_embedded.h. Its size follows
 * couplet_embedded_config.h (docs/embedded.md, "Buffer sizing"). */
#ifndef COUPLET_EMBEDDED_SLAVE_H
#define COUPLET_EMBEDDED_SLAVE_H

#include "couplet.pb.h" /* nanopb, generated from protocol/couplet.proto */

#define COUPLET_FRAME_OVERHEAD 8 /* 4 header bytes, 4 CRC bytes */
/* A sealed frame's extra bytes: an 8-byte nonce and a 16-byte tag. The frame
 * buffers hold them on top of their knobs, so that a request or answer fits
 * sealed whenever it fits plain. */
#define COUPLET_SEAL_OVERHEAD 24
/* Heartbeat answers, BUSY refusals and real-time pushes are built here, so
 * that they never overwrite the answer cache. */
#define COUPLET_SCRATCH_FRAME_BYTES                                                \
  (160 + 9 * COUPLET_MAX_OUTPUTS * (COUPLET_MAX_OUTPUT_DERIVATIVE_ORDER + 1) + 3 + \
   10 * COUPLET_MAX_DISCRETE_OUTPUTS)
/* A size of at least 1 for arrays whose capacity may be configured to 0. */
#define COUPLET_AT_LEAST_ONE(count) ((count) + ((count) == 0))
#define COUPLET_PROBLEM_BYTES 128

/* What a request's decode callbacks collected, applied only once the request
 * is known to be new (a repeat or a stale request changes nothing). */
typedef struct {
  couplet_polynomial inputs[COUPLET_MAX_INPUTS];
  size_t input_count;
  couplet_time sample_times[COUPLET_MAX_SAMPLES + (COUPLET_MAX_SAMPLES == 0)];
  size_t sample_count;
  double parameters[COUPLET_MAX_PARAMETERS];
  bool parameter_given[COUPLET_MAX_PARAMETERS];
  size_t coupled[COUPLET_MAX_INPUTS]; /* device input index of each coupled input */
  size_t coupled_count;
  int64_t discrete_inputs[COUPLET_AT_LEAST_ONE(COUPLET_MAX_DISCRETE_INPUTS)];
  size_t discrete_input_count;
  char problem[COUPLET_PROBLEM_BYTES]; /* why the request cannot be carried out */
} couplet_staged_request;

typedef struct {
  const double* values;
  size_t count;
} couplet_double_span;

typedef struct {
  const int64_t* values;
  size_t count;
} couplet_int64_span;

/* Streaming COBS decoder: bytes go straight into the frame buffer. */
typedef struct {
  size_t size;         /* decoded bytes so far */
  unsigned remaining;  /* data bytes left in the current block */
  unsigned code;       /* code of the current block; 0: expecting a code */
  bool discarding;     /* too long or broken: skip to the next delimiter */
} couplet_cobs_decoder;

struct couplet_slave {
  const couplet_description* description;
  const couplet_callbacks* callbacks;
  void* model;
  couplet_platform platform;
  couplet_slave_options options;
  char identity[72]; /* "device:NAME" */

  /* Receive path. */
  uint8_t ring[COUPLET_RX_RING_BYTES];
  volatile size_t ring_head; /* written by couplet_slave_receive */
  volatile size_t ring_tail; /* written by couplet_slave_poll */
  couplet_cobs_decoder cobs;
  uint8_t rx_frame[COUPLET_RX_FRAME_BYTES + COUPLET_SEAL_OVERHEAD];
  couplet_wire_Envelope request;
  couplet_staged_request staged;

  /* Answers. */
  couplet_wire_Envelope reply;
  uint8_t cache[COUPLET_TX_FRAME_BYTES + COUPLET_SEAL_OVERHEAD]; /* the answer to last_sequence */
  size_t cache_size;
  uint8_t scratch[COUPLET_SCRATCH_FRAME_BYTES + COUPLET_SEAL_OVERHEAD];
  couplet_double_span reply_values;  /* what the reply's repeated doubles encode from */
  couplet_double_span reply_samples;
  couplet_int64_span reply_discrete_outputs;

  /* Session. */
  uint64_t session;
  uint64_t stopped_session; /* a Hello of it never re-opens it */
  uint32_t last_sequence;
  uint64_t last_heard_ns;
  bool stopped;
  bool initialized;
  char slave_name[64]; /* the scenario's name, for messages */

  /* Sealed frames (options.key given). */
  bool keyed;
  uint8_t key[COUPLET_KEY_BYTES];
  uint64_t nonce;           /* the session's: every frame of it carries it */
  bool confirmed;           /* a request carried the nonce: the session holds the target */
  uint32_t sessions_opened; /* one of the inputs of the next nonce */
  bool heartbeat_seen;
  uint64_t last_heartbeat_ns; /* the master's sender_time_ns: heartbeats must increase */

  /* The session's configuration. */
  double parameters[COUPLET_MAX_PARAMETERS];
  size_t shown[COUPLET_MAX_INPUTS]; /* device input index of each input the master drives */
  size_t shown_count;
  unsigned input_degree;
  unsigned derivative_order;
  couplet_time imposed_step;
  bool intermediate_samples;

  /* The model's state as the core sees it. */
  couplet_time current_time;
  couplet_polynomial inputs[COUPLET_MAX_INPUTS]; /* every device input */
  double end_outputs[COUPLET_MAX_OUTPUTS * (COUPLET_MAX_OUTPUT_DERIVATIVE_ORDER + 1)];
  double samples[COUPLET_MAX_SAMPLES * COUPLET_MAX_OUTPUTS + (COUPLET_MAX_SAMPLES == 0)];
  /* Held over a step; the outputs at current_time. */
  int64_t discrete_inputs[COUPLET_AT_LEAST_ONE(COUPLET_MAX_DISCRETE_INPUTS)];
  int64_t discrete_outputs[COUPLET_AT_LEAST_ONE(COUPLET_MAX_DISCRETE_OUTPUTS)];

  /* Real-time mode. */
  bool running;
  int64_t anchor_ns; /* monotonic ns of the model time start_time */
  couplet_time start_time;
  double realtime_factor;
  couplet_time requested_end;
  couplet_time period;
  bool has_fresh_input;
  couplet_time fresh_input_time;
  int64_t fresh_input_lateness;
  couplet_polynomial fresh_inputs[COUPLET_MAX_INPUTS];
  int64_t fresh_discrete_inputs[COUPLET_AT_LEAST_ONE(COUPLET_MAX_DISCRETE_INPUTS)];

  couplet_counters counters;
};

#endif /* COUPLET_EMBEDDED_SLAVE_H */
