/*
 * {{NAME}}: the {{DOMAIN}} domain provider of this pack (provider interface v1).
 * Rules and codes: RULES.md. Built at install by `service-provider-build` (@service/provider-sdk) into
 * build/provider/, with a manifest pinning its SHA-256; the server verifies the digest before loading it.
 *
 * The SDK implements the interface plumbing (exports, envelope, limits, buffers); a provider defines
 * `sdp_provider_definition` and a `validate` function that reads the caller's payload with the
 * sdp_json_* accessors and reports issues. See service_provider_sdk.h.
 */
#include "service_provider_sdk.h"

/* Rule 1: a record needs a non-blank string "name". */
static int pack_validate(sdp_validation *v, const sdp_json *payload) {
  if (!sdp_has_nonblank_string(payload, "name"))
    sdp_issue_prefixed(v, SDP_ERROR, "NAME_REQUIRED", "name", "a record needs a non-blank name");
  return SDP_VALIDATE_OK;
}

const sdp_provider_def sdp_provider_definition = {
    .domain = "{{DOMAIN}}",
    .provider_id = "{{PROVIDER_ID}}",
    .provider_version = "0.1.0",
    .code_prefix = "{{PREFIX}}",
    .max_request_bytes = SDP_DEFAULT_LIMIT_BYTES,
    .max_response_bytes = SDP_DEFAULT_LIMIT_BYTES,
    .node_id_from_payload = true,
    .diagnostics = false,
    .declares_node_validate = true,
    .health_status = NULL,
    .validate = pack_validate,
};
