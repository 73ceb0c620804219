/*
 * Bounded, validating JSON reader (RFC 8259): the validation pass. The
 * accessors over a validated document are in json_access.c.
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
 */
#include <stdlib.h>
#include <string.h>

#include "json_text.h"

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
          if (!sdp_text_read_hex4(t, pos + 2, end, &unit)) return fail(p, SDP_JSON_ERR_ESCAPE, pos);
          if (unit >= 0xDC00 && unit <= 0xDFFF) return fail(p, SDP_JSON_ERR_ESCAPE, pos);
          if (unit >= 0xD800 && unit <= 0xDBFF) {
            uint32_t low;
            if (end - pos < 12 || t[pos + 6] != '\\' || t[pos + 7] != 'u' || !sdp_text_read_hex4(t, pos + 8, end, &low) ||
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
    size_t n = sdp_text_utf8_sequence(t, pos, end, NULL);
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
    while (pos < end && sdp_text_is_digit(t[pos])) pos++;
  } else {
    return fail(p, SDP_JSON_ERR_SYNTAX, pos);
  }
  if (pos < end && t[pos] == '.') {
    pos++;
    if (pos >= end || !sdp_text_is_digit(t[pos])) return fail(p, SDP_JSON_ERR_SYNTAX, pos);
    while (pos < end && sdp_text_is_digit(t[pos])) pos++;
  }
  if (pos < end && (t[pos] == 'e' || t[pos] == 'E')) {
    pos++;
    if (pos < end && (t[pos] == '+' || t[pos] == '-')) pos++;
    if (pos >= end || !sdp_text_is_digit(t[pos])) return fail(p, SDP_JSON_ERR_SYNTAX, pos);
    while (pos < end && sdp_text_is_digit(t[pos])) pos++;
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

static int key_span_compare(const void *left, const void *right) {
  const key_span *a = left, *b = right;
  return sdp_text_compare_decoded(a->text, a->start, a->end, !a->escaped, b->text, b->start, b->end, !b->escaped);
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
  p->pos = sdp_text_skip_ws(p->t, p->pos, p->len);
  if (p->pos >= p->len || p->t[p->pos] != ':') return fail(p, SDP_JSON_ERR_SYNTAX, p->pos);
  p->pos = sdp_text_skip_ws(p->t, p->pos + 1, p->len);
  return SDP_JSON_OK;
}

static sdp_json_status open_container(parser *p, uint8_t kind) {
  if (p->depth >= SDP_JSON_MAX_DEPTH) return fail(p, SDP_JSON_ERR_DEPTH, p->pos);
  p->stack[p->depth] = kind;
  p->key_base[p->depth] = p->key_count;
  p->depth++;
  p->pos = sdp_text_skip_ws(p->t, p->pos + 1, p->len);
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
        if (t[p->pos] != '-' && !sdp_text_is_digit(t[p->pos])) return fail(p, SDP_JSON_ERR_SYNTAX, p->pos);
        if ((s = scan_number(p)) != SDP_JSON_OK) return s;
        break;
    }
    /* A value ended at p->pos: close containers or move to the next element. */
    for (;;) {
      size_t value_end = p->pos;
      p->pos = sdp_text_skip_ws(t, p->pos, p->len);
      if (p->depth == 0) {
        if (p->pos != p->len) return fail(p, SDP_JSON_ERR_TRAILING, p->pos);
        p->error_at = value_end;
        return SDP_JSON_OK;
      }
      if (p->pos >= p->len) return fail(p, SDP_JSON_ERR_SYNTAX, p->pos);
      uint8_t c = t[p->pos], kind = p->stack[p->depth - 1];
      if (c == ',') {
        p->pos = sdp_text_skip_ws(t, p->pos + 1, p->len);
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
  p->pos = sdp_text_skip_ws(text, 0, len);
  size_t start = p->pos;
  sdp_json_status status = start >= len ? SDP_JSON_ERR_EMPTY : parse_document(p);
  if (status == SDP_JSON_OK) {
    if (root) *root = (sdp_json){text, start, p->error_at, sdp_text_type_at(text, start, len)};
  } else if (error_offset) {
    *error_offset = status == SDP_JSON_ERR_EMPTY ? len : p->error_at;
  }
  if (p->keys != p->inline_keys) free(p->keys);
  free(p);
  return status;
}

