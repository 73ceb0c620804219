/*
 * Providers for the host's tests, one source compiled per variant by
 * scripts/build-test-providers.mjs:
 *
 *   -DTEST_PROVIDER_NOOP           accepts everything, no issues (overhead benchmarks)
 *   -DTEST_PROVIDER_SLOW           sleeps payload.sleep_ms (0..60000) then accepts (timeouts)
 *   -DTEST_PROVIDER_BAD_ABI        reports ABI major 2 (with -DSDP_REPORTED_ABI_MAJOR=2)
 *   -DTEST_PROVIDER_UNHEALTHY      health says {"schema_version":"1","status":"degraded"}
 *   -DTEST_PROVIDER_NO_CAPABILITY  metadata declares no capabilities; invoke answers status 3
 *   -DTEST_PROVIDER_FAILING        every well-formed invoke answers status 4
 *
 * TEST_PROVIDER_DOMAIN (default "cti") is the domain it serves; the ABI
 * plumbing, envelope checks and limits are the real SDK's.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <time.h>

#include "service_provider_sdk.h"

#ifndef TEST_PROVIDER_DOMAIN
#define TEST_PROVIDER_DOMAIN "cti"
#endif

#define SLEEP_MS_MAX 60000

#if defined(TEST_PROVIDER_SLOW)
static void sleep_ms(int64_t ms) {
  struct timespec left = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  while (nanosleep(&left, &left) != 0 && errno == EINTR) {
  }
}

static int test_validate(sdp_validation *v, const sdp_json *payload) {
  (void)v;
  sdp_json value;
  int64_t ms;
  if (sdp_json_object_get(payload, "sleep_ms", &value) && sdp_json_number_int64(&value, &ms) && ms > 0)
    sleep_ms(ms > SLEEP_MS_MAX ? SLEEP_MS_MAX : ms);
  return SDP_VALIDATE_OK;
}
#elif defined(TEST_PROVIDER_FAILING)
static int test_validate(sdp_validation *v, const sdp_json *payload) {
  (void)v;
  (void)payload;
  return SDP_VALIDATE_FAILED;
}
#else
static int test_validate(sdp_validation *v, const sdp_json *payload) {
  (void)v;
  (void)payload;
  return SDP_VALIDATE_OK;
}
#endif

const sdp_provider_def sdp_provider_definition = {
    .domain = TEST_PROVIDER_DOMAIN,
    .provider_id = "service.test." TEST_PROVIDER_KIND,
    .code_prefix = "TEST",
    .provider_version = SDP_PROVIDER_VERSION,
    .max_request_bytes = SDP_DEFAULT_LIMIT_BYTES,
    .max_response_bytes = SDP_DEFAULT_LIMIT_BYTES,
    .node_id_from_payload = true,
    .diagnostics = false,
#if defined(TEST_PROVIDER_NO_CAPABILITY)
    .declares_node_validate = false,
#else
    .declares_node_validate = true,
#endif
#if defined(TEST_PROVIDER_UNHEALTHY)
    .health_status = "degraded",
#else
    .health_status = NULL,
#endif
    .validate = test_validate,
};
