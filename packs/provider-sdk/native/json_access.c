/*
 * Accessors over a document validated by sdp_json_parse: iteration, member
 * lookup, strings (compared and decoded lazily, no allocation unless asked)
 * and numbers. They rely on the document being well formed but still clamp
 * every read to the value's end.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json_text.h"

static size_t skip_string(const uint8_t *t, size_t pos, size_t end) {
  pos++; /* opening quote */
  while (pos < end) {
    if (t[pos] == '\\') {
      pos += 2;
    } else if (t[pos] == '"') {
      return pos + 1;
    } else {
      pos++;
    }
  }
  return end;
}

/* End of the value starting at t[pos]; never beyond end. */
static size_t skip_value(const uint8_t *t, size_t pos, size_t end) {
  size_t depth = 0;
  while (pos < end) {
    uint8_t c = t[pos];
    if (c == '"') {
      pos = skip_string(t, pos, end);
      if (depth == 0) return pos;
    } else if (c == '{' || c == '[') {
      depth++;
      pos++;
    } else if (c == '}' || c == ']') {
      if (depth == 0) return pos;
      pos++;
      if (--depth == 0) return pos;
    } else if (depth == 0) {
      while (pos < end && !sdp_text_is_ws(t[pos]) && t[pos] != ',' && t[pos] != ']' && t[pos] != '}' && t[pos] != ':') pos++;
      return pos;
    } else {
      pos++;
    }
  }
  return end;
}

static sdp_json make_value(const uint8_t *t, size_t pos, size_t end) {
  sdp_json v = {t, pos, pos, sdp_text_type_at(t, pos, end)};
  if (v.type != SDP_JSON_INVALID) v.end = skip_value(t, pos, end);
  return v;
}

static bool iter_init(const sdp_json *v, sdp_json_type type, sdp_json_iter *it) {
  if (!v || !it || v->type != type || v->end - v->start < 2) return false;
  it->text = v->text;
  it->pos = v->start + 1;
  it->end = v->end - 1; /* the closing bracket */
  it->first = true;
  return true;
}

bool sdp_json_object_iter_init(const sdp_json *object, sdp_json_iter *it) {
  return iter_init(object, SDP_JSON_OBJECT, it);
}

bool sdp_json_array_iter_init(const sdp_json *array, sdp_json_iter *it) { return iter_init(array, SDP_JSON_ARRAY, it); }

/* Moves past the separator before the next element; false at the end. */
static bool iter_advance(sdp_json_iter *it) {
  it->pos = sdp_text_skip_ws(it->text, it->pos, it->end);
  if (it->pos >= it->end) return false;
  if (!it->first) {
    if (it->text[it->pos] != ',') {
      it->pos = it->end;
      return false;
    }
    it->pos = sdp_text_skip_ws(it->text, it->pos + 1, it->end);
    if (it->pos >= it->end) return false;
  }
  it->first = false;
  return true;
}

bool sdp_json_array_next(sdp_json_iter *it, sdp_json *item) {
  if (!it || !iter_advance(it)) return false;
  sdp_json v = make_value(it->text, it->pos, it->end);
  if (v.type == SDP_JSON_INVALID) {
    it->pos = it->end;
    return false;
  }
  it->pos = v.end;
  if (item) *item = v;
  return true;
}

bool sdp_json_object_next(sdp_json_iter *it, sdp_json *key, sdp_json *value) {
  if (!it || !iter_advance(it)) return false;
  sdp_json k = make_value(it->text, it->pos, it->end);
  if (k.type != SDP_JSON_STRING) {
    it->pos = it->end;
    return false;
  }
  size_t pos = sdp_text_skip_ws(it->text, k.end, it->end);
  if (pos >= it->end || it->text[pos] != ':') {
    it->pos = it->end;
    return false;
  }
  pos = sdp_text_skip_ws(it->text, pos + 1, it->end);
  sdp_json v = make_value(it->text, pos, it->end);
  if (v.type == SDP_JSON_INVALID) {
    it->pos = it->end;
    return false;
  }
  it->pos = v.end;
  if (key) *key = k;
  if (value) *value = v;
  return true;
}

/* Contents of a string value: [start + 1, end - 1). */
static bool string_contents(const sdp_json *s, size_t *start, size_t *end) {
  if (!s || s->type != SDP_JSON_STRING || s->end - s->start < 2) return false;
  *start = s->start + 1;
  *end = s->end - 1;
  return true;
}

bool sdp_json_string_equals(const sdp_json *string, const char *literal) {
  size_t start, end;
  if (!literal || !string_contents(string, &start, &end)) return false;
  size_t n = strlen(literal);
  bool plain = memchr(string->text + start, '\\', end - start) == NULL;
  return sdp_text_compare_decoded(string->text, start, end, plain, (const uint8_t *)literal, 0, n, true) == 0;
}

bool sdp_json_strings_equal(const sdp_json *a, const sdp_json *b) {
  size_t sa, ea, sb, eb;
  if (!string_contents(a, &sa, &ea) || !string_contents(b, &sb, &eb)) return false;
  bool plain_a = memchr(a->text + sa, '\\', ea - sa) == NULL;
  bool plain_b = memchr(b->text + sb, '\\', eb - sb) == NULL;
  return sdp_text_compare_decoded(a->text, sa, ea, plain_a, b->text, sb, eb, plain_b) == 0;
}

bool sdp_json_object_get(const sdp_json *object, const char *key, sdp_json *out) {
  sdp_json_iter it;
  sdp_json k, v;
  if (!key || !sdp_json_object_iter_init(object, &it)) return false;
  while (sdp_json_object_next(&it, &k, &v)) {
    if (sdp_json_string_equals(&k, key)) {
      if (out) *out = v;
      return true;
    }
  }
  return false;
}

size_t sdp_json_array_length(const sdp_json *array) {
  sdp_json_iter it;
  size_t n = 0;
  if (!sdp_json_array_iter_init(array, &it)) return 0;
  while (sdp_json_array_next(&it, NULL)) n++;
  return n;
}

/* Unicode White_Space (what Rust's str::trim removes). */
bool sdp_is_unicode_space(uint32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
         cp == 0x3000;
}

bool sdp_json_string_is_blank(const sdp_json *string) {
  size_t start, end;
  if (!string_contents(string, &start, &end)) return false;
  sdp_text_cursor c;
  sdp_text_cursor_init(&c, string->text, start, end, false);
  int32_t cp;
  while ((cp = sdp_text_cursor_next_codepoint(&c)) >= 0)
    if (!sdp_is_unicode_space((uint32_t)cp)) return false;
  return true;
}

size_t sdp_json_string_decode(const sdp_json *string, char *buffer, size_t cap) {
  size_t start, end, n = 0;
  if (buffer && cap) buffer[0] = '\0';
  if (!buffer || cap == 0 || !string_contents(string, &start, &end)) return SIZE_MAX;
  sdp_text_cursor c;
  sdp_text_cursor_init(&c, string->text, start, end, false);
  int b;
  while ((b = sdp_text_cursor_next_byte(&c)) >= 0) {
    if (n + 1 >= cap) {
      buffer[0] = '\0';
      return SIZE_MAX;
    }
    buffer[n++] = (char)b;
  }
  buffer[n] = '\0';
  return n;
}

char *sdp_json_string_dup(const sdp_json *string, size_t *len) {
  size_t start, end;
  if (!string_contents(string, &start, &end)) return NULL;
  size_t cap = end - start + 1; /* decoding never lengthens: every escape is at least as long as its UTF-8 */
  char *buffer = malloc(cap);
  if (!buffer) return NULL;
  size_t n = sdp_json_string_decode(string, buffer, cap);
  if (n == SIZE_MAX) {
    free(buffer);
    return NULL;
  }
  if (len) *len = n;
  return buffer;
}

/* Code point at s[*pos] (advancing *pos); malformed bytes yield U+FFFD and advance by one. */
static uint32_t next_utf8(const char *s, size_t n, size_t *pos) {
  const uint8_t *t = (const uint8_t *)s;
  uint32_t cp;
  if (t[*pos] < 0x80) return t[(*pos)++];
  size_t len = sdp_text_utf8_sequence(t, *pos, n, &cp);
  if (len == 0) {
    (*pos)++;
    return 0xFFFD;
  }
  *pos += len;
  return cp;
}

size_t sdp_utf8_trim(const char *s, size_t n, size_t *trimmed_len) {
  size_t pos = 0, first = n, last_end = 0;
  while (pos < n) {
    size_t at = pos;
    uint32_t cp = next_utf8(s, n, &pos);
    if (!sdp_is_unicode_space(cp)) {
      if (first == n) first = at;
      last_end = pos;
    }
  }
  if (first == n) {
    *trimmed_len = 0;
    return n;
  }
  *trimmed_len = last_end - first;
  return first;
}

bool sdp_utf8_contains_space(const char *s, size_t n) {
  size_t pos = 0;
  while (pos < n)
    if (sdp_is_unicode_space(next_utf8(s, n, &pos))) return true;
  return false;
}

/* ---- numbers ---- */

typedef struct number_parts {
  bool negative;
  uint64_t mantissa;  /* first 19 significant digits */
  int64_t exponent10; /* value = mantissa * 10^exponent10 (before sign) */
  bool integer_syntax;
} number_parts;

#define EXPONENT_CLAMP 100000

static bool split_number(const sdp_json *v, number_parts *out) {
  if (!v || v->type != SDP_JSON_NUMBER) return false;
  const uint8_t *t = v->text;
  size_t pos = v->start, end = v->end;
  number_parts n = {false, 0, 0, true};
  int digits = 0;
  if (pos < end && t[pos] == '-') {
    n.negative = true;
    pos++;
  }
  while (pos < end && sdp_text_is_digit(t[pos])) {
    if (digits < 19) {
      if (n.mantissa != 0 || t[pos] != '0') {
        n.mantissa = n.mantissa * 10 + (uint64_t)(t[pos] - '0');
        digits++;
      }
    } else {
      n.exponent10++;
    }
    pos++;
  }
  if (pos < end && t[pos] == '.') {
    n.integer_syntax = false;
    pos++;
    while (pos < end && sdp_text_is_digit(t[pos])) {
      if (digits < 19) {
        if (n.mantissa != 0 || t[pos] != '0') digits++;
        n.mantissa = n.mantissa * 10 + (uint64_t)(t[pos] - '0');
        n.exponent10--;
      }
      pos++;
    }
  }
  if (pos < end && (t[pos] == 'e' || t[pos] == 'E')) {
    n.integer_syntax = false;
    pos++;
    bool negative_exponent = false;
    if (pos < end && (t[pos] == '+' || t[pos] == '-')) negative_exponent = t[pos++] == '-';
    int64_t e = 0;
    while (pos < end && sdp_text_is_digit(t[pos])) {
      if (e < EXPONENT_CLAMP) e = e * 10 + (t[pos] - '0');
      pos++;
    }
    n.exponent10 += negative_exponent ? -e : e;
  }
  *out = n;
  return true;
}

bool sdp_json_number_double(const sdp_json *number, double *out) {
  number_parts n;
  if (!out || !split_number(number, &n)) return false;
  static const double powers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  double value;
  if (n.mantissa == 0) {
    value = 0.0;
  } else if (n.mantissa <= (UINT64_C(1) << 53) && n.exponent10 >= -22 && n.exponent10 <= 22) {
    /* Exact operands, one correctly rounded operation (Clinger's fast path). */
    value = n.exponent10 >= 0 ? (double)n.mantissa * powers[n.exponent10] : (double)n.mantissa / powers[-n.exponent10];
  } else if (n.exponent10 > 400) {
    return false; /* overflows double */
  } else if (n.exponent10 < -400) {
    value = 0.0;
  } else {
    long double x = (long double)n.mantissa;
    int64_t e = n.exponent10;
    for (; e > 0; e--) x *= 10.0L;
    for (; e < 0; e++) x /= 10.0L;
    value = (double)x;
    if (!isfinite(value)) return false;
  }
  *out = n.negative ? -value : value;
  return true;
}

bool sdp_json_number_int64(const sdp_json *number, int64_t *out) {
  if (!out || !number || number->type != SDP_JSON_NUMBER) return false;
  const uint8_t *t = number->text;
  size_t pos = number->start, end = number->end;
  bool negative = false;
  if (pos < end && t[pos] == '-') {
    negative = true;
    pos++;
  }
  if (pos >= end) return false;
  uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, value = 0;
  for (; pos < end; pos++) {
    if (!sdp_text_is_digit(t[pos])) return false; /* fraction or exponent */
    uint64_t d = (uint64_t)(t[pos] - '0');
    if (value > (limit - d) / 10) return false;
    value = value * 10 + d;
  }
  if (negative) {
    *out = value == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)value;
  } else {
    *out = (int64_t)value;
  }
  return true;
}
