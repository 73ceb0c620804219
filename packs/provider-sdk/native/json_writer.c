/*
 * Bounded JSON text writer. The buffer grows geometrically but never beyond
 * `max` bytes; an append that would cross it sets `overflow` and is dropped,
 * so callers check once at the end (RESPONSE_TOO_LARGE) instead of after
 * every write. The buffer is malloc'd and handed to the host as-is; the
 * provider's free_buffer releases it with free().
 */
#include <stdlib.h>
#include <string.h>

#include "service_provider_sdk.h"

void sdp_writer_init(sdp_writer *w, size_t max) { *w = (sdp_writer){NULL, 0, 0, max, false, false}; }

void sdp_writer_dispose(sdp_writer *w) {
  free(w->data);
  *w = (sdp_writer){NULL, 0, 0, w->max, false, false};
}

bool sdp_writer_ok(const sdp_writer *w) { return !w->overflow && !w->nomem; }

static bool reserve(sdp_writer *w, size_t extra) {
  if (!sdp_writer_ok(w)) return false;
  if (extra > w->max || w->len > w->max - extra) {
    w->overflow = true;
    return false;
  }
  size_t need = w->len + extra;
  if (need <= w->cap) return true;
  size_t cap = w->cap ? w->cap : 256;
  while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
  if (cap > w->max) cap = w->max;
  uint8_t *grown = realloc(w->data, cap);
  if (!grown) {
    w->nomem = true;
    return false;
  }
  w->data = grown;
  w->cap = cap;
  return true;
}

void sdp_writer_bytes(sdp_writer *w, const void *bytes, size_t n) {
  if (n == 0 || !reserve(w, n)) return;
  memcpy(w->data + w->len, bytes, n);
  w->len += n;
}

void sdp_writer_cstr(sdp_writer *w, const char *s) { sdp_writer_bytes(w, s, strlen(s)); }

void sdp_writer_uint(sdp_writer *w, uint64_t value) {
  char digits[20];
  size_t n = 0;
  do {
    digits[sizeof digits - 1 - n++] = (char)('0' + value % 10);
    value /= 10;
  } while (value != 0);
  sdp_writer_bytes(w, digits + sizeof digits - n, n);
}

void sdp_writer_json_string(sdp_writer *w, const char *s) {
  static const char hex[] = "0123456789abcdef";
  sdp_writer_bytes(w, "\"", 1);
  const char *run = s;
  for (const char *p = s;; p++) {
    unsigned char c = (unsigned char)*p;
    if (c != '\0' && c != '"' && c != '\\' && c >= 0x20) continue;
    sdp_writer_bytes(w, run, (size_t)(p - run));
    if (c == '\0') break;
    run = p + 1;
    char escape[6] = {'\\', 0, 0, 0, 0, 0};
    size_t n = 2;
    switch (c) {
      case '"':
        escape[1] = '"';
        break;
      case '\\':
        escape[1] = '\\';
        break;
      case '\b':
        escape[1] = 'b';
        break;
      case '\f':
        escape[1] = 'f';
        break;
      case '\n':
        escape[1] = 'n';
        break;
      case '\r':
        escape[1] = 'r';
        break;
      case '\t':
        escape[1] = 't';
        break;
      default:
        memcpy(escape + 1, "u00", 3);
        escape[4] = hex[c >> 4];
        escape[5] = hex[c & 0xF];
        n = 6;
    }
    sdp_writer_bytes(w, escape, n);
  }
  sdp_writer_bytes(w, "\"", 1);
}

void sdp_writer_json_string_or_null(sdp_writer *w, const char *s) {
  if (s) {
    sdp_writer_json_string(w, s);
  } else {
    sdp_writer_cstr(w, "null");
  }
}

void sdp_writer_json_value(sdp_writer *w, const sdp_json *value) {
  if (!value || value->type == SDP_JSON_INVALID || value->end <= value->start) {
    sdp_writer_cstr(w, "null");
    return;
  }
  sdp_writer_bytes(w, value->text + value->start, value->end - value->start);
}
