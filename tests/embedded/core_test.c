/* Unit tests of the couplet embedded core (targets/embedded/) in isolation:
 * framing (CRC-32, COBS, the frame header), sessions, exactly-once sequence
 * handling, heartbeats, request validation and one normal session of the
 * translational_mass example.
 *
 * The core runs against a fake platform: every byte it writes lands in a
 * capture buffer, and its monotonic clock is a variable the tests move.
 * Requests are built as a master builds them (nanopb Envelopes with encode
 * callbacks for the repeated fields, framed with couplet_frame_close) and
 * COBS-encoded by a reference encoder written here, so that the core's own
 * encoder is not trusted to test its decoder. Answers are taken out of the
 * capture buffer and decoded back into Envelopes.
 *
 * Sealed frames (a core with a key) are sealed and opened by the test's own
 * code from the format in docs/links.md, with couplet_siphash24_128 checked
 * first against the SipHash paper's reference vectors.
 *
 * Every failed check prints file:line; the exit status is non-zero if any
 * check failed. Strict C99, as the core itself. */
#include <inttypes.h>
#include <math.h>
#include <pb_decode.h>
#include <pb_encode.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "couplet_embedded.h"
#include "frame.h"
#include "siphash.h"
#include "translational_mass.h"

/* ======================================================================== */
/* Checks                                                                    */
/* ======================================================================== */

static unsigned checks_run;
static unsigned checks_failed;
static const char* current_case = "";

static bool check(bool ok, const char* file, int line, const char* what) {
  ++checks_run;
  if (!ok) {
    ++checks_failed;
    printf("%s:%d: [%s] check failed: %s\n", file, line, current_case, what);
  }
  return ok;
}

static bool check_u64(uint64_t actual, uint64_t expected, const char* file, int line,
                      const char* what) {
  ++checks_run;
  if (actual == expected) return true;
  ++checks_failed;
  printf("%s:%d: [%s] check failed: %s (got %" PRIu64 ", expected %" PRIu64 ")\n", file, line,
         current_case, what, actual, expected);
  return false;
}

/* Doubles are compared exactly: the core promises bit-identical results. */
static bool check_double(double actual, double expected, const char* file, int line,
                         const char* what) {
  ++checks_run;
  if (actual == expected) return true;
  ++checks_failed;
  printf("%s:%d: [%s] check failed: %s (got %.17g, expected %.17g)\n", file, line, current_case,
         what, actual, expected);
  return false;
}

static bool check_contains(const char* text, const char* part, const char* file, int line,
                           const char* what) {
  ++checks_run;
  if (strstr(text, part) != NULL) return true;
  ++checks_failed;
  printf("%s:%d: [%s] check failed: %s (\"%s\" does not contain \"%s\")\n", file, line,
         current_case, what, text, part);
  return false;
}

#define CHECK(condition) check((condition), __FILE__, __LINE__, #condition)
#define CHECK_EQ(actual, expected) \
  check_u64((uint64_t)(actual), (uint64_t)(expected), __FILE__, __LINE__, #actual " == " #expected)
#define CHECK_DOUBLE(actual, expected) \
  check_double((actual), (expected), __FILE__, __LINE__, #actual " == " #expected)
#define CHECK_CONTAINS(text, part) \
  check_contains((text), (part), __FILE__, __LINE__, #text " contains " #part)

/* ======================================================================== */
/* The fake platform: a capture buffer and a clock the tests move            */
/* ======================================================================== */

#define CAPTURE_BYTES 65536
static uint8_t captured[CAPTURE_BYTES];
static size_t captured_size;
static bool capture_overflowed;
static uint64_t fake_clock_ns;

static void fake_write(void* context, const uint8_t* bytes, size_t count) {
  (void)context;
  if (count > CAPTURE_BYTES - captured_size) {
    capture_overflowed = true;
    count = CAPTURE_BYTES - captured_size;
  }
  memcpy(captured + captured_size, bytes, count);
  captured_size += count;
}

static uint64_t fake_monotonic_ns(void* context) {
  (void)context;
  return fake_clock_ns;
}

static const couplet_platform fake_platform = {fake_write, fake_monotonic_ns, NULL};

static void clear_capture(void) {
  captured_size = 0;
  capture_overflowed = false;
}

/* ======================================================================== */
/* A counting device: tells how often the core ran its callbacks             */
/* ======================================================================== */

/* One input u, one output y = gain * (steps run so far): an answer computed
 * again instead of taken from the cache would show a different y. */
typedef struct {
  unsigned initialize_calls;
  unsigned outputs_calls;
  unsigned step_calls;
  double gain;
  double last_input; /* u at the end of the last step */
} counting_model;

static counting_model counter;

static const couplet_input counter_inputs[] = {{"u", "V", 0.5}};
static const couplet_output counter_outputs[] = {{"y", "", false}};
static const couplet_parameter counter_parameters[] = {{"gain", 1.0}};

static const char* counter_initialize(void* model, couplet_time start, const double* parameters) {
  counting_model* device = (counting_model*)model;
  (void)start;
  ++device->initialize_calls;
  device->gain = parameters[0];
  return NULL;
}

static const char* counter_outputs_now(void* model, couplet_time now,
                                       const couplet_polynomial* inputs, double* values) {
  counting_model* device = (counting_model*)model;
  (void)now;
  (void)inputs;
  ++device->outputs_calls;
  values[0] = device->gain * (double)device->step_calls;
  return NULL;
}

static const char* counter_step(void* model, const couplet_step_request* request,
                                double* end_outputs, double* samples) {
  counting_model* device = (counting_model*)model;
  (void)samples;
  ++device->step_calls;
  device->last_input = couplet_polynomial_value(&request->inputs[0], couplet_seconds(request->end));
  end_outputs[0] = device->gain * (double)device->step_calls;
  return NULL;
}

static const couplet_description counter_description = {
    .name = "counter",
    .inputs = counter_inputs,
    .input_count = 1,
    .outputs = counter_outputs,
    .output_count = 1,
    .parameters = counter_parameters,
    .parameter_count = 1,
    .input_degree = 3,
    .output_derivative_order = 0,
    .sample_period = 0,
    .intermediate_samples = false,
};

static const couplet_callbacks counter_callbacks = {
    .initialize = counter_initialize,
    .outputs = counter_outputs_now,
    .step = counter_step,
};

/* A gear selector with Integer and Boolean ports: over each step it holds its
 * discrete inputs gear (Integer, default 2) and armed (Boolean, default 0);
 * its discrete outputs are ratio = 10 × the gear it holds and engaged = armed. */
typedef struct {
  int64_t gear;
  int64_t armed;
} gear_model;

static gear_model gears;

static const couplet_output gear_outputs[] = {{"torque", "N.m", false}};
static const couplet_discrete_port gear_discrete_inputs[] = {{"gear", NULL, false, 2},
                                                             {"armed", NULL, true, 0}};
static const couplet_discrete_port gear_discrete_outputs[] = {{"ratio", NULL, false, 0},
                                                              {"engaged", NULL, true, 0}};

static const char* gear_initialize(void* model, couplet_time start, const double* parameters) {
  gear_model* device = (gear_model*)model;
  (void)start;
  (void)parameters;
  device->gear = 1;
  device->armed = 0;
  return NULL;
}

static const char* gear_outputs_now(void* model, couplet_time now, const couplet_polynomial* inputs,
                                    double* values) {
  (void)model;
  (void)now;
  (void)inputs;
  values[0] = 0.0;
  return NULL;
}

static const char* gear_step(void* model, const couplet_step_request* request, double* end_outputs,
                             double* samples) {
  gear_model* device = (gear_model*)model;
  (void)samples;
  device->gear = request->discrete_inputs[0];
  device->armed = request->discrete_inputs[1];
  end_outputs[0] = (double)device->gear;
  return NULL;
}

static const char* gear_discrete_outputs_now(void* model, couplet_time now, int64_t* values) {
  const gear_model* device = (const gear_model*)model;
  (void)now;
  values[0] = 10 * device->gear;
  values[1] = device->armed;
  return NULL;
}

static const couplet_description gear_description = {
    .name = "gears",
    .outputs = gear_outputs,
    .output_count = 1,
    .discrete_inputs = gear_discrete_inputs,
    .discrete_input_count = 2,
    .discrete_outputs = gear_discrete_outputs,
    .discrete_output_count = 2,
};

static const couplet_callbacks gear_callbacks = {
    .initialize = gear_initialize,
    .outputs = gear_outputs_now,
    .step = gear_step,
    .discrete_outputs = gear_discrete_outputs_now,
};

/* The same gears, asking to end the simulation once in fifth gear. */
static bool gear_stop_requested(void* model, couplet_time now, const char** reason) {
  const gear_model* device = (const gear_model*)model;
  (void)now;
  *reason = "fifth gear is the last";
  return device->gear >= 5;
}

static const couplet_callbacks stopping_gear_callbacks = {
    .initialize = gear_initialize,
    .outputs = gear_outputs_now,
    .step = gear_step,
    .discrete_outputs = gear_discrete_outputs_now,
    .stop_requested = gear_stop_requested,
};

/* ======================================================================== */
/* The slave under test                                                      */
/* ======================================================================== */

#define SESSION_TIMEOUT_NS 1000000000u /* 1 s */
#define CLOCK_ORIGIN_NS 5000000000000u /* anything but 0: the clock need not start at 0 */
#define MS 1000000                     /* ns */

static couplet_slave slave;
static translational_mass mass;

/* With a key (NULL: none) and in real time or virtual time. */
static void start_slave_with(const couplet_description* description,
                             const couplet_callbacks* callbacks, void* model, bool realtime,
                             const uint8_t* key) {
  couplet_slave_options options;
  const char* problem;
  options.realtime = realtime;
  options.session_timeout_ns = SESSION_TIMEOUT_NS;
  options.key = key;
  fake_clock_ns = CLOCK_ORIGIN_NS;
  memset(&counter, 0, sizeof counter);
  memset(&mass, 0, sizeof mass);
  clear_capture();
  problem = couplet_slave_init(&slave, description, callbacks, model, &fake_platform, &options);
  if (!CHECK(problem == NULL)) printf("  couplet_slave_init: %s\n", problem);
}

static void start_slave(const couplet_description* description, const couplet_callbacks* callbacks,
                        void* model) {
  start_slave_with(description, callbacks, model, false, NULL);
}

static void start_counter_slave(void) {
  start_slave(&counter_description, &counter_callbacks, &counter);
}

static const couplet_counters* counters(void) { return couplet_slave_counters(&slave); }

/* ======================================================================== */
/* Reference COBS, written from the paper independently of the core          */
/* ======================================================================== */

/* Encodes with both delimiters, as the core's wire format wants. The classic
 * form: a block of 254 data bytes at the very end is followed by an empty
 * block 0x01 (the core's writer leaves it out; both decode alike). */
static size_t cobs_encode(const uint8_t* input, size_t size, uint8_t* output) {
  size_t out = 0;
  size_t code_at;
  size_t k;
  uint8_t code = 1;
  output[out++] = 0x00;
  code_at = out++;
  for (k = 0; k < size; ++k) {
    if (input[k] == 0x00) {
      output[code_at] = code;
      code_at = out++;
      code = 1;
    } else {
      output[out++] = input[k];
      if (++code == 0xFF) {
        output[code_at] = code;
        code_at = out++;
        code = 1;
      }
    }
  }
  output[code_at] = code;
  output[out++] = 0x00;
  return out;
}

/* Decodes the bytes between two delimiters. Returns false if malformed. */
static bool cobs_decode(const uint8_t* input, size_t size, uint8_t* output, size_t* output_size) {
  size_t k = 0;
  size_t out = 0;
  while (k < size) {
    const uint8_t code = input[k++];
    uint8_t j;
    if (code == 0x00) return false;
    for (j = 1; j < code; ++j) {
      if (k >= size || input[k] == 0x00) return false;
      output[out++] = input[k++];
    }
    if (code != 0xFF && k < size) output[out++] = 0x00;
  }
  *output_size = out;
  return true;
}

/* ======================================================================== */
/* Requests: nanopb encoding as a master does it                             */
/* ======================================================================== */

typedef struct {
  double origin;
  double scale;
  size_t count; /* of coefficients; 0 is the zero polynomial */
  double coefficients[12];
} test_polynomial;

typedef struct {
  const test_polynomial* items;
  size_t count;
} polynomial_list;

typedef struct {
  const int64_t* items;
  size_t count;
} time_list;

typedef struct {
  const char* name;
  double value;
} test_parameter;

typedef struct {
  const test_parameter* items;
  size_t count;
} parameter_list;

static test_polynomial constant(double value) {
  test_polynomial polynomial;
  memset(&polynomial, 0, sizeof polynomial);
  polynomial.origin = 0.0;
  polynomial.scale = 1.0;
  polynomial.count = 1;
  polynomial.coefficients[0] = value;
  return polynomial;
}

/* A packed repeated double: tag, byte length, then fixed64 per value. */
static bool encode_coefficients(pb_ostream_t* stream, const pb_field_t* field, void* const* arg) {
  const test_polynomial* polynomial = (const test_polynomial*)*arg;
  size_t k;
  if (polynomial->count == 0) return true;
  if (!pb_encode_tag(stream, PB_WT_STRING, field->tag)) return false;
  if (!pb_encode_varint(stream, (uint64_t)polynomial->count * 8u)) return false;
  for (k = 0; k < polynomial->count; ++k) {
    if (!pb_encode_fixed64(stream, &polynomial->coefficients[k])) return false;
  }
  return true;
}

/* Repeated Polynomial: one submessage per item (nanopb calls this twice, to
 * size and to write, so it must not change anything). */
static bool encode_polynomials(pb_ostream_t* stream, const pb_field_t* field, void* const* arg) {
  const polynomial_list* list = (const polynomial_list*)*arg;
  size_t k;
  for (k = 0; k < list->count; ++k) {
    couplet_wire_Polynomial wire = couplet_wire_Polynomial_init_zero;
    wire.origin = list->items[k].origin;
    wire.scale = list->items[k].scale;
    wire.coefficients.funcs.encode = encode_coefficients;
    wire.coefficients.arg = (void*)&list->items[k];
    if (!pb_encode_tag_for_field(stream, field)) return false;
    if (!pb_encode_submessage(stream, couplet_wire_Polynomial_fields, &wire)) return false;
  }
  return true;
}

/* A packed repeated sint64: its byte length is found by a sizing pass. */
static bool encode_times(pb_ostream_t* stream, const pb_field_t* field, void* const* arg) {
  const time_list* list = (const time_list*)*arg;
  pb_ostream_t sizing = PB_OSTREAM_SIZING;
  size_t k;
  if (list->count == 0) return true;
  for (k = 0; k < list->count; ++k) {
    if (!pb_encode_svarint(&sizing, list->items[k])) return false;
  }
  if (!pb_encode_tag(stream, PB_WT_STRING, field->tag)) return false;
  if (!pb_encode_varint(stream, sizing.bytes_written)) return false;
  for (k = 0; k < list->count; ++k) {
    if (!pb_encode_svarint(stream, list->items[k])) return false;
  }
  return true;
}

static bool encode_parameters(pb_ostream_t* stream, const pb_field_t* field, void* const* arg) {
  const parameter_list* list = (const parameter_list*)*arg;
  size_t k;
  for (k = 0; k < list->count; ++k) {
    couplet_wire_Parameter parameter = couplet_wire_Parameter_init_zero;
    strncpy(parameter.name, list->items[k].name, sizeof parameter.name - 1);
    parameter.value = list->items[k].value;
    if (!pb_encode_tag_for_field(stream, field)) return false;
    if (!pb_encode_submessage(stream, couplet_wire_Parameter_fields, &parameter)) return false;
  }
  return true;
}

#define FRAME_BYTES 4096
#define UNKNOWN_FIELD 99 /* not in the schema: nanopb skips it */

static size_t varint_size(uint64_t value) {
  size_t size = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++size;
  }
  return size;
}

/* Encodes `request` as a whole frame (header, payload, CRC). With frame_size
 * > 0 an unknown field pads the payload so that the frame is exactly that
 * long: a valid frame of any size, since the core skips unknown fields.
 * Returns the frame's size, 0 if it cannot be done. */
static size_t encode_frame_sized(const couplet_wire_Envelope* request, uint8_t* frame,
                                 size_t capacity, size_t frame_size) {
  pb_ostream_t stream = pb_ostream_from_buffer(frame + COUPLET_FRAME_HEADER_BYTES,
                                               capacity - COUPLET_FRAME_OVERHEAD);
  if (!pb_encode(&stream, couplet_wire_Envelope_fields, request)) {
    printf("  encoding a request failed: %s\n", PB_GET_ERROR(&stream));
    return 0;
  }
  if (frame_size > 0) {
    const size_t tag_size = varint_size(((uint64_t)UNKNOWN_FIELD << 3) | PB_WT_STRING);
    size_t room;
    size_t length;
    if (frame_size < COUPLET_FRAME_OVERHEAD + stream.bytes_written + tag_size + 1) return 0;
    room = frame_size - COUPLET_FRAME_OVERHEAD - stream.bytes_written - tag_size;
    for (length = room; length > 0 && length + varint_size(length) != room; --length) {
    }
    if (length + varint_size(length) != room) return 0;
    if (!pb_encode_tag(&stream, PB_WT_STRING, UNKNOWN_FIELD) || !pb_encode_varint(&stream, length))
      return 0;
    while (length-- > 0) {
      static const pb_byte_t filler = 0x55;
      if (!pb_write(&stream, &filler, 1)) return 0;
    }
  }
  return couplet_frame_close(frame, stream.bytes_written);
}

static size_t encode_frame(const couplet_wire_Envelope* request, uint8_t* frame, size_t capacity) {
  return encode_frame_sized(request, frame, capacity, 0);
}

static couplet_wire_Envelope envelope(uint64_t session, uint32_t sequence, pb_size_t body) {
  couplet_wire_Envelope request;
  memset(&request, 0, sizeof request);
  request.session = session;
  request.sequence = sequence;
  request.which_body = body;
  return request;
}

/* ======================================================================== */
/* Answers: decoded out of the capture buffer                                */
/* ======================================================================== */

#define MAX_NAMES 8
#define MAX_VALUES 64

typedef struct {
  size_t count;
  char names[MAX_NAMES][64];
} port_sink;

typedef struct {
  size_t count; /* every value received, even beyond the capacity */
  double values[MAX_VALUES];
} double_sink;

typedef struct {
  size_t count; /* every value received, even beyond the capacity */
  int64_t values[MAX_VALUES];
} int64_sink;

typedef struct {
  size_t frames;           /* answer frames written since the capture was cleared */
  size_t undecodable;      /* written bytes that are no well-formed answer */
  couplet_wire_Envelope envelope; /* the last answer */
  port_sink inputs;        /* Describe */
  port_sink outputs;
  double_sink values;      /* Outputs.values or StepResult.end_outputs */
  double_sink samples;     /* StepResult.samples */
  port_sink discrete_inputs; /* Describe */
  port_sink discrete_outputs;
  int64_sink discrete_values; /* Ack or StepResult .discrete_outputs */
  bool sealed;                /* the last answer was a sealed frame ... */
  uint64_t nonce;             /* ... with this nonce */
} answer_log;

static answer_log answers;

static bool decode_port(pb_istream_t* stream, const pb_field_t* field, void** arg) {
  port_sink* sink = (port_sink*)*arg;
  couplet_wire_Port port = couplet_wire_Port_init_zero;
  (void)field;
  if (!pb_decode(stream, couplet_wire_Port_fields, &port)) return false;
  if (sink->count < MAX_NAMES) memcpy(sink->names[sink->count], port.name, sizeof port.name);
  ++sink->count;
  return true;
}

/* One double of a packed repeated field (nanopb calls it per value). */
static bool decode_double(pb_istream_t* stream, const pb_field_t* field, void** arg) {
  double_sink* sink = (double_sink*)*arg;
  double value;
  (void)field;
  if (!pb_decode_fixed64(stream, &value)) return false;
  if (sink->count < MAX_VALUES) sink->values[sink->count] = value;
  ++sink->count;
  return true;
}

/* One sint64 of a packed repeated field (nanopb calls it per value). */
static bool decode_int64(pb_istream_t* stream, const pb_field_t* field, void** arg) {
  int64_sink* sink = (int64_sink*)*arg;
  int64_t value;
  (void)field;
  if (!pb_decode_svarint(stream, &value)) return false;
  if (sink->count < MAX_VALUES) sink->values[sink->count] = value;
  ++sink->count;
  return true;
}

/* The body's submessage callback: points its repeated fields at the log
 * before the submessage is decoded (the oneof has just been zeroed). */
static bool prepare_answer_body(pb_istream_t* stream, const pb_field_t* field, void** arg) {
  answer_log* log = (answer_log*)*arg;
  couplet_wire_Envelope* answer = &log->envelope;
  (void)stream;
  switch (field->tag) {
    case couplet_wire_Envelope_describe_tag:
      answer->body.describe.inputs.funcs.decode = decode_port;
      answer->body.describe.inputs.arg = &log->inputs;
      answer->body.describe.outputs.funcs.decode = decode_port;
      answer->body.describe.outputs.arg = &log->outputs;
      answer->body.describe.discrete_inputs.funcs.decode = decode_port;
      answer->body.describe.discrete_inputs.arg = &log->discrete_inputs;
      answer->body.describe.discrete_outputs.funcs.decode = decode_port;
      answer->body.describe.discrete_outputs.arg = &log->discrete_outputs;
      break;
    case couplet_wire_Envelope_ack_tag:
      answer->body.ack.discrete_outputs.funcs.decode = decode_int64;
      answer->body.ack.discrete_outputs.arg = &log->discrete_values;
      break;
    case couplet_wire_Envelope_outputs_tag:
      answer->body.outputs.values.funcs.decode = decode_double;
      answer->body.outputs.values.arg = &log->values;
      break;
    case couplet_wire_Envelope_step_result_tag:
      answer->body.step_result.end_outputs.funcs.decode = decode_double;
      answer->body.step_result.end_outputs.arg = &log->values;
      answer->body.step_result.samples.funcs.decode = decode_double;
      answer->body.step_result.samples.arg = &log->samples;
      answer->body.step_result.discrete_outputs.funcs.decode = decode_int64;
      answer->body.step_result.discrete_outputs.arg = &log->discrete_values;
      break;
    default:
      break;
  }
  return true;
}

/* ---- sealed frames, built and opened here from docs/links.md ---- */

/* The key requests are sealed with (NULL: plain frames) and answers must be
 * sealed with, and the nonce requests carry. */
static const uint8_t* test_key;
static uint64_t test_nonce;

static uint32_t load_le32(const uint8_t* bytes) {
  return (uint32_t)bytes[0] | ((uint32_t)bytes[1] << 8) | ((uint32_t)bytes[2] << 16) |
         ((uint32_t)bytes[3] << 24);
}

static void store_le(uint8_t* bytes, uint64_t value, size_t count) {
  size_t k;
  for (k = 0; k < count; ++k) bytes[k] = (uint8_t)(value >> (8 * k));
}

/* Rewrites a plain frame's CRC (after a deliberate change). */
static void recompute_crc(uint8_t* frame, size_t size) {
  store_le(frame + size - 4, couplet_crc32(frame, size - 4), 4);
}

/* The sealed frame (version 2) of a plain one's payload: C5 02 len16 |
 * nonce u64 | payload | SipHash-2-4-128 of all before | CRC-32 of all before. */
static size_t seal_frame(const uint8_t* plain, size_t plain_size, uint8_t* sealed,
                         const uint8_t* key, uint64_t nonce) {
  const size_t n = plain_size - 8;
  sealed[0] = 0xC5;
  sealed[1] = 0x02;
  sealed[2] = (uint8_t)n;
  sealed[3] = (uint8_t)(n >> 8);
  store_le(sealed + 4, nonce, 8);
  memcpy(sealed + 12, plain + 4, n);
  couplet_siphash24_128(key, sealed, 12 + n, sealed + 12 + n);
  recompute_crc(sealed, 32 + n);
  return 32 + n;
}

/* Opens a sealed answer under test_key: the layout, the CRC and the tag
 * exactly. Returns false if any is wrong. */
static bool open_sealed(const uint8_t* frame, size_t size, const uint8_t** payload,
                        size_t* payload_size, uint64_t* nonce) {
  uint8_t tag[16];
  size_t n;
  if (test_key == NULL || size < 32 || frame[0] != 0xC5 || frame[1] != 0x02) return false;
  n = (size_t)frame[2] | ((size_t)frame[3] << 8);
  if (size != 32 + n || couplet_crc32(frame, 28 + n) != load_le32(frame + 28 + n)) return false;
  couplet_siphash24_128(test_key, frame, 12 + n, tag);
  if (memcmp(tag, frame + 12 + n, 16) != 0) return false;
  *nonce = (uint64_t)load_le32(frame + 4) | ((uint64_t)load_le32(frame + 8) << 32);
  *payload = frame + 12;
  *payload_size = n;
  return true;
}

static void decode_answer(const uint8_t* frame, size_t size) {
  const uint8_t* payload;
  size_t payload_size;
  pb_istream_t stream;
  ++answers.frames;
  answers.sealed = size >= 2 && frame[1] == 0x02;
  answers.nonce = 0;
  if (answers.sealed ? !open_sealed(frame, size, &payload, &payload_size, &answers.nonce)
                     : couplet_frame_open(frame, size, &payload, &payload_size) != NULL) {
    ++answers.undecodable;
    return;
  }
  memset(&answers.envelope, 0, sizeof answers.envelope);
  memset(&answers.inputs, 0, sizeof answers.inputs);
  memset(&answers.outputs, 0, sizeof answers.outputs);
  memset(&answers.values, 0, sizeof answers.values);
  memset(&answers.samples, 0, sizeof answers.samples);
  memset(&answers.discrete_inputs, 0, sizeof answers.discrete_inputs);
  memset(&answers.discrete_outputs, 0, sizeof answers.discrete_outputs);
  memset(&answers.discrete_values, 0, sizeof answers.discrete_values);
  answers.envelope.cb_body.funcs.decode = prepare_answer_body;
  answers.envelope.cb_body.arg = &answers;
  stream = pb_istream_from_buffer(payload, payload_size);
  if (!pb_decode(&stream, couplet_wire_Envelope_fields, &answers.envelope)) ++answers.undecodable;
}

/* Splits the capture buffer into frames and decodes each one. */
static void parse_answers(void) {
  static uint8_t frame[FRAME_BYTES];
  couplet_cobs_decoder decoder;
  size_t k;
  memset(&answers, 0, sizeof answers);
  couplet_cobs_reset(&decoder);
  for (k = 0; k < captured_size; ++k) {
    const couplet_cobs_event event = couplet_cobs_feed(&decoder, captured[k], frame, sizeof frame);
    if (event == COUPLET_COBS_DROPPED) ++answers.undecodable;
    if (event == COUPLET_COBS_FRAME) {
      decode_answer(frame, decoder.size);
      couplet_cobs_reset(&decoder);
    }
  }
  if (decoder.size != 0 || decoder.code != 0) ++answers.undecodable; /* not terminated */
  if (capture_overflowed) ++answers.undecodable;
}

/* ======================================================================== */
/* Exchanges: bytes in through the receive ring, answers out of the capture  */
/* ======================================================================== */

/* Hands bytes to the slave in pieces, polling after each, as a UART
 * interrupt and a main loop would. */
static void deliver(const uint8_t* bytes, size_t count) {
  while (count > 0) {
    const size_t piece = count < 200 ? count : 200;
    const size_t taken = couplet_slave_receive(&slave, bytes, piece);
    CHECK_EQ(taken, piece);
    couplet_slave_poll(&slave);
    bytes += piece;
    count -= piece;
  }
}

/* Sends raw wire bytes; returns the number of answer frames. */
static size_t exchange_bytes(const uint8_t* bytes, size_t count) {
  clear_capture();
  deliver(bytes, count);
  parse_answers();
  return answers.frames;
}

/* Sends one frame COBS-encoded between delimiters. */
static size_t exchange_frame(const uint8_t* frame, size_t size) {
  static uint8_t wire[2 * FRAME_BYTES];
  return exchange_bytes(wire, cobs_encode(frame, size, wire));
}

/* A request, sealed with test_key and test_nonce when test_key is set. */
static size_t transmit(const couplet_wire_Envelope* request) {
  static uint8_t frame[FRAME_BYTES];
  static uint8_t sealed[FRAME_BYTES + 24];
  const size_t size = encode_frame(request, frame, sizeof frame);
  CHECK(size > 0);
  if (test_key != NULL)
    return exchange_frame(sealed, seal_frame(frame, size, sealed, test_key, test_nonce));
  return exchange_frame(frame, size);
}

static size_t send_hello(uint64_t session, uint32_t sequence) {
  couplet_wire_Envelope request = envelope(session, sequence, couplet_wire_Envelope_hello_tag);
  request.body.hello.version = couplet_wire_Version_VERSION_CURRENT;
  return transmit(&request);
}

static size_t send_initialize(uint64_t session, uint32_t sequence, int64_t start_ns) {
  couplet_wire_Envelope request = envelope(session, sequence, couplet_wire_Envelope_initialize_tag);
  request.body.initialize.start_ns = start_ns;
  return transmit(&request);
}

static size_t send_heartbeat(uint64_t session, uint32_t sequence) {
  couplet_wire_Envelope request = envelope(session, sequence, couplet_wire_Envelope_heartbeat_tag);
  request.body.heartbeat.sender_time_ns = 42;
  return transmit(&request);
}

static size_t send_heartbeat_at(uint64_t session, int64_t sender_time_ns) {
  couplet_wire_Envelope request = envelope(session, 0, couplet_wire_Envelope_heartbeat_tag);
  request.body.heartbeat.sender_time_ns = sender_time_ns;
  return transmit(&request);
}

static size_t send_start(uint64_t session, uint32_t sequence, double realtime_factor) {
  couplet_wire_Envelope request = envelope(session, sequence, couplet_wire_Envelope_start_tag);
  request.body.start.realtime_factor = realtime_factor;
  return transmit(&request);
}

static size_t send_stop(uint64_t session, uint32_t sequence) {
  couplet_wire_Envelope request = envelope(session, sequence, couplet_wire_Envelope_stop_tag);
  return transmit(&request);
}

static size_t send_evaluate(uint64_t session, uint32_t sequence, const test_polynomial* inputs,
                            size_t input_count) {
  couplet_wire_Envelope request =
      envelope(session, sequence, couplet_wire_Envelope_evaluate_outputs_tag);
  polynomial_list list;
  list.items = inputs;
  list.count = input_count;
  request.body.evaluate_outputs.inputs.funcs.encode = encode_polynomials;
  request.body.evaluate_outputs.inputs.arg = &list;
  return transmit(&request);
}

static size_t send_step_sampled(uint64_t session, uint32_t sequence, int64_t start_ns,
                                int64_t end_ns, const test_polynomial* inputs, size_t input_count,
                                const int64_t* sample_times, size_t sample_count) {
  couplet_wire_Envelope request = envelope(session, sequence, couplet_wire_Envelope_step_request_tag);
  polynomial_list list;
  time_list times;
  list.items = inputs;
  list.count = input_count;
  times.items = sample_times;
  times.count = sample_count;
  request.body.step_request.start_ns = start_ns;
  request.body.step_request.end_ns = end_ns;
  request.body.step_request.inputs.funcs.encode = encode_polynomials;
  request.body.step_request.inputs.arg = &list;
  request.body.step_request.sample_times_ns.funcs.encode = encode_times;
  request.body.step_request.sample_times_ns.arg = &times;
  return transmit(&request);
}

/* A step with discrete inputs and no Real ones. */
static size_t send_discrete_step(uint64_t session, uint32_t sequence, int64_t start_ns,
                                 int64_t end_ns, const int64_t* discrete_inputs, size_t count) {
  couplet_wire_Envelope request =
      envelope(session, sequence, couplet_wire_Envelope_step_request_tag);
  time_list values;
  values.items = discrete_inputs;
  values.count = count;
  request.body.step_request.start_ns = start_ns;
  request.body.step_request.end_ns = end_ns;
  request.body.step_request.discrete_inputs.funcs.encode = encode_times; /* packed sint64 as well */
  request.body.step_request.discrete_inputs.arg = &values;
  return transmit(&request);
}

static size_t send_step(uint64_t session, uint32_t sequence, int64_t start_ns, int64_t end_ns,
                        const test_polynomial* inputs, size_t input_count) {
  return send_step_sampled(session, sequence, start_ns, end_ns, inputs, input_count, NULL, 0);
}

/* A step of the counting device with a constant input. */
static size_t send_counter_step(uint64_t session, uint32_t sequence, int64_t start_ns,
                                int64_t end_ns) {
  const test_polynomial input = constant(1.0);
  return send_step(session, sequence, start_ns, end_ns, &input, 1);
}

static size_t send_configure(uint64_t session, uint32_t sequence, const char* model,
                             const test_parameter* parameters, size_t parameter_count) {
  couplet_wire_Envelope request = envelope(session, sequence, couplet_wire_Envelope_configure_tag);
  parameter_list list;
  list.items = parameters;
  list.count = parameter_count;
  strncpy(request.body.configure.model, model, sizeof request.body.configure.model - 1);
  strncpy(request.body.configure.slave_name, "device_under_test",
          sizeof request.body.configure.slave_name - 1);
  request.body.configure.parameters.funcs.encode = encode_parameters;
  request.body.configure.parameters.arg = &list;
  return transmit(&request);
}

/* ---- expectations on the last exchange, reported at the caller's line ---- */

static const char* body_name(pb_size_t tag) {
  switch (tag) {
    case 0: return "(none)";
    case couplet_wire_Envelope_describe_tag: return "Describe";
    case couplet_wire_Envelope_outputs_tag: return "Outputs";
    case couplet_wire_Envelope_step_result_tag: return "StepResult";
    case couplet_wire_Envelope_heartbeat_tag: return "Heartbeat";
    case couplet_wire_Envelope_ack_tag: return "Ack";
    case couplet_wire_Envelope_error_tag: return "Error";
    default: return "(a request)";
  }
}

/* Exactly one well-formed answer with this body, session and sequence. */
static bool expect_answer(const char* file, int line, pb_size_t body, uint64_t session,
                          uint32_t sequence) {
  const couplet_wire_Envelope* answer = &answers.envelope;
  bool ok = check_u64(answers.frames, 1, file, line, "exactly one answer frame");
  ok = check_u64(answers.undecodable, 0, file, line, "the answer decodes") && ok;
  if (answers.frames == 0) return false;
  if (!check_u64(answer->which_body, body, file, line, "the answer's body")) {
    ok = false;
    printf("  expected %s, got %s", body_name(body), body_name(answer->which_body));
    if (answer->which_body == couplet_wire_Envelope_error_tag)
      printf(" (code %d: %s)", (int)answer->body.error.code, answer->body.error.text);
    printf("\n");
  }
  ok = check_u64(answer->session, session, file, line, "the answer's session") && ok;
  ok = check_u64(answer->sequence, sequence, file, line, "the answer's sequence") && ok;
  return ok;
}

/* An Error answer of this code whose text contains `part`. */
static bool expect_error(const char* file, int line, couplet_wire_ErrorCode code, uint64_t session,
                         uint32_t sequence, const char* part) {
  bool ok = expect_answer(file, line, couplet_wire_Envelope_error_tag, session, sequence);
  if (answers.envelope.which_body != couplet_wire_Envelope_error_tag) return false;
  ok = check_u64((uint64_t)answers.envelope.body.error.code, (uint64_t)code, file, line,
                 "the error code") && ok;
  ok = check_contains(answers.envelope.body.error.text, part, file, line, "the error text") && ok;
  return ok;
}

static bool expect_silence(const char* file, int line) {
  if (check_u64(captured_size, 0, file, line, "no answer (bytes written)")) return true;
  parse_answers();
  printf("  %u answer frame(s); the last is %s\n", (unsigned)answers.frames,
         body_name(answers.envelope.which_body));
  return false;
}

#define EXPECT_ANSWER(body, session, sequence) \
  expect_answer(__FILE__, __LINE__, couplet_wire_Envelope_##body##_tag, (session), (sequence))
#define EXPECT_ERROR(code, session, sequence, part) \
  expect_error(__FILE__, __LINE__, couplet_wire_ErrorCode_##code, (session), (sequence), (part))
#define EXPECT_SILENCE() expect_silence(__FILE__, __LINE__)

/* The wire bytes of the last exchange, kept to compare answers byte for byte. */
typedef struct {
  size_t size;
  uint8_t bytes[4096];
} wire_copy;

static void keep_wire(wire_copy* copy) {
  copy->size = captured_size < sizeof copy->bytes ? captured_size : sizeof copy->bytes;
  memcpy(copy->bytes, captured, copy->size);
}

static bool same_wire(const wire_copy* copy) {
  return captured_size == copy->size && memcmp(captured, copy->bytes, copy->size) == 0;
}

/* Opens a session of the counting device and initializes it at time 0:
 * sequences first .. first + 1 are used. */
static void open_counter_session(uint64_t session, uint32_t first) {
  send_hello(session, first);
  EXPECT_ANSWER(describe, session, first);
  send_initialize(session, first + 1u, 0);
  EXPECT_ANSWER(ack, session, first + 1u);
}

/* ======================================================================== */
/* 1. CRC-32 and COBS                                                        */
/* ======================================================================== */

/* One payload through both encoders and both decoders: the core's writer
 * against the reference decoder, the reference encoder against the core's
 * streaming decoder. */
static void check_cobs_round_trip(const uint8_t* payload, size_t size, const char* label) {
  static uint8_t decoded[2048];
  static uint8_t wire[2048];
  couplet_cobs_decoder decoder;
  size_t decoded_size = 0;
  size_t wire_size;
  size_t frames = 0;
  size_t k;
  bool interior_zero = false;

  clear_capture();
  couplet_cobs_write(&fake_platform, payload, size);
  if (!CHECK(captured_size >= 3 && captured[0] == 0x00 && captured[captured_size - 1] == 0x00))
    printf("  %s: the core's writer does not delimit both ends\n", label);
  for (k = 1; k + 1 < captured_size; ++k) interior_zero = interior_zero || captured[k] == 0x00;
  if (!CHECK(!interior_zero)) printf("  %s: a zero inside the encoding\n", label);
  /* COBS costs at most one byte per 254, plus the code byte and delimiters. */
  if (!CHECK(captured_size <= size + size / 254 + 3)) printf("  %s: overhead too large\n", label);
  if (!CHECK(captured_size >= 2 &&
             cobs_decode(captured + 1, captured_size - 2, decoded, &decoded_size) &&
             decoded_size == size && memcmp(decoded, payload, size) == 0))
    printf("  %s: the core's writer does not decode back (reference decoder)\n", label);

  wire_size = cobs_encode(payload, size, wire);
  couplet_cobs_reset(&decoder);
  decoded_size = 0;
  for (k = 0; k < wire_size; ++k) {
    const couplet_cobs_event event = couplet_cobs_feed(&decoder, wire[k], decoded, sizeof decoded);
    if (event == COUPLET_COBS_DROPPED) printf("  %s: dropped at byte %u\n", label, (unsigned)k);
    if (event == COUPLET_COBS_FRAME) {
      ++frames;
      if (!CHECK(k == wire_size - 1)) printf("  %s: a frame ends early, at %u\n", label, (unsigned)k);
      decoded_size = decoder.size;
      couplet_cobs_reset(&decoder);
    }
  }
  if (!CHECK(frames == 1 && decoded_size == size && memcmp(decoded, payload, size) == 0))
    printf("  %s: the core's decoder does not give the payload back\n", label);

  /* The core's own writer into its own decoder as well. */
  couplet_cobs_reset(&decoder);
  frames = 0;
  for (k = 0; k < captured_size; ++k) {
    if (couplet_cobs_feed(&decoder, captured[k], decoded, sizeof decoded) == COUPLET_COBS_FRAME) {
      ++frames;
      decoded_size = decoder.size;
      couplet_cobs_reset(&decoder);
    }
  }
  if (!CHECK(frames == 1 && decoded_size == size && memcmp(decoded, payload, size) == 0))
    printf("  %s: the core's writer and decoder disagree\n", label);
}

static void test_crc_and_cobs(void) {
  static const uint8_t check_string[] = "123456789";
  static uint8_t payload[1100];
  size_t k;

  /* The CRC-32 check value of the standard (IEEE 802.3, reflected). */
  CHECK_EQ(couplet_crc32(check_string, 9), 0xCBF43926u);
  CHECK_EQ(couplet_crc32(check_string, 0), 0x00000000u);

  check_cobs_round_trip(payload, 0, "empty");
  {
    static const uint8_t zeros[] = {0x00, 0x00, 0x00};
    static const uint8_t mixed[] = {0x11, 0x00, 0x00, 0x22, 0x33, 0x00};
    static const uint8_t leading[] = {0x00, 0x01, 0x02};
    check_cobs_round_trip(zeros, 1, "one zero");
    check_cobs_round_trip(zeros, 3, "three zeros");
    check_cobs_round_trip(mixed, sizeof mixed, "zeros inside and at the end");
    check_cobs_round_trip(leading, sizeof leading, "a zero first");
  }
  /* Runs around the 254-byte block limit, alone and followed by a zero. */
  {
    static const size_t runs[] = {1, 253, 254, 255, 507, 508, 509, 1000};
    size_t r;
    for (r = 0; r < sizeof runs / sizeof runs[0]; ++r) {
      char label[64];
      for (k = 0; k < runs[r]; ++k) payload[k] = (uint8_t)(1 + k % 255);
      sprintf(label, "a run of %u non-zero bytes", (unsigned)runs[r]);
      check_cobs_round_trip(payload, runs[r], label);
      payload[runs[r]] = 0x00;
      payload[runs[r] + 1] = 0x7E;
      sprintf(label, "a run of %u, a zero, a byte", (unsigned)runs[r]);
      check_cobs_round_trip(payload, runs[r] + 2, label);
      sprintf(label, "a run of %u and a zero", (unsigned)runs[r]);
      check_cobs_round_trip(payload, runs[r] + 1, label);
    }
  }
  /* Every byte value, zeros every 7 bytes. */
  for (k = 0; k < 600; ++k) payload[k] = k % 7 == 0 ? 0x00 : (uint8_t)(k * 37);
  check_cobs_round_trip(payload, 600, "every byte value");

  /* A frame round trip: close then open. */
  {
    static uint8_t frame[64];
    const uint8_t* opened = NULL;
    size_t opened_size = 0;
    size_t size;
    memcpy(frame + COUPLET_FRAME_HEADER_BYTES, "payload", 7);
    size = couplet_frame_close(frame, 7);
    CHECK_EQ(size, 7 + COUPLET_FRAME_OVERHEAD);
    CHECK_EQ(frame[0], 0xC5);
    CHECK_EQ(frame[1], 0x01);
    CHECK_EQ(frame[2], 7);
    CHECK_EQ(frame[3], 0);
    CHECK(couplet_frame_open(frame, size, &opened, &opened_size) == NULL);
    CHECK(opened == frame + COUPLET_FRAME_HEADER_BYTES && opened_size == 7);
    /* The CRC covers header and payload, little endian after them. */
    CHECK_EQ(couplet_crc32(frame, 11), (uint32_t)frame[11] | ((uint32_t)frame[12] << 8) |
                                           ((uint32_t)frame[13] << 16) | ((uint32_t)frame[14] << 24));
  }
}

/* ======================================================================== */
/* 2. Truncated, over-long, corrupt frames and line noise                    */
/* ======================================================================== */

static void test_bad_frames(void) {
  const uint64_t session = 0x1111222233334444u;
  static uint8_t frame[FRAME_BYTES];
  static uint8_t corrupt[FRAME_BYTES];
  static uint8_t wire[2 * FRAME_BYTES];
  static uint8_t noisy[2 * FRAME_BYTES];
  couplet_wire_Envelope heartbeat = envelope(session, 77, couplet_wire_Envelope_heartbeat_tag);
  couplet_counters before;
  size_t frame_size;
  size_t wire_size;
  size_t cut;
  size_t bit;
  unsigned answered;

  start_counter_slave();
  open_counter_session(session, 1);
  /* A heartbeat is the probe: the core answers every heartbeat it accepts. */
  frame_size = encode_frame(&heartbeat, frame, sizeof frame);
  CHECK(frame_size > 0);
  exchange_frame(frame, frame_size);
  EXPECT_ANSWER(heartbeat, session, 77);

  /* Truncated: every cut of the frame is refused by couplet_frame_open and,
   * sent whole in COBS, rejected by the slave without an answer. */
  before = *counters();
  answered = 0;
  for (cut = 0; cut < frame_size; ++cut) {
    const uint8_t* payload;
    size_t payload_size;
    if (!CHECK(couplet_frame_open(frame, cut, &payload, &payload_size) != NULL))
      printf("  a frame cut at %u bytes opens\n", (unsigned)cut);
    answered += (unsigned)exchange_frame(frame, cut);
  }
  CHECK_EQ(answered, 0);
  CHECK_EQ(counters()->rejected - before.rejected, frame_size);
  /* Truncated on the wire: the COBS bytes cut, then a delimiter. */
  wire_size = cobs_encode(frame, frame_size, wire);
  before = *counters();
  answered = 0;
  for (cut = 1; cut + 1 < wire_size; ++cut) {
    memcpy(noisy, wire, cut);
    noisy[cut] = 0x00;
    answered += (unsigned)exchange_bytes(noisy, cut + 1);
  }
  CHECK_EQ(answered, 0);
  CHECK_EQ(counters()->rejected - before.rejected, wire_size - 3);

  /* Over-long: more bytes than the header announces, with a good CRC for the
   * announced part. */
  before = *counters();
  answered = 0;
  {
    static const size_t extras[] = {1, 4, 100};
    size_t e;
    for (e = 0; e < sizeof extras / sizeof extras[0]; ++e) {
      const uint8_t* payload;
      size_t payload_size;
      memcpy(corrupt, frame, frame_size);
      memset(corrupt + frame_size, 0xA5, extras[e]);
      CHECK(couplet_frame_open(corrupt, frame_size + extras[e], &payload, &payload_size) != NULL);
      answered += (unsigned)exchange_frame(corrupt, frame_size + extras[e]);
    }
    CHECK_EQ(answered, 0);
    CHECK_EQ(counters()->rejected - before.rejected, 3);
  }

  /* Longer than COUPLET_RX_FRAME_BYTES: a frame that would be valid (padded
   * with an unknown field) is answered at exactly the capacity, and dropped,
   * counted once as rejected, one byte beyond it; the next frame works. */
  {
    static const size_t too_long[] = {COUPLET_RX_FRAME_BYTES + 1, COUPLET_RX_FRAME_BYTES + 300,
                                      3000};
    size_t t;
    size_t size = encode_frame_sized(&heartbeat, corrupt, sizeof corrupt, 40);
    CHECK_EQ(size, 40);
    exchange_frame(corrupt, size);
    EXPECT_ANSWER(heartbeat, session, 77); /* the padding itself is harmless */
    size = encode_frame_sized(&heartbeat, corrupt, sizeof corrupt, COUPLET_RX_FRAME_BYTES);
    CHECK_EQ(size, COUPLET_RX_FRAME_BYTES);
    exchange_frame(corrupt, size);
    EXPECT_ANSWER(heartbeat, session, 77);
    for (t = 0; t < sizeof too_long / sizeof too_long[0]; ++t) {
      before = *counters();
      size = encode_frame_sized(&heartbeat, corrupt, sizeof corrupt, too_long[t]);
      CHECK_EQ(size, too_long[t]);
      exchange_frame(corrupt, size);
      if (!EXPECT_SILENCE()) printf("  a frame of %u bytes was answered\n", (unsigned)size);
      CHECK_EQ(counters()->rejected - before.rejected, 1);
      CHECK_EQ(counters()->frames - before.frames, 0);
      exchange_frame(frame, frame_size);
      EXPECT_ANSWER(heartbeat, session, 77);
    }
  }

  /* Corrupt: one bit flipped anywhere in the frame (CRC-32 catches every
   * single-bit error), then anywhere on the wire (the flip may break the COBS
   * structure or merge with the delimiters). Never an answer. */
  before = *counters();
  answered = 0;
  for (bit = 0; bit < frame_size * 8; ++bit) {
    memcpy(corrupt, frame, frame_size);
    corrupt[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    answered += (unsigned)exchange_frame(corrupt, frame_size);
  }
  CHECK_EQ(answered, 0);
  CHECK_EQ(counters()->rejected - before.rejected, frame_size * 8);
  before = *counters();
  answered = 0;
  for (bit = 0; bit < wire_size * 8; ++bit) {
    memcpy(noisy, wire, wire_size);
    noisy[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    noisy[wire_size] = 0x00; /* ends whatever the flip left open */
    answered += (unsigned)exchange_bytes(noisy, wire_size + 1);
  }
  CHECK_EQ(answered, 0);
  CHECK(counters()->rejected - before.rejected >= wire_size * 8);
  /* A corrupt step never runs the device either. */
  {
    const test_polynomial input = constant(1.0);
    couplet_wire_Envelope step = envelope(session, 3, couplet_wire_Envelope_step_request_tag);
    polynomial_list list;
    size_t step_size;
    const unsigned steps_before = counter.step_calls;
    list.items = &input;
    list.count = 1;
    step.body.step_request.start_ns = 0;
    step.body.step_request.end_ns = MS;
    step.body.step_request.inputs.funcs.encode = encode_polynomials;
    step.body.step_request.inputs.arg = &list;
    step_size = encode_frame(&step, frame, sizeof frame);
    answered = 0;
    for (bit = 0; bit < step_size * 8; ++bit) {
      memcpy(corrupt, frame, step_size);
      corrupt[bit / 8] ^= (uint8_t)(1u << (bit % 8));
      answered += (unsigned)exchange_frame(corrupt, step_size);
    }
    CHECK_EQ(answered, 0);
    CHECK_EQ(counter.step_calls, steps_before);
    /* Intact, the same step runs: the slave's state survived the noise. */
    exchange_frame(frame, step_size);
    EXPECT_ANSWER(step_result, session, 3);
    CHECK_EQ(counter.step_calls, steps_before + 1);
  }

  /* Line noise before a frame: the frame's leading delimiter ends the noise,
   * so the frame is answered. 0xFF announces 254 data bytes and would
   * swallow the frame without that delimiter; half a frame is what a cut
   * line leaves. */
  frame_size = encode_frame(&heartbeat, frame, sizeof frame);
  wire_size = cobs_encode(frame, frame_size, wire);
  {
    static const uint8_t noise_ff[] = {0xFF, 0x12, 0x34};
    static const uint8_t noise_mixed[] = {0x03, 0xC5, 0x01, 0x00, 0x00, 0x00, 0x99, 0x02, 0x00, 0x42};
    static const uint8_t noise_short[] = {0x42};
    const uint8_t* noises[4];
    size_t noise_sizes[4];
    size_t n;
    noises[0] = noise_ff;
    noise_sizes[0] = sizeof noise_ff;
    noises[1] = noise_mixed;
    noise_sizes[1] = sizeof noise_mixed;
    noises[2] = noise_short;
    noise_sizes[2] = sizeof noise_short;
    noises[3] = wire + 1; /* the first half of a frame, without delimiters */
    noise_sizes[3] = wire_size / 2;
    for (n = 0; n < 4; ++n) {
      memcpy(noisy, noises[n], noise_sizes[n]);
      memcpy(noisy + noise_sizes[n], wire, wire_size);
      before = *counters();
      exchange_bytes(noisy, noise_sizes[n] + wire_size);
      if (!EXPECT_ANSWER(heartbeat, session, 77)) printf("  after noise %u\n", (unsigned)n);
      CHECK(counters()->rejected - before.rejected >= 1);
    }
    /* Noise between two frames sent back to back: both answered. */
    memcpy(noisy, wire, wire_size);
    memcpy(noisy + wire_size, noise_ff, sizeof noise_ff);
    memcpy(noisy + wire_size + sizeof noise_ff, wire, wire_size);
    CHECK_EQ(exchange_bytes(noisy, 2 * wire_size + sizeof noise_ff), 2);
  }

  /* A full receive ring loses bytes, counted as overrun; the core recovers
   * at the next delimiter. */
  {
    static uint8_t flood[2 * COUPLET_RX_RING_BYTES];
    size_t taken;
    before = *counters();
    memset(flood, 0x5A, sizeof flood);
    clear_capture();
    taken = couplet_slave_receive(&slave, flood, sizeof flood);
    CHECK_EQ(taken, COUPLET_RX_RING_BYTES - 1);
    CHECK_EQ(counters()->overrun - before.overrun, sizeof flood - taken);
    couplet_slave_poll(&slave);
    exchange_frame(frame, frame_size);
    EXPECT_ANSWER(heartbeat, session, 77);
  }
}

/* ======================================================================== */
/* 3. Sequence wraparound                                                    */
/* ======================================================================== */

static void test_sequence_wraparound(void) {
  const uint64_t session = 0x0123456789ABCDEFu;
  const test_polynomial input = constant(2.0);
  couplet_counters before;

  start_counter_slave();
  before = *counters();
  send_hello(session, 0xFFFFFFFEu);
  EXPECT_ANSWER(describe, session, 0xFFFFFFFEu);
  send_initialize(session, 0xFFFFFFFFu, 0);
  EXPECT_ANSWER(ack, session, 0xFFFFFFFFu);
  /* The master skips 0 (reserved for pushes): 1 follows 2^32 - 1. */
  send_evaluate(session, 1, &input, 1);
  EXPECT_ANSWER(outputs, session, 1);
  send_counter_step(session, 2, 0, MS);
  EXPECT_ANSWER(step_result, session, 2);
  CHECK_EQ(counters()->executed - before.executed, 4);
  CHECK_EQ(counters()->stale - before.stale, 0);
  CHECK_EQ(counters()->repeats - before.repeats, 0);
  CHECK_EQ(counter.step_calls, 1);
  CHECK_EQ(counter.initialize_calls, 1);

  /* Across the wrap, 2^32 - 1 is now older than 2. */
  send_counter_step(session, 0xFFFFFFFFu, MS, 2 * MS);
  EXPECT_SILENCE();
  CHECK_EQ(counters()->stale - before.stale, 1);
  CHECK_EQ(counter.step_calls, 1);
  send_counter_step(session, 3, MS, 2 * MS);
  EXPECT_ANSWER(step_result, session, 3);
  CHECK_EQ(counter.step_calls, 2);
}

/* ======================================================================== */
/* 4. A repeated request is answered from the cache                          */
/* ======================================================================== */

static void test_repeat_from_cache(void) {
  const uint64_t session = 0xFEEDFACE00000001u;
  static wire_copy first;
  couplet_counters before;

  start_counter_slave();
  open_counter_session(session, 10);
  send_counter_step(session, 12, 0, MS);
  EXPECT_ANSWER(step_result, session, 12);
  CHECK_EQ(counter.step_calls, 1);
  CHECK_EQ(answers.values.count, 1);
  CHECK_DOUBLE(answers.values.values[0], 1.0);
  keep_wire(&first);

  /* The clock moves: an answer built again would carry other timings (and
   * the device another y), so only the cache gives the same bytes. */
  before = *counters();
  fake_clock_ns += 123457;
  send_counter_step(session, 12, 0, MS);
  EXPECT_ANSWER(step_result, session, 12);
  CHECK(same_wire(&first));
  CHECK_EQ(counter.step_calls, 1);
  CHECK_EQ(counters()->repeats - before.repeats, 1);
  CHECK_EQ(counters()->executed - before.executed, 0);
  CHECK_EQ(counters()->steps - before.steps, 0);
  fake_clock_ns += 1000;
  send_counter_step(session, 12, 0, MS);
  CHECK(same_wire(&first));
  CHECK_EQ(counter.step_calls, 1);
  CHECK_EQ(counters()->repeats - before.repeats, 2);

  /* The repeat even wins over a different body under the same sequence: the
   * sequence identifies the request. */
  send_counter_step(session, 12, MS, 5 * MS);
  CHECK(same_wire(&first));
  CHECK_EQ(counter.step_calls, 1);

  /* The next request runs again. */
  send_counter_step(session, 13, MS, 2 * MS);
  EXPECT_ANSWER(step_result, session, 13);
  CHECK_EQ(counter.step_calls, 2);
  CHECK_DOUBLE(answers.values.values[0], 2.0);
  CHECK(!same_wire(&first));

  /* A repeated Hello gets the cached Describe (the session stays as it is). */
  start_counter_slave();
  send_hello(session, 500);
  keep_wire(&first);
  fake_clock_ns += 10;
  send_hello(session, 500);
  EXPECT_ANSWER(describe, session, 500);
  CHECK(same_wire(&first));
  CHECK_EQ(counters()->repeats, 1);
  CHECK_EQ(counters()->executed, 1);
}

/* ======================================================================== */
/* 5. A stale request is ignored                                             */
/* ======================================================================== */

static void test_stale_ignored(void) {
  const uint64_t session = 0x5555AAAA5555AAAAu;
  static wire_copy last;
  couplet_counters before;

  start_counter_slave();
  open_counter_session(session, 100);
  send_counter_step(session, 102, 0, MS);
  EXPECT_ANSWER(step_result, session, 102);
  send_counter_step(session, 103, MS, 2 * MS);
  EXPECT_ANSWER(step_result, session, 103);
  keep_wire(&last);
  CHECK_EQ(counter.step_calls, 2);

  before = *counters();
  /* The previous request again (a straggler of a retransmission). */
  send_counter_step(session, 102, 0, MS);
  EXPECT_SILENCE();
  /* An older sequence with a request that would be valid now. */
  send_counter_step(session, 101, 2 * MS, 3 * MS);
  EXPECT_SILENCE();
  send_hello(session, 100);
  EXPECT_SILENCE();
  send_initialize(session, 7, 0);
  EXPECT_SILENCE();
  CHECK_EQ(counters()->stale - before.stale, 4);
  CHECK_EQ(counters()->executed - before.executed, 0);
  CHECK_EQ(counter.step_calls, 2);
  CHECK_EQ(counter.initialize_calls, 1);

  /* Stale requests leave the cache and the state alone. */
  send_counter_step(session, 103, MS, 2 * MS);
  CHECK(same_wire(&last));
  send_counter_step(session, 104, 2 * MS, 3 * MS);
  EXPECT_ANSWER(step_result, session, 104);
  CHECK_EQ(counter.step_calls, 3);
}

/* ======================================================================== */
/* 6. Sessions: foreign frames, BUSY, timeout, Stop, session 0               */
/* ======================================================================== */

static void test_sessions(void) {
  const uint64_t a = 0xA0A0A0A0A0A0A0A0u;
  const uint64_t b = 0xB0B0B0B0B0B0B0B0u;
  const uint64_t c = 0xC0C0C0C0C0C0C0C0u;
  static wire_copy hello_a;
  couplet_counters before;

  start_counter_slave();
  CHECK(!couplet_slave_in_session(&slave));
  CHECK(!couplet_slave_session_ended(&slave));
  send_hello(a, 1);
  EXPECT_ANSWER(describe, a, 1);
  keep_wire(&hello_a);
  CHECK(couplet_slave_in_session(&slave));

  /* Frames of another session that are not Hellos: ignored. */
  before = *counters();
  send_initialize(b, 2, 0);
  EXPECT_SILENCE();
  send_counter_step(b, 3, 0, MS);
  EXPECT_SILENCE();
  send_heartbeat(b, 4);
  EXPECT_SILENCE();
  send_stop(b, 5);
  EXPECT_SILENCE();
  CHECK_EQ(counters()->foreign - before.foreign, 4);
  CHECK_EQ(counters()->executed - before.executed, 0);
  CHECK_EQ(counter.initialize_calls, 0);
  CHECK(couplet_slave_in_session(&slave));

  /* A Hello of another session while A is alive: BUSY, in B's envelope. */
  before = *counters();
  send_hello(b, 7);
  EXPECT_ERROR(ERROR_BUSY, b, 7, "another session");
  CHECK_EQ(counters()->busy - before.busy, 1);
  CHECK_EQ(counters()->executed - before.executed, 0);
  /* A is untouched: its cache still answers its Hello, its requests run. */
  send_hello(a, 1);
  CHECK(same_wire(&hello_a));
  send_initialize(a, 2, 0);
  EXPECT_ANSWER(ack, a, 2);

  /* Half the timeout later A is still alive; B's Hellos do not keep it. */
  fake_clock_ns += SESSION_TIMEOUT_NS / 2;
  send_hello(b, 8);
  EXPECT_ERROR(ERROR_BUSY, b, 8, "another session");
  fake_clock_ns += SESSION_TIMEOUT_NS / 2 + 1; /* A silent for more than the timeout */
  CHECK(couplet_slave_session_ended(&slave));
  CHECK(!couplet_slave_in_session(&slave));
  send_hello(b, 9);
  EXPECT_ANSWER(describe, b, 9);
  CHECK(couplet_slave_in_session(&slave));
  CHECK(!couplet_slave_session_ended(&slave));
  /* Now A is the foreigner. */
  before = *counters();
  send_initialize(a, 3, 0);
  EXPECT_SILENCE();
  CHECK_EQ(counters()->foreign - before.foreign, 1);
  /* And B's session starts from scratch: not initialized. */
  send_counter_step(b, 10, 0, MS);
  EXPECT_ERROR(ERROR_BAD_REQUEST, b, 10, "initialize");

  /* Stop ends B. */
  send_stop(b, 11);
  EXPECT_ANSWER(ack, b, 11);
  CHECK(couplet_slave_session_ended(&slave));
  CHECK(!couplet_slave_in_session(&slave));
  /* The Stop's Ack may be lost: the Stop sent again gets it from the cache. */
  before = *counters();
  send_stop(b, 11);
  EXPECT_ANSWER(ack, b, 11);
  CHECK_EQ(counters()->repeats - before.repeats, 1);
  /* A Hello of the stopped session does not reopen it: the slave stays
   * stopped, so it must not tell the master (with a Describe) that it did. */
  send_hello(b, 12);
  if (!EXPECT_SILENCE())
    printf("  a Hello of stopped session B (new sequence) was answered: the master would "
           "believe B open while the slave lets any other session take over\n");
  CHECK(couplet_slave_session_ended(&slave));
  CHECK(!couplet_slave_in_session(&slave));
  /* A stopped session gives way at once, without waiting for the timeout. */
  send_hello(c, 1);
  EXPECT_ANSWER(describe, c, 1);
  CHECK(couplet_slave_in_session(&slave));
  /* While C is alive, B's Hello is ignored rather than refused... */
  before = *counters();
  send_hello(b, 13);
  EXPECT_SILENCE();
  CHECK_EQ(counters()->busy - before.busy, 0);
  CHECK_EQ(counters()->foreign - before.foreign, 1);
  /* ...and once C has fallen silent too, B's Hello still opens nothing. */
  fake_clock_ns += 2 * (uint64_t)SESSION_TIMEOUT_NS;
  send_hello(b, 14);
  EXPECT_SILENCE();
  CHECK(!couplet_slave_in_session(&slave));

  /* Session 0 is never a session: a Hello of it is ignored while a session
   * is open... */
  start_counter_slave();
  send_hello(a, 1);
  EXPECT_ANSWER(describe, a, 1);
  before = *counters();
  send_hello(0, 2);
  EXPECT_SILENCE();
  CHECK_EQ(counters()->foreign - before.foreign, 1);
  /* ...after the session stopped (the remembered stopped session is then
   * no longer 0, so that this does not pass by accident)... */
  send_stop(a, 2);
  EXPECT_ANSWER(ack, a, 2);
  send_hello(0, 3);
  EXPECT_SILENCE();
  CHECK(!couplet_slave_in_session(&slave));
  /* ...after a session timed out... */
  send_hello(b, 1);
  EXPECT_ANSWER(describe, b, 1);
  fake_clock_ns += 2 * (uint64_t)SESSION_TIMEOUT_NS;
  send_hello(0, 4);
  EXPECT_SILENCE();
  CHECK_EQ(counters()->foreign - before.foreign, 3);
  /* ...and on a fresh slave, whose own session is still 0. Nor may a
   * session-0 request of another kind run the device there. */
  start_counter_slave();
  before = *counters();
  send_hello(0, 1);
  if (!EXPECT_SILENCE()) printf("  a fresh slave answers a Hello of session 0\n");
  CHECK(!couplet_slave_in_session(&slave));
  send_initialize(0, 2, 0);
  if (!EXPECT_SILENCE()) printf("  a fresh slave executes an Initialize of session 0\n");
  CHECK_EQ(counter.initialize_calls, 0);
  CHECK_EQ(counters()->executed - before.executed, 0);
  /* A real session still opens afterwards. */
  send_hello(a, 1);
  EXPECT_ANSWER(describe, a, 1);
}

/* ======================================================================== */
/* 7. Heartbeats                                                             */
/* ======================================================================== */

static void test_heartbeat(void) {
  const uint64_t session = 0x4EA27BEA70000000u;
  const uint64_t other = 0x07E4000000000000u;
  static wire_copy step_answer;
  couplet_counters before;

  start_counter_slave();
  open_counter_session(session, 20);
  send_counter_step(session, 22, 0, MS);
  EXPECT_ANSWER(step_result, session, 22);
  keep_wire(&step_answer);

  before = *counters();
  fake_clock_ns += 777;
  send_heartbeat(session, 23);
  EXPECT_ANSWER(heartbeat, session, 23);
  CHECK_EQ(answers.envelope.body.heartbeat.sender_time_ns, fake_clock_ns);
  /* Even with the last request's sequence it is a heartbeat, not a repeat. */
  send_heartbeat(session, 22);
  EXPECT_ANSWER(heartbeat, session, 22);
  send_heartbeat(session, 5);
  EXPECT_ANSWER(heartbeat, session, 5);
  CHECK_EQ(counters()->executed - before.executed, 0);
  CHECK_EQ(counters()->repeats - before.repeats, 0);
  CHECK_EQ(counters()->stale - before.stale, 0);

  /* The cache still holds the step's answer... */
  send_counter_step(session, 22, 0, MS);
  CHECK(same_wire(&step_answer));
  CHECK_EQ(counter.step_calls, 1);
  /* ...and the heartbeat's sequence 23 was not used up. */
  send_counter_step(session, 23, MS, 2 * MS);
  EXPECT_ANSWER(step_result, session, 23);
  CHECK_EQ(counter.step_calls, 2);

  /* Heartbeats keep the session alive past the timeout. */
  fake_clock_ns += SESSION_TIMEOUT_NS * 4 / 5;
  send_heartbeat(session, 24);
  fake_clock_ns += SESSION_TIMEOUT_NS * 4 / 5;
  CHECK(couplet_slave_in_session(&slave));
  send_hello(other, 1);
  EXPECT_ERROR(ERROR_BUSY, other, 1, "another session");
}

/* ======================================================================== */
/* 8. Bad requests                                                           */
/* ======================================================================== */

/* Sends a step of the counting device that must be refused as a bad
 * request; the device must not run. */
static void expect_bad_step(const char* file, int line, uint64_t session, uint32_t sequence,
                            int64_t start_ns, int64_t end_ns, const test_polynomial* inputs,
                            size_t input_count, const char* part) {
  const unsigned steps_before = counter.step_calls;
  send_step(session, sequence, start_ns, end_ns, inputs, input_count);
  expect_error(file, line, couplet_wire_ErrorCode_ERROR_BAD_REQUEST, session, sequence, part);
  check_u64(counter.step_calls, steps_before, file, line, "the device did not step");
}

#define EXPECT_BAD_STEP(session, sequence, start, end, inputs, count, part) \
  expect_bad_step(__FILE__, __LINE__, (session), (sequence), (start), (end), (inputs), (count), (part))

static void test_bad_requests(void) {
  const uint64_t session = 0xBADBADBADBADu;
  const int64_t limit = (int64_t)1 << 61;
  test_polynomial good = constant(1.0);
  test_polynomial inputs[6];
  static wire_copy refused;
  uint32_t sequence = 1;
  size_t k;

  for (k = 0; k < 6; ++k) inputs[k] = constant((double)k);
  start_counter_slave();
  send_hello(session, sequence);
  EXPECT_ANSWER(describe, session, sequence);

  /* Out of order: before initialize. */
  ++sequence;
  EXPECT_BAD_STEP(session, sequence, 0, MS, &good, 1, "initialize");
  ++sequence;
  send_evaluate(session, sequence, &good, 1);
  EXPECT_ERROR(ERROR_BAD_REQUEST, session, sequence, "initialize");
  CHECK_EQ(counter.outputs_calls, 0);

  ++sequence;
  send_initialize(session, sequence, 0);
  EXPECT_ANSWER(ack, session, sequence);

  /* A step that does not start at the device's time. */
  ++sequence;
  EXPECT_BAD_STEP(session, sequence, 5, MS, &good, 1, "start");
  ++sequence;
  EXPECT_BAD_STEP(session, sequence, -MS, MS, &good, 1, "start");
  /* Empty or backwards. */
  ++sequence;
  EXPECT_BAD_STEP(session, sequence, 0, 0, &good, 1, "empty");
  ++sequence;
  EXPECT_BAD_STEP(session, sequence, 0, -MS, &good, 1, "");
  /* The wrong number of inputs, more than the build holds included. */
  ++sequence;
  EXPECT_BAD_STEP(session, sequence, 0, MS, inputs, 0, "number of inputs");
  ++sequence;
  EXPECT_BAD_STEP(session, sequence, 0, MS, inputs, 2, "number of inputs");
  ++sequence;
  EXPECT_BAD_STEP(session, sequence, 0, MS, inputs, 6, "inputs");
  /* An end beyond 2^61 ns. */
  ++sequence;
  EXPECT_BAD_STEP(session, sequence, 0, limit, &good, 1, "2^61");
  ++sequence;
  EXPECT_BAD_STEP(session, sequence, 0, INT64_MAX, &good, 1, "2^61");
  /* Polynomials that are not what a master may send. */
  {
    test_polynomial bad = good;
    bad.scale = 0.0;
    ++sequence;
    EXPECT_BAD_STEP(session, sequence, 0, MS, &bad, 1, "scale");
    bad.scale = -1.0;
    ++sequence;
    EXPECT_BAD_STEP(session, sequence, 0, MS, &bad, 1, "scale");
    bad.scale = NAN;
    ++sequence;
    EXPECT_BAD_STEP(session, sequence, 0, MS, &bad, 1, "scale");
    bad = good;
    bad.origin = INFINITY;
    ++sequence;
    EXPECT_BAD_STEP(session, sequence, 0, MS, &bad, 1, "origin");
    bad = good;
    bad.count = 3;
    bad.coefficients[1] = NAN;
    ++sequence;
    EXPECT_BAD_STEP(session, sequence, 0, MS, &bad, 1, "not finite");
    bad.coefficients[1] = 0.0;
    bad.coefficients[2] = -INFINITY;
    ++sequence;
    EXPECT_BAD_STEP(session, sequence, 0, MS, &bad, 1, "not finite");
    /* A degree above COUPLET_MAX_INPUT_DEGREE must not overflow the buffer. */
    bad = good;
    bad.count = 12;
    for (k = 0; k < 12; ++k) bad.coefficients[k] = (double)k;
    ++sequence;
    EXPECT_BAD_STEP(session, sequence, 0, MS, &bad, 1, "degree");
  }
  /* Sample times asked of a device that reports none. */
  {
    const int64_t samples[2] = {MS / 2, MS};
    const unsigned steps_before = counter.step_calls;
    ++sequence;
    send_step_sampled(session, sequence, 0, MS, &good, 1, samples, 2);
    EXPECT_ERROR(ERROR_BAD_REQUEST, session, sequence, "sample");
    CHECK_EQ(counter.step_calls, steps_before);
  }
  /* A refusal is cached like any answer. */
  keep_wire(&refused);
  send_step_sampled(session, sequence, 0, MS, &good, 1, NULL, 0);
  CHECK(same_wire(&refused));
  /* A message only a target sends, sent to the target. */
  {
    couplet_wire_Envelope ack = envelope(session, ++sequence, couplet_wire_Envelope_ack_tag);
    transmit(&ack);
    EXPECT_ERROR(ERROR_BAD_REQUEST, session, sequence, "unexpected");
  }
  /* An envelope without a body does not decode: rejected, no answer. */
  {
    couplet_wire_Envelope empty = envelope(session, ++sequence, 0);
    const couplet_counters before = *counters();
    transmit(&empty);
    EXPECT_SILENCE();
    CHECK_EQ(counters()->rejected - before.rejected, 1);
  }

  /* The state survived: a good step runs. */
  ++sequence;
  send_step(session, sequence, 0, MS, &good, 1);
  EXPECT_ANSWER(step_result, session, sequence);
  CHECK_EQ(counter.step_calls, 1);

  /* Configure: an unknown parameter is refused by name; so is another model. */
  {
    const test_parameter unknown[2] = {{"gain", 3.0}, {"stiffness", 1.0}};
    const test_parameter known[1] = {{"gain", 3.0}};
    ++sequence;
    send_configure(session, sequence, "device:counter", unknown, 2);
    EXPECT_ERROR(ERROR_REFUSED, session, sequence, "stiffness");
    ++sequence;
    send_configure(session, sequence, "device:something_else", known, 1);
    EXPECT_ERROR(ERROR_REFUSED, session, sequence, "device:counter");
    /* A refused Configure changed nothing: the device is still initialized. */
    ++sequence;
    send_step(session, sequence, MS, 2 * MS, &good, 1);
    EXPECT_ANSWER(step_result, session, sequence);
    CHECK_EQ(counter.step_calls, 2);
    /* A good one takes effect at the next Initialize. */
    ++sequence;
    send_configure(session, sequence, "device:counter", known, 1);
    EXPECT_ANSWER(describe, session, sequence);
    ++sequence;
    send_initialize(session, sequence, 0);
    EXPECT_ANSWER(ack, session, sequence);
    CHECK_DOUBLE(counter.gain, 3.0);
  }
}

/* ======================================================================== */
/* 9. A normal session with translational_mass                               */
/* ======================================================================== */

/* v' of the example, written as the example writes it (the host's A x + B u
 * order), so that the comparison can be exact. */
static double mass_acceleration(double m, double c, double d, double x, double v, double f) {
  return ((-c / m) * x + (-d / m) * v) + (1.0 / m) * f;
}

static void test_translational_mass(void) {
  const uint64_t session = 0x3A55000000000009u;
  const double m = 2.0, c = 1.0, d = 0.1; /* c and d: the defaults */
  const test_parameter parameters[3] = {{"m", 2.0}, {"x0", 3.0}, {"substeps", 1.0}};
  const test_polynomial zero = constant(0.0);
  double x = 3.0, v = 0.0;

  start_slave(&translational_mass_description, &translational_mass_callbacks, &mass);
  CHECK(strcmp(couplet_slave_model(&slave), "device:translational_mass") == 0);

  send_hello(session, 1);
  if (EXPECT_ANSWER(describe, session, 1)) {
    const couplet_wire_Describe* describe = &answers.envelope.body.describe;
    CHECK(strcmp(describe->model, "device:translational_mass") == 0);
    CHECK_EQ(describe->version, couplet_wire_Version_VERSION_CURRENT);
    CHECK_EQ(answers.inputs.count, 1);
    CHECK(strcmp(answers.inputs.names[0], "f") == 0);
    CHECK_EQ(answers.outputs.count, 2);
    CHECK(strcmp(answers.outputs.names[0], "x") == 0);
    CHECK(strcmp(answers.outputs.names[1], "v") == 0);
    CHECK(describe->has_capabilities);
    CHECK_EQ(describe->capabilities.max_input_degree, 3);
    CHECK_EQ(describe->capabilities.output_derivative_order, 1);
    CHECK(!describe->capabilities.can_rollback);
    CHECK(describe->capabilities.variable_step);
    CHECK(describe->capabilities.intermediate_samples);
    CHECK_EQ(describe->capabilities.max_sample_times, COUPLET_MAX_SAMPLES);
    CHECK(!describe->capabilities.realtime);
    CHECK(describe->accepts_configure);
  }

  send_configure(session, 2, "device:translational_mass", parameters, 3);
  if (EXPECT_ANSWER(describe, session, 2)) {
    CHECK(strcmp(answers.envelope.body.describe.model, "device:translational_mass") == 0);
    CHECK_EQ(answers.inputs.count, 1);
    CHECK_EQ(answers.outputs.count, 2);
  }

  send_initialize(session, 3, 0);
  EXPECT_ANSWER(ack, session, 3);
  CHECK_DOUBLE(mass.m, 2.0);
  CHECK_EQ(mass.substeps, 1);

  /* Outputs at 0: x, v, then their derivatives x' = v, v' = -c/m x. */
  send_evaluate(session, 4, &zero, 1);
  if (EXPECT_ANSWER(outputs, session, 4)) {
    CHECK_EQ(answers.envelope.body.outputs.time_ns, 0);
    CHECK_EQ(answers.envelope.body.outputs.derivative_order, 1);
    CHECK_EQ(answers.values.count, 4);
    CHECK_DOUBLE(answers.values.values[0], 3.0);
    CHECK_DOUBLE(answers.values.values[1], 0.0);
    CHECK_DOUBLE(answers.values.values[2], 0.0);
    CHECK_DOUBLE(answers.values.values[3], -1.5);
    CHECK_DOUBLE(answers.values.values[3], mass_acceleration(m, c, d, x, v, 0.0));
  }

  /* One explicit Euler step over [0, 0.1 s] with f = 0. */
  send_step(session, 5, 0, 100 * MS, &zero, 1);
  if (EXPECT_ANSWER(step_result, session, 5)) {
    const couplet_wire_StepResult* result = &answers.envelope.body.step_result;
    const double h = couplet_seconds(100 * MS) - couplet_seconds(0);
    const double slope_x = v;
    const double slope_v = mass_acceleration(m, c, d, x, v, 0.0);
    x = x + h * slope_x;
    v = v + h * slope_v;
    CHECK_EQ(result->status, couplet_wire_Status_STATUS_OK);
    CHECK_EQ(result->time_ns, 100 * MS);
    CHECK_EQ(result->derivative_order, 1);
    CHECK(result->has_timing);
    CHECK_EQ(result->timing.received_ns, fake_clock_ns);
    CHECK_EQ(answers.samples.count, 0);
    CHECK_EQ(answers.values.count, 4);
    CHECK_DOUBLE(answers.values.values[0], x);
    CHECK_DOUBLE(answers.values.values[1], v);
    CHECK_DOUBLE(answers.values.values[2], v);
    CHECK_DOUBLE(answers.values.values[3], mass_acceleration(m, c, d, x, v, 0.0));
    /* And, roughly, what the formula gives by hand: v = 0.1 * (-1.5). */
    CHECK(answers.values.values[1] > -0.15 - 1e-15 && answers.values.values[1] < -0.15 + 1e-15);
  }

  /* A second step with a ramp input f = 1 + 2 s, s = (t - 0.1) / 0.1, and one
   * intermediate sample at 0.15 s, on the Euler polygon. */
  {
    test_polynomial ramp;
    couplet_polynomial same_ramp;
    const int64_t sample_time = 150 * MS;
    memset(&ramp, 0, sizeof ramp);
    ramp.origin = 0.1;
    ramp.scale = 0.1;
    ramp.count = 2;
    ramp.coefficients[0] = 1.0;
    ramp.coefficients[1] = 2.0;
    memset(&same_ramp, 0, sizeof same_ramp);
    same_ramp.origin = 0.1;
    same_ramp.scale = 0.1;
    same_ramp.degree = 1;
    same_ramp.coefficients[0] = 1.0;
    same_ramp.coefficients[1] = 2.0;
    send_step_sampled(session, 6, 100 * MS, 200 * MS, &ramp, 1, &sample_time, 1);
    if (EXPECT_ANSWER(step_result, session, 6)) {
      const double start = couplet_seconds(100 * MS);
      const double end = couplet_seconds(200 * MS);
      const double f_start = couplet_polynomial_value(&same_ramp, start);
      const double f_end = couplet_polynomial_value(&same_ramp, end);
      const double slope_x = v;
      const double slope_v = mass_acceleration(m, c, d, x, v, f_start);
      const double hs = couplet_seconds(sample_time) - start;
      /* The ramp as the device sees it: 1 at the start, 3 at the end, slope
       * 2 / 0.1 s (a wrong abscissa would still agree with itself). */
      CHECK_DOUBLE(f_start, 1.0);
      CHECK_DOUBLE(f_end, 3.0);
      CHECK_DOUBLE(couplet_polynomial_derivative(&same_ramp, 0.15, 1), 20.0);
      CHECK_DOUBLE(couplet_polynomial_derivative(&same_ramp, 0.15, 2), 0.0);
      CHECK_EQ(answers.samples.count, 2);
      CHECK_DOUBLE(answers.samples.values[0], x + hs * slope_x);
      CHECK_DOUBLE(answers.samples.values[1], v + hs * slope_v);
      x = x + (end - start) * slope_x;
      v = v + (end - start) * slope_v;
      CHECK_EQ(answers.values.count, 4);
      CHECK_DOUBLE(answers.values.values[0], x);
      CHECK_DOUBLE(answers.values.values[1], v);
      CHECK_DOUBLE(answers.values.values[2], v);
      CHECK_DOUBLE(answers.values.values[3], mass_acceleration(m, c, d, x, v, f_end));
    }
  }

  send_stop(session, 7);
  EXPECT_ANSWER(ack, session, 7);
  CHECK(couplet_slave_session_ended(&slave));
  CHECK_EQ(counters()->steps, 2);
  CHECK_EQ(counters()->rejected, 0);
  CHECK_EQ(counters()->foreign, 0);
}

/* ======================================================================== */

/* Integer and Boolean ports: described with their types and defaults, their
 * values at the start in the Ack of Initialize, the inputs checked and held
 * over each step, the outputs at its end in the StepResult. */
static void test_discrete_ports(void) {
  const uint64_t session = 0xD15C4E7Eu;
  const int64_t third_gear[2] = {3, 1};
  const int64_t too_few[1] = {3};
  const int64_t armed_twice[2] = {3, 2};
  uint32_t sequence = 1;
  start_slave(&gear_description, &gear_callbacks, &gears);
  send_hello(session, sequence);
  if (EXPECT_ANSWER(describe, session, sequence)) {
    CHECK_EQ(answers.discrete_inputs.count, 2);
    CHECK(strcmp(answers.discrete_inputs.names[1], "armed") == 0);
    CHECK_EQ(answers.discrete_outputs.count, 2);
    CHECK(strcmp(answers.discrete_outputs.names[0], "ratio") == 0);
  }
  send_initialize(session, ++sequence, 0);
  if (EXPECT_ANSWER(ack, session, sequence)) {
    CHECK_EQ(answers.discrete_values.count, 2);
    CHECK_EQ(answers.discrete_values.values[0], 10);
    CHECK_EQ(answers.discrete_values.values[1], 0);
  }
  send_discrete_step(session, ++sequence, 0, MS, too_few, 1);
  EXPECT_ERROR(ERROR_BAD_REQUEST, session, sequence, "number of discrete inputs");
  send_discrete_step(session, ++sequence, 0, MS, armed_twice, 2);
  EXPECT_ERROR(ERROR_BAD_REQUEST, session, sequence, "Boolean input");
  send_discrete_step(session, ++sequence, 0, MS, third_gear, 2);
  if (EXPECT_ANSWER(step_result, session, sequence)) {
    CHECK_EQ(answers.discrete_values.count, 2);
    CHECK_EQ(answers.discrete_values.values[0], 30);
    CHECK_EQ(answers.discrete_values.values[1], 1);
    CHECK_EQ(answers.values.count, 1);
  }
  CHECK_EQ(gears.gear, 3);
}

/* A device that asks to stop: asked before each step, it does once the last
 * step left it in fifth gear; that step request is answered with the Error
 * STOP_REQUESTED at the step's start (the time the device reached) and the
 * device's reason, and the step is not taken. */
static void test_stop_request(void) {
  const uint64_t session = 0x5702u;
  const int64_t third_gear[2] = {3, 1};
  const int64_t fifth_gear[2] = {5, 1};
  uint32_t sequence = 1;
  start_slave(&gear_description, &stopping_gear_callbacks, &gears);
  send_hello(session, sequence);
  EXPECT_ANSWER(describe, session, sequence);
  send_initialize(session, ++sequence, 0);
  EXPECT_ANSWER(ack, session, sequence);
  send_discrete_step(session, ++sequence, 0, MS, third_gear, 2);
  if (EXPECT_ANSWER(step_result, session, sequence))
    CHECK_EQ(answers.discrete_values.values[0], 30);
  send_discrete_step(session, ++sequence, MS, 3 * MS, fifth_gear, 2);
  if (EXPECT_ANSWER(step_result, session, sequence))
    CHECK_EQ(answers.discrete_values.values[0], 50);
  send_discrete_step(session, ++sequence, 3 * MS, 4 * MS, third_gear, 2);
  if (EXPECT_ERROR(ERROR_STOP_REQUESTED, session, sequence, "fifth gear is the last")) {
    CHECK(answers.envelope.body.error.stop_time == 3e-3);
  }
  CHECK_EQ(gears.gear, 5); /* the last step was not taken */
}

/* ======================================================================== */
/* 12-15. Sealed frames: a core with a key                                   */
/* ======================================================================== */

/* SipHash-2-4-128 against the reference vectors of the SipHash paper's
 * authors (vectors.h, vectors_sip128: key 00 01 .. 0f, message 00 01 .. of
 * each length), which libsodium's crypto_shorthash_siphashx24 gives too. */
static void test_siphash(void) {
  static const struct {
    size_t length;
    const char* tag; /* hexadecimal, first byte first */
  } vectors[] = {
      {0, "a3817f04ba25a8e66df67214c7550293"},  {1, "da87c1d86b99af44347659119b22fc45"},
      {2, "8177228da4a45dc7fca38bdef60affe4"},  {7, "a1f1ebbed8dbc153c0b84aa61ff08239"},
      {8, "3b62a9ba6258f5610f83e264f31497b4"},  {9, "264499060ad9baabc47f8b02bb6d71ed"},
      {15, "5493e99933b0a8117e08ec0f97cfc3d9"}, {16, "6ee2a4ca67b054bbfd3315bf85230577"},
      {17, "473d06e8738db89854c066c47ae47740"}, {31, "2939b0183223fafc1723de4f52c43d35"},
      {32, "7c3956ca5eeafc3e363e9d556546eb68"}, {63, "5150d1772f50834a503e069a973fbd7c"},
  };
  uint8_t key[16];
  uint8_t message[64];
  uint8_t tag[16];
  size_t k;
  for (k = 0; k < 16; ++k) key[k] = (uint8_t)k;
  for (k = 0; k < sizeof message; ++k) message[k] = (uint8_t)k;
  for (k = 0; k < sizeof vectors / sizeof vectors[0]; ++k) {
    uint8_t expected[16];
    size_t j;
    for (j = 0; j < 16; ++j) {
      unsigned byte = 0;
      sscanf(vectors[k].tag + 2 * j, "%2x", &byte);
      expected[j] = (uint8_t)byte;
    }
    memset(tag, 0, sizeof tag);
    couplet_siphash24_128(key, message, vectors[k].length, tag);
    if (!CHECK(memcmp(tag, expected, 16) == 0))
      printf("  SipHash-2-4-128 of %u bytes differs from the reference\n",
             (unsigned)vectors[k].length);
  }

  /* The core's sealed frame, byte for byte the one built here from the
   * format; the core's checks accept it and refuse one changed byte. */
  {
    static uint8_t core_frame[64];
    static uint8_t plain[64];
    static uint8_t reference[64];
    static const uint8_t payload[5] = {0x08, 0x2A, 0x10, 0x07, 0xFF};
    const uint64_t nonce = 0x0123456789ABCDEFu;
    const uint8_t* opened;
    size_t opened_size;
    uint64_t opened_nonce = 0;
    size_t size;
    memcpy(core_frame + COUPLET_FRAME_SEALED_HEADER_BYTES, payload, sizeof payload);
    size = couplet_frame_close_sealed(core_frame, sizeof payload, key, nonce);
    CHECK_EQ(size, 32 + sizeof payload);
    memcpy(plain + 4, payload, sizeof payload);
    CHECK_EQ(seal_frame(plain, 8 + sizeof payload, reference, key, nonce), size);
    CHECK(memcmp(core_frame, reference, size) == 0);
    CHECK_EQ(core_frame[1], 2);
    CHECK_EQ(core_frame[4], 0xEF); /* the nonce, little endian */
    CHECK_EQ(core_frame[11], 0x01);
    CHECK(couplet_frame_open_sealed(core_frame, size, &opened_nonce, &opened, &opened_size) ==
          NULL);
    CHECK_EQ(opened_nonce, nonce);
    CHECK_EQ(opened_size, sizeof payload);
    CHECK(couplet_frame_authentic(core_frame, size, key));
    for (k = 0; k < size - 4; ++k) {
      core_frame[k] ^= 0x01;
      recompute_crc(core_frame, size);
      if (k != 1 && couplet_frame_open_sealed(core_frame, size, &opened_nonce, &opened,
                                              &opened_size) == NULL) {
        if (!CHECK(!couplet_frame_authentic(core_frame, size, key)))
          printf("  a sealed frame with byte %u changed is authentic\n", (unsigned)k);
      }
      core_frame[k] ^= 0x01;
    }
    recompute_crc(core_frame, size);
    CHECK(couplet_frame_authentic(core_frame, size, key));
    key[15] ^= 0x80; /* another key */
    CHECK(!couplet_frame_authentic(core_frame, size, key));
  }
}

static const uint8_t master_key[16] = {0x3c, 0x91, 0x0e, 0x5a, 0x77, 0xd2, 0x4b, 0x18,
                                       0xa6, 0x09, 0xf3, 0x6e, 0x2d, 0xc4, 0x85, 0x50};
static const uint8_t other_key[16] = {0x3c, 0x91, 0x0e, 0x5a, 0x77, 0xd2, 0x4b, 0x18,
                                      0xa6, 0x09, 0xf3, 0x6e, 0x2d, 0xc4, 0x85, 0x51};

/* The counting device with master_key; requests sealed with it. */
static void start_keyed_counter_slave(bool realtime) {
  start_slave_with(&counter_description, &counter_callbacks, &counter, realtime, master_key);
  test_key = master_key;
  test_nonce = 0;
}

/* A sealed answer, under master_key, with this nonce. */
static bool expect_sealed(const char* file, int line, uint64_t nonce) {
  bool ok = check(answers.frames == 1 && answers.sealed, file, line, "the answer is sealed");
  ok = check_u64(answers.nonce, nonce, file, line, "the answer's nonce") && ok;
  return ok;
}
#define EXPECT_SEALED(nonce) expect_sealed(__FILE__, __LINE__, (nonce))

/* A whole session with a key: the Describe carries the session's nonce, the
 * Hello is repeated from the cache until a request confirms the session, and
 * frames without the nonce or the tag are dropped. */
static void test_sealed_session(void) {
  const uint64_t a = 0xA11CE0000000000Au;
  const uint64_t b = 0xB0B000000000000Bu;
  static wire_copy describe_a;
  static uint8_t frame[FRAME_BYTES];
  static uint8_t sealed[FRAME_BYTES + 24];
  couplet_counters before;
  uint64_t nonce_a;
  size_t size;
  size_t k;

  start_keyed_counter_slave(false);
  send_hello(a, 1);
  EXPECT_ANSWER(describe, a, 1);
  EXPECT_SEALED(answers.nonce);
  nonce_a = answers.nonce;
  CHECK(nonce_a != 0);
  /* The wire bytes themselves: C5 02, then the nonce, little endian. */
  {
    static uint8_t decoded[FRAME_BYTES];
    size_t decoded_size = 0;
    if (CHECK(captured_size > 2 &&
              cobs_decode(captured + 1, captured_size - 2, decoded, &decoded_size))) {
      CHECK_EQ(decoded[0], 0xC5);
      CHECK_EQ(decoded[1], 0x02);
      CHECK_EQ(decoded_size, 32u + ((size_t)decoded[2] | ((size_t)decoded[3] << 8)));
      for (k = 0; k < 8; ++k) CHECK_EQ(decoded[4 + k], (uint8_t)(nonce_a >> (8 * k)));
    }
  }
  keep_wire(&describe_a);

  /* The Hello again (the Describe was lost): the cached Describe, same bytes. */
  before = *counters();
  fake_clock_ns += 1000;
  send_hello(a, 1);
  CHECK(same_wire(&describe_a));
  CHECK_EQ(counters()->repeats - before.repeats, 1);
  CHECK_EQ(counters()->executed - before.executed, 0);

  /* Requests without the session's nonce: dropped, counted stale. */
  before = *counters();
  test_nonce = nonce_a ^ 1u;
  send_initialize(a, 2, 0);
  EXPECT_SILENCE();
  test_nonce = 0;
  send_initialize(a, 2, 0);
  EXPECT_SILENCE();
  CHECK_EQ(counters()->stale - before.stale, 2);
  CHECK_EQ(counters()->executed - before.executed, 0);
  CHECK_EQ(counter.initialize_calls, 0);

  /* With it: executed, answered with it. The session is now confirmed. */
  test_nonce = nonce_a;
  send_initialize(a, 2, 0);
  EXPECT_ANSWER(ack, a, 2);
  EXPECT_SEALED(nonce_a);
  CHECK_EQ(counter.initialize_calls, 1);
  /* The Hello's repeat (nonce 0) is now a straggler: dropped, counted stale. */
  before = *counters();
  test_nonce = 0;
  send_hello(a, 1);
  EXPECT_SILENCE();
  CHECK_EQ(counters()->stale - before.stale, 1);
  CHECK_EQ(counters()->repeats - before.repeats, 0);

  /* A step request with one payload byte changed and its CRC made right
   * again (a forgery, or a frame of another key): no answer, counted
   * unauthenticated, not rejected, the step not taken. */
  {
    const test_polynomial input = constant(1.0);
    couplet_wire_Envelope request = envelope(a, 3, couplet_wire_Envelope_step_request_tag);
    polynomial_list list;
    list.items = &input;
    list.count = 1;
    request.body.step_request.start_ns = 0;
    request.body.step_request.end_ns = MS;
    request.body.step_request.inputs.funcs.encode = encode_polynomials;
    request.body.step_request.inputs.arg = &list;
    size =
        seal_frame(frame, encode_frame(&request, frame, sizeof frame), sealed, master_key, nonce_a);
    before = *counters();
    sealed[12 + 3] ^= 0x40;
    recompute_crc(sealed, size);
    exchange_frame(sealed, size);
    EXPECT_SILENCE();
    CHECK_EQ(counters()->unauthenticated - before.unauthenticated, 1);
    CHECK_EQ(counters()->rejected - before.rejected, 0);
    /* The same change without the CRC made right: line noise, rejected. */
    sealed[size - 1] ^= 0x01;
    exchange_frame(sealed, size);
    EXPECT_SILENCE();
    CHECK_EQ(counters()->rejected - before.rejected, 1);
    CHECK_EQ(counters()->unauthenticated - before.unauthenticated, 1);
    /* Sealed under another key, the nonce right: unauthenticated. */
    size =
        seal_frame(frame, encode_frame(&request, frame, sizeof frame), sealed, other_key, nonce_a);
    exchange_frame(sealed, size);
    EXPECT_SILENCE();
    /* A changed tag byte, CRC made right: unauthenticated. */
    size =
        seal_frame(frame, encode_frame(&request, frame, sizeof frame), sealed, master_key, nonce_a);
    sealed[size - 5] ^= 0x80;
    recompute_crc(sealed, size);
    exchange_frame(sealed, size);
    EXPECT_SILENCE();
    CHECK_EQ(counters()->unauthenticated - before.unauthenticated, 3);
    CHECK_EQ(counters()->executed - before.executed, 0);
    CHECK_EQ(counter.step_calls, 0);
    /* The request as sealed: it runs. */
    sealed[size - 5] ^= 0x80;
    recompute_crc(sealed, size);
    exchange_frame(sealed, size);
    EXPECT_ANSWER(step_result, a, 3);
    EXPECT_SEALED(nonce_a);
    CHECK_EQ(counter.step_calls, 1);
  }

  /* Plain frames of the session: dropped, counted unauthenticated. */
  before = *counters();
  test_key = NULL;
  send_counter_step(a, 4, MS, 2 * MS);
  EXPECT_SILENCE();
  send_heartbeat(a, 0);
  EXPECT_SILENCE();
  CHECK_EQ(counters()->unauthenticated - before.unauthenticated, 2);
  CHECK_EQ(counter.step_calls, 1);
  /* A plain Hello (a master without a key) is told why, in a plain Error. */
  send_hello(b, 9);
  EXPECT_ERROR(ERROR_BAD_REQUEST, b, 9,
               "this target requires authenticated frames: give the link a key_file");
  CHECK(!answers.sealed);
  CHECK_EQ(counters()->unauthenticated - before.unauthenticated, 3);
  CHECK_EQ(counters()->busy - before.busy, 0);
  CHECK_EQ(counters()->executed - before.executed, 0);

  /* Session A is confirmed: another session's Hello gets BUSY, sealed with
   * nonce 0 (it opens no session). */
  test_key = master_key;
  test_nonce = 0;
  send_hello(b, 10);
  EXPECT_ERROR(ERROR_BUSY, b, 10, "another session");
  EXPECT_SEALED(0);
  CHECK_EQ(counters()->busy - before.busy, 1);
  /* A Hello carrying a nonce opens nothing. */
  test_nonce = nonce_a;
  send_hello(b, 11);
  EXPECT_SILENCE();
  CHECK_EQ(counters()->stale - before.stale, 1);

  /* A keeps going. */
  send_counter_step(a, 4, MS, 2 * MS);
  EXPECT_ANSWER(step_result, a, 4);
  EXPECT_SEALED(nonce_a);
  CHECK_EQ(counter.step_calls, 2);
  send_stop(a, 5);
  EXPECT_ANSWER(ack, a, 5);
  EXPECT_SEALED(nonce_a);
  CHECK(couplet_slave_session_ended(&slave));

  /* The next session has another nonce. */
  test_nonce = 0;
  send_hello(b, 12);
  EXPECT_ANSWER(describe, b, 12);
  EXPECT_SEALED(answers.nonce);
  CHECK(answers.nonce != 0 && answers.nonce != nonce_a);
  test_key = NULL;
}

/* A session no request has confirmed does not hold the target: a replayed
 * Hello cannot lock the real master out. */
static void test_sealed_unconfirmed(void) {
  const uint64_t a = 0x0A0A0A0A0A0A0A0Au;
  const uint64_t b = 0x0B0B0B0B0B0B0B0Bu;
  couplet_counters before;
  uint64_t nonce_a;
  uint64_t nonce_b;

  start_keyed_counter_slave(false);
  send_hello(a, 1);
  EXPECT_ANSWER(describe, a, 1);
  nonce_a = answers.nonce;
  before = *counters();
  send_hello(b, 1);
  EXPECT_ANSWER(describe, b, 1); /* not BUSY: A was never confirmed */
  EXPECT_SEALED(answers.nonce);
  nonce_b = answers.nonce;
  CHECK(nonce_b != 0 && nonce_b != nonce_a);
  CHECK_EQ(counters()->busy - before.busy, 0);
  CHECK_EQ(counters()->executed - before.executed, 1);
  /* A's master, late: its session is gone. */
  test_nonce = nonce_a;
  send_initialize(a, 2, 0);
  EXPECT_SILENCE();
  CHECK_EQ(counters()->foreign - before.foreign, 1);
  /* B confirms; now A's Hello is refused. */
  test_nonce = nonce_b;
  send_initialize(b, 2, 0);
  EXPECT_ANSWER(ack, b, 2);
  EXPECT_SEALED(nonce_b);
  test_nonce = 0;
  send_hello(a, 1);
  EXPECT_ERROR(ERROR_BUSY, a, 1, "another session");
  EXPECT_SEALED(0);
  CHECK_EQ(counters()->busy - before.busy, 1);
  test_key = NULL;
}

/* Heartbeats of a keyed session must come with increasing sender times, and
 * neither a replayed heartbeat nor a replayed request keeps a session whose
 * master is gone alive. */
static void test_sealed_heartbeats(void) {
  const uint64_t a = 0x4EA7000000000001u;
  const uint64_t b = 0x4EA7000000000002u;
  couplet_counters before;
  uint64_t nonce_a;

  start_keyed_counter_slave(false);
  send_hello(a, 1);
  nonce_a = answers.nonce;
  test_nonce = nonce_a;
  send_initialize(a, 2, 0);
  EXPECT_ANSWER(ack, a, 2);
  send_heartbeat_at(a, 1000);
  EXPECT_ANSWER(heartbeat, a, 0);
  EXPECT_SEALED(nonce_a);
  before = *counters();
  send_heartbeat_at(a, 1000); /* the same heartbeat again */
  EXPECT_SILENCE();
  send_heartbeat_at(a, 999);
  EXPECT_SILENCE();
  CHECK_EQ(counters()->stale - before.stale, 2);
  send_heartbeat_at(a, 1001);
  EXPECT_ANSWER(heartbeat, a, 0);
  EXPECT_SEALED(nonce_a);

  /* A's master dies after that heartbeat; a replay of it and of its last
   * request (answered from the cache) come after. */
  fake_clock_ns += SESSION_TIMEOUT_NS / 10 * 6;
  send_heartbeat_at(a, 1001);
  EXPECT_SILENCE();
  send_initialize(a, 2, 0);
  EXPECT_ANSWER(ack, a, 2);
  fake_clock_ns += SESSION_TIMEOUT_NS / 10 * 6;
  CHECK(couplet_slave_session_ended(&slave));
  test_nonce = 0;
  send_hello(b, 1);
  EXPECT_ANSWER(describe, b, 1);
  CHECK(answers.nonce != 0 && answers.nonce != nonce_a);
  test_key = NULL;
}

/* Real-time pushes (StepResult, sequence 0) carry the session's nonce. A
 * keyless core drops sealed frames as unknown frames. */
static void test_sealed_push(void) {
  const uint64_t a = 0x9054000000000001u;
  const test_polynomial input = constant(1.0);
  couplet_counters before;
  uint64_t nonce_a;

  start_keyed_counter_slave(true);
  send_hello(a, 1);
  nonce_a = answers.nonce;
  test_nonce = nonce_a;
  send_initialize(a, 2, 0);
  EXPECT_ANSWER(ack, a, 2);
  send_start(a, 3, 1.0);
  EXPECT_ANSWER(ack, a, 3);
  send_step(a, 4, 0, 10 * MS, &input, 1);
  EXPECT_SILENCE(); /* an input: answered by the next push */
  fake_clock_ns += 10 * MS;
  clear_capture();
  couplet_slave_poll(&slave);
  parse_answers();
  if (EXPECT_ANSWER(step_result, a, 0)) {
    EXPECT_SEALED(nonce_a);
    CHECK_EQ(answers.envelope.body.step_result.time_ns, 10 * MS);
  }

  start_counter_slave();
  test_key = master_key;
  test_nonce = 0;
  before = *counters();
  send_hello(a, 1);
  EXPECT_SILENCE();
  CHECK_EQ(counters()->rejected - before.rejected, 1);
  CHECK_EQ(counters()->unauthenticated - before.unauthenticated, 0);
  test_key = NULL;
  send_hello(a, 1);
  EXPECT_ANSWER(describe, a, 1);
  CHECK(!answers.sealed);
}

typedef struct {
  const char* name;
  void (*run)(void);
} test_case;

int main(void) {
  static const test_case cases[] = {
      {"1 crc and cobs", test_crc_and_cobs},
      {"2 bad frames", test_bad_frames},
      {"3 sequence wraparound", test_sequence_wraparound},
      {"4 repeat from cache", test_repeat_from_cache},
      {"5 stale ignored", test_stale_ignored},
      {"6 sessions", test_sessions},
      {"7 heartbeat", test_heartbeat},
      {"8 bad requests", test_bad_requests},
      {"9 translational mass", test_translational_mass},
      {"10 discrete ports", test_discrete_ports},
      {"11 stop request", test_stop_request},
      {"12 siphash", test_siphash},
      {"13 sealed session", test_sealed_session},
      {"14 sealed unconfirmed", test_sealed_unconfirmed},
      {"15 sealed heartbeats", test_sealed_heartbeats},
      {"16 sealed push", test_sealed_push},
  };
  size_t k;
  unsigned cases_failed = 0;
  for (k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    const unsigned failed_before = checks_failed;
    const unsigned run_before = checks_run;
    current_case = cases[k].name;
    cases[k].run();
    printf("%-24s %s (%u checks, %u failed)\n", cases[k].name,
           checks_failed == failed_before ? "ok" : "FAILED", checks_run - run_before,
           checks_failed - failed_before);
    if (checks_failed != failed_before) ++cases_failed;
  }
  printf("embedded_core_test: %u of %u cases passed, %u checks, %u failed\n",
         (unsigned)(sizeof cases / sizeof cases[0]) - cases_failed,
         (unsigned)(sizeof cases / sizeof cases[0]), checks_run, checks_failed);
  return checks_failed == 0 ? 0 : 1;
}
