/*
 * Bounded, validating JSON reader (RFC 8259).
 *
 * sdp_json_parse makes one iterative pass over the bytes: grammar, nesting
 * depth (an explicit stack of SDP_JSON_MAX_DEPTH entries, no recursion),
 * UTF-8 (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF),
 * escapes (a \uD800-\uDBFF escape must be followed by a \uDC00-\uDFFF escape,
 * a lone low surrogate is refused), raw control characters, trailing bytes,
 * and duplicate keys. Keys of the open objects sit on one stack; when an
 * object closes its keys are compared (pairwise when few, sorted otherwise, so
 * O(k log k)) and popped. Duplicates are refused rather than resolved because
 * "first wins" and "last wins" parsers would then disagree about the same
 * request (JavaScript's JSON.parse keeps the last).
 *
 * After validation the accessors walk the text lazily. They rely on the
 * document being well formed but still clamp every read to the value's end.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "service_provider_sdk.h"

/* ---------------------------------------------------------------------- */
/* Character classes and UTF-8                                             */
/* ---------------------------------------------------------------------- */

static bool is_ws(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static bool is_digit(uint8_t c) { return c >= '0' && c <= '9'; }

static size_t skip_ws(const uint8_t *t, size_t pos, size_t end) {
  while (pos < end && is_ws(t[pos])) pos++;
  return pos;
}

static int hex_value(uint8_t c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Reads 4 hex digits at t[pos..pos+4) if they are all inside [.., end). */
static bool read_hex4(const uint8_t *t, size_t pos, size_t end, uint32_t *out) {
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

/*
 * Length of the well-formed UTF-8 sequence starting at t[pos] (lead byte >=
 * 0x80), or 0 if it is malformed or truncated by end. Table 3-7 of Unicode.
 */
static size_t utf8_sequence(const uint8_t *t, size_t pos, size_t end, uint32_t *cp) {
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

/* ---------------------------------------------------------------------- */
/* Validation pass                                                         */
/* ---------------------------------------------------------------------- */

typedef struct key_span {
  const uint8_t *text;
  size_t start; /* first byte after the opening quote */
  size_t end;   /* the closing quote */
  bool escaped; /* contains a backslash */
} key_span;

#define INLINE_KEYS 32

typedef struct parser {
  const uint8_t *t;
  size_t len;
  size_t pos;
  size_t error_at;
  size_t depth;
  uint8_t stack[SDP_JSON_MAX_DEPTH];
  size_t key_base[SDP_JSON_MAX_DEPTH];
  key_span *keys;
  size_t key_count;
  size_t key_cap;
  key_span inline_keys[INLINE_KEYS];
} parser;

static sdp_json_status fail(parser *p, sdp_json_status status, size_t at) {
  p->error_at = at;
  return status;
}

/* Scans the string whose opening quote is at p->pos; leaves p->pos after the closing quote. */
static sdp_json_status scan_string(parser *p, bool *escaped) {
  const uint8_t *t = p->t;
  size_t end = p->len, pos = p->pos + 1;
  *escaped = false;
  for (;;) {
    if (pos >= end) return fail(p, SDP_JSON_ERR_SYNTAX, pos);
    uint8_t c = t[pos];
    if (c == '"') {
      p->pos = pos + 1;
      return SDP_JSON_OK;
    }
    if (c < 0x20) return fail(p, SDP_JSON_ERR_CONTROL, pos);
    if (c == '\\') {
      *escaped = true;
      if (end - pos < 2) return fail(p, SDP_JSON_ERR_ESCAPE, pos);
      switch (t[pos + 1]) {
        case '"':
        case '\\':
        case '/':
        case 'b':
        case 'f':
        case 'n':
        case 'r':
        case 't':
          pos += 2;
          continue;
        case 'u': {
          uint32_t unit;
          if (!read_hex4(t, pos + 2, end, &unit)) return fail(p, SDP_JSON_ERR_ESCAPE, pos);
          if (unit >= 0xDC00 && unit <= 0xDFFF) return fail(p, SDP_JSON_ERR_ESCAPE, pos);
          if (unit >= 0xD800 && unit <= 0xDBFF) {
            uint32_t low;
            if (end - pos < 12 || t[pos + 6] != '\\' || t[pos + 7] != 'u' || !read_hex4(t, pos + 8, end, &low) ||
                low < 0xDC00 || low > 0xDFFF)
              return fail(p, SDP_JSON_ERR_ESCAPE, pos);
            pos += 12;
          } else {
            pos += 6;
          }
          continue;
        }
        default:
          return fail(p, SDP_JSON_ERR_ESCAPE, pos);
      }
    }
    if (c < 0x80) {
      pos++;
      continue;
    }
    size_t n = utf8_sequence(t, pos, end, NULL);
    if (n == 0) return fail(p, SDP_JSON_ERR_UTF8, pos);
    pos += n;
  }
}

static sdp_json_status scan_number(parser *p) {
  const uint8_t *t = p->t;
  size_t end = p->len, pos = p->pos;
  if (t[pos] == '-') pos++;
  if (pos >= end) return fail(p, SDP_JSON_ERR_SYNTAX, pos);
  if (t[pos] == '0') {
    pos++;
  } else if (t[pos] >= '1' && t[pos] <= '9') {
    while (pos < end && is_digit(t[pos])) pos++;
  } else {
    return fail(p, SDP_JSON_ERR_SYNTAX, pos);
  }
  if (pos < end && t[pos] == '.') {
    pos++;
    if (pos >= end || !is_digit(t[pos])) return fail(p, SDP_JSON_ERR_SYNTAX, pos);
    while (pos < end && is_digit(t[pos])) pos++;
  }
  if (pos < end && (t[pos] == 'e' || t[pos] == 'E')) {
    pos++;
    if (pos < end && (t[pos] == '+' || t[pos] == '-')) pos++;
    if (pos >= end || !is_digit(t[pos])) return fail(p, SDP_JSON_ERR_SYNTAX, pos);
    while (pos < end && is_digit(t[pos])) pos++;
  }
  p->pos = pos;
  return SDP_JSON_OK;
}

static sdp_json_status scan_literal(parser *p, const char *word) {
  size_t n = strlen(word);
  if (p->len - p->pos < n || memcmp(p->t + p->pos, word, n) != 0) return fail(p, SDP_JSON_ERR_SYNTAX, p->pos);
  p->pos += n;
  return SDP_JSON_OK;
}

/* ---- decoded comparison of raw string contents ---- */

typedef struct byte_cursor {
  const uint8_t *t;
  size_t pos;
  size_t end;
  bool plain; /* bytes are literal (a C string, or JSON text without a backslash): no escape decoding */
  uint8_t pending[4];
  uint8_t pending_len;
  uint8_t pending_at;
} byte_cursor;

static void cursor_init(byte_cursor *c, const uint8_t *t, size_t start, size_t end, bool plain) {
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
      if (!read_hex4(t, at + 2, end, &unit)) {
        *pos = end;
        return 0xFFFD;
      }
      *pos = at + 6;
      if (unit >= 0xD800 && unit <= 0xDBFF) {
        if (end - at >= 12 && t[at + 6] == '\\' && t[at + 7] == 'u' && read_hex4(t, at + 8, end, &low) &&
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

/* Next decoded code point of a string's contents, or -1 at the end. */
static int32_t cursor_next_codepoint(byte_cursor *c) {
  if (c->pos >= c->end) return -1;
  uint8_t b = c->t[c->pos];
  if (b == '\\') return (int32_t)decode_escape(c->t, &c->pos, c->end);
  if (b < 0x80) {
    c->pos++;
    return b;
  }
  uint32_t cp;
  size_t n = utf8_sequence(c->t, c->pos, c->end, &cp);
  if (n == 0) {
    c->pos++;
    return 0xFFFD;
  }
  c->pos += n;
  return (int32_t)cp;
}

/* Next decoded UTF-8 byte, or -1 at the end. */
static int cursor_next_byte(byte_cursor *c) {
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

/*
 * Compares two byte ranges by decoded value. A range is either JSON string
 * contents (escapes decoded) or plain bytes; JSON contents without a
 * backslash are plain too, which gives the memcmp fast path.
 */
static int compare_decoded(const uint8_t *ta, size_t sa, size_t ea, bool plain_a, const uint8_t *tb, size_t sb,
                           size_t eb, bool plain_b) {
  if (plain_a && plain_b) {
    size_t la = ea - sa, lb = eb - sb;
    size_t n = la < lb ? la : lb;
    int r = n ? memcmp(ta + sa, tb + sb, n) : 0;
    if (r != 0) return r;
    return (la > lb) - (la < lb);
  }
  byte_cursor a, b;
  cursor_init(&a, ta, sa, ea, plain_a);
  cursor_init(&b, tb, sb, eb, plain_b);
  for (;;) {
    int x = cursor_next_byte(&a), y = cursor_next_byte(&b);
    if (x != y) return x < y ? -1 : 1;
    if (x < 0) return 0;
  }
}

static int key_span_compare(const void *left, const void *right) {
  const key_span *a = left, *b = right;
  return compare_decoded(a->text, a->start, a->end, !a->escaped, b->text, b->start, b->end, !b->escaped);
}

static bool has_duplicate_keys(key_span *keys, size_t n) {
  if (n < 2) return false;
  if (n <= 8) {
    for (size_t i = 0; i < n; i++)
      for (size_t j = i + 1; j < n; j++)
        if (key_span_compare(&keys[i], &keys[j]) == 0) return true;
    return false;
  }
  qsort(keys, n, sizeof *keys, key_span_compare);
  for (size_t i = 1; i < n; i++)
    if (key_span_compare(&keys[i - 1], &keys[i]) == 0) return true;
  return false;
}

static bool push_key(parser *p, size_t start, size_t end, bool escaped) {
  if (p->key_count == p->key_cap) {
    if (p->key_cap > SIZE_MAX / 2 / sizeof(key_span)) return false;
    size_t cap = p->key_cap * 2;
    key_span *grown;
    if (p->keys == p->inline_keys) {
      grown = malloc(cap * sizeof *grown);
      if (grown) memcpy(grown, p->inline_keys, p->key_count * sizeof *grown);
    } else {
      grown = realloc(p->keys, cap * sizeof *grown);
    }
    if (!grown) return false;
    p->keys = grown;
    p->key_cap = cap;
  }
  p->keys[p->key_count++] = (key_span){p->t, start, end, escaped};
  return true;
}

/* Object member name at p->pos, then ':'; leaves p->pos at the value. */
static sdp_json_status scan_member_name(parser *p) {
  if (p->pos >= p->len || p->t[p->pos] != '"') return fail(p, SDP_JSON_ERR_SYNTAX, p->pos);
  size_t start = p->pos + 1;
  bool escaped;
  sdp_json_status s = scan_string(p, &escaped);
  if (s != SDP_JSON_OK) return s;
  if (!push_key(p, start, p->pos - 1, escaped)) return fail(p, SDP_JSON_ERR_NOMEM, start);
  p->pos = skip_ws(p->t, p->pos, p->len);
  if (p->pos >= p->len || p->t[p->pos] != ':') return fail(p, SDP_JSON_ERR_SYNTAX, p->pos);
  p->pos = skip_ws(p->t, p->pos + 1, p->len);
  return SDP_JSON_OK;
}

static sdp_json_status open_container(parser *p, uint8_t kind) {
  if (p->depth >= SDP_JSON_MAX_DEPTH) return fail(p, SDP_JSON_ERR_DEPTH, p->pos);
  p->stack[p->depth] = kind;
  p->key_base[p->depth] = p->key_count;
  p->depth++;
  p->pos = skip_ws(p->t, p->pos + 1, p->len);
  return SDP_JSON_OK;
}

static sdp_json_status close_container(parser *p) {
  p->depth--;
  if (p->stack[p->depth] == '{') {
    size_t base = p->key_base[p->depth];
    if (has_duplicate_keys(p->keys + base, p->key_count - base)) return fail(p, SDP_JSON_ERR_DUPLICATE_KEY, p->pos);
    p->key_count = base;
  }
  p->pos++;
  return SDP_JSON_OK;
}

/* The whole document; on success p->error_at holds the end of the top-level value. */
static sdp_json_status parse_document(parser *p) {
  sdp_json_status s;
  const uint8_t *t = p->t;
  for (;;) {
    /* A value starts at p->pos. */
    if (p->pos >= p->len) return fail(p, SDP_JSON_ERR_SYNTAX, p->pos);
    switch (t[p->pos]) {
      case '{':
        if ((s = open_container(p, '{')) != SDP_JSON_OK) return s;
        if (p->pos < p->len && t[p->pos] == '}') {
          if ((s = close_container(p)) != SDP_JSON_OK) return s;
          break;
        }
        if ((s = scan_member_name(p)) != SDP_JSON_OK) return s;
        continue;
      case '[':
        if ((s = open_container(p, '[')) != SDP_JSON_OK) return s;
        if (p->pos < p->len && t[p->pos] == ']') {
          if ((s = close_container(p)) != SDP_JSON_OK) return s;
          break;
        }
        continue;
      case '"': {
        bool escaped;
        if ((s = scan_string(p, &escaped)) != SDP_JSON_OK) return s;
        break;
      }
      case 't':
        if ((s = scan_literal(p, "true")) != SDP_JSON_OK) return s;
        break;
      case 'f':
        if ((s = scan_literal(p, "false")) != SDP_JSON_OK) return s;
        break;
      case 'n':
        if ((s = scan_literal(p, "null")) != SDP_JSON_OK) return s;
        break;
      default:
        if (t[p->pos] != '-' && !is_digit(t[p->pos])) return fail(p, SDP_JSON_ERR_SYNTAX, p->pos);
        if ((s = scan_number(p)) != SDP_JSON_OK) return s;
        break;
    }
    /* A value ended at p->pos: close containers or move to the next element. */
    for (;;) {
      size_t value_end = p->pos;
      p->pos = skip_ws(t, p->pos, p->len);
      if (p->depth == 0) {
        if (p->pos != p->len) return fail(p, SDP_JSON_ERR_TRAILING, p->pos);
        p->error_at = value_end;
        return SDP_JSON_OK;
      }
      if (p->pos >= p->len) return fail(p, SDP_JSON_ERR_SYNTAX, p->pos);
      uint8_t c = t[p->pos], kind = p->stack[p->depth - 1];
      if (c == ',') {
        p->pos = skip_ws(t, p->pos + 1, p->len);
        if (kind == '{' && (s = scan_member_name(p)) != SDP_JSON_OK) return s;
        break; /* next value */
      }
      if ((c == '}' && kind == '{') || (c == ']' && kind == '[')) {
        if ((s = close_container(p)) != SDP_JSON_OK) return s;
        continue;
      }
      return fail(p, SDP_JSON_ERR_SYNTAX, p->pos);
    }
  }
}

static sdp_json_type type_at(const uint8_t *t, size_t pos, size_t end) {
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
      return (t[pos] == '-' || is_digit(t[pos])) ? SDP_JSON_NUMBER : SDP_JSON_INVALID;
  }
}

sdp_json_status sdp_json_parse(const uint8_t *text, size_t len, sdp_json *root, size_t *error_offset) {
  if (root) *root = (sdp_json){0};
  if (error_offset) *error_offset = 0;
  if (text == NULL || len == 0) return SDP_JSON_ERR_EMPTY;
  parser *p = malloc(sizeof *p); /* ~1.7 KiB: keep it off small thread stacks */
  if (!p) return SDP_JSON_ERR_NOMEM;
  p->t = text;
  p->len = len;
  p->depth = 0;
  p->error_at = 0;
  p->keys = p->inline_keys;
  p->key_count = 0;
  p->key_cap = INLINE_KEYS;
  p->pos = skip_ws(text, 0, len);
  size_t start = p->pos;
  sdp_json_status status = start >= len ? SDP_JSON_ERR_EMPTY : parse_document(p);
  if (status == SDP_JSON_OK) {
    if (root) *root = (sdp_json){text, start, p->error_at, type_at(text, start, len)};
  } else if (error_offset) {
    *error_offset = status == SDP_JSON_ERR_EMPTY ? len : p->error_at;
  }
  if (p->keys != p->inline_keys) free(p->keys);
  free(p);
  return status;
}

/* ---------------------------------------------------------------------- */
/* Accessors over a validated document                                     */
/* ---------------------------------------------------------------------- */

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
      while (pos < end && !is_ws(t[pos]) && t[pos] != ',' && t[pos] != ']' && t[pos] != '}' && t[pos] != ':') pos++;
      return pos;
    } else {
      pos++;
    }
  }
  return end;
}

static sdp_json make_value(const uint8_t *t, size_t pos, size_t end) {
  sdp_json v = {t, pos, pos, type_at(t, pos, end)};
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
  it->pos = skip_ws(it->text, it->pos, it->end);
  if (it->pos >= it->end) return false;
  if (!it->first) {
    if (it->text[it->pos] != ',') {
      it->pos = it->end;
      return false;
    }
    it->pos = skip_ws(it->text, it->pos + 1, it->end);
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
  size_t pos = skip_ws(it->text, k.end, it->end);
  if (pos >= it->end || it->text[pos] != ':') {
    it->pos = it->end;
    return false;
  }
  pos = skip_ws(it->text, pos + 1, it->end);
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
  return compare_decoded(string->text, start, end, plain, (const uint8_t *)literal, 0, n, true) == 0;
}

bool sdp_json_strings_equal(const sdp_json *a, const sdp_json *b) {
  size_t sa, ea, sb, eb;
  if (!string_contents(a, &sa, &ea) || !string_contents(b, &sb, &eb)) return false;
  bool plain_a = memchr(a->text + sa, '\\', ea - sa) == NULL;
  bool plain_b = memchr(b->text + sb, '\\', eb - sb) == NULL;
  return compare_decoded(a->text, sa, ea, plain_a, b->text, sb, eb, plain_b) == 0;
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
  byte_cursor c;
  cursor_init(&c, string->text, start, end, false);
  int32_t cp;
  while ((cp = cursor_next_codepoint(&c)) >= 0)
    if (!sdp_is_unicode_space((uint32_t)cp)) return false;
  return true;
}

size_t sdp_json_string_decode(const sdp_json *string, char *buffer, size_t cap) {
  size_t start, end, n = 0;
  if (buffer && cap) buffer[0] = '\0';
  if (!buffer || cap == 0 || !string_contents(string, &start, &end)) return SIZE_MAX;
  byte_cursor c;
  cursor_init(&c, string->text, start, end, false);
  int b;
  while ((b = cursor_next_byte(&c)) >= 0) {
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
  size_t len = utf8_sequence(t, *pos, n, &cp);
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
  while (pos < end && is_digit(t[pos])) {
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
    while (pos < end && is_digit(t[pos])) {
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
    while (pos < end && is_digit(t[pos])) {
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
    if (!is_digit(t[pos])) return false; /* fraction or exponent */
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
