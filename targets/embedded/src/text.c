#include "text.h"

void couplet_text_begin(couplet_text* text, char* buffer, size_t capacity) {
  text->text = buffer;
  text->capacity = capacity;
  text->length = 0;
  buffer[0] = '\0';
}

void couplet_text_add(couplet_text* text, const char* part) {
  if (part == NULL) return;
  while (*part != '\0' && text->length + 1 < text->capacity) text->text[text->length++] = *part++;
  text->text[text->length] = '\0';
}
