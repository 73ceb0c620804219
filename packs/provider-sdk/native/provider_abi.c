/*
 * ABI v1 plumbing shared by every provider: the function table, the flat
 * exports, handles, the request envelope, the response/metadata/health JSON
 * and buffer ownership. A provider links this file and defines
 * `sdp_provider_definition`.
 *
 * The exported functions are thin wrappers over static implementations, and
 * nothing in the library calls an exported symbol, so a same-named symbol in
 * another loaded library can never be interposed on internal calls (the
 * build also links with -Bsymbolic).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service_provider_sdk.h"

#ifndef SDP_REPORTED_ABI_MAJOR
#define SDP_REPORTED_ABI_MAJOR SERVICE_DOMAIN_PROVIDER_ABI_MAJOR_V1 /* a test provider overrides it */
#endif

#define STATUS_OK SERVICE_DOMAIN_PROVIDER_STATUS_OK
#define STATUS_INVALID_ARGUMENT SERVICE_DOMAIN_PROVIDER_STATUS_INVALID_ARGUMENT
#define STATUS_INVALID_REQUEST SERVICE_DOMAIN_PROVIDER_STATUS_INVALID_REQUEST
#define STATUS_UNSUPPORTED_CAPABILITY SERVICE_DOMAIN_PROVIDER_STATUS_UNSUPPORTED_CAPABILITY
#define STATUS_PROVIDER_ERROR SERVICE_DOMAIN_PROVIDER_STATUS_PROVIDER_ERROR
#define STATUS_RESPONSE_TOO_LARGE SERVICE_DOMAIN_PROVIDER_STATUS_RESPONSE_TOO_LARGE

#define METADATA_MAX_BYTES (64u * 1024u)
#define HEALTH_MAX_BYTES (16u * 1024u)
#define CONFIG_MAX_BYTES (64u * 1024u)
#define HANDLE_MAGIC UINT64_C(0x5344505631484e44) /* "SDPV1HND" */

typedef service_domain_provider_buffer_v1 buffer_v1;
typedef service_domain_provider_slice_v1 slice_v1;

/* ---------------------------------------------------------------------- */
/* Handles                                                                 */
/* ---------------------------------------------------------------------- */

typedef struct provider_handle {
  uint64_t magic;
  const sdp_provider_def *def; /* identifies the library that made the handle */
  atomic_flag busy;            /* set while a call runs: overlapping calls are refused */
} provider_handle;

static provider_handle *handle_from(void *handle) {
  provider_handle *h = handle;
  if (!h || h->magic != HANDLE_MAGIC || h->def != &sdp_provider_definition) return NULL;
  return h;
}

/* ---------------------------------------------------------------------- */
/* Output buffers                                                          */
/* ---------------------------------------------------------------------- */

static bool out_is_zeroed(const buffer_v1 *out) { return out->ptr == NULL && out->len == 0; }

/* Moves a finished writer into *out; maps overflow/allocation failure to a status. */
static int32_t hand_over(sdp_writer *w, buffer_v1 *out) {
  if (w->overflow || w->nomem || w->len == 0) {
    int32_t status = w->overflow ? STATUS_RESPONSE_TOO_LARGE : STATUS_PROVIDER_ERROR;
    sdp_writer_dispose(w);
    return status;
  }
  out->ptr = w->data;
  out->len = w->len;
  w->data = NULL;
  return STATUS_OK;
}

static void release(buffer_v1 *buffer) {
  if (!buffer) return;
  free(buffer->ptr);
  buffer->ptr = NULL;
  buffer->len = 0;
}

static size_t copy_out(const buffer_v1 *buffer, uint8_t *destination, size_t destination_len) {
  if (!buffer || !buffer->ptr || !destination) return 0;
  size_t n = buffer->len < destination_len ? buffer->len : destination_len;
  memcpy(destination, buffer->ptr, n);
  return n;
}

/* ---------------------------------------------------------------------- */
/* Metadata, create, health                                                */
/* ---------------------------------------------------------------------- */

static int32_t metadata_impl(const uint8_t *host_context, size_t host_context_len, buffer_v1 *out) {
  if (!out || (!host_context && host_context_len > 0)) return STATUS_INVALID_ARGUMENT;
  if (!out_is_zeroed(out)) return STATUS_INVALID_ARGUMENT;
  const sdp_provider_def *def = &sdp_provider_definition;
  sdp_writer w;
  sdp_writer_init(&w, METADATA_MAX_BYTES);
  sdp_writer_cstr(&w, "{\"schema_version\":\"1\",\"provider_id\":");
  sdp_writer_json_string(&w, def->provider_id);
  sdp_writer_cstr(&w, ",\"provider_version\":");
  sdp_writer_json_string(&w, def->provider_version);
  sdp_writer_cstr(&w, ",\"domain\":");
  sdp_writer_json_string(&w, def->domain);
  sdp_writer_cstr(&w, ",\"thread_safe\":false,\"max_concurrency\":1,\"max_request_bytes\":");
  sdp_writer_uint(&w, def->max_request_bytes);
  sdp_writer_cstr(&w, ",\"max_response_bytes\":");
  sdp_writer_uint(&w, def->max_response_bytes);
  sdp_writer_cstr(&w, def->declares_node_validate ? ",\"capabilities\":[{\"name\":\"node.validate\",\"version\":\"1\"}]}"
                                                  : ",\"capabilities\":[]}");
  return hand_over(&w, out);
}

/* The config must be exactly {"schema_version":"1","domain":"<ours>"}. */
static bool config_accepted(const uint8_t *config, size_t config_len) {
  sdp_json root, key, value;
  sdp_json_iter it;
  bool schema = false, domain = false;
  if (!config || config_len > CONFIG_MAX_BYTES) return false;
  if (sdp_json_parse(config, config_len, &root, NULL) != SDP_JSON_OK) return false;
  if (!sdp_json_object_iter_init(&root, &it)) return false;
  while (sdp_json_object_next(&it, &key, &value)) {
    if (sdp_json_string_equals(&key, "schema_version") && sdp_json_string_equals(&value, "1")) {
      schema = true;
    } else if (sdp_json_string_equals(&key, "domain") &&
               sdp_json_string_equals(&value, sdp_provider_definition.domain)) {
      domain = true;
    } else {
      return false;
    }
  }
  return schema && domain;
}

static int32_t create_impl(const uint8_t *config, size_t config_len, void **handle) {
  *handle = NULL;
  if (!config) return STATUS_INVALID_ARGUMENT;
  if (!config_accepted(config, config_len)) return STATUS_INVALID_REQUEST;
  provider_handle *h = malloc(sizeof *h);
  if (!h) return STATUS_PROVIDER_ERROR;
  h->magic = HANDLE_MAGIC;
  h->def = &sdp_provider_definition;
  atomic_flag_clear(&h->busy);
  *handle = h;
  return STATUS_OK;
}

static void destroy_impl(void *handle) {
  provider_handle *h = handle_from(handle);
  if (!h) return;
  h->magic = 0; /* a stale second destroy is then ignored while the memory is not reused */
  h->def = NULL;
  free(h);
}

static int32_t health_impl(void *handle, buffer_v1 *out) {
  if (!out || !out_is_zeroed(out) || !handle_from(handle)) return STATUS_INVALID_ARGUMENT;
  const char *status = sdp_provider_definition.health_status ? sdp_provider_definition.health_status : "ready";
  sdp_writer w;
  sdp_writer_init(&w, HEALTH_MAX_BYTES);
  sdp_writer_cstr(&w, "{\"schema_version\":\"1\",\"status\":");
  sdp_writer_json_string(&w, status);
  sdp_writer_cstr(&w, "}");
  return hand_over(&w, out);
}

/* ---------------------------------------------------------------------- */
/* Validation context and issues                                           */
/* ---------------------------------------------------------------------- */

struct sdp_validation {
  const sdp_provider_def *def;
  sdp_writer issues; /* the issue objects, comma-separated */
  size_t issue_count;
  size_t error_count;
  bool has_node_id;
  sdp_json node_id; /* a validated JSON string */
  const char *record_kind;
};

void sdp_issue(sdp_validation *v, sdp_severity severity, const char *code, const char *field, const char *message) {
  sdp_writer *w = &v->issues;
  sdp_writer_cstr(w, v->issue_count ? ",{\"code\":" : "{\"code\":");
  sdp_writer_json_string(w, code);
  sdp_writer_cstr(w, ",\"message\":");
  sdp_writer_json_string(w, message);
  sdp_writer_cstr(w, ",\"field\":");
  sdp_writer_json_string_or_null(w, field);
  sdp_writer_cstr(w, severity == SDP_ERROR ? ",\"severity\":\"error\",\"node_id\":"
                                           : ",\"severity\":\"warning\",\"node_id\":");
  if (v->has_node_id) {
    sdp_writer_json_value(w, &v->node_id);
  } else {
    sdp_writer_cstr(w, "null");
  }
  sdp_writer_cstr(w, "}");
  v->issue_count++;
  if (severity == SDP_ERROR) v->error_count++;
}

void sdp_issue_prefixed(sdp_validation *v, sdp_severity severity, const char *suffix, const char *field,
                        const char *message) {
  char code[128];
  int n = snprintf(code, sizeof code, "%s_%s", v->def->code_prefix, suffix);
  if (n < 0 || (size_t)n >= sizeof code) {
    v->issues.nomem = true; /* a programming error: fail the call rather than emit a truncated code */
    return;
  }
  sdp_issue(v, severity, code, field, message);
}

void sdp_set_record_kind(sdp_validation *v, const char *record_kind) { v->record_kind = record_kind; }

size_t sdp_issue_count(const sdp_validation *v) { return v->issue_count; }

/* ---------------------------------------------------------------------- */
/* Invoke                                                                  */
/* ---------------------------------------------------------------------- */

enum envelope_key {
  KEY_SCHEMA_VERSION,
  KEY_REQUEST_ID,
  KEY_DOMAIN,
  KEY_OPERATION,
  KEY_WORKSPACE_ID,
  KEY_SNAPSHOT_ID,
  KEY_PAYLOAD,
  KEY_COUNT
};

static const char *const envelope_keys[KEY_COUNT] = {
    "schema_version", "request_id", "domain", "operation", "workspace_id", "snapshot_id", "payload",
};

#define REQUIRED_KEYS                                                                                            \
  (SDP_BIT(KEY_SCHEMA_VERSION) | SDP_BIT(KEY_REQUEST_ID) | SDP_BIT(KEY_DOMAIN) | SDP_BIT(KEY_OPERATION) |       \
   SDP_BIT(KEY_PAYLOAD))

typedef struct envelope {
  sdp_json values[KEY_COUNT];
} envelope;

/* Returns OK, INVALID_REQUEST or UNSUPPORTED_CAPABILITY. */
static int32_t read_envelope(const sdp_json *root, envelope *env) {
  const sdp_provider_def *def = &sdp_provider_definition;
  sdp_json_iter it;
  sdp_json key, value;
  uint32_t seen = 0;
  if (!sdp_json_object_iter_init(root, &it)) return STATUS_INVALID_REQUEST;
  while (sdp_json_object_next(&it, &key, &value)) {
    int index = sdp_string_index(&key, envelope_keys, KEY_COUNT);
    if (index < 0 || (seen & SDP_BIT(index))) return STATUS_INVALID_REQUEST;
    seen |= SDP_BIT(index);
    env->values[index] = value;
  }
  if ((seen & REQUIRED_KEYS) != REQUIRED_KEYS) return STATUS_INVALID_REQUEST;
  if (!sdp_json_string_equals(&env->values[KEY_SCHEMA_VERSION], "1")) return STATUS_INVALID_REQUEST;
  if (!sdp_json_is(&env->values[KEY_REQUEST_ID], SDP_JSON_STRING)) return STATUS_INVALID_REQUEST;
  if (!sdp_json_string_equals(&env->values[KEY_DOMAIN], def->domain)) return STATUS_INVALID_REQUEST;
  if (!sdp_json_is(&env->values[KEY_OPERATION], SDP_JSON_STRING)) return STATUS_INVALID_REQUEST;
  for (int k = KEY_WORKSPACE_ID; k <= KEY_SNAPSHOT_ID; k++) {
    if ((seen & SDP_BIT(k)) && !sdp_json_is(&env->values[k], SDP_JSON_NULL) &&
        !sdp_json_is(&env->values[k], SDP_JSON_STRING))
      return STATUS_INVALID_REQUEST;
  }
  if (!def->declares_node_validate || !sdp_json_string_equals(&env->values[KEY_OPERATION], "node.validate"))
    return STATUS_UNSUPPORTED_CAPABILITY;
  return STATUS_OK;
}

static int32_t write_response(const sdp_validation *v, const sdp_json *request_id, buffer_v1 *out) {
  sdp_writer w;
  sdp_writer_init(&w, v->def->max_response_bytes);
  sdp_writer_cstr(&w, "{\"schema_version\":\"1\",\"request_id\":");
  sdp_writer_json_value(&w, request_id); /* a validated JSON string: echoed byte for byte */
  sdp_writer_cstr(&w, v->error_count ? ",\"status\":\"rejected\",\"issues\":[" : ",\"status\":\"accepted\",\"issues\":[");
  sdp_writer_bytes(&w, v->issues.data, v->issues.len);
  if (v->def->diagnostics && v->record_kind) {
    sdp_writer_cstr(&w, "],\"diagnostics\":{\"record_kind\":");
    sdp_writer_json_string(&w, v->record_kind);
    sdp_writer_cstr(&w, "}}");
  } else {
    sdp_writer_cstr(&w, "],\"diagnostics\":null}");
  }
  return hand_over(&w, out);
}

static int32_t run_invoke(provider_handle *h, const uint8_t *request, size_t request_len, buffer_v1 *out) {
  const sdp_provider_def *def = h->def;
  sdp_json root;
  envelope env = {0};
  if (request_len > def->max_request_bytes) return STATUS_INVALID_REQUEST;
  sdp_json_status parsed = sdp_json_parse(request, request_len, &root, NULL);
  if (parsed == SDP_JSON_ERR_NOMEM) return STATUS_PROVIDER_ERROR;
  if (parsed != SDP_JSON_OK) return STATUS_INVALID_REQUEST;
  int32_t status = read_envelope(&root, &env);
  if (status != STATUS_OK) return status;

  sdp_validation v = {.def = def};
  sdp_writer_init(&v.issues, def->max_response_bytes);
  const sdp_json *payload = &env.values[KEY_PAYLOAD];
  if (def->node_id_from_payload && sdp_json_object_get(payload, "id", &v.node_id) &&
      sdp_json_is(&v.node_id, SDP_JSON_STRING))
    v.has_node_id = true;
  if (def->validate(&v, payload) != SDP_VALIDATE_OK) {
    status = STATUS_PROVIDER_ERROR;
  } else if (!sdp_writer_ok(&v.issues)) {
    status = v.issues.overflow ? STATUS_RESPONSE_TOO_LARGE : STATUS_PROVIDER_ERROR;
  } else {
    status = write_response(&v, &env.values[KEY_REQUEST_ID], out);
  }
  sdp_writer_dispose(&v.issues);
  return status;
}

static int32_t invoke_impl(void *handle, const uint8_t *request, size_t request_len, buffer_v1 *out) {
  if (!out || !out_is_zeroed(out) || !request) return STATUS_INVALID_ARGUMENT;
  provider_handle *h = handle_from(handle);
  if (!h) return STATUS_INVALID_ARGUMENT;
  if (atomic_flag_test_and_set(&h->busy)) return STATUS_PROVIDER_ERROR;
  int32_t status = run_invoke(h, request, request_len, out);
  atomic_flag_clear(&h->busy);
  if (status != STATUS_OK) release(out);
  return status;
}

/* ---------------------------------------------------------------------- */
/* Function table                                                          */
/* ---------------------------------------------------------------------- */

static int32_t table_metadata(slice_v1 host_context, buffer_v1 *out) {
  return metadata_impl(host_context.ptr, host_context.len, out);
}

static int32_t table_create(slice_v1 config, void **handle) {
  if (!handle) return STATUS_INVALID_ARGUMENT;
  return create_impl(config.ptr, config.len, handle);
}

static int32_t table_invoke(void *handle, slice_v1 request, buffer_v1 *response) {
  return invoke_impl(handle, request.ptr, request.len, response);
}

static void table_free_buffer(buffer_v1 buffer) { release(&buffer); }

static const service_domain_provider_api_v1 api_table = {
    .abi_major = SDP_REPORTED_ABI_MAJOR,
    .abi_minor = SERVICE_DOMAIN_PROVIDER_ABI_MINOR_V1,
    .struct_size = sizeof(service_domain_provider_api_v1),
    .metadata = table_metadata,
    .create = table_create,
    .invoke = table_invoke,
    .health = health_impl,
    .destroy = destroy_impl,
    .free_buffer = table_free_buffer,
};

/* ---------------------------------------------------------------------- */
/* Exports                                                                 */
/* ---------------------------------------------------------------------- */

SERVICE_DOMAIN_PROVIDER_EXPORT const service_domain_provider_api_v1 *service_domain_provider_get_api_v1(void) {
  return &api_table;
}

SERVICE_DOMAIN_PROVIDER_EXPORT uint32_t service_domain_provider_v1_abi_version(void) {
  return ((uint32_t)SDP_REPORTED_ABI_MAJOR << 16) | SERVICE_DOMAIN_PROVIDER_ABI_MINOR_V1;
}

SERVICE_DOMAIN_PROVIDER_EXPORT int32_t service_domain_provider_v1_metadata(const uint8_t *host_context,
                                                                           size_t host_context_len, buffer_v1 *out) {
  return metadata_impl(host_context, host_context_len, out);
}

SERVICE_DOMAIN_PROVIDER_EXPORT void *service_domain_provider_v1_create(const uint8_t *config, size_t config_len) {
  void *handle = NULL;
  return create_impl(config, config_len, &handle) == STATUS_OK ? handle : NULL;
}

SERVICE_DOMAIN_PROVIDER_EXPORT int32_t service_domain_provider_v1_invoke(void *handle, const uint8_t *request,
                                                                         size_t request_len, buffer_v1 *out) {
  return invoke_impl(handle, request, request_len, out);
}

SERVICE_DOMAIN_PROVIDER_EXPORT int32_t service_domain_provider_v1_health(void *handle, buffer_v1 *out) {
  return health_impl(handle, out);
}

SERVICE_DOMAIN_PROVIDER_EXPORT void service_domain_provider_v1_destroy(void *handle) { destroy_impl(handle); }

SERVICE_DOMAIN_PROVIDER_EXPORT size_t service_domain_provider_v1_buffer_copy(const buffer_v1 *buffer,
                                                                             uint8_t *destination,
                                                                             size_t destination_len) {
  return copy_out(buffer, destination, destination_len);
}

SERVICE_DOMAIN_PROVIDER_EXPORT void service_domain_provider_v1_free_buffer(buffer_v1 *buffer) { release(buffer); }
