/*
 * libFuzzer targets (built by fuzz/run.sh with -fsanitize=fuzzer,address,undefined).
 *
 *   -DFUZZ_JSON_READER  the JSON reader alone: parse, then walk every value
 *                       through every accessor and check invariants.
 *   -DFUZZ_INVOKE       one provider (link its sources) through the flat ABI:
 *                       an input starting with {"schema_version" is sent as the
 *                       whole request; anything else becomes the payload of a
 *                       valid envelope, so the domain rules see arbitrary
 *                       JSON. Responses must be valid JSON with the right shape.
 *
 * libFuzzer hands over an exact-size heap copy, so any read past len trips
 * AddressSanitizer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service_provider_sdk.h"

#define INVARIANT(condition)                                                                                     \
  do {                                                                                                           \
    if (!(condition)) abort();                                                                                   \
  } while (0)

static void walk(const sdp_json *v, int depth);

/* Every key must be found again by lookup, and found at that very value (keys are unique). */
static void walk_object(const sdp_json *object, int depth) {
  sdp_json_iter it;
  sdp_json key, value, found;
  char decoded[256];
  INVARIANT(sdp_json_object_iter_init(object, &it));
  while (sdp_json_object_next(&it, &key, &value)) {
    INVARIANT(key.type == SDP_JSON_STRING);
    size_t n = sdp_json_string_decode(&key, decoded, sizeof decoded);
    if (n != SIZE_MAX && strlen(decoded) == n) {
      INVARIANT(sdp_json_object_get(object, decoded, &found));
      INVARIANT(found.start == value.start && found.end == value.end);
    }
    walk(&value, depth + 1);
  }
}

static void walk_string(const sdp_json *v) {
  size_t n;
  char *copy = sdp_json_string_dup(v, &n);
  INVARIANT(copy != NULL);
  INVARIANT(n <= v->end - v->start - 2); /* decoding never lengthens */
  INVARIANT(sdp_json_strings_equal(v, v));
  if (strlen(copy) == n) INVARIANT(sdp_json_string_equals(v, copy));
  size_t trimmed;
  size_t at = sdp_utf8_trim(copy, n, &trimmed);
  INVARIANT(at + trimmed <= n);
  INVARIANT((trimmed == 0) == sdp_json_string_is_blank(v));
  sdp_timestamp ts;
  (void)sdp_parse_rfc3339(v, &ts);
  (void)sdp_is_country_code(v);
  free(copy);
}

static void walk(const sdp_json *v, int depth) {
  INVARIANT(depth <= SDP_JSON_MAX_DEPTH);
  INVARIANT(v->start < v->end);
  double d;
  int64_t i;
  sdp_json_iter it;
  sdp_json item;
  switch (v->type) {
    case SDP_JSON_OBJECT:
      walk_object(v, depth);
      break;
    case SDP_JSON_ARRAY: {
      size_t count = 0;
      INVARIANT(sdp_json_array_iter_init(v, &it));
      while (sdp_json_array_next(&it, &item)) {
        walk(&item, depth + 1);
        count++;
      }
      INVARIANT(count == sdp_json_array_length(v));
      break;
    }
    case SDP_JSON_STRING:
      walk_string(v);
      break;
    case SDP_JSON_NUMBER:
      (void)sdp_json_number_double(v, &d);
      if (sdp_json_number_int64(v, &i) && i > -(INT64_C(1) << 53) && i < (INT64_C(1) << 53)) {
        INVARIANT(sdp_json_number_double(v, &d) && d == (double)i);
      }
      break;
    case SDP_JSON_NULL:
    case SDP_JSON_TRUE:
    case SDP_JSON_FALSE:
      break;
    default:
      abort();
  }
}

#if defined(FUZZ_JSON_READER)

/* The SDK's rule helpers reference a provider definition; this target never invokes it. */
static int no_validate(sdp_validation *v, const sdp_json *payload) {
  (void)v;
  (void)payload;
  return SDP_VALIDATE_OK;
}
const sdp_provider_def sdp_provider_definition = {
    .domain = "fuzz", .provider_id = "fuzz", .code_prefix = "FUZZ", .validate = no_validate, SDP_STANDARD_PROVIDER,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sdp_json root;
  size_t offset;
  sdp_json_status status = sdp_json_parse(data, size, &root, &offset);
  if (status != SDP_JSON_OK) {
    INVARIANT(offset <= size);
    return 0;
  }
  INVARIANT(root.end <= size);
  walk(&root, 1);
  /* The writer copies a validated value verbatim, and the copy parses to the same shape. */
  sdp_writer w;
  sdp_writer_init(&w, size + 1);
  sdp_writer_json_value(&w, &root);
  INVARIANT(sdp_writer_ok(&w) && w.len == root.end - root.start);
  sdp_json again;
  INVARIANT(sdp_json_parse(w.data, w.len, &again, NULL) == SDP_JSON_OK && again.type == root.type);
  sdp_writer_dispose(&w);
  return 0;
}

#elif defined(FUZZ_INVOKE)

#include "service_domain_provider_v1.h"

static void check_response(const service_domain_provider_buffer_v1 *out, const char *request_id) {
  sdp_json root, value, issues, issue;
  sdp_json_iter it;
  INVARIANT(out->ptr != NULL && out->len > 0 && out->len <= sdp_provider_definition.max_response_bytes);
  INVARIANT(sdp_json_parse(out->ptr, out->len, &root, NULL) == SDP_JSON_OK);
  INVARIANT(sdp_json_object_get(&root, "schema_version", &value) && sdp_json_string_equals(&value, "1"));
  INVARIANT(sdp_json_object_get(&root, "request_id", &value) && value.type == SDP_JSON_STRING);
  if (request_id) INVARIANT(sdp_json_string_equals(&value, request_id));
  INVARIANT(sdp_json_object_get(&root, "status", &value));
  bool rejected = sdp_json_string_equals(&value, "rejected");
  INVARIANT(rejected || sdp_json_string_equals(&value, "accepted"));
  INVARIANT(sdp_json_object_get(&root, "issues", &issues) && sdp_json_array_iter_init(&issues, &it));
  bool any_error = false;
  while (sdp_json_array_next(&it, &issue)) {
    INVARIANT(sdp_json_object_get(&issue, "severity", &value));
    any_error |= sdp_json_string_equals(&value, "error");
    INVARIANT(sdp_json_object_get(&issue, "code", &value) && value.type == SDP_JSON_STRING);
  }
  INVARIANT(any_error == rejected);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char config[] = "{\"schema_version\":\"1\",\"domain\":\"%s\"}";
  static const char prefix[] = "{\"schema_version\"";
  static const char head[] = "{\"schema_version\":\"1\",\"request_id\":\"fuzz\",\"domain\":\"%s\","
                             "\"operation\":\"node.validate\",\"workspace_id\":null,\"snapshot_id\":null,"
                             "\"payload\":";
  char text[256];
  int n = snprintf(text, sizeof text, config, sdp_provider_definition.domain);
  void *handle = service_domain_provider_v1_create((const uint8_t *)text, (size_t)n);
  INVARIANT(handle != NULL);

  uint8_t *request;
  size_t request_len;
  bool raw = size >= sizeof prefix - 1 && memcmp(data, prefix, sizeof prefix - 1) == 0;
  if (raw) {
    request = malloc(size ? size : 1);
    if (size) memcpy(request, data, size);
    request_len = size;
  } else {
    int h = snprintf(text, sizeof text, head, sdp_provider_definition.domain);
    request_len = (size_t)h + size + 1;
    request = malloc(request_len);
    memcpy(request, text, (size_t)h);
    if (size) memcpy(request + h, data, size);
    request[request_len - 1] = '}';
  }
  service_domain_provider_buffer_v1 out = {0};
  int32_t status = service_domain_provider_v1_invoke(handle, request, request_len, &out);
  INVARIANT(status >= 0 && status <= 5 && status != 1);
  if (status == 0) {
    check_response(&out, raw ? NULL : "fuzz");
  } else {
    INVARIANT(out.ptr == NULL && out.len == 0);
  }
  uint8_t first[8];
  (void)service_domain_provider_v1_buffer_copy(&out, first, sizeof first);
  service_domain_provider_v1_free_buffer(&out);
  INVARIANT(out.ptr == NULL && out.len == 0);
  free(request);
  service_domain_provider_v1_destroy(handle);
  return 0;
}

#else
#error "define FUZZ_JSON_READER or FUZZ_INVOKE"
#endif
