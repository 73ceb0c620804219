/*
 * Provider SDK: everything a domain provider shares with the others.
 *
 *   - sdp_json_*       a bounded, validating, allocation-light JSON reader
 *   - sdp_writer_*     a bounded JSON text writer (used for responses)
 *   - sdp_provider_def what a provider supplies: identity, limits, validate()
 *   - sdp_issue*       how validate() reports findings
 *   - rule helpers     timestamps, confidence, geo, vocabularies, relationships
 *
 * The ABI plumbing (function table, flat exports, envelope parsing, response
 * and metadata writing, buffer ownership) lives in provider_abi.c; a provider
 * only defines `const sdp_provider_def sdp_provider_definition`.
 *
 * Nothing here is exported from the shared library: the build compiles with
 * -fvisibility=hidden and only the ABI symbols carry default visibility.
 */
#ifndef SERVICE_PROVIDER_SDK_H
#define SERVICE_PROVIDER_SDK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "service_domain_provider_v1.h"

/* ===================================================================== */
/* JSON reader                                                            */
/* ===================================================================== */

/* Nesting deeper than this (arrays + objects) is refused. */
#define SDP_JSON_MAX_DEPTH 64

typedef enum sdp_json_type {
  SDP_JSON_INVALID = 0,
  SDP_JSON_NULL,
  SDP_JSON_FALSE,
  SDP_JSON_TRUE,
  SDP_JSON_NUMBER,
  SDP_JSON_STRING,
  SDP_JSON_ARRAY,
  SDP_JSON_OBJECT
} sdp_json_type;

typedef enum sdp_json_status {
  SDP_JSON_OK = 0,
  SDP_JSON_ERR_EMPTY,         /* no value at all */
  SDP_JSON_ERR_SYNTAX,        /* grammar violation */
  SDP_JSON_ERR_DEPTH,         /* nesting above SDP_JSON_MAX_DEPTH */
  SDP_JSON_ERR_UTF8,          /* malformed UTF-8 (overlong, surrogate, > U+10FFFF, truncated) */
  SDP_JSON_ERR_ESCAPE,        /* bad escape, bad \u, unpaired surrogate escape */
  SDP_JSON_ERR_CONTROL,       /* raw control character inside a string */
  SDP_JSON_ERR_TRAILING,      /* non-whitespace after the top-level value */
  SDP_JSON_ERR_DUPLICATE_KEY, /* the same (decoded) key twice in one object */
  SDP_JSON_ERR_NOMEM          /* allocation failed while checking keys */
} sdp_json_status;

/*
 * A view of one value inside a validated document: bytes [start, end) of
 * text. Values are only produced by sdp_json_parse and the accessors below,
 * so their bytes are known to be well-formed; every accessor still bounds
 * itself by `end` and never reads outside [start, end).
 */
typedef struct sdp_json {
  const uint8_t *text;
  size_t start;
  size_t end;
  sdp_json_type type;
} sdp_json;

/* Iterator over the members of an object or the items of an array. */
typedef struct sdp_json_iter {
  const uint8_t *text;
  size_t pos;
  size_t end;
  bool first;
} sdp_json_iter;

/*
 * Validates text[0, len) as exactly one JSON value (RFC 8259) surrounded by
 * optional whitespace, and on success sets *root. Checks: grammar, depth,
 * UTF-8, escapes (\uXXXX incl. surrogate pairs), raw control characters,
 * trailing bytes, and duplicate keys in every object (compared after
 * unescaping). Does not need NUL termination. Never reads past len. Iterative;
 * uses O(depth) stack and a key table proportional to the number of keys of
 * the currently open objects. On failure *error_offset (if non-NULL) is the
 * byte offset where the problem was detected.
 */
sdp_json_status sdp_json_parse(const uint8_t *text, size_t len, sdp_json *root, size_t *error_offset);

/* Object/array iteration. *_iter_init returns false if the value has the wrong type. */
bool sdp_json_object_iter_init(const sdp_json *object, sdp_json_iter *it);
bool sdp_json_object_next(sdp_json_iter *it, sdp_json *key, sdp_json *value);
bool sdp_json_array_iter_init(const sdp_json *array, sdp_json_iter *it);
bool sdp_json_array_next(sdp_json_iter *it, sdp_json *item);

/* Member lookup by (decoded) key. Returns false if object is not an object or the key is absent. */
bool sdp_json_object_get(const sdp_json *object, const char *key, sdp_json *out);
size_t sdp_json_array_length(const sdp_json *array);

/* Strings: all comparisons are on the decoded value. */
bool sdp_json_string_equals(const sdp_json *string, const char *literal);
bool sdp_json_strings_equal(const sdp_json *a, const sdp_json *b);
/* True for a string that is empty or only Unicode White_Space; false for a non-string. */
bool sdp_json_string_is_blank(const sdp_json *string);
/*
 * Decodes into buffer (capacity cap, always NUL-terminated when cap > 0).
 * Returns the decoded byte length, or SIZE_MAX if the value is not a string or
 * does not fit (cap must exceed the decoded length). Embedded U+0000 is
 * decoded as a 0 byte; callers comparing as C strings must use the length.
 */
size_t sdp_json_string_decode(const sdp_json *string, char *buffer, size_t cap);

/* Decodes a string value into a new NUL-terminated heap buffer (free with free()); *len receives the
 * decoded length. NULL if the value is not a string or allocation fails. */
char *sdp_json_string_dup(const sdp_json *string, size_t *len);

/* Unicode White_Space, as Rust's str::trim uses it. */
bool sdp_is_unicode_space(uint32_t codepoint);
/* Trims White_Space from both ends of UTF-8 text s[0, n): returns the offset of the first kept byte and
 * sets *trimmed_len. Malformed UTF-8 bytes are never treated as space. */
size_t sdp_utf8_trim(const char *s, size_t n, size_t *trimmed_len);
/* True if UTF-8 text s[0, n) contains a White_Space character. */
bool sdp_utf8_contains_space(const char *s, size_t n);

/* Numbers. double: false if not a number. int64: only for integer syntax (no fraction or exponent) in range. */
bool sdp_json_number_double(const sdp_json *number, double *out);
bool sdp_json_number_int64(const sdp_json *number, int64_t *out);

static inline bool sdp_json_is(const sdp_json *v, sdp_json_type type) { return v != NULL && v->type == type; }
static inline bool sdp_json_is_true(const sdp_json *v) { return sdp_json_is(v, SDP_JSON_TRUE); }

/* ===================================================================== */
/* JSON writer                                                            */
/* ===================================================================== */

/* Appends to a heap buffer that never grows beyond `max` bytes. */
typedef struct sdp_writer {
  uint8_t *data;
  size_t len;
  size_t cap;
  size_t max;
  bool overflow; /* an append would have exceeded max */
  bool nomem;    /* an allocation failed */
} sdp_writer;

void sdp_writer_init(sdp_writer *w, size_t max);
void sdp_writer_dispose(sdp_writer *w);
bool sdp_writer_ok(const sdp_writer *w);
void sdp_writer_bytes(sdp_writer *w, const void *bytes, size_t n);
void sdp_writer_cstr(sdp_writer *w, const char *s);
void sdp_writer_uint(sdp_writer *w, uint64_t value);
/* Writes s (UTF-8) as a JSON string literal, escaping quotes, backslashes and control characters. */
void sdp_writer_json_string(sdp_writer *w, const char *s);
/* Writes a string value or null. */
void sdp_writer_json_string_or_null(sdp_writer *w, const char *s);
/* Copies the bytes of an already validated JSON value verbatim (it is valid JSON by construction). */
void sdp_writer_json_value(sdp_writer *w, const sdp_json *value);

/* ===================================================================== */
/* Provider definition and issues                                         */
/* ===================================================================== */

typedef enum sdp_severity { SDP_ERROR = 0, SDP_WARNING = 1 } sdp_severity;

typedef struct sdp_validation sdp_validation;

/* Return values of validate(). */
#define SDP_VALIDATE_OK 0
#define SDP_VALIDATE_FAILED 1 /* the provider could not validate: invoke returns PROVIDER_ERROR */

typedef struct sdp_provider_def {
  const char *domain;           /* "cti", ... */
  const char *provider_id;      /* "service.domain.cti" */
  const char *provider_version; /* "0.3.1" */
  const char *code_prefix;      /* "CTI": prefix of the codes emitted by the shared rule helpers */
  size_t max_request_bytes;
  size_t max_response_bytes;
  /* Issues carry node_id = payload "id" (a string) when true, null when false. */
  bool node_id_from_payload;
  /* Emit diagnostics {"record_kind":...} when the validator set one; null otherwise. */
  bool diagnostics;
  /* Declare and serve node.validate/1 (false only for a test provider). */
  bool declares_node_validate;
  /* Health status reported (NULL means "ready"). */
  const char *health_status;
  int (*validate)(sdp_validation *v, const sdp_json *payload);
} sdp_provider_def;

#define SDP_PROVIDER_VERSION "0.3.1"
#define SDP_DEFAULT_LIMIT_BYTES ((size_t)1048576)

/* The identity fields every production provider shares; use inside a designated initializer. */
#define SDP_STANDARD_PROVIDER                                                                                    \
  .provider_version = SDP_PROVIDER_VERSION, .max_request_bytes = SDP_DEFAULT_LIMIT_BYTES,                     \
  .max_response_bytes = SDP_DEFAULT_LIMIT_BYTES, .declares_node_validate = true, .health_status = NULL

/* Each provider library defines exactly one of these. */
extern const sdp_provider_def sdp_provider_definition;

/* Records an issue. code, field and message are UTF-8 C strings; field may be NULL (JSON null). */
void sdp_issue(sdp_validation *v, sdp_severity severity, const char *code, const char *field, const char *message);
/* As sdp_issue with code = "<code_prefix>_<suffix>". */
void sdp_issue_prefixed(sdp_validation *v, sdp_severity severity, const char *suffix, const char *field,
                        const char *message);
/* Tells diagnostics how the payload was read ("node", "relationship", "summary"); static string. */
void sdp_set_record_kind(sdp_validation *v, const char *record_kind);
size_t sdp_issue_count(const sdp_validation *v);

/* ===================================================================== */
/* Rule helpers                                                           */
/* ===================================================================== */

/* Number of string items in obj[key] (0 if absent or not an array). */
size_t sdp_count_string_items(const sdp_json *obj, const char *key);
/* Number of non-blank string items in obj[key]. */
size_t sdp_count_nonblank_string_items(const sdp_json *obj, const char *key);
/* obj[key] is a string that is not blank. */
bool sdp_has_nonblank_string(const sdp_json *obj, const char *key);
/* obj[key] is present (any type, null included). */
bool sdp_has_key(const sdp_json *obj, const char *key);
/* First string item of obj[key]; skips non-string items. False if there is none. */
bool sdp_first_string_item(const sdp_json *obj, const char *key, sdp_json *item);
/* sdp_first_string_item(obj, "labels", label): the record's type. */
bool sdp_first_label(const sdp_json *obj, sdp_json *label);
/* obj[key] is a number (else false); *value receives it. */
bool sdp_get_number(const sdp_json *obj, const char *key, double *value);
/* Index of the decoded string in names[0..count), or -1. */
int sdp_string_index(const sdp_json *string, const char *const *names, size_t count);
/* True if the string's decoded value is one of names. */
bool sdp_string_in(const sdp_json *string, const char *const *names, size_t count);

/* RFC 3339 date-time ("2024-05-01T12:00:00Z", "...T12:00:00.25+02:00"; 'T'/'Z' any case). */
typedef struct sdp_timestamp {
  int64_t seconds; /* since 1970-01-01T00:00:00Z */
  int32_t nanos;   /* 0..999999999 (fraction truncated to 9 digits) */
} sdp_timestamp;
bool sdp_parse_rfc3339(const sdp_json *string, sdp_timestamp *out);
int sdp_timestamp_compare(const sdp_timestamp *a, const sdp_timestamp *b);

typedef enum sdp_field_state { SDP_FIELD_ABSENT = 0, SDP_FIELD_INVALID, SDP_FIELD_VALID } sdp_field_state;

typedef struct sdp_time_field {
  sdp_field_state state;
  sdp_timestamp value; /* meaningful when state is VALID */
} sdp_time_field;

/*
 * Reads obj[key] as an RFC 3339 timestamp. Absent or null -> ABSENT, and when
 * required_suffix is non-NULL the issue <prefix>_<required_suffix>; present
 * but not a valid timestamp -> INVALID and <prefix>_TIMESTAMP_INVALID; both on
 * field `key`.
 */
sdp_time_field sdp_read_timestamp(sdp_validation *v, const sdp_json *obj, const char *key,
                                  const char *required_suffix);

/*
 * When both are VALID: later must be after earlier (or equal, if
 * allow_equal); otherwise issue <prefix>_<suffix> on `field`.
 */
void sdp_require_order(sdp_validation *v, const sdp_time_field *earlier, const sdp_time_field *later,
                       bool allow_equal, const char *field, const char *suffix, const char *message);

/*
 * The STIX-style sighting window: first_seen and last_seen read as timestamps
 * (optional), last_seen not earlier than first_seen, else
 * <prefix>_LAST_SEEN_BEFORE_FIRST_SEEN on last_seen.
 */
void sdp_require_seen_window(sdp_validation *v, const sdp_json *obj);

/*
 * obj["confidence"]: absent -> nothing; a number in [0, 1] -> ok;
 * anything else -> <prefix>_CONFIDENCE_INVALID. Returns true and sets *value
 * when present and valid; *is_null tells whether it was present as null.
 */
bool sdp_check_confidence(sdp_validation *v, const sdp_json *obj, double *value, bool *is_null);

/* An assigned ISO 3166-1 alpha-2 code (uppercase), or XK (Kosovo, as UN OCHA uses it). */
bool sdp_is_country_code(const sdp_json *string);

/*
 * Coordinates: latitude in [-90, 90], longitude in [-180, 180], both or
 * neither (<prefix>_LOCATION_LATITUDE_INVALID, _LONGITUDE_INVALID,
 * _COORDINATES_INCOMPLETE). Returns true if a complete valid pair is present.
 */
bool sdp_check_coordinates(sdp_validation *v, const sdp_json *obj);

/*
 * A place: obj[country_key], when present, is an assigned ISO 3166-1 alpha-2
 * code (<prefix>_<country_suffix>); coordinates as sdp_check_coordinates; and
 * at least one of coordinates, country_key or a non-blank name_key
 * (<prefix>_LOCATION_REQUIRED, field null).
 */
void sdp_check_location(sdp_validation *v, const sdp_json *obj, const char *country_key, const char *country_suffix,
                        const char *name_key);

/* A node/relationship vocabulary with the endpoint rules of its relationships. */
#define SDP_BIT(index) (UINT32_C(1) << (index))
#define SDP_ANY_NODE UINT32_MAX

typedef struct sdp_relationship_rule {
  int relationship; /* index into relationships */
  uint32_t sources; /* bit set of allowed source node types */
  uint32_t targets; /* bit set of allowed target node types */
} sdp_relationship_rule;

typedef struct sdp_vocabulary {
  const char *const *nodes; /* at most 32 */
  size_t node_count;
  const char *const *relationships;
  size_t relationship_count;
  const sdp_relationship_rule *rules;
  size_t rule_count;
} sdp_vocabulary;

/* Validates one node type (index -1 means an unknown or missing type). */
typedef void (*sdp_node_rules_fn)(sdp_validation *v, const sdp_json *node);

typedef struct sdp_graph_rules {
  const sdp_vocabulary *vocabulary;
  /* Rules for every node and relationship record (confidence, evidence, ...). May be NULL. */
  sdp_node_rules_fn common;
  /* Per node type, indexed like vocabulary->nodes; entries may be NULL. */
  const sdp_node_rules_fn *node_rules;
} sdp_graph_rules;

/*
 * The common flow of the graph domains (cti, fimi, crisis):
 *   - a payload that is not an object -> <prefix>_PAYLOAD_INVALID;
 *   - an object with "relationship_type" is a relationship record: type in the
 *     vocabulary, "source_labels"/"target_labels" (first string item = endpoint
 *     type) known, and the (source, type, target) triple allowed by a rule;
 *     then the common rules;
 *   - otherwise a node: the first string of "labels" names its type
 *     (<prefix>_NODE_TYPE_REQUIRED / _NODE_TYPE_UNKNOWN), then the common
 *     rules, then the rules of its type.
 */
void sdp_validate_graph_record(sdp_validation *v, const sdp_json *payload, const sdp_graph_rules *rules);

#endif /* SERVICE_PROVIDER_SDK_H */
