/*
 * Service domain provider ABI, version 1.1.
 *
 * A domain provider is a shared library that validates one domain's records
 * (capability "node.validate", version "1"). The host loads it once, checks
 * its SHA-256 against the manifest, negotiates this ABI, reads its metadata,
 * creates exactly one instance, checks its health and then serialises every
 * call to that instance.
 *
 * Two equivalent entry surfaces are exported:
 *
 *   1. The function table returned by service_domain_provider_get_api_v1(),
 *      for C hosts (the layout of the reference ABI, renamed).
 *   2. Flat functions service_domain_provider_v1_*, for hosts that can only
 *      call exported symbols by name (the Node host uses ffi-rs, which cannot
 *      call through function pointers).
 *
 * Memory rules (both surfaces)
 *   - Input bytes (slices, request/config pointers) are borrowed for the
 *     duration of one call. They need not be NUL-terminated; the provider
 *     never reads past the given length.
 *   - Output buffers are allocated by the provider and must be released
 *     exactly once through the same library's free_buffer. Never free them
 *     with the host's allocator.
 *   - The host passes an output descriptor zeroed ({NULL, 0}). On any non-zero
 *     status the descriptor is left zeroed: there is no output on failure. A
 *     descriptor that is not zeroed on entry is refused with
 *     SERVICE_DOMAIN_PROVIDER_STATUS_INVALID_ARGUMENT (it would otherwise leak
 *     or alias a buffer the host still owns).
 *   - A handle comes from create and is destroyed exactly once, before the
 *     library is unloaded.
 *
 * Concurrency: providers are not thread-safe (metadata says
 * "thread_safe":false, "max_concurrency":1). The host serialises calls per
 * handle. A provider detects overlapping calls on one handle and fails the
 * later one with SERVICE_DOMAIN_PROVIDER_STATUS_PROVIDER_ERROR. Providers keep
 * no global mutable state; all state lives in the handle.
 *
 * No C++ exceptions or longjmp cross this boundary.
 *
 * JSON texts (UTF-8, compact):
 *   metadata  {"schema_version":"1","provider_id":"service.domain.<d>",
 *              "provider_version":"0.3.1","domain":"<d>","thread_safe":false,
 *              "max_concurrency":1,"max_request_bytes":1048576,
 *              "max_response_bytes":1048576,
 *              "capabilities":[{"name":"node.validate","version":"1"}]}
 *   config    {"schema_version":"1","domain":"<d>"}   (exactly these keys)
 *   health    {"schema_version":"1","status":"ready"}
 *   request   {"schema_version":"1","request_id":"...","domain":"<d>",
 *              "operation":"node.validate","workspace_id":null|"...",
 *              "snapshot_id":null|"...","payload":<any JSON>}
 *   response  {"schema_version":"1","request_id":"<echo>",
 *              "status":"accepted|rejected|failed",
 *              "issues":[{"code":"...","message":"...","field":null|"...",
 *                         "severity":"error|warning","node_id":null|"..."}],
 *              "diagnostics":null|{...}}
 *
 * Invoke status mapping: a null pointer -> INVALID_ARGUMENT; a request above
 * max_request_bytes, malformed JSON (including a duplicate object key at any
 * depth), an unknown or missing envelope key, a wrongly typed envelope value,
 * schema_version other than "1" or another domain -> INVALID_REQUEST; an
 * operation other than "node.validate" -> UNSUPPORTED_CAPABILITY; a response
 * that would exceed max_response_bytes -> RESPONSE_TOO_LARGE; allocation
 * failure or misuse of the handle -> PROVIDER_ERROR.
 */
#ifndef SERVICE_DOMAIN_PROVIDER_V1_H
#define SERVICE_DOMAIN_PROVIDER_V1_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define SERVICE_DOMAIN_PROVIDER_EXPORT __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define SERVICE_DOMAIN_PROVIDER_EXPORT __attribute__((visibility("default")))
#else
#define SERVICE_DOMAIN_PROVIDER_EXPORT
#endif

#define SERVICE_DOMAIN_PROVIDER_ABI_MAJOR_V1 1
#define SERVICE_DOMAIN_PROVIDER_ABI_MINOR_V1 1

/* int32 status codes returned by every call that can fail. */
#define SERVICE_DOMAIN_PROVIDER_STATUS_OK 0
#define SERVICE_DOMAIN_PROVIDER_STATUS_INVALID_ARGUMENT 1
#define SERVICE_DOMAIN_PROVIDER_STATUS_INVALID_REQUEST 2
#define SERVICE_DOMAIN_PROVIDER_STATUS_UNSUPPORTED_CAPABILITY 3
#define SERVICE_DOMAIN_PROVIDER_STATUS_PROVIDER_ERROR 4
#define SERVICE_DOMAIN_PROVIDER_STATUS_RESPONSE_TOO_LARGE 5

/* Host-owned bytes, borrowed for one call. {NULL, 0} is the empty slice. */
typedef struct service_domain_provider_slice_v1 {
  const uint8_t *ptr;
  size_t len;
} service_domain_provider_slice_v1;

/* Provider-owned bytes, released once through the provider's free_buffer. */
typedef struct service_domain_provider_buffer_v1 {
  uint8_t *ptr;
  size_t len;
} service_domain_provider_buffer_v1;

/*
 * The function table. LP64 layout: abi_major at 0, abi_minor at 2,
 * struct_size at 8, the six function pointers at 16..56, size 64. A host
 * reads the header first and requires abi_major == 1, abi_minor >= 1 and
 * struct_size >= the size it knows.
 */
typedef struct service_domain_provider_api_v1 {
  uint16_t abi_major;
  uint16_t abi_minor;
  size_t struct_size;
  /* host_context: any bytes (the host passes the empty slice); ignored. */
  int32_t (*metadata)(service_domain_provider_slice_v1 host_context, service_domain_provider_buffer_v1 *out);
  /* config: the create JSON; *handle receives the instance (NULL on failure). */
  int32_t (*create)(service_domain_provider_slice_v1 config, void **handle);
  int32_t (*invoke)(void *handle, service_domain_provider_slice_v1 request, service_domain_provider_buffer_v1 *response);
  int32_t (*health)(void *handle, service_domain_provider_buffer_v1 *out);
  void (*destroy)(void *handle);
  /* Releases a buffer returned by this table; {NULL, 0} is a no-op. */
  void (*free_buffer)(service_domain_provider_buffer_v1 buffer);
} service_domain_provider_api_v1;

#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu
_Static_assert(sizeof(service_domain_provider_slice_v1) == 16, "slice_v1 is 16 bytes on LP64");
_Static_assert(sizeof(service_domain_provider_buffer_v1) == 16, "buffer_v1 is 16 bytes on LP64");
_Static_assert(offsetof(service_domain_provider_buffer_v1, len) == 8, "buffer_v1.len at offset 8 on LP64");
_Static_assert(offsetof(service_domain_provider_api_v1, abi_minor) == 2, "abi_minor at offset 2");
_Static_assert(offsetof(service_domain_provider_api_v1, struct_size) == 8, "struct_size at offset 8");
_Static_assert(offsetof(service_domain_provider_api_v1, metadata) == 16, "metadata at offset 16");
_Static_assert(offsetof(service_domain_provider_api_v1, free_buffer) == 56, "free_buffer at offset 56");
_Static_assert(sizeof(service_domain_provider_api_v1) == 64, "api_v1 is 64 bytes on LP64");
#endif

/* Table entry point: never NULL; the table is immutable and lives as long as the library. */
SERVICE_DOMAIN_PROVIDER_EXPORT const service_domain_provider_api_v1 *service_domain_provider_get_api_v1(void);

/* ---- Flat exports (same semantics as the table) ---- */

/* (abi_major << 16) | abi_minor, i.e. 0x00010001 for ABI 1.1. */
SERVICE_DOMAIN_PROVIDER_EXPORT uint32_t service_domain_provider_v1_abi_version(void);

/* Writes the metadata JSON into *out. host_context may be NULL only when host_context_len is 0. */
SERVICE_DOMAIN_PROVIDER_EXPORT int32_t service_domain_provider_v1_metadata(const uint8_t *host_context,
                                                                           size_t host_context_len,
                                                                           service_domain_provider_buffer_v1 *out);

/* Creates the instance from the config JSON. Returns NULL on any failure (bad pointer, bad JSON,
 * unknown key, schema_version other than "1", another domain, allocation failure). */
SERVICE_DOMAIN_PROVIDER_EXPORT void *service_domain_provider_v1_create(const uint8_t *config, size_t config_len);

/* Runs one request envelope; on OK *out holds the response JSON. */
SERVICE_DOMAIN_PROVIDER_EXPORT int32_t service_domain_provider_v1_invoke(void *handle, const uint8_t *request,
                                                                         size_t request_len,
                                                                         service_domain_provider_buffer_v1 *out);

/* Writes the health JSON into *out. */
SERVICE_DOMAIN_PROVIDER_EXPORT int32_t service_domain_provider_v1_health(void *handle,
                                                                         service_domain_provider_buffer_v1 *out);

/* Destroys the instance; NULL is a no-op. Call exactly once per handle. */
SERVICE_DOMAIN_PROVIDER_EXPORT void service_domain_provider_v1_destroy(void *handle);

/* Copies min(buffer->len, destination_len) bytes into destination and returns that count (0 when
 * buffer, its ptr or destination is NULL). Does not release the buffer. */
SERVICE_DOMAIN_PROVIDER_EXPORT size_t service_domain_provider_v1_buffer_copy(
    const service_domain_provider_buffer_v1 *buffer, uint8_t *destination, size_t destination_len);

/* Frees the buffer and zeroes the descriptor; NULL or a zeroed descriptor is a no-op. */
SERVICE_DOMAIN_PROVIDER_EXPORT void service_domain_provider_v1_free_buffer(service_domain_provider_buffer_v1 *buffer);

#ifdef __cplusplus
}
#endif

#endif /* SERVICE_DOMAIN_PROVIDER_V1_H */
