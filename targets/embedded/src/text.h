/* Bounded text building without printf: error texts for the master. */
#ifndef COUPLET_EMBEDDED_TEXT_H
#define COUPLET_EMBEDDED_TEXT_H

#include <stddef.h>

typedef struct {
  char* text;
  size_t capacity; /* bytes, the terminating NUL included */
  size_t length;
} couplet_text;

/* Starts an empty text in buffer[0, capacity), capacity >= 1. */
void couplet_text_begin(couplet_text* text, char* buffer, size_t capacity);
/* Appends `part` (NULL: nothing), cut at the capacity; always NUL-terminated. */
void couplet_text_add(couplet_text* text, const char* part);

#endif /* COUPLET_EMBEDDED_TEXT_H */
