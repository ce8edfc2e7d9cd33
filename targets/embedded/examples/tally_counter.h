/* A tally counter with Integer and Boolean ports, as a device for the embedded
 * core: at every whole `period` after the start, while the Boolean input
 * `enable` holds, the Integer output `count` grows by the Integer input
 * `increment`. Outputs: `count`, `phase` (1 while count < 10, else 2), the
 * Boolean `odd`, and the Real `level` = count / 2. With the parameter
 * `stop_count` > 0 it asks to end the simulation at the first communication
 * point at which count has reached it (the FMU has no such parameter). The same counter as the
 * test FMU tests/fmus/tally.c, so that a scenario can swap one for the other
 * and compare. Portable C99: the same file runs on a board. */
#ifndef TALLY_COUNTER_H
#define TALLY_COUNTER_H

#include "couplet_embedded.h"

typedef struct {
  couplet_time start;  /* of the session */
  couplet_time period; /* between ticks */
  int64_t ticks;       /* ticks so far */
  int64_t count;
  int64_t stop_count; /* 0: never asks to stop */
} tally_counter;

extern const couplet_description tally_counter_description;
extern const couplet_callbacks tally_counter_callbacks;

#endif /* TALLY_COUNTER_H */
