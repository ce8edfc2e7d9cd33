/* The slave side of the couplet protocol for a microcontroller: the same
 * behaviour as the host's couplet-target (targets/target_server.cpp), in C99
 * without heap. Repeated fields of the schema are nanopb callbacks here
 * (couplet_embedded.options): decoded straight into the staged request and
 * encoded straight from the device's output buffers. */
#include <pb_decode.h>
#include <pb_encode.h>
#include <string.h>

#include "couplet_embedded.h"
#include "frame.h"
#include "siphash.h"
#include "text.h"

#define MAX_END_OUTPUTS (COUPLET_MAX_OUTPUTS * (COUPLET_MAX_OUTPUT_DERIVATIVE_ORDER + 1))
#define WIRE_MAX_PORTS 16
#define WIRE_MAX_INPUT_DEGREE 7
#define WIRE_MAX_DERIVATIVE_ORDER 3

/* Compile-time checks (C99 has no static_assert): the public sizes of sealed
 * frames are those of frame.h and siphash.h. */
typedef char seal_overhead_matches_frame_h
    [COUPLET_SEAL_OVERHEAD == COUPLET_FRAME_NONCE_BYTES + COUPLET_FRAME_TAG_BYTES ? 1 : -1];
typedef char key_size_matches_siphash_h[COUPLET_KEY_BYTES == COUPLET_SIPHASH_KEY_BYTES ? 1 : -1];

/* ---- sequence numbers: serial-number arithmetic (RFC 1982), 0 reserved ---- */

static bool is_newer(uint32_t candidate, uint32_t reference) {
  const uint32_t distance = candidate - reference; /* modulo 2^32 */
  return distance != 0 && distance < 0x80000000u;
}

static bool is_finite(double value) { return value - value == 0.0; }

/* Times a peer sends stay within +-2^61 ns (73 years), so that no sum or
 * difference of two of them, or of a time and a step, overflows int64. */
#define TIME_LIMIT ((int64_t)1 << 61)
static bool time_in_range(int64_t time) { return time > -TIME_LIMIT && time < TIME_LIMIT; }

static int64_t round_to_int64(double value) {
  return (int64_t)(value < 0.0 ? value - 0.5 : value + 0.5);
}

/* ---- decoding: nanopb callbacks write into slave->staged ---- */

static void note_problem(couplet_slave* slave, const char* a, const char* b, const char* c) {
  couplet_text text;
  if (slave->staged.problem[0] != '\0') return; /* the first one tells */
  couplet_text_begin(&text, slave->staged.problem, sizeof slave->staged.problem);
  couplet_text_add(&text, a);
  couplet_text_add(&text, b);
  couplet_text_add(&text, c);
}

static bool skip_rest(pb_istream_t* stream) { return pb_read(stream, NULL, stream->bytes_left); }

typedef struct {
  couplet_slave* slave;
  couplet_polynomial* target;
  size_t count;
} coefficient_sink;

static bool decode_coefficient(pb_istream_t* stream, const pb_field_t* field, void** arg) {
  coefficient_sink* sink = (coefficient_sink*)*arg;
  double value;
  (void)field;
  if (!pb_decode_fixed64(stream, &value)) return false;
  if (sink->count > COUPLET_MAX_INPUT_DEGREE) {
    note_problem(sink->slave, "an input polynomial has a higher degree than "
                 "COUPLET_MAX_INPUT_DEGREE of this build", "", "");
    return true;
  }
  sink->target->coefficients[sink->count++] = value;
  return true;
}

static bool decode_input(pb_istream_t* stream, const pb_field_t* field, void** arg) {
  couplet_slave* slave = (couplet_slave*)*arg;
  couplet_staged_request* staged = &slave->staged;
  couplet_wire_Polynomial wire = couplet_wire_Polynomial_init_zero;
  coefficient_sink sink;
  (void)field;
  if (staged->input_count == COUPLET_MAX_INPUTS) {
    note_problem(slave, "more inputs than COUPLET_MAX_INPUTS of this build", "", "");
    return skip_rest(stream);
  }
  sink.slave = slave;
  sink.target = &staged->inputs[staged->input_count];
  sink.count = 0;
  wire.coefficients.funcs.decode = decode_coefficient;
  wire.coefficients.arg = &sink;
  if (!pb_decode(stream, couplet_wire_Polynomial_fields, &wire)) return false;
  sink.target->origin = wire.origin;
  sink.target->scale = wire.scale;
  if (sink.count == 0) sink.target->coefficients[sink.count++] = 0.0; /* the zero polynomial */
  sink.target->degree = (unsigned)(sink.count - 1);
  ++staged->input_count;
  return true;
}

static bool decode_sample_time(pb_istream_t* stream, const pb_field_t* field, void** arg) {
  couplet_slave* slave = (couplet_slave*)*arg;
  int64_t value;
  (void)field;
  if (!pb_decode_svarint(stream, &value)) return false;
#if COUPLET_MAX_SAMPLES > 0
  if (slave->staged.sample_count < COUPLET_MAX_SAMPLES) {
    slave->staged.sample_times[slave->staged.sample_count++] = value;
    return true;
  }
#endif
  note_problem(slave, "more sample times than COUPLET_MAX_SAMPLES of this build", "", "");
  return true;
}

static bool decode_discrete_input(pb_istream_t* stream, const pb_field_t* field, void** arg) {
  couplet_slave* slave = (couplet_slave*)*arg;
  int64_t value;
  (void)field;
  if (!pb_decode_svarint(stream, &value)) return false;
#if COUPLET_MAX_DISCRETE_INPUTS > 0
  if (slave->staged.discrete_input_count < COUPLET_MAX_DISCRETE_INPUTS) {
    slave->staged.discrete_inputs[slave->staged.discrete_input_count++] = value;
    return true;
  }
#endif
  note_problem(slave, "more discrete inputs than COUPLET_MAX_DISCRETE_INPUTS of this build", "",
               "");
  return true;
}

static bool decode_parameter(pb_istream_t* stream, const pb_field_t* field, void** arg) {
  couplet_slave* slave = (couplet_slave*)*arg;
  const couplet_description* description = slave->description;
  couplet_wire_Parameter parameter = couplet_wire_Parameter_init_zero;
  size_t k;
  (void)field;
  if (!pb_decode(stream, couplet_wire_Parameter_fields, &parameter)) return false;
  for (k = 0; k < description->parameter_count; ++k) {
    if (strcmp(description->parameters[k].name, parameter.name) == 0) {
      slave->staged.parameters[k] = parameter.value;
      slave->staged.parameter_given[k] = true;
      return true;
    }
  }
  note_problem(slave, "the device has no parameter '", parameter.name, "'");
  return true;
}

static bool decode_coupled_input(pb_istream_t* stream, const pb_field_t* field, void** arg) {
  couplet_slave* slave = (couplet_slave*)*arg;
  const couplet_description* description = slave->description;
  char name[65];
  const size_t length = stream->bytes_left;
  size_t k;
  (void)field;
  if (length >= sizeof name) {
    note_problem(slave, "a coupled input's name is longer than any input's", "", "");
    return skip_rest(stream);
  }
  if (!pb_read(stream, (pb_byte_t*)name, length)) return false;
  name[length] = '\0';
  for (k = 0; k < description->input_count; ++k) {
    if (strcmp(description->inputs[k].name, name) == 0) {
      if (slave->staged.coupled_count < COUPLET_MAX_INPUTS)
        slave->staged.coupled[slave->staged.coupled_count++] = k;
      return true;
    }
  }
  /* Discrete inputs are always shown: the master sends the default of one
   * that no connection drives. */
  for (k = 0; k < description->discrete_input_count; ++k) {
    if (strcmp(description->discrete_inputs[k].name, name) == 0) return true;
  }
  note_problem(slave, "the device has no input '", name, "'");
  return true;
}

static void decode_with(pb_callback_t* field, bool (*decode)(pb_istream_t*, const pb_field_t*, void**),
                        couplet_slave* slave) {
  field->funcs.decode = decode;
  field->arg = slave;
}

/* Called before the body's submessage is decoded: points its repeated fields
 * at the staged request. */
static bool prepare_body(pb_istream_t* stream, const pb_field_t* field, void** arg) {
  couplet_slave* slave = (couplet_slave*)*arg;
  couplet_wire_Envelope* request = &slave->request;
  (void)stream;
  switch (field->tag) {
    case couplet_wire_Envelope_configure_tag:
      decode_with(&request->body.configure.parameters, decode_parameter, slave);
      decode_with(&request->body.configure.coupled_inputs, decode_coupled_input, slave);
      break;
    case couplet_wire_Envelope_evaluate_outputs_tag:
      decode_with(&request->body.evaluate_outputs.inputs, decode_input, slave);
      break;
    case couplet_wire_Envelope_step_request_tag:
      decode_with(&request->body.step_request.inputs, decode_input, slave);
      decode_with(&request->body.step_request.sample_times_ns, decode_sample_time, slave);
      decode_with(&request->body.step_request.discrete_inputs, decode_discrete_input, slave);
      break;
    default:
      break;
  }
  return true;
}

/* ---- encoding: callbacks read the device's buffers ---- */

static bool encode_doubles(pb_ostream_t* stream, const pb_field_t* field, void* const* arg) {
  const couplet_double_span* span = (const couplet_double_span*)*arg;
  size_t k;
  if (span->count == 0) return true;
  /* A packed repeated double, as proto3 and the host write it. */
  if (!pb_encode_tag(stream, PB_WT_STRING, field->tag)) return false;
  if (!pb_encode_varint(stream, (uint64_t)span->count * 8u)) return false;
  for (k = 0; k < span->count; ++k) {
    if (!pb_encode_fixed64(stream, &span->values[k])) return false;
  }
  return true;
}

/* A packed repeated sint64, as proto3 and the host write it. */
static bool encode_int64s(pb_ostream_t* stream, const pb_field_t* field, void* const* arg) {
  const couplet_int64_span* span = (const couplet_int64_span*)*arg;
  pb_ostream_t sizing = PB_OSTREAM_SIZING;
  size_t k;
  if (span->count == 0) return true;
  for (k = 0; k < span->count; ++k) {
    if (!pb_encode_svarint(&sizing, span->values[k])) return false;
  }
  if (!pb_encode_tag(stream, PB_WT_STRING, field->tag)) return false;
  if (!pb_encode_varint(stream, (uint64_t)sizing.bytes_written)) return false;
  for (k = 0; k < span->count; ++k) {
    if (!pb_encode_svarint(stream, span->values[k])) return false;
  }
  return true;
}

static void copy_text(char* target, size_t capacity, const char* text) {
  couplet_text builder;
  couplet_text_begin(&builder, target, capacity);
  couplet_text_add(&builder, text);
}

static bool encode_port(pb_ostream_t* stream, const pb_field_t* field, const char* name,
                        const char* unit, bool direct_feedthrough) {
  couplet_wire_Port port = couplet_wire_Port_init_zero;
  copy_text(port.name, sizeof port.name, name);
  copy_text(port.unit, sizeof port.unit, unit);
  port.direct_feedthrough = direct_feedthrough;
  return pb_encode_tag_for_field(stream, field) &&
         pb_encode_submessage(stream, couplet_wire_Port_fields, &port);
}

static bool encode_discrete_ports(pb_ostream_t* stream, const pb_field_t* field,
                                  const couplet_discrete_port* ports, size_t count) {
  size_t k;
  for (k = 0; k < count; ++k) {
    couplet_wire_Port port = couplet_wire_Port_init_zero;
    copy_text(port.name, sizeof port.name, ports[k].name);
    copy_text(port.unit, sizeof port.unit, ports[k].unit);
    port.type = ports[k].is_boolean ? couplet_wire_PortType_PORT_BOOLEAN
                                    : couplet_wire_PortType_PORT_INTEGER;
    port.start = ports[k].default_value;
    if (!pb_encode_tag_for_field(stream, field) ||
        !pb_encode_submessage(stream, couplet_wire_Port_fields, &port))
      return false;
  }
  return true;
}

static bool encode_discrete_inputs(pb_ostream_t* stream, const pb_field_t* field,
                                   void* const* arg) {
  const couplet_description* description = ((const couplet_slave*)*arg)->description;
  return encode_discrete_ports(stream, field, description->discrete_inputs,
                               description->discrete_input_count);
}

static bool encode_discrete_outputs(pb_ostream_t* stream, const pb_field_t* field,
                                    void* const* arg) {
  const couplet_description* description = ((const couplet_slave*)*arg)->description;
  return encode_discrete_ports(stream, field, description->discrete_outputs,
                               description->discrete_output_count);
}

static bool encode_inputs(pb_ostream_t* stream, const pb_field_t* field, void* const* arg) {
  const couplet_slave* slave = (const couplet_slave*)*arg;
  size_t k;
  for (k = 0; k < slave->shown_count; ++k) {
    const couplet_input* input = &slave->description->inputs[slave->shown[k]];
    if (!encode_port(stream, field, input->name, input->unit, false)) return false;
  }
  return true;
}

static bool encode_outputs(pb_ostream_t* stream, const pb_field_t* field, void* const* arg) {
  const couplet_slave* slave = (const couplet_slave*)*arg;
  size_t k;
  for (k = 0; k < slave->description->output_count; ++k) {
    const couplet_output* output = &slave->description->outputs[k];
    if (!encode_port(stream, field, output->name, output->unit, output->direct_feedthrough))
      return false;
  }
  return true;
}

/* ---- answers ---- */

static void answer_error(couplet_slave* slave, couplet_wire_ErrorCode code, const char* a,
                         const char* b) {
  couplet_text text;
  couplet_wire_Envelope* reply = &slave->reply;
  reply->which_body = couplet_wire_Envelope_error_tag;
  reply->body.error.code = code;
  couplet_text_begin(&text, reply->body.error.text, sizeof reply->body.error.text);
  couplet_text_add(&text, a);
  couplet_text_add(&text, b);
}

/* Encodes slave->reply as a frame into `frame` (a buffer of `capacity`
 * bytes, COUPLET_SEAL_OVERHEAD of them for a sealed frame's nonce and tag),
 * plain or sealed with `nonce`; an answer too large for it becomes an Error
 * saying so. Returns the frame's size. */
static size_t encode_frame_as(couplet_slave* slave, uint8_t* frame, size_t capacity, bool sealed,
                              uint64_t nonce) {
  const size_t header = sealed ? COUPLET_FRAME_SEALED_HEADER_BYTES : COUPLET_FRAME_HEADER_BYTES;
  /* The same room for the payload either way: a knob's frame, plain. */
  const size_t room = capacity - COUPLET_SEAL_OVERHEAD - COUPLET_FRAME_OVERHEAD;
  pb_ostream_t stream = pb_ostream_from_buffer(frame + header, room);
  if (!pb_encode(&stream, couplet_wire_Envelope_fields, &slave->reply)) {
    answer_error(slave, couplet_wire_ErrorCode_ERROR_UNSPECIFIED,
                 "the answer does not fit the frame buffer (COUPLET_TX_FRAME_BYTES, "
                 "COUPLET_SCRATCH_FRAME_BYTES): ",
                 PB_GET_ERROR(&stream));
    stream = pb_ostream_from_buffer(frame + header, room);
    if (!pb_encode(&stream, couplet_wire_Envelope_fields, &slave->reply)) return 0;
  }
  if (sealed) return couplet_frame_close_sealed(frame, stream.bytes_written, slave->key, nonce);
  return couplet_frame_close(frame, stream.bytes_written);
}

/* An answer of the session: sealed with its nonce when the core has a key. */
static size_t encode_reply(couplet_slave* slave, uint8_t* frame, size_t capacity) {
  return encode_frame_as(slave, frame, capacity, slave->keyed, slave->nonce);
}

static void send_frame(couplet_slave* slave, const uint8_t* frame, size_t size) {
  if (size > 0) couplet_cobs_write(&slave->platform, frame, size);
}

static void begin_reply(couplet_slave* slave, uint64_t session, uint32_t sequence) {
  memset(&slave->reply, 0, sizeof slave->reply);
  slave->reply.session = session;
  slave->reply.sequence = sequence;
}

static size_t end_output_count(const couplet_slave* slave) {
  return (slave->derivative_order + 1u) * slave->description->output_count;
}

static void describe(couplet_slave* slave) {
  couplet_wire_Describe* describe = &slave->reply.body.describe;
  couplet_wire_Capabilities* capabilities = &describe->capabilities;
  slave->reply.which_body = couplet_wire_Envelope_describe_tag;
  describe->version = couplet_wire_Version_VERSION_CURRENT;
  copy_text(describe->model, sizeof describe->model, slave->identity);
  describe->inputs.funcs.encode = encode_inputs;
  describe->inputs.arg = slave;
  describe->outputs.funcs.encode = encode_outputs;
  describe->outputs.arg = slave;
  describe->discrete_inputs.funcs.encode = encode_discrete_inputs;
  describe->discrete_inputs.arg = slave;
  describe->discrete_outputs.funcs.encode = encode_discrete_outputs;
  describe->discrete_outputs.arg = slave;
  describe->has_capabilities = true;
  capabilities->max_input_degree = slave->input_degree;
  capabilities->output_derivative_order = slave->derivative_order;
  capabilities->can_rollback = false; /* hardware cannot go back in time */
  capabilities->variable_step = slave->imposed_step == 0;
  capabilities->imposed_step_ns = slave->imposed_step;
  capabilities->intermediate_samples = slave->intermediate_samples;
  capabilities->max_sample_times = slave->intermediate_samples ? COUPLET_MAX_SAMPLES : 0;
  capabilities->realtime = slave->options.realtime;
  capabilities->can_linearize = false; /* outputs only: no state or Jacobians */
  capabilities->state_count = 0;
  describe->accepts_configure = true;
}

static void acknowledge(couplet_slave* slave) { slave->reply.which_body = couplet_wire_Envelope_ack_tag; }

/* ---- the session's configuration ---- */

static void reset_configuration(couplet_slave* slave) {
  const couplet_description* description = slave->description;
  size_t k;
  for (k = 0; k < description->parameter_count; ++k)
    slave->parameters[k] = description->parameters[k].default_value;
  for (k = 0; k < description->input_count; ++k) slave->shown[k] = k;
  slave->shown_count = description->input_count;
  slave->input_degree = description->input_degree;
  slave->derivative_order = description->output_derivative_order;
  slave->imposed_step = description->sample_period;
  /* Real-time mode: outputs at communication times only. */
  slave->intermediate_samples = description->intermediate_samples && !slave->options.realtime;
  copy_text(slave->slave_name, sizeof slave->slave_name, slave->identity);
  slave->initialized = false;
  slave->running = false;
}

static void configure(couplet_slave* slave) {
  const couplet_wire_Configure* request = &slave->request.body.configure;
  const couplet_staged_request* staged = &slave->staged;
  const couplet_description* description = slave->description;
  size_t k;
  if (request->model[0] != '\0' && strcmp(request->model, slave->identity) != 0) {
    answer_error(slave, couplet_wire_ErrorCode_ERROR_REFUSED, "this target serves model ",
                 slave->identity);
    return;
  }
  if (staged->problem[0] != '\0') {
    answer_error(slave, couplet_wire_ErrorCode_ERROR_REFUSED, staged->problem, "");
    return;
  }
  if (request->has_limits && !(request->limits.imposed_step_ns >= 0 &&
                               time_in_range(request->limits.imposed_step_ns))) {
    answer_error(slave, couplet_wire_ErrorCode_ERROR_REFUSED,
                 "imposed_step must be >= 0 and below 2^61 ns", "");
    return;
  }
  if (request->has_limits && request->limits.imposed_step_ns > 0 && description->sample_period > 0 &&
      request->limits.imposed_step_ns % description->sample_period != 0) {
    answer_error(slave, couplet_wire_ErrorCode_ERROR_REFUSED,
                 "the declared step is not a multiple of the device's sample period", "");
    return;
  }
  reset_configuration(slave);
  for (k = 0; k < description->parameter_count; ++k) {
    if (staged->parameter_given[k]) slave->parameters[k] = staged->parameters[k];
  }
  if (request->slave_name[0] != '\0')
    copy_text(slave->slave_name, sizeof slave->slave_name, request->slave_name);
  if (request->has_limits) {
    const couplet_wire_CapabilityLimits* limits = &request->limits;
    if (limits->has_max_input_degree && limits->max_input_degree < slave->input_degree)
      slave->input_degree = limits->max_input_degree;
    if (limits->has_output_derivative_order && limits->output_derivative_order < slave->derivative_order)
      slave->derivative_order = limits->output_derivative_order;
    slave->intermediate_samples = slave->intermediate_samples && limits->intermediate_samples;
    if (limits->imposed_step_ns > 0) slave->imposed_step = limits->imposed_step_ns;
  }
  if (request->coupled_inputs_listed) {
    for (k = 0; k < staged->coupled_count; ++k) slave->shown[k] = staged->coupled[k];
    slave->shown_count = staged->coupled_count;
  }
  describe(slave);
}

/* ---- requests ---- */

static void set_constant(couplet_polynomial* polynomial, double origin, double value) {
  polynomial->origin = origin;
  polynomial->scale = 1.0;
  polynomial->degree = 0;
  polynomial->coefficients[0] = value;
}

/* The device's discrete outputs at `now`, into slave->discrete_outputs. */
static const char* read_discrete_outputs(couplet_slave* slave, couplet_time now) {
  if (slave->description->discrete_output_count == 0) return NULL;
  return slave->callbacks->discrete_outputs(slave->model, now, slave->discrete_outputs);
}

/* Whether the device asks to end the simulation at `now`; if so, the reply
 * is the Error STOP_REQUESTED with `now` and the device's reason. */
static bool answered_stop_request(couplet_slave* slave, couplet_time now) {
  const char* reason = NULL;
  if (slave->callbacks->stop_requested == NULL ||
      !slave->callbacks->stop_requested(slave->model, now, &reason))
    return false;
  answer_error(slave, couplet_wire_ErrorCode_ERROR_STOP_REQUESTED,
               reason != NULL ? reason : "the device asks to stop", "");
  slave->reply.body.error.stop_time = (double)now / COUPLET_TICKS_PER_SECOND;
  return true;
}

/* The reply's `field` encodes the discrete outputs held now. */
static void attach_discrete_outputs(couplet_slave* slave, pb_callback_t* field) {
  slave->reply_discrete_outputs.values = slave->discrete_outputs;
  slave->reply_discrete_outputs.count = slave->description->discrete_output_count;
  field->funcs.encode = encode_int64s;
  field->arg = &slave->reply_discrete_outputs;
}

static void initialize(couplet_slave* slave) {
  const couplet_time start = slave->request.body.initialize.start_ns;
  const couplet_description* description = slave->description;
  const char* failure;
  size_t k;
  if (!time_in_range(start)) {
    answer_error(slave, couplet_wire_ErrorCode_ERROR_BAD_REQUEST, "initialize: ",
                 "the start time is beyond +-2^61 ns");
    return;
  }
  for (k = 0; k < description->input_count; ++k)
    set_constant(&slave->inputs[k], couplet_seconds(start), description->inputs[k].default_value);
  for (k = 0; k < description->discrete_input_count; ++k)
    slave->discrete_inputs[k] = description->discrete_inputs[k].default_value;
  if (slave->callbacks->initialize != NULL) {
    failure = slave->callbacks->initialize(slave->model, start, slave->parameters);
    if (failure != NULL) {
      answer_error(slave, couplet_wire_ErrorCode_ERROR_SLAVE_FAILED, "initialize failed: ", failure);
      return;
    }
  }
  failure = read_discrete_outputs(slave, start);
  if (failure != NULL) {
    answer_error(slave, couplet_wire_ErrorCode_ERROR_SLAVE_FAILED,
                 "discrete_outputs failed: ", failure);
    return;
  }
  slave->current_time = start;
  slave->initialized = true;
  slave->running = false;
  slave->requested_end = start;
  slave->period = 0;
  slave->has_fresh_input = false;
  acknowledge(slave);
  attach_discrete_outputs(slave, &slave->reply.body.ack.discrete_outputs);
}

/* The staged input polynomials are what the request says they are: the right
 * number, finite, with a positive scale, of no higher degree than agreed.
 * Returns NULL or why not. */
static const char* check_staged_inputs(const couplet_slave* slave) {
  const couplet_staged_request* staged = &slave->staged;
  size_t k;
  size_t j;
  if (staged->problem[0] != '\0') return staged->problem;
  if (staged->input_count != slave->shown_count)
    return "the request carries another number of inputs than the device takes";
  for (k = 0; k < staged->input_count; ++k) {
    const couplet_polynomial* input = &staged->inputs[k];
    if (!is_finite(input->origin) || !is_finite(input->scale) || !(input->scale > 0.0))
      return "an input polynomial has a non-finite origin or a scale that is not > 0";
    if (input->degree > slave->input_degree)
      return "an input polynomial has a higher degree than the device takes";
    for (j = 0; j <= input->degree; ++j) {
      if (!is_finite(input->coefficients[j])) return "an input polynomial is not finite";
    }
  }
  return NULL;
}

/* One staged discrete input per declared one, each Boolean one 0 or 1.
 * Returns NULL or why not. */
static const char* check_staged_discrete_inputs(const couplet_slave* slave) {
  const couplet_description* description = slave->description;
  size_t k;
  if (slave->staged.discrete_input_count != description->discrete_input_count)
    return "the request carries another number of discrete inputs than the device takes";
  for (k = 0; k < description->discrete_input_count; ++k) {
    const int64_t value = slave->staged.discrete_inputs[k];
    if (description->discrete_inputs[k].is_boolean && value != 0 && value != 1)
      return "a Boolean input is neither 0 nor 1";
  }
  return NULL;
}

static void apply_staged_discrete_inputs(couplet_slave* slave, int64_t* target) {
  size_t k;
  for (k = 0; k < slave->staged.discrete_input_count; ++k)
    target[k] = slave->staged.discrete_inputs[k];
}

static void apply_staged_inputs(couplet_slave* slave, couplet_polynomial* target) {
  size_t k;
  for (k = 0; k < slave->staged.input_count; ++k) target[slave->shown[k]] = slave->staged.inputs[k];
}

static void evaluate(couplet_slave* slave) {
  const char* problem = check_staged_inputs(slave);
  const char* failure;
  couplet_wire_Outputs* outputs;
  if (!slave->initialized) problem = "evaluate_outputs before initialize";
  if (problem != NULL) {
    answer_error(slave, couplet_wire_ErrorCode_ERROR_BAD_REQUEST, "evaluate_outputs: ", problem);
    return;
  }
  apply_staged_inputs(slave, slave->inputs);
  failure = slave->callbacks->outputs(slave->model, slave->current_time, slave->inputs,
                                      slave->end_outputs);
  if (failure != NULL) {
    answer_error(slave, couplet_wire_ErrorCode_ERROR_SLAVE_FAILED, "outputs failed: ", failure);
    return;
  }
  slave->reply.which_body = couplet_wire_Envelope_outputs_tag;
  outputs = &slave->reply.body.outputs;
  outputs->time_ns = slave->current_time;
  outputs->derivative_order = slave->derivative_order;
  slave->reply_values.values = slave->end_outputs;
  slave->reply_values.count = end_output_count(slave);
  outputs->values.funcs.encode = encode_doubles;
  outputs->values.arg = &slave->reply_values;
}

/* The step's span and sample times within what the device agreed to. */
static const char* check_step(const couplet_slave* slave, const couplet_wire_StepRequest* request) {
  const couplet_staged_request* staged = &slave->staged;
  size_t k;
  if (!slave->initialized) return "step before initialize";
  if (request->start_ns != slave->current_time) return "the step does not start at the device's time";
  if (!time_in_range(request->end_ns)) return "the step's end is beyond +-2^61 ns";
  if (request->end_ns <= request->start_ns) return "the step is empty or goes back in time";
  if (slave->imposed_step > 0 && (request->end_ns - request->start_ns) % slave->imposed_step != 0)
    return "the step is not a whole number of the device's sample periods";
  if (staged->sample_count > 0 && !slave->intermediate_samples)
    return "sample times asked of a device that reports none";
  for (k = 0; k < staged->sample_count; ++k) {
    const couplet_time previous = k == 0 ? request->start_ns : staged->sample_times[k - 1];
    if (staged->sample_times[k] <= previous || staged->sample_times[k] > request->end_ns)
      return "sample times must increase inside (start, end]";
  }
  {
    const char* problem = check_staged_discrete_inputs(slave);
    if (problem != NULL) return problem;
  }
  return check_staged_inputs(slave);
}

static void step(couplet_slave* slave, uint64_t received_ns) {
  const couplet_wire_StepRequest* request = &slave->request.body.step_request;
  const char* problem = check_step(slave, request);
  couplet_step_request device_request;
  couplet_wire_StepResult* result;
  const char* failure;
  if (problem != NULL) {
    answer_error(slave, couplet_wire_ErrorCode_ERROR_BAD_REQUEST, "step: ", problem);
    return;
  }
  if (answered_stop_request(slave, slave->current_time)) return;
  apply_staged_inputs(slave, slave->inputs);
  apply_staged_discrete_inputs(slave, slave->discrete_inputs);
  device_request.start = request->start_ns;
  device_request.end = request->end_ns;
  device_request.inputs = slave->inputs;
  device_request.sample_times = slave->staged.sample_times;
  device_request.sample_count = slave->staged.sample_count;
  device_request.discrete_inputs = slave->discrete_inputs;
  failure = slave->callbacks->step(slave->model, &device_request, slave->end_outputs, slave->samples);
  if (failure != NULL) {
    answer_error(slave, couplet_wire_ErrorCode_ERROR_SLAVE_FAILED, "step failed: ", failure);
    return;
  }
  slave->current_time = request->end_ns;
  failure = read_discrete_outputs(slave, slave->current_time);
  if (failure != NULL) {
    answer_error(slave, couplet_wire_ErrorCode_ERROR_SLAVE_FAILED,
                 "discrete_outputs failed: ", failure);
    return;
  }
  ++slave->counters.steps;
  slave->reply.which_body = couplet_wire_Envelope_step_result_tag;
  result = &slave->reply.body.step_result;
  result->status = couplet_wire_Status_STATUS_OK;
  result->time_ns = request->end_ns;
  result->derivative_order = slave->derivative_order;
  slave->reply_values.values = slave->end_outputs;
  slave->reply_values.count = end_output_count(slave);
  result->end_outputs.funcs.encode = encode_doubles;
  result->end_outputs.arg = &slave->reply_values;
  slave->reply_samples.values = slave->samples;
  slave->reply_samples.count = slave->staged.sample_count * slave->description->output_count;
  result->samples.funcs.encode = encode_doubles;
  result->samples.arg = &slave->reply_samples;
  attach_discrete_outputs(slave, &result->discrete_outputs);
  result->has_timing = true;
  result->timing.received_ns = received_ns;
  result->timing.finished_ns = slave->platform.monotonic_ns(slave->platform.context);
}

/* ---- real-time mode: the model advances on the wall clock ---- */

static int64_t wall_ns(const couplet_slave* slave, couplet_time model_time) {
  return slave->anchor_ns +
         round_to_int64((double)(model_time - slave->start_time) / slave->realtime_factor);
}

static couplet_time model_time_at(const couplet_slave* slave, uint64_t wall) {
  return slave->start_time +
         round_to_int64((double)((int64_t)wall - slave->anchor_ns) * slave->realtime_factor);
}

static void start(couplet_slave* slave, uint64_t received_ns) {
  const double factor = slave->request.body.start.realtime_factor;
  const char* problem = NULL;
  if (!slave->options.realtime) problem = "this target runs in virtual time";
  if (problem == NULL && !slave->initialized) problem = "start before initialize";
  if (problem == NULL && !(factor > 0.0 && is_finite(factor)))
    problem = "the real-time factor must be finite and > 0";
  if (problem != NULL) {
    answer_error(slave, couplet_wire_ErrorCode_ERROR_BAD_REQUEST, "start: ", problem);
    return;
  }
  slave->realtime_factor = factor;
  slave->start_time = slave->current_time;
  slave->anchor_ns = (int64_t)received_ns;
  slave->running = true;
  acknowledge(slave);
}

/* The newest input wins and applies from its arrival. */
static void accept_input(couplet_slave* slave, uint64_t received_ns) {
  const couplet_wire_StepRequest* request = &slave->request.body.step_request;
  const char* problem = check_staged_inputs(slave);
  couplet_time arrival;
  if (problem == NULL) problem = check_staged_discrete_inputs(slave);
  if (!slave->running) problem = "step request before start in real-time mode";
  if (problem == NULL && slave->staged.sample_count != 0)
    problem = "a real-time target reports no intermediate samples";
  if (problem == NULL && !(time_in_range(request->start_ns) && time_in_range(request->end_ns)))
    problem = "the step's times are beyond +-2^61 ns";
  if (problem == NULL && request->end_ns <= request->start_ns)
    problem = "the step is empty or goes back in time";
  if (problem != NULL) {
    answer_error(slave, couplet_wire_ErrorCode_ERROR_BAD_REQUEST, "step: ", problem);
    return;
  }
  apply_staged_inputs(slave, slave->fresh_inputs);
  apply_staged_discrete_inputs(slave, slave->fresh_discrete_inputs);
  slave->has_fresh_input = true;
  arrival = model_time_at(slave, received_ns);
  slave->fresh_input_time = arrival > slave->current_time ? arrival : slave->current_time;
  slave->fresh_input_lateness = (int64_t)received_ns - wall_ns(slave, request->start_ns);
  if (request->end_ns > slave->requested_end) slave->requested_end = request->end_ns;
  slave->period = request->end_ns - request->start_ns;
}

static couplet_time next_boundary(const couplet_slave* slave) {
  return slave->requested_end > slave->current_time ? slave->requested_end
                                                     : slave->current_time + slave->period;
}

static const char* step_segment(couplet_slave* slave, couplet_time from, couplet_time to) {
  couplet_step_request request;
  if (to <= from) return NULL;
  request.start = from;
  request.end = to;
  request.inputs = slave->inputs;
  request.sample_times = NULL;
  request.sample_count = 0;
  request.discrete_inputs = slave->discrete_inputs;
  return slave->callbacks->step(slave->model, &request, slave->end_outputs, slave->samples);
}

static void advance_realtime(couplet_slave* slave, uint64_t now) {
  const couplet_time boundary = next_boundary(slave);
  const bool fresh = slave->has_fresh_input;
  const char* failure = NULL;
  couplet_wire_StepResult* result;
  size_t k;
  begin_reply(slave, slave->session, 0); /* a push */
  if (answered_stop_request(slave, slave->current_time)) {
    slave->running = false;
    send_frame(slave, slave->scratch, encode_reply(slave, slave->scratch, sizeof slave->scratch));
    return;
  }
  if (fresh) {
    /* Until the new input arrived the old one held; from then on the new one.
     * A sampling device takes it at its next sample. */
    couplet_time switch_time = slave->fresh_input_time < boundary ? slave->fresh_input_time : boundary;
    if (slave->imposed_step > 0) {
      const couplet_time periods =
          (switch_time - slave->current_time + slave->imposed_step - 1) / slave->imposed_step;
      const couplet_time sample = slave->current_time + periods * slave->imposed_step;
      switch_time = sample < boundary ? sample : boundary;
    }
    failure = step_segment(slave, slave->current_time, switch_time);
    for (k = 0; k < slave->description->input_count; ++k) slave->inputs[k] = slave->fresh_inputs[k];
    for (k = 0; k < slave->description->discrete_input_count; ++k)
      slave->discrete_inputs[k] = slave->fresh_discrete_inputs[k];
    if (failure == NULL) failure = step_segment(slave, switch_time, boundary);
  } else {
    failure = step_segment(slave, slave->current_time, boundary);
    ++slave->counters.starved_periods;
  }
  if (failure == NULL && slave->current_time == boundary) {
    failure = slave->callbacks->outputs(slave->model, slave->current_time, slave->inputs,
                                        slave->end_outputs);
  }
  if (failure == NULL) failure = read_discrete_outputs(slave, boundary);
  if (failure != NULL) {
    answer_error(slave, couplet_wire_ErrorCode_ERROR_SLAVE_FAILED, "step failed: ", failure);
    slave->running = false;
    send_frame(slave, slave->scratch, encode_reply(slave, slave->scratch, sizeof slave->scratch));
    return;
  }
  slave->current_time = boundary;
  slave->has_fresh_input = false;
  ++slave->counters.periods;
  slave->reply.which_body = couplet_wire_Envelope_step_result_tag;
  result = &slave->reply.body.step_result;
  result->status = fresh ? couplet_wire_Status_STATUS_OK : couplet_wire_Status_STATUS_LATE;
  result->time_ns = boundary;
  result->derivative_order = slave->derivative_order;
  slave->reply_values.values = slave->end_outputs;
  slave->reply_values.count = end_output_count(slave);
  result->end_outputs.funcs.encode = encode_doubles;
  result->end_outputs.arg = &slave->reply_values;
  attach_discrete_outputs(slave, &result->discrete_outputs);
  result->has_timing = true;
  result->timing.received_ns = now;
  result->timing.finished_ns = slave->platform.monotonic_ns(slave->platform.context);
  result->timing.input_lateness_ns = fresh ? slave->fresh_input_lateness : 0;
  send_frame(slave, slave->scratch, encode_reply(slave, slave->scratch, sizeof slave->scratch));
}

/* ---- sessions and exactly-once ---- */

/* With a key, a session no request has confirmed (by its nonce) does not
 * hold the target: a replayed Hello cannot lock out the real master. */
static bool may_open_session(const couplet_slave* slave, uint64_t now) {
  return slave->session == 0 || slave->stopped || (slave->keyed && !slave->confirmed) ||
         now - slave->last_heard_ns > slave->options.session_timeout_ns;
}

static void store_le(uint8_t* bytes, uint64_t value, size_t count) {
  size_t k;
  for (k = 0; k < count; ++k) bytes[k] = (uint8_t)(value >> (8u * k));
}

/* A keyed session's nonce: the low 64 bits of SipHash-2-4-128 under the key
 * of (session id | Hello's sequence | monotonic ns | sessions opened so far),
 * little endian: unique per session, unpredictable without the key. Never 0,
 * which marks frames outside a session. */
static uint64_t draw_nonce(couplet_slave* slave, uint64_t session, uint32_t sequence,
                           uint64_t now) {
  uint8_t input[24];
  uint8_t digest[COUPLET_SIPHASH_OUTPUT_BYTES];
  uint64_t nonce = 0;
  size_t k;
  while (nonce == 0) {
    ++slave->sessions_opened;
    store_le(input, session, 8);
    store_le(input + 8, sequence, 4);
    store_le(input + 12, now, 8);
    store_le(input + 20, slave->sessions_opened, 4);
    couplet_siphash24_128(slave->key, input, sizeof input, digest);
    for (k = 8; k-- > 0;) nonce = (nonce << 8) | digest[k];
  }
  return nonce;
}

static void open_session(couplet_slave* slave, uint64_t session, uint32_t sequence, uint64_t now) {
  slave->session = session;
  slave->last_sequence = sequence;
  slave->stopped = false;
  slave->cache_size = 0;
  slave->confirmed = false;
  slave->heartbeat_seen = false;
  slave->nonce = slave->keyed ? draw_nonce(slave, session, sequence, now) : 0;
  reset_configuration(slave); /* a new session starts from the defaults */
}

static void execute(couplet_slave* slave, uint64_t now) {
  switch (slave->request.which_body) {
    case couplet_wire_Envelope_hello_tag:
      describe(slave);
      return;
    case couplet_wire_Envelope_configure_tag:
      configure(slave);
      return;
    case couplet_wire_Envelope_initialize_tag:
      initialize(slave);
      return;
    case couplet_wire_Envelope_evaluate_outputs_tag:
      evaluate(slave);
      return;
    case couplet_wire_Envelope_step_request_tag:
      if (slave->options.realtime) {
        accept_input(slave, now);
      } else {
        step(slave, now);
      }
      return;
    case couplet_wire_Envelope_start_tag:
      start(slave, now);
      return;
    case couplet_wire_Envelope_linearize_tag:
      /* A device gives outputs, not its equations: it describes can_linearize
       * false, and its Linearize inputs are skipped undecoded. */
      answer_error(slave, couplet_wire_ErrorCode_ERROR_BAD_REQUEST,
                   "linearize: this device cannot linearize", "");
      return;
    case couplet_wire_Envelope_stop_tag:
      slave->stopped = true;
      slave->stopped_session = slave->session;
      slave->running = false;
      acknowledge(slave);
      return;
    default:
      answer_error(slave, couplet_wire_ErrorCode_ERROR_BAD_REQUEST, "unexpected message for a target",
                   "");
      return;
  }
}

static void answer_and_cache(couplet_slave* slave) {
  slave->cache_size = encode_reply(slave, slave->cache, sizeof slave->cache);
  send_frame(slave, slave->cache, slave->cache_size);
}

typedef enum {
  FRAME_REJECTED,        /* broken (noise, truncated, over-long) or malformed */
  FRAME_UNAUTHENTICATED, /* with a key: plain, or sealed under another key (or forged) */
  FRAME_PLAIN_HELLO,     /* with a key: a plain Hello, told why it is refused */
  FRAME_ACCEPTED         /* slave->request holds it */
} frame_verdict;

/* Opens a received frame and decodes its Envelope into slave->request;
 * *nonce is a sealed frame's nonce (0 for a plain one). */
static frame_verdict decode_request(couplet_slave* slave, const uint8_t* frame, size_t size,
                                    uint64_t* nonce) {
  const bool sealed = slave->keyed && size >= 2 && frame[1] == COUPLET_FRAME_SEALED_VERSION;
  const uint8_t* payload;
  size_t payload_size;
  pb_istream_t stream;
  bool decoded;
  *nonce = 0;
  if (sealed) {
    if (couplet_frame_open_sealed(frame, size, nonce, &payload, &payload_size) != NULL)
      return FRAME_REJECTED;
    if (!couplet_frame_authentic(frame, size, slave->key)) return FRAME_UNAUTHENTICATED;
  } else if (size > COUPLET_RX_FRAME_BYTES || /* the buffer's seal room is not for plain frames */
             couplet_frame_open(frame, size, &payload, &payload_size) != NULL) {
    return FRAME_REJECTED;
  }
  memset(&slave->staged, 0, sizeof slave->staged);
  memset(&slave->request, 0, sizeof slave->request);
  slave->request.cb_body.funcs.decode = prepare_body;
  slave->request.cb_body.arg = slave;
  stream = pb_istream_from_buffer(payload, payload_size);
  decoded = pb_decode(&stream, couplet_wire_Envelope_fields, &slave->request) &&
            slave->request.which_body != 0;
  if (slave->keyed && !sealed) {
    return decoded && slave->request.which_body == couplet_wire_Envelope_hello_tag
               ? FRAME_PLAIN_HELLO
               : FRAME_UNAUTHENTICATED;
  }
  return decoded ? FRAME_ACCEPTED : FRAME_REJECTED;
}

/* A keyed core tells a master without the key why it gets no Describe: a
 * plain Error in the Hello's envelope. Nothing else changes. */
static void refuse_plain_hello(couplet_slave* slave) {
  begin_reply(slave, slave->request.session, slave->request.sequence);
  answer_error(slave, couplet_wire_ErrorCode_ERROR_BAD_REQUEST,
               "this target requires authenticated frames: give the link a key_file", "");
  send_frame(slave, slave->scratch,
             encode_frame_as(slave, slave->scratch, sizeof slave->scratch, false, 0));
}

/* A sealed frame of the current session goes on only with the session's
 * nonce; the one exception is a repeat of the Hello that opened the session
 * (nonce 0), answered from the cache while no request has confirmed the
 * session. Heartbeats must come with increasing sender times, so that a
 * replayed one cannot keep a dead master's session alive. Returns whether
 * the frame goes on. */
static bool admit_sealed(couplet_slave* slave, uint64_t nonce, uint64_t now) {
  const couplet_wire_Envelope* request = &slave->request;
  if (nonce == 0 && !slave->confirmed && request->which_body == couplet_wire_Envelope_hello_tag &&
      request->sequence == slave->last_sequence) {
    slave->last_heard_ns = now;
    ++slave->counters.repeats;
    send_frame(slave, slave->cache, slave->cache_size);
    return false;
  }
  if (nonce != slave->nonce) {
    ++slave->counters.stale;
    return false;
  }
  slave->confirmed = true;
  if (request->which_body == couplet_wire_Envelope_heartbeat_tag) {
    const uint64_t sent = request->body.heartbeat.sender_time_ns;
    if (slave->heartbeat_seen && sent <= slave->last_heartbeat_ns) {
      ++slave->counters.stale;
      return false;
    }
    slave->heartbeat_seen = true;
    slave->last_heartbeat_ns = sent;
  }
  return true;
}

static void handle_frame(couplet_slave* slave, const uint8_t* frame, size_t size) {
  const couplet_wire_Envelope* request = &slave->request;
  uint64_t nonce;
  uint64_t now;
  frame_verdict verdict;
  ++slave->counters.frames;
  verdict = decode_request(slave, frame, size, &nonce);
  if (verdict == FRAME_REJECTED) {
    ++slave->counters.rejected;
    return;
  }
  if (verdict != FRAME_ACCEPTED) { /* dropped unanswered, but for a plain Hello */
    ++slave->counters.unauthenticated;
    if (verdict == FRAME_PLAIN_HELLO && request->session != 0) refuse_plain_hello(slave);
    return;
  }
  now = slave->platform.monotonic_ns(slave->platform.context);
  begin_reply(slave, request->session, request->sequence);

  if (request->session == 0) { /* never a session, even before the first one */
    ++slave->counters.foreign;
    return;
  }
  if (request->session != slave->session) {
    /* Only a Hello of a new session may open it, never one of a session that
     * has stopped (a straggler of an earlier run). */
    if (request->which_body != couplet_wire_Envelope_hello_tag ||
        request->session == slave->stopped_session) {
      ++slave->counters.foreign;
      return;
    }
    if (slave->keyed && nonce != 0) { /* a sealed Hello opens a session with nonce 0 */
      ++slave->counters.stale;
      return;
    }
    if (!may_open_session(slave, now)) {
      ++slave->counters.busy;
      answer_error(slave, couplet_wire_ErrorCode_ERROR_BUSY, "the target serves another session", "");
      /* No session of the asker's: sealed with nonce 0. */
      send_frame(slave, slave->scratch,
                 encode_frame_as(slave, slave->scratch, sizeof slave->scratch, slave->keyed, 0));
      return;
    }
    open_session(slave, request->session, request->sequence, now);
    slave->last_heard_ns = now;
    ++slave->counters.executed;
    describe(slave);
    answer_and_cache(slave);
    return;
  }

  /* Without a key any frame of the session shows that its master lives; with
   * one only a fresh heartbeat or a new request does (a replayed frame would
   * otherwise keep a dead master's session alive). */
  if (slave->keyed) {
    if (!admit_sealed(slave, nonce, now)) return;
  } else {
    slave->last_heard_ns = now;
  }
  if (request->which_body == couplet_wire_Envelope_heartbeat_tag) {
    slave->last_heard_ns = now;
    slave->reply.which_body = couplet_wire_Envelope_heartbeat_tag;
    slave->reply.body.heartbeat.sender_time_ns = now;
    send_frame(slave, slave->scratch, encode_reply(slave, slave->scratch, sizeof slave->scratch));
    return;
  }
  if (request->sequence == slave->last_sequence) {
    ++slave->counters.repeats;
    send_frame(slave, slave->cache, slave->cache_size);
    return;
  }
  if (slave->stopped) { /* after Stop only its repeat (the Ack was lost) is answered */
    ++slave->counters.foreign;
    return;
  }
  if (!is_newer(request->sequence, slave->last_sequence)) {
    ++slave->counters.stale;
    return;
  }
  slave->last_sequence = request->sequence;
  slave->last_heard_ns = now;
  ++slave->counters.executed;
  execute(slave, now);
  if (slave->reply.which_body == 0) { /* a real-time input: its answer is the next push */
    slave->cache_size = 0;
    return;
  }
  answer_and_cache(slave);
}

/* ---- the public functions ---- */

static const char* check_discrete_ports(const couplet_discrete_port* ports, size_t count) {
  size_t k;
  for (k = 0; k < count; ++k) {
    if (ports[k].name == NULL || ports[k].name[0] == '\0' || strlen(ports[k].name) > 63)
      return "every discrete port needs a name of 1 to 63 bytes";
    if (ports[k].unit != NULL && strlen(ports[k].unit) > 31) return "units are at most 31 bytes";
    if (ports[k].is_boolean && ports[k].default_value != 0 && ports[k].default_value != 1)
      return "a Boolean port's default_value is 0 or 1";
  }
  return NULL;
}

static const char* check_names(const couplet_description* description) {
  const char* problem;
  size_t k;
  for (k = 0; k < description->input_count; ++k) {
    const couplet_input* input = &description->inputs[k];
    if (input->name == NULL || input->name[0] == '\0' || strlen(input->name) > 63)
      return "every input needs a name of 1 to 63 bytes";
    if (input->unit != NULL && strlen(input->unit) > 31) return "units are at most 31 bytes";
  }
  for (k = 0; k < description->output_count; ++k) {
    const couplet_output* output = &description->outputs[k];
    if (output->name == NULL || output->name[0] == '\0' || strlen(output->name) > 63)
      return "every output needs a name of 1 to 63 bytes";
    if (output->unit != NULL && strlen(output->unit) > 31) return "units are at most 31 bytes";
  }
  for (k = 0; k < description->parameter_count; ++k) {
    const char* name = description->parameters[k].name;
    if (name == NULL || name[0] == '\0' || strlen(name) > 63)
      return "every parameter needs a name of 1 to 63 bytes";
  }
  problem = check_discrete_ports(description->discrete_inputs, description->discrete_input_count);
  if (problem != NULL) return problem;
  return check_discrete_ports(description->discrete_outputs, description->discrete_output_count);
}

static const char* check_description(const couplet_description* description,
                                     const couplet_callbacks* callbacks,
                                     const couplet_platform* platform,
                                     const couplet_slave_options* options) {
  if (description == NULL || callbacks == NULL || platform == NULL || options == NULL)
    return "couplet_slave_init needs a description, callbacks, a platform and options";
  if (description->name == NULL || description->name[0] == '\0' || strlen(description->name) > 56)
    return "the device needs a name of 1 to 56 bytes";
  if (description->input_count > COUPLET_MAX_INPUTS || description->input_count > WIRE_MAX_PORTS)
    return "more inputs than COUPLET_MAX_INPUTS";
  if (description->output_count > COUPLET_MAX_OUTPUTS || description->output_count > WIRE_MAX_PORTS)
    return "more outputs than COUPLET_MAX_OUTPUTS";
  if (description->parameter_count > COUPLET_MAX_PARAMETERS)
    return "more parameters than COUPLET_MAX_PARAMETERS";
  if (description->discrete_input_count > COUPLET_MAX_DISCRETE_INPUTS ||
      description->discrete_input_count > WIRE_MAX_PORTS)
    return "more discrete inputs than COUPLET_MAX_DISCRETE_INPUTS";
  if (description->discrete_output_count > COUPLET_MAX_DISCRETE_OUTPUTS ||
      description->discrete_output_count > WIRE_MAX_PORTS)
    return "more discrete outputs than COUPLET_MAX_DISCRETE_OUTPUTS";
  if (description->input_degree > COUPLET_MAX_INPUT_DEGREE ||
      description->input_degree > WIRE_MAX_INPUT_DEGREE)
    return "input_degree above COUPLET_MAX_INPUT_DEGREE";
  if (description->output_derivative_order > COUPLET_MAX_OUTPUT_DERIVATIVE_ORDER ||
      description->output_derivative_order > WIRE_MAX_DERIVATIVE_ORDER)
    return "output_derivative_order above COUPLET_MAX_OUTPUT_DERIVATIVE_ORDER";
  if (description->sample_period < 0) return "sample_period must be >= 0";
  if (description->intermediate_samples && COUPLET_MAX_SAMPLES == 0)
    return "intermediate_samples needs COUPLET_MAX_SAMPLES > 0";
  if ((description->input_count > 0 && description->inputs == NULL) ||
      (description->output_count > 0 && description->outputs == NULL) ||
      (description->parameter_count > 0 && description->parameters == NULL) ||
      (description->discrete_input_count > 0 && description->discrete_inputs == NULL) ||
      (description->discrete_output_count > 0 && description->discrete_outputs == NULL))
    return "ports or parameters are counted but not given";
  if (callbacks->outputs == NULL || callbacks->step == NULL)
    return "the outputs and step callbacks are required";
  if (description->discrete_output_count > 0 && callbacks->discrete_outputs == NULL)
    return "the discrete_outputs callback is required with discrete outputs";
  if (platform->write == NULL || platform->monotonic_ns == NULL)
    return "the platform needs write and monotonic_ns";
  if (options->session_timeout_ns == 0) return "the session timeout must be > 0";
  return check_names(description);
}

const char* couplet_slave_init(couplet_slave* slave, const couplet_description* description,
                               const couplet_callbacks* callbacks, void* model,
                               const couplet_platform* platform,
                               const couplet_slave_options* options) {
  const char* problem = check_description(description, callbacks, platform, options);
  couplet_text identity;
  if (problem != NULL) return problem;
  memset(slave, 0, sizeof *slave);
  slave->description = description;
  slave->callbacks = callbacks;
  slave->model = model;
  slave->platform = *platform;
  slave->options = *options;
  couplet_text_begin(&identity, slave->identity, sizeof slave->identity);
  couplet_text_add(&identity, "device:");
  couplet_text_add(&identity, description->name);
  if (options->key != NULL) { /* a copy: the caller's key may go */
    slave->keyed = true;
    memcpy(slave->key, options->key, sizeof slave->key);
    slave->options.key = slave->key;
  }
  couplet_cobs_reset(&slave->cobs);
  reset_configuration(slave);
  return NULL;
}

size_t couplet_slave_receive(couplet_slave* slave, const uint8_t* bytes, size_t count) {
  size_t head = slave->ring_head;
  size_t taken = 0;
  while (taken < count) {
    const size_t next = (head + 1u) % COUPLET_RX_RING_BYTES;
    if (next == slave->ring_tail) {
      slave->counters.overrun += (uint32_t)(count - taken);
      break;
    }
    slave->ring[head] = bytes[taken++];
    head = next;
  }
  slave->ring_head = head;
  return taken;
}

void couplet_slave_poll(couplet_slave* slave) {
  uint64_t deadline;
  size_t tail = slave->ring_tail;
  while (tail != slave->ring_head) {
    const uint8_t byte = slave->ring[tail];
    couplet_cobs_event event;
    tail = (tail + 1u) % COUPLET_RX_RING_BYTES;
    slave->ring_tail = tail;
    /* A sealed frame may be COUPLET_SEAL_OVERHEAD bytes longer than the knob. */
    event = couplet_cobs_feed(&slave->cobs, byte, slave->rx_frame,
                              slave->keyed ? sizeof slave->rx_frame : COUPLET_RX_FRAME_BYTES);
    if (event == COUPLET_COBS_FRAME) {
      handle_frame(slave, slave->rx_frame, slave->cobs.size);
      couplet_cobs_reset(&slave->cobs);
    } else if (event == COUPLET_COBS_DROPPED) {
      ++slave->counters.rejected;
    }
  }
  if (couplet_slave_next_deadline(slave, &deadline)) {
    const uint64_t now = slave->platform.monotonic_ns(slave->platform.context);
    if (now >= deadline) advance_realtime(slave, now);
  }
}

bool couplet_slave_next_deadline(const couplet_slave* slave, uint64_t* when_ns) {
  int64_t when;
  if (!slave->running || slave->stopped || slave->period == 0) return false;
  when = wall_ns(slave, next_boundary(slave));
  *when_ns = when < 0 ? 0u : (uint64_t)when;
  return true;
}

bool couplet_slave_session_ended(const couplet_slave* slave) {
  if (slave->session == 0) return false;
  return slave->stopped || slave->platform.monotonic_ns(slave->platform.context) - slave->last_heard_ns >
                               slave->options.session_timeout_ns;
}

bool couplet_slave_in_session(const couplet_slave* slave) {
  return slave->session != 0 && !couplet_slave_session_ended(slave);
}

const couplet_counters* couplet_slave_counters(const couplet_slave* slave) { return &slave->counters; }

const char* couplet_slave_model(const couplet_slave* slave) { return slave->identity; }
