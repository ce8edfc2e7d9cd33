/* The two input clocks that clocked3 (co-simulation) and sampled3 (model
 * exchange) share, and the rules they hold an importer to (C99, FMI 3.0 API
 * only):
 *   sample: a constant clock every 25 ms from 5 ms — at each tick e = r - x
 *     and samples += 1; its clocked input r may be set only while it is
 *     active;
 *   echo: a countdown clock that each tick of sample sets to tick 10 ms later
 *     (fmi3GetIntervalDecimal tells it once) — echoes += 1.
 * fmi3SetClock must name each at its tick's time; the FMU's own
 * fmi3UpdateDiscreteStates ends their activity (sample_clocks_update). */
#ifndef COUPLET_TEST_SAMPLE_CLOCKS_H
#define COUPLET_TEST_SAMPLE_CLOCKS_H

#include <math.h>

#include "fmi3.h"

#define SAMPLE_SHIFT 0.005
#define SAMPLE_INTERVAL 0.025
#define ECHO_DELAY 0.01
#define SLACK 1e-9 /* the importer's ticks are whole nanoseconds */

typedef struct {
  double r, e;
  double echo_due; /* the pending tick of echo; < 0: none */
  fmi3Int32 samples, echoes;
  long next_sample; /* the index of sample's next tick */
  int sample_active, sample_done, echo_active, echo_done, echo_to_tell;
} SampleClocks;

/* At instantiation: no echo pending. */
static void sample_clocks_init(SampleClocks* c) {
  c->echo_due = -1.0;
}

/* In Initialization Mode: sample's first tick at or after `start`. */
static void sample_clocks_start(SampleClocks* c, double start) {
  c->next_sample =
      start <= SAMPLE_SHIFT ? 0 : (long)ceil((start - SAMPLE_SHIFT) / SAMPLE_INTERVAL - SLACK);
}

static double sample_tick(const SampleClocks* c) {
  return SAMPLE_SHIFT + (double)c->next_sample * SAMPLE_INTERVAL;
}

/* The earliest tick not handled yet, sample's or echo's. */
static double sample_clocks_pending(const SampleClocks* c) {
  const double sample = sample_tick(c);
  return c->echo_due >= 0.0 && c->echo_due < sample ? c->echo_due : sample;
}

/* The partitions of the active clocks at `time`, x the state then; once per
 * activation. */
static void sample_clocks_compute(SampleClocks* c, double time, double x) {
  if (c->sample_active && !c->sample_done) {
    c->e = c->r - x;
    ++c->samples;
    c->sample_done = 1;
    c->echo_due = time + ECHO_DELAY;
    c->echo_to_tell = 1;
  }
  if (c->echo_active && !c->echo_done) {
    ++c->echoes;
    c->echo_done = 1;
  }
}

/* fmi3SetClock for one of them at `time`: 1 when `r` is `sample` or `echo`
 * and it is its tick, -1 when it is not its tick, 0 when `r` is another. */
static int sample_clocks_set(SampleClocks* c, fmi3ValueReference r, fmi3ValueReference sample,
                             fmi3ValueReference echo, double time) {
  if (r == sample) {
    if (fabs(time - sample_tick(c)) > SLACK) return -1;
    c->sample_active = 1;
    return 1;
  }
  if (r == echo) {
    if (c->echo_due < 0.0 || fabs(time - c->echo_due) > SLACK) return -1;
    c->echo_active = 1;
    return 1;
  }
  return 0;
}

/* fmi3GetIntervalDecimal of echo: 10 ms, changed once after each sample. */
static void sample_clocks_interval(SampleClocks* c, fmi3Float64* interval,
                                   fmi3IntervalQualifier* qualifier) {
  *interval = ECHO_DELAY;
  *qualifier = c->echo_to_tell ? fmi3IntervalChanged : fmi3IntervalUnchanged;
  c->echo_to_tell = 0;
}

/* In fmi3UpdateDiscreteStates, after compute: their activity ends. */
static void sample_clocks_update(SampleClocks* c) {
  if (c->sample_active) ++c->next_sample;
  if (c->echo_active) c->echo_due = -1.0;
  c->sample_active = c->sample_done = c->echo_active = c->echo_done = 0;
}

static int sample_clocks_active(const SampleClocks* c) {
  return c->sample_active || c->echo_active;
}

#endif /* COUPLET_TEST_SAMPLE_CLOCKS_H */
