/* The left mass of the two-mass switch (couplet's built-in model
 * translational.mass) as a device for the embedded core:
 *   m v' = -c x - d v + f,  x' = v;  input f [N], outputs x [m], v [m/s],
 * integrated by explicit Euler with `substeps` steps per macro step, exactly as
 * couplet's built-in Euler solver does, so that the results match the
 * built-in model bit for bit. Portable C99: the same file runs on a board. */
#ifndef TRANSLATIONAL_MASS_H
#define TRANSLATIONAL_MASS_H

#include "couplet_embedded.h"

typedef struct {
  double m, c, d; /* mass, wall stiffness, wall damping */
  unsigned substeps;
  double x, v; /* state */
} translational_mass;

extern const couplet_description translational_mass_description;
extern const couplet_callbacks translational_mass_callbacks;

#endif /* TRANSLATIONAL_MASS_H */
