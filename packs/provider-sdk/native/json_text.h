/*
 * Byte-level JSON text primitives shared by the validating reader
 * (json_reader.c) and the accessors (json_access.c): character classes,
 * RFC 3629 UTF-8 sequences, escape decoding and decoded comparison. Internal
 * to the SDK (hidden like everything but the ABI exports).
 */
#ifndef SDP_JSON_TEXT_H
#define SDP_JSON_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "service_provider_sdk.h"

bool sdp_text_is_ws(uint8_t c);
bool sdp_text_is_digit(uint8_t c);
size_t sdp_text_skip_ws(const uint8_t *t, size_t pos, size_t end);

/* Reads 4 hex digits at t[pos..pos+4) if they are all inside [.., end). */
bool sdp_text_read_hex4(const uint8_t *t, size_t pos, size_t end, uint32_t *out);

/*
 * Length of the well-formed UTF-8 sequence starting at t[pos] (lead byte >=
 * 0x80), or 0 if it is malformed or truncated by end; *cp (if non-NULL)
 * receives the code point.
 */
size_t sdp_text_utf8_sequence(const uint8_t *t, size_t pos, size_t end, uint32_t *cp);

/* Walks string contents [start, end) as decoded code points or decoded UTF-8 bytes. */
typedef struct sdp_text_cursor {
  const uint8_t *t;
  size_t pos;
  size_t end;
  bool plain; /* bytes are literal (a C string, or JSON text without a backslash): no escape decoding */
  uint8_t pending[4];
  uint8_t pending_len;
  uint8_t pending_at;
} sdp_text_cursor;

void sdp_text_cursor_init(sdp_text_cursor *c, const uint8_t *t, size_t start, size_t end, bool plain);
/* Next decoded code point, or -1 at the end. */
int32_t sdp_text_cursor_next_codepoint(sdp_text_cursor *c);
/* Next decoded UTF-8 byte, or -1 at the end. */
int sdp_text_cursor_next_byte(sdp_text_cursor *c);

/*
 * Compares two byte ranges by decoded value. A range is either JSON string
 * contents (escapes decoded) or plain bytes; JSON contents without a
 * backslash are plain too, which gives the memcmp fast path.
 */
int sdp_text_compare_decoded(const uint8_t *ta, size_t sa, size_t ea, bool plain_a, const uint8_t *tb, size_t sb,
                             size_t eb, bool plain_b);

/* Type of the value starting at t[pos] (by its first byte). */
sdp_json_type sdp_text_type_at(const uint8_t *t, size_t pos, size_t end);

#endif
