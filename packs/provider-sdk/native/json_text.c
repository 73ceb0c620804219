/* JSON text primitives: see json_text.h. */
#include "json_text.h"

#include <string.h>

bool sdp_text_is_ws(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool sdp_text_is_digit(uint8_t c) { return c >= '0' && c <= '9'; }

size_t sdp_text_skip_ws(const uint8_t *t, size_t pos, size_t end) {
  while (pos < end && sdp_text_is_ws(t[pos])) pos++;
  return pos;
}

static int hex_value(uint8_t c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool sdp_text_read_hex4(const uint8_t *t, size_t pos, size_t end, uint32_t *out) {
  if (pos > end || end - pos < 4) return false;
  uint32_t value = 0;
  for (size_t i = 0; i < 4; i++) {
    int h = hex_value(t[pos + i]);
    if (h < 0) return false;
    value = (value << 4) | (uint32_t)h;
  }
  *out = value;
  return true;
}

/* Table 3-7 of the Unicode standard (well-formed UTF-8 byte sequences). */
size_t sdp_text_utf8_sequence(const uint8_t *t, size_t pos, size_t end, uint32_t *cp) {
  uint8_t b0 = t[pos];
  size_t n;
  uint8_t lo = 0x80, hi = 0xBF;
  uint32_t value;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
    value = b0 & 0x1Fu;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    value = b0 & 0x0Fu;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F; /* no UTF-16 surrogates */
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    value = b0 & 0x07u;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F; /* nothing above U+10FFFF */
  } else {
    return 0;
  }
  if (end - pos < n) return 0;
  for (size_t i = 1; i < n; i++) {
    uint8_t b = t[pos + i];
    uint8_t min = (i == 1) ? lo : 0x80, max = (i == 1) ? hi : 0xBF;
    if (b < min || b > max) return 0;
    value = (value << 6) | (b & 0x3Fu);
  }
  if (cp) *cp = value;
  return n;
}

static size_t utf8_encode(uint32_t cp, uint8_t out[4]) {
  if (cp < 0x80) {
    out[0] = (uint8_t)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (uint8_t)(0xC0 | (cp >> 6));
    out[1] = (uint8_t)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (uint8_t)(0xE0 | (cp >> 12));
    out[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (uint8_t)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (uint8_t)(0xF0 | (cp >> 18));
  out[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
  out[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
  out[3] = (uint8_t)(0x80 | (cp & 0x3F));
  return 4;
}

void sdp_text_cursor_init(sdp_text_cursor *c, const uint8_t *t, size_t start, size_t end, bool plain) {
  c->t = t;
  c->pos = start;
  c->end = end;
  c->plain = plain;
  c->pending_len = 0;
  c->pending_at = 0;
}

/* Decodes the escape at t[*pos] (a backslash) and advances *pos. Malformed input yields U+FFFD. */
static uint32_t decode_escape(const uint8_t *t, size_t *pos, size_t end) {
  size_t at = *pos;
  if (end - at < 2) {
    *pos = end;
    return 0xFFFD;
  }
  uint8_t e = t[at + 1];
  *pos = at + 2;
  switch (e) {
    case 'b':
      return '\b';
    case 'f':
      return '\f';
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    case 'u': {
      uint32_t unit, low;
      if (!sdp_text_read_hex4(t, at + 2, end, &unit)) {
        *pos = end;
        return 0xFFFD;
      }
      *pos = at + 6;
      if (unit >= 0xD800 && unit <= 0xDBFF) {
        if (end - at >= 12 && t[at + 6] == '\\' && t[at + 7] == 'u' && sdp_text_read_hex4(t, at + 8, end, &low) &&
            low >= 0xDC00 && low <= 0xDFFF) {
          *pos = at + 12;
          return 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
        }
        return 0xFFFD;
      }
      if (unit >= 0xDC00 && unit <= 0xDFFF) return 0xFFFD;
      return unit;
    }
    default:
      return e; /* '"', '\\', '/' */
  }
}

int32_t sdp_text_cursor_next_codepoint(sdp_text_cursor *c) {
  if (c->pos >= c->end) return -1;
  uint8_t b = c->t[c->pos];
  if (b == '\\') return (int32_t)decode_escape(c->t, &c->pos, c->end);
  if (b < 0x80) {
    c->pos++;
    return b;
  }
  uint32_t cp;
  size_t n = sdp_text_utf8_sequence(c->t, c->pos, c->end, &cp);
  if (n == 0) {
    c->pos++;
    return 0xFFFD;
  }
  c->pos += n;
  return (int32_t)cp;
}

int sdp_text_cursor_next_byte(sdp_text_cursor *c) {
  if (c->pending_at < c->pending_len) return c->pending[c->pending_at++];
  if (c->pos >= c->end) return -1;
  uint8_t b = c->t[c->pos];
  if (b != '\\' || c->plain) {
    c->pos++;
    return b;
  }
  uint32_t cp = decode_escape(c->t, &c->pos, c->end);
  c->pending_len = (uint8_t)utf8_encode(cp, c->pending);
  c->pending_at = 1;
  return c->pending[0];
}

int sdp_text_compare_decoded(const uint8_t *ta, size_t sa, size_t ea, bool plain_a, const uint8_t *tb, size_t sb,
                           size_t eb, bool plain_b) {
  if (plain_a && plain_b) {
    size_t la = ea - sa, lb = eb - sb;
    size_t n = la < lb ? la : lb;
    int r = n ? memcmp(ta + sa, tb + sb, n) : 0;
    if (r != 0) return r;
    return (la > lb) - (la < lb);
  }
  sdp_text_cursor a, b;
  sdp_text_cursor_init(&a, ta, sa, ea, plain_a);
  sdp_text_cursor_init(&b, tb, sb, eb, plain_b);
  for (;;) {
    int x = sdp_text_cursor_next_byte(&a), y = sdp_text_cursor_next_byte(&b);
    if (x != y) return x < y ? -1 : 1;
    if (x < 0) return 0;
  }
}

sdp_json_type sdp_text_type_at(const uint8_t *t, size_t pos, size_t end) {
  if (pos >= end) return SDP_JSON_INVALID;
  switch (t[pos]) {
    case '{':
      return SDP_JSON_OBJECT;
    case '[':
      return SDP_JSON_ARRAY;
    case '"':
      return SDP_JSON_STRING;
    case 't':
      return SDP_JSON_TRUE;
    case 'f':
      return SDP_JSON_FALSE;
    case 'n':
      return SDP_JSON_NULL;
    default:
      return (t[pos] == '-' || sdp_text_is_digit(t[pos])) ? SDP_JSON_NUMBER : SDP_JSON_INVALID;
  }
}

