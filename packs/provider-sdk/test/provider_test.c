/*
 * Provider test driver: dlopens each built provider by path and exercises the
 * flat ABI the way the Node host does (zeroed 16-byte out descriptor, read
 * len, allocate, buffer_copy, free_buffer once), the C function table, every
 * rule of every domain, envelope and argument errors, limits, and the test
 * providers. Requests are copied into exact-size heap buffers without a NUL
 * so that sanitizer builds catch any over-read.
 *
 * usage: provider_test <providers-dir> <test-providers-dir> [vocabulary-cases.tsv]
 * Prints "N passed, M failed" and exits non-zero on any failure.
 */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../research/provider/identifiers.h"
#include "service_domain_provider_v1.h"
#include "service_provider_sdk.h"

typedef service_domain_provider_buffer_v1 buffer_v1;
typedef service_domain_provider_slice_v1 slice_v1;

static int passed, failed;

static void check(bool ok, const char *fmt, ...) {
  if (ok) {
    passed++;
    return;
  }
  failed++;
  va_list args;
  va_start(args, fmt);
  fputs("FAIL: ", stdout);
  vprintf(fmt, args);
  fputc('\n', stdout);
  va_end(args);
}

/* ---------------------------------------------------------------------- */
/* Loading                                                                 */
/* ---------------------------------------------------------------------- */

typedef struct provider {
  char path[1024];
  void *library;
  uint32_t (*abi_version)(void);
  int32_t (*metadata)(const uint8_t *, size_t, buffer_v1 *);
  void *(*create)(const uint8_t *, size_t);
  int32_t (*invoke)(void *, const uint8_t *, size_t, buffer_v1 *);
  int32_t (*health)(void *, buffer_v1 *);
  void (*destroy)(void *);
  size_t (*buffer_copy)(const buffer_v1 *, uint8_t *, size_t);
  void (*free_buffer)(buffer_v1 *);
  const service_domain_provider_api_v1 *(*get_api)(void);
} provider;

#define RESOLVE(p, field, name)                                                                                  \
  do {                                                                                                           \
    void *symbol = dlsym((p)->library, name);                                                                    \
    check(symbol != NULL, "%s: symbol %s", (p)->path, name);                                                     \
    memcpy(&(p)->field, &symbol, sizeof symbol);                                                                 \
  } while (0)

static bool load(provider *p, const char *dir, const char *file) {
  memset(p, 0, sizeof *p);
  snprintf(p->path, sizeof p->path, "%s/%s", dir, file);
  p->library = dlopen(p->path, RTLD_NOW | RTLD_LOCAL);
  check(p->library != NULL, "dlopen %s: %s", p->path, p->library ? "" : dlerror());
  if (!p->library) return false;
  RESOLVE(p, abi_version, "service_domain_provider_v1_abi_version");
  RESOLVE(p, metadata, "service_domain_provider_v1_metadata");
  RESOLVE(p, create, "service_domain_provider_v1_create");
  RESOLVE(p, invoke, "service_domain_provider_v1_invoke");
  RESOLVE(p, health, "service_domain_provider_v1_health");
  RESOLVE(p, destroy, "service_domain_provider_v1_destroy");
  RESOLVE(p, buffer_copy, "service_domain_provider_v1_buffer_copy");
  RESOLVE(p, free_buffer, "service_domain_provider_v1_free_buffer");
  RESOLVE(p, get_api, "service_domain_provider_get_api_v1");
  return p->abi_version && p->metadata && p->create && p->invoke && p->health && p->destroy && p->buffer_copy &&
         p->free_buffer && p->get_api;
}

/* ---------------------------------------------------------------------- */
/* Host-like helpers                                                       */
/* ---------------------------------------------------------------------- */

static uint8_t *exact_copy(const char *text, size_t len) {
  uint8_t *bytes = malloc(len ? len : 1);
  if (len) memcpy(bytes, text, len);
  return bytes;
}

/* Takes the output as the Node host does; returns a NUL-terminated copy (caller frees). */
static char *take(provider *p, buffer_v1 *out) {
  size_t len = out->len;
  char *text = malloc(len + 1);
  size_t copied = p->buffer_copy(out, (uint8_t *)text, len);
  check(copied == len, "%s: buffer_copy copied %zu of %zu", p->path, copied, len);
  text[copied] = '\0';
  p->free_buffer(out);
  check(out->ptr == NULL && out->len == 0, "%s: free_buffer zeroes the descriptor", p->path);
  return text;
}

static int32_t invoke_raw(provider *p, void *handle, const char *request, size_t len, char **response) {
  uint8_t *bytes = exact_copy(request, len);
  buffer_v1 out = {0};
  int32_t status = p->invoke(handle, bytes, len, &out);
  free(bytes);
  *response = NULL;
  if (status == SERVICE_DOMAIN_PROVIDER_STATUS_OK) {
    check(out.ptr != NULL && out.len > 0, "%s: OK with empty output", p->path);
    *response = take(p, &out);
  } else {
    check(out.ptr == NULL && out.len == 0, "%s: status %d left output behind", p->path, status);
  }
  return status;
}

static char *make_request(const char *domain, const char *request_id, const char *payload) {
  const char *fmt =
      "{\"schema_version\":\"1\",\"request_id\":\"%s\",\"domain\":\"%s\",\"operation\":\"node.validate\","
      "\"workspace_id\":null,\"snapshot_id\":null,\"payload\":%s}";
  size_t n = strlen(fmt) + strlen(domain) + strlen(request_id) + strlen(payload) + 1;
  char *request = malloc(n);
  snprintf(request, n, fmt, request_id, domain, payload);
  return request;
}

/* Case tables write JSON with ' for " and ^ for ' (STIX literals). */
static char *unquote(const char *text) {
  char *out = strdup(text);
  for (char *c = out; *c; c++) {
    if (*c == '\'') {
      *c = '"';
    } else if (*c == '^') {
      *c = '\'';
    }
  }
  return out;
}

static void *create_for(provider *p, const char *domain) {
  char config[128];
  snprintf(config, sizeof config, "{\"schema_version\":\"1\",\"domain\":\"%s\"}", domain);
  uint8_t *bytes = exact_copy(config, strlen(config));
  void *handle = p->create(bytes, strlen(config));
  free(bytes);
  return handle;
}

static bool get(const sdp_json *obj, const char *key, sdp_json *out) { return sdp_json_object_get(obj, key, out); }

/* ---------------------------------------------------------------------- */
/* Response checks                                                         */
/* ---------------------------------------------------------------------- */

static bool graph_domain(const char *domain) {
  return strcmp(domain, "cti") == 0 || strcmp(domain, "fimi") == 0 || strcmp(domain, "crisis") == 0;
}

/*
 * Checks the response shape and writes the issues as "CODE@field" (field "-"
 * when null, "~" before warnings) separated by spaces into summary.
 */
static bool read_response(const char *label, const char *domain, const char *response, const char *request_id,
                          const sdp_json *payload, char *status_out, size_t status_cap, char *summary, size_t cap) {
  sdp_json root, value, issues, issue, field;
  sdp_json_iter it;
  summary[0] = '\0';
  if (sdp_json_parse((const uint8_t *)response, strlen(response), &root, NULL) != SDP_JSON_OK) {
    check(false, "%s: response is not JSON: %s", label, response);
    return false;
  }
  size_t keys = 0;
  sdp_json_object_iter_init(&root, &it);
  while (sdp_json_object_next(&it, NULL, NULL)) keys++;
  check(keys == 5, "%s: response has 5 keys", label);
  check(get(&root, "schema_version", &value) && sdp_json_string_equals(&value, "1"), "%s: schema_version", label);
  check(get(&root, "request_id", &value) && sdp_json_string_equals(&value, request_id), "%s: request_id echo",
        label);
  if (!get(&root, "status", &value) || sdp_json_string_decode(&value, status_out, status_cap) == SIZE_MAX) {
    check(false, "%s: status", label);
    return false;
  }
  sdp_json diagnostics;
  check(get(&root, "diagnostics", &diagnostics) &&
            (diagnostics.type == SDP_JSON_NULL || (graph_domain(domain) && diagnostics.type == SDP_JSON_OBJECT)),
        "%s: diagnostics null (or an object for graph domains)", label);
  sdp_json payload_id;
  bool expect_node_id = graph_domain(domain) && get(payload, "id", &payload_id) && payload_id.type == SDP_JSON_STRING;
  if (!get(&root, "issues", &issues) || !sdp_json_array_iter_init(&issues, &it)) {
    check(false, "%s: issues array", label);
    return false;
  }
  size_t errors = 0, used = 0;
  while (sdp_json_array_next(&it, &issue)) {
    char code[96], field_name[64] = "-", severity[16];
    sdp_json_iter members;
    size_t issue_keys = 0;
    sdp_json_object_iter_init(&issue, &members);
    while (sdp_json_object_next(&members, NULL, NULL)) issue_keys++;
    check(issue_keys == 5, "%s: issue has 5 keys", label);
    check(get(&issue, "code", &value) && sdp_json_string_decode(&value, code, sizeof code) != SIZE_MAX, "%s: code",
          label);
    check(get(&issue, "message", &value) && value.type == SDP_JSON_STRING && !sdp_json_string_is_blank(&value),
          "%s: message", label);
    check(get(&issue, "field", &field), "%s: field key", label);
    if (field.type == SDP_JSON_STRING) sdp_json_string_decode(&field, field_name, sizeof field_name);
    check(get(&issue, "severity", &value) && sdp_json_string_decode(&value, severity, sizeof severity) != SIZE_MAX &&
              (strcmp(severity, "error") == 0 || strcmp(severity, "warning") == 0),
          "%s: severity", label);
    bool warning = strcmp(severity, "warning") == 0;
    if (!warning) errors++;
    check(get(&issue, "node_id", &value) &&
              (expect_node_id ? sdp_json_strings_equal(&value, &payload_id) : value.type == SDP_JSON_NULL),
          "%s: node_id", label);
    int n = snprintf(summary + used, cap - used, "%s%s%s@%s", used ? " " : "", warning ? "~" : "", code, field_name);
    if (n > 0 && (size_t)n < cap - used) used += (size_t)n;
  }
  check(strcmp(status_out, errors ? "rejected" : "accepted") == 0, "%s: status %s matches %zu errors", label,
        status_out, errors);
  return true;
}

/* ---------------------------------------------------------------------- */
/* Rule cases                                                              */
/* ---------------------------------------------------------------------- */

typedef struct rule_case {
  const char *domain;
  const char *payload;  /* ' for ", ^ for ' */
  const char *expected; /* "CODE@field ..."; "" for none */
} rule_case;

static const rule_case rule_cases[] = {
    /* ---- cti: graph-validation summaries ---- */
    {"cti", "{'confidence':0.9,'evidence_refs':['ev-1'],'external_id':'indicator--1','labels':['Indicator']}", ""},
    {"cti", "{'confidence':0.5,'evidence_refs':[],'external_id':null,'labels':['Indicator']}",
     "CTI_CONFIDENCE_TOO_LOW@confidence CTI_EVIDENCE_REQUIRED@evidence_refs"},
    {"cti", "{'confidence':null,'evidence_refs':['e'],'external_id':null,'labels':['AttackPattern']}",
     "CTI_CONFIDENCE_TOO_LOW@confidence"},
    {"cti", "{'confidence':0.8,'evidence_refs':['e'],'external_id':null,'labels':[]}", ""},
    {"cti", "{'confidence':0.79999,'evidence_refs':['e'],'external_id':null,'labels':['Malware']}",
     "CTI_CONFIDENCE_TOO_LOW@confidence"},
    {"cti", "{'confidence':80,'evidence_refs':['e'],'external_id':null,'labels':['Malware']}",
     "CTI_CONFIDENCE_INVALID@confidence"},
    {"cti", "{'confidence':'high','evidence_refs':[' '],'labels':['Malware']}",
     "CTI_CONFIDENCE_INVALID@confidence CTI_EVIDENCE_REQUIRED@evidence_refs"},
    /* ---- cti: nodes ---- */
    {"cti",
     "{'id':'node-1','labels':['Indicator'],'pattern':'[ipv4-addr:value = ^198.51.100.1^]','pattern_type':'stix',"
     "'valid_from':'2024-01-01T00:00:00Z','valid_until':'2024-06-01T00:00:00.5Z','confidence':0.9,"
     "'evidence_refs':['ev']}",
     ""},
    {"cti", "{'id':'node-2','labels':['Indicator']}",
     "CTI_INDICATOR_PATTERN_REQUIRED@pattern CTI_INDICATOR_PATTERN_TYPE_REQUIRED@pattern_type "
     "CTI_INDICATOR_VALID_FROM_REQUIRED@valid_from"},
    {"cti", "{'labels':['Indicator'],'pattern':'abc','pattern_type':'regex','valid_from':'2024-01-01T00:00:00Z'}",
     "CTI_INDICATOR_PATTERN_TYPE_INVALID@pattern_type"},
    {"cti", "{'labels':['Indicator'],'pattern':'rule x { condition: true }','pattern_type':'yara',"
            "'valid_from':'2024-01-01T00:00:00Z'}",
     ""},
    {"cti", "{'labels':['Indicator'],'pattern':'198.51.100.1','pattern_type':'stix','valid_from':'2024-01-01T00:00:00Z'}",
     "CTI_INDICATOR_PATTERN_INVALID@pattern"},
    {"cti",
     "{'labels':['Indicator'],'pattern':'[file:name = ^x^','pattern_type':'stix','valid_from':'2024-01-01T00:00:00Z'}",
     "CTI_INDICATOR_PATTERN_INVALID@pattern"},
    {"cti", "{'labels':['Indicator'],'pattern':'[file:name = ^]^] AND ([x:y = 1] OR [file:hashes.^SHA-256^ = ^a^]) "
            "WITHIN 600 SECONDS','pattern_type':'stix','valid_from':'2024-01-01T00:00:00Z'}",
     ""},
    {"cti", "{'labels':['Indicator'],'pattern':'[a = 1]','pattern_type':'stix','valid_from':'2024-01-01T00:00:00Z'}",
     "CTI_INDICATOR_PATTERN_INVALID@pattern"},
    {"cti",
     "{'labels':['Indicator'],'pattern':'[file:sections[*].entropy > 7]','pattern_type':'stix',"
     "'valid_from':'2024-01-01T00:00:00Z'}",
     ""},
    {"cti", "{'labels':['Indicator'],'pattern':'x','pattern_type':'sigma','valid_from':'2024-06-01T00:00:00Z',"
            "'valid_until':'2024-01-01T00:00:00Z'}",
     "CTI_INDICATOR_VALID_UNTIL_NOT_AFTER_VALID_FROM@valid_until"},
    {"cti", "{'labels':['Indicator'],'pattern':'x','pattern_type':'sigma','valid_from':'2024-06-01T00:00:00Z',"
            "'valid_until':'2024-06-01T02:00:00+02:00'}",
     "CTI_INDICATOR_VALID_UNTIL_NOT_AFTER_VALID_FROM@valid_until"},
    {"cti", "{'labels':['Indicator'],'pattern':'x','pattern_type':'sigma','valid_from':'2024-01-01T10:00:00+02:00',"
            "'valid_until':'2024-01-01t09:00:00z'}",
     ""},
    {"cti", "{'labels':['Indicator'],'pattern':'x','pattern_type':'snort','valid_from':'2024-13-01T00:00:00Z'}",
     "CTI_TIMESTAMP_INVALID@valid_from"},
    {"cti", "{'labels':['Indicator'],'pattern':'x','pattern_type':'snort','valid_from':'2023-02-29T00:00:00Z'}",
     "CTI_TIMESTAMP_INVALID@valid_from"},
    {"cti", "{'labels':['Indicator'],'pattern':'x','pattern_type':'snort','valid_from':'2024-02-29T23:59:60Z'}", ""},
    {"cti", "{'labels':['Indicator'],'pattern':'x','pattern_type':'snort','valid_from':'2024-02-29 10:00:00Z'}",
     "CTI_TIMESTAMP_INVALID@valid_from"},
    {"cti", "{'labels':['Indicator'],'pattern':'x','pattern_type':'snort','valid_from':'2024-01-01T00:00:00'}",
     "CTI_TIMESTAMP_INVALID@valid_from"},
    {"cti", "{'labels':['Indicator'],'pattern':'x','pattern_type':'snort','valid_from':'2024-01-01T00:00:00.Z'}",
     "CTI_TIMESTAMP_INVALID@valid_from"},
    {"cti", "{'labels':['ThreatActor']}", "CTI_NAME_REQUIRED@name"},
    {"cti", "{'labels':['ThreatActor'],'name':' \\t\\u3000'}", "CTI_NAME_REQUIRED@name"},
    {"cti", "{'labels':['ThreatActor'],'name':'APT-X','first_seen':'2024-02-01T00:00:00Z','last_seen':'2024-01-01T00:00:00Z'}",
     "CTI_LAST_SEEN_BEFORE_FIRST_SEEN@last_seen"},
    {"cti", "{'labels':['Campaign','Extra'],'name':'C','created':'2024-02-01T00:00:00Z','modified':'2024-01-01T00:00:00Z'}",
     "CTI_MODIFIED_BEFORE_CREATED@modified"},
    {"cti", "{'labels':['Malware'],'name':'Emotet'}", "CTI_MALWARE_IS_FAMILY_REQUIRED@is_family"},
    {"cti", "{'labels':['Malware'],'name':'Emotet','is_family':true}", ""},
    {"cti", "{'labels':['Tool']}", "CTI_NAME_REQUIRED@name"},
    {"cti", "{'labels':['Infrastructure'],'name':'c2'}", ""},
    {"cti", "{'labels':['Identity'],'name':'ACME','identity_class':'company'}",
     "~CTI_IDENTITY_CLASS_UNKNOWN@identity_class"},
    {"cti", "{'labels':['Identity'],'name':'ACME','identity_class':'organization'}", ""},
    {"cti", "{'labels':['Vulnerability'],'name':'Log4Shell','external_id':'CVE-2021-44228'}", ""},
    {"cti", "{'labels':['Vulnerability'],'name':'x','external_id':'CVE-2021-1234'}", ""},
    {"cti", "{'labels':['Vulnerability'],'name':'x','external_id':'CVE-2021-01234'}",
     "CTI_VULNERABILITY_EXTERNAL_ID_INVALID@external_id"},
    {"cti", "{'labels':['Vulnerability'],'name':'x','external_id':'cve-2021-44228'}",
     "CTI_VULNERABILITY_EXTERNAL_ID_INVALID@external_id"},
    {"cti", "{'labels':['Vulnerability'],'name':'x','external_id':'CVE-1998-1234'}",
     "CTI_VULNERABILITY_EXTERNAL_ID_INVALID@external_id"},
    {"cti",
     "{'labels':['Vulnerability'],'name':'x','external_id':'vulnerability--0b3ff3c8-7b1f-4f3c-9d3e-3a8f6f8b8e21'}",
     ""},
    {"cti", "{'labels':['Vulnerability'],'external_id':42}",
     "CTI_NAME_REQUIRED@name CTI_VULNERABILITY_EXTERNAL_ID_INVALID@external_id"},
    {"cti", "{'labels':['Location']}", "CTI_LOCATION_REQUIRED@-"},
    {"cti", "{'labels':['Location'],'country':'ZZ'}", "CTI_LOCATION_COUNTRY_INVALID@country"},
    {"cti", "{'labels':['Location'],'country':'fr'}", "CTI_LOCATION_COUNTRY_INVALID@country"},
    {"cti", "{'labels':['Location'],'country':'FR'}", ""},
    {"cti", "{'labels':['Location'],'region':'western-europe'}", ""},
    {"cti", "{'labels':['Location'],'latitude':91}",
     "CTI_LOCATION_LATITUDE_INVALID@latitude CTI_LOCATION_COORDINATES_INCOMPLETE@longitude"},
    {"cti", "{'labels':['Location'],'latitude':-90,'longitude':180}", ""},
    {"cti", "{'labels':['Report'],'name':'r'}",
     "CTI_REPORT_PUBLISHED_REQUIRED@published CTI_REPORT_OBJECT_REFS_REQUIRED@object_refs"},
    {"cti", "{'labels':['Report'],'name':'r','published':'2024-01-01T00:00:00Z','object_refs':['indicator--1']}", ""},
    {"cti", "{'labels':['Bogus'],'name':'x'}", "CTI_NODE_TYPE_UNKNOWN@labels"},
    {"cti", "{'labels':['threat-actor'],'name':'x'}", "CTI_NODE_TYPE_UNKNOWN@labels"},
    {"cti", "{'name':'x'}", "CTI_NODE_TYPE_REQUIRED@labels"},
    {"cti", "{'labels':[7,'Tool'],'name':'x'}", ""},
    /* escaped keys and values are compared after decoding (fuzzer regression) */
    {"cti", "{'l\\u0061bels':['T\\u006fol'],'n\\u0061me':'x'}", ""},
    {"cti", "{'labels':['T\\u006fol'],'a\\\\b':1,'na\\\\me':'x'}", "CTI_NAME_REQUIRED@name"},
    {"cti", "[1,2]", "CTI_PAYLOAD_INVALID@-"},
    {"cti", "null", "CTI_PAYLOAD_INVALID@-"},
    {"cti", "{'labels':['Tool'],'name':'x','evidence_refs':'ev-1'}", "CTI_EVIDENCE_REFS_INVALID@evidence_refs"},
    {"cti", "{'labels':['Tool'],'name':'x','confidence':0.95,'evidence_refs':null}", ""},
    /* ---- cti: relationships ---- */
    {"cti", "{'id':'rel-1','relationship_type':'Indicates','source_labels':['Indicator'],'target_labels':['Malware']}",
     ""},
    {"cti", "{'relationship_type':'Indicates','source_labels':['Malware'],'target_labels':['Indicator']}",
     "CTI_RELATIONSHIP_ENDPOINTS_NOT_ALLOWED@relationship_type"},
    {"cti", "{'relationship_type':'Uses','source_labels':['ThreatActor'],'target_labels':['Tool']}", ""},
    {"cti", "{'relationship_type':'Uses','source_labels':['Tool'],'target_labels':['Malware']}",
     "CTI_RELATIONSHIP_ENDPOINTS_NOT_ALLOWED@relationship_type"},
    {"cti", "{'relationship_type':'Targets','source_labels':['Malware'],'target_labels':['Infrastructure']}", ""},
    {"cti", "{'relationship_type':'Targets','source_labels':['Campaign'],'target_labels':['Infrastructure']}",
     "CTI_RELATIONSHIP_ENDPOINTS_NOT_ALLOWED@relationship_type"},
    {"cti", "{'relationship_type':'AttributedTo','source_labels':['Campaign'],'target_labels':['ThreatActor']}", ""},
    {"cti", "{'relationship_type':'CommunicatesWith','source_labels':['Malware'],'target_labels':['Infrastructure']}",
     ""},
    {"cti", "{'relationship_type':'RelatedTo','source_labels':['Report'],'target_labels':['Location']}", ""},
    {"cti", "{'relationship_type':'Owns','source_labels':['Report'],'target_labels':['Location']}",
     "CTI_RELATIONSHIP_TYPE_UNKNOWN@relationship_type"},
    {"cti", "{'relationship_type':'','target_labels':['Nope']}",
     "CTI_RELATIONSHIP_TYPE_REQUIRED@relationship_type CTI_RELATIONSHIP_SOURCE_REQUIRED@source_labels "
     "CTI_RELATIONSHIP_TARGET_UNKNOWN@target_labels"},
    {"cti",
     "{'relationship_type':'Uses','source_labels':['ThreatActor'],'target_labels':['Malware'],'confidence':0.2,"
     "'evidence_refs':[]}",
     "CTI_CONFIDENCE_TOO_LOW@confidence CTI_EVIDENCE_REQUIRED@evidence_refs"},

    /* ---- fimi ---- */
    {"fimi",
     "{'id':'claim-1','labels':['Claim'],'source':'https://example.org/p/1','observed_at':'2024-03-01T08:00:00Z',"
     "'epistemic_status':'claim','confidence':0.4}",
     ""},
    {"fimi", "{'id':'claim-2','labels':['Claim']}",
     "FIMI_CLAIM_SOURCE_REQUIRED@source FIMI_CLAIM_OBSERVED_AT_REQUIRED@observed_at"},
    {"fimi", "{'labels':['Claim'],'source_refs':['s1'],'observed_at':'2024-03-01T08:00:00Z'}", ""},
    {"fimi",
     "{'labels':['Claim'],'source':'s','observed_at':'2024-03-01T08:00:00Z','epistemic_status':'observation',"
     "'evidence_refs':['e']}",
     "FIMI_CLAIM_EPISTEMIC_STATUS_MISMATCH@epistemic_status"},
    {"fimi", "{'labels':['Claim'],'source':'s','observed_at':'2024-03-01T08:00:00Z','hypothesis':true}",
     "FIMI_CLAIM_EPISTEMIC_STATUS_MISMATCH@epistemic_status"},
    {"fimi", "{'labels':['Campaign'],'name':'x','epistemic_status':'hypothesis'}",
     "FIMI_HYPOTHESIS_MARKER_REQUIRED@hypothesis"},
    {"fimi", "{'labels':['Campaign'],'name':'x','epistemic_status':'hypothesis','hypothesis':true}", ""},
    {"fimi",
     "{'labels':['Actor'],'name':'a','hypothesis':true,'epistemic_status':'observation',"
     "'observed_at':'2024-03-01T08:00:00Z','evidence_refs':['e']}",
     "FIMI_EPISTEMIC_STATUS_CONFLICT@hypothesis"},
    {"fimi", "{'labels':['Actor'],'name':'a','epistemic_status':'rumour','hypothesis':'yes'}",
     "FIMI_EPISTEMIC_STATUS_INVALID@epistemic_status FIMI_HYPOTHESIS_MARKER_INVALID@hypothesis"},
    {"fimi", "{'labels':['Actor'],'name':'a','epistemic_status':'observation'}",
     "FIMI_OBSERVATION_TIME_REQUIRED@observed_at FIMI_OBSERVATION_EVIDENCE_REQUIRED@evidence_refs"},
    {"fimi", "{'labels':['Campaign'],'name':'x','hypothesis':true,'intended_status':'validated'}",
     "FIMI_HYPOTHESIS_NOT_VALIDATABLE@intended_status"},
    {"fimi", "{'labels':['Campaign'],'name':'x','attributed_to':['actor-1']}",
     "FIMI_ATTRIBUTION_EVIDENCE_REQUIRED@attributed_to"},
    {"fimi", "{'labels':['Campaign'],'name':'x','attributed_to':'actor-1','hypothesis':true}", ""},
    {"fimi", "{'labels':['Campaign'],'name':'x','attributed_to':['actor-1'],'evidence_refs':['e']}", ""},
    {"fimi", "{'labels':['Campaign'],'name':'x','first_seen':'2024-03-02T00:00:00Z','last_seen':'2024-03-01T00:00:00Z'}",
     "FIMI_LAST_SEEN_BEFORE_FIRST_SEEN@last_seen"},
    {"fimi", "{'labels':['Account']}", "FIMI_ACCOUNT_PLATFORM_REQUIRED@platform FIMI_ACCOUNT_HANDLE_REQUIRED@handle"},
    {"fimi", "{'labels':['Account'],'platform':'telegram','handle':'@x'}", ""},
    {"fimi", "{'labels':['CoordinationCluster'],'members':['a','\\u0061',' ']}",
     "FIMI_COORDINATION_MEMBERS_REQUIRED@members FIMI_COORDINATION_EVIDENCE_REQUIRED@evidence_refs"},
    {"fimi", "{'labels':['CoordinationCluster'],'members':['a','b'],'evidence_refs':['e']}", ""},
    {"fimi", "{'labels':['CoordinationCluster'],'members':['a',1,'b'],'hypothesis':true}", ""},
    {"fimi", "{'labels':['Outlet']}", "FIMI_NAME_REQUIRED@name"},
    {"fimi", "{'labels':['Narrative'],'name':'n','confidence':1.5}", "FIMI_CONFIDENCE_INVALID@confidence"},
    {"fimi", "{'labels':['ThreatActor']}", "FIMI_NODE_TYPE_UNKNOWN@labels"},
    {"fimi", "{'relationship_type':'Amplifies','source_labels':['Account'],'target_labels':['Narrative']}", ""},
    {"fimi", "{'relationship_type':'Repeats','source_labels':['Outlet'],'target_labels':['Claim']}", ""},
    {"fimi", "{'relationship_type':'Repeats','source_labels':['Claim'],'target_labels':['Narrative']}",
     "FIMI_RELATIONSHIP_ENDPOINTS_NOT_ALLOWED@relationship_type"},
    {"fimi", "{'relationship_type':'Contradicts','source_labels':['Claim'],'target_labels':['Account']}",
     "FIMI_RELATIONSHIP_ENDPOINTS_NOT_ALLOWED@relationship_type"},
    {"fimi", "{'relationship_type':'OriginatesFrom','source_labels':['Narrative'],'target_labels':['Outlet']}", ""},
    {"fimi", "{'relationship_type':'Targets','source_labels':['Campaign'],'target_labels':['Actor']}", ""},
    {"fimi", "{'relationship_type':'CoordinatesWith','source_labels':['Account'],'target_labels':['Account']}", ""},

    /* ---- crisis ---- */
    {"crisis",
     "{'id':'ev-1','labels':['CrisisEvent'],'name':'Flood','started_at':'2024-05-01T00:00:00Z',"
     "'ended_at':'2024-05-03T00:00:00Z','severity':4}",
     ""},
    {"crisis", "{'labels':['CrisisEvent']}",
     "CRISIS_NAME_REQUIRED@name CRISIS_EVENT_STARTED_AT_REQUIRED@started_at CRISIS_EVENT_SEVERITY_REQUIRED@severity"},
    {"crisis", "{'labels':['CrisisEvent'],'name':'F','started_at':'2024-05-03T00:00:00Z','ended_at':'2024-05-01T00:00:00Z',"
               "'severity':6}",
     "CRISIS_EVENT_ENDED_BEFORE_STARTED@ended_at CRISIS_EVENT_SEVERITY_INVALID@severity"},
    {"crisis", "{'labels':['CrisisEvent'],'name':'F','started_at':'2024-05-03T00:00:00Z','severity':2.5}",
     "CRISIS_EVENT_SEVERITY_INVALID@severity"},
    {"crisis", "{'labels':['CrisisEvent'],'name':'F','started_at':'yesterday','severity':'high'}",
     "CRISIS_TIMESTAMP_INVALID@started_at CRISIS_EVENT_SEVERITY_INVALID@severity"},
    {"crisis", "{'labels':['Location'],'place_name':'Khartoum'}", ""},
    {"crisis", "{'labels':['Location'],'iso_country_code':'SD','latitude':15.5,'longitude':32.56}", ""},
    {"crisis", "{'labels':['Location'],'iso_country_code':'sd'}",
     "CRISIS_LOCATION_COUNTRY_CODE_INVALID@iso_country_code"},
    {"crisis", "{'labels':['Location'],'latitude':45,'longitude':200}", "CRISIS_LOCATION_LONGITUDE_INVALID@longitude"},
    {"crisis", "{'labels':['Location'],'longitude':'east'}",
     "CRISIS_LOCATION_LONGITUDE_INVALID@longitude CRISIS_LOCATION_COORDINATES_INCOMPLETE@latitude"},
    {"crisis", "{'labels':['Location'],'place_name':''}", "CRISIS_LOCATION_REQUIRED@-"},
    {"crisis", "{'labels':['HumanitarianNeed'],'sector':'health','people_in_need':1000,'people_targeted':800}", ""},
    {"crisis", "{'labels':['HumanitarianNeed']}",
     "CRISIS_NEED_SECTOR_REQUIRED@sector CRISIS_NEED_PEOPLE_IN_NEED_REQUIRED@people_in_need"},
    {"crisis", "{'labels':['HumanitarianNeed'],'sector':'medical','people_in_need':-1}",
     "CRISIS_NEED_SECTOR_INVALID@sector CRISIS_NEED_PEOPLE_IN_NEED_INVALID@people_in_need"},
    {"crisis", "{'labels':['HumanitarianNeed'],'sector':'wash','people_in_need':1.5,'people_targeted':'many'}",
     "CRISIS_NEED_PEOPLE_IN_NEED_INVALID@people_in_need CRISIS_NEED_PEOPLE_TARGETED_INVALID@people_targeted"},
    {"crisis", "{'labels':['HumanitarianNeed'],'sector':'emergency_telecommunications','people_in_need':1000,"
               "'people_targeted':2000}",
     "CRISIS_NEED_TARGETED_EXCEEDS_IN_NEED@people_targeted"},
    {"crisis", "{'labels':['HumanitarianNeed'],'sector':'camp_management','people_in_need':99999999999999999999}",
     "CRISIS_NEED_PEOPLE_IN_NEED_INVALID@people_in_need"},
    {"crisis", "{'labels':['Organization']}", "CRISIS_NAME_REQUIRED@name"},
    {"crisis", "{'labels':['Observation'],'observed_at':'2024-05-02T00:00:00Z','reported_at':'2024-05-01T00:00:00Z',"
               "'source':'OCHA'}",
     "CRISIS_OBSERVATION_AFTER_REPORT@observed_at"},
    {"crisis", "{'labels':['Observation'],'observed_at':'2024-05-01T00:00:00Z'}",
     "~CRISIS_OBSERVATION_SOURCE_MISSING@source"},
    {"crisis", "{'labels':['Observation'],'reported_by':'IFRC'}",
     "CRISIS_OBSERVATION_OBSERVED_AT_REQUIRED@observed_at"},
    {"crisis", "{'labels':['Organization'],'name':'WFP','confidence':-0.1}", "CRISIS_CONFIDENCE_INVALID@confidence"},
    {"crisis", "{'relationship_type':'OccursAt','source_labels':['CrisisEvent'],'target_labels':['Location']}", ""},
    {"crisis", "{'relationship_type':'Needs','source_labels':['Location'],'target_labels':['HumanitarianNeed']}", ""},
    {"crisis", "{'relationship_type':'EscalatesTo','source_labels':['CrisisEvent'],'target_labels':['Location']}",
     "CRISIS_RELATIONSHIP_ENDPOINTS_NOT_ALLOWED@relationship_type"},
    {"crisis", "{'relationship_type':'ReportedBy','source_labels':['Observation'],'target_labels':['Organization']}",
     ""},
    {"crisis", "'text'", "CRISIS_PAYLOAD_INVALID@-"},

    /* ---- medical (reference rules, then the recommendation refusal) ---- */
    {"medical", "{'labels':['Study']}", ""},
    {"medical", "{'labels':['Dataset'],'contains_participant_level':true}",
     "MEDICAL_DEIDENTIFICATION_REQUIRED@deidentification"},
    {"medical",
     "{'labels':['Dataset'],'contains_participant_level':true,'deidentification':{'method':'SafeHarbor',"
     "'attested_by':'IRB-7'}}",
     ""},
    {"medical",
     "{'labels':['Dataset'],'contains_participant_level':true,'deidentification':{'method':'Hashing',"
     "'attested_by':'IRB-7'}}",
     "MEDICAL_DEIDENTIFICATION_REQUIRED@deidentification"},
    {"medical",
     "{'labels':['Dataset'],'contains_participant_level':true,'deidentification':{'method':'SyntheticData',"
     "'attested_by':'  '}}",
     "MEDICAL_DEIDENTIFICATION_REQUIRED@deidentification"},
    {"medical", "{'labels':['Dataset'],'contains_participant_level':'yes'}", ""},
    {"medical", "{'id':'f1','labels':['Finding'],'intended_status':'validated'}", "EVIDENCE_REQUIRED@evidence_refs"},
    {"medical", "{'labels':['Finding'],'intended_status':'validated','evidence_refs':[1,null]}",
     "EVIDENCE_REQUIRED@evidence_refs"},
    {"medical", "{'labels':['Finding'],'intended_status':'Validated'}", ""},
    {"medical", "{'labels':['Finding'],'intended_status':'validated','evidence_refs':['e1']}", ""},
    {"medical", "{'labels':['EffectEstimate']}", "MEDICAL_EFFECT_ESTIMATE_STUDY_REF@study_refs"},
    {"medical", "{'labels':['EffectEstimate'],'study_refs':['s1','s2']}", "MEDICAL_EFFECT_ESTIMATE_STUDY_REF@study_refs"},
    {"medical", "{'labels':['EffectEstimate'],'study_refs':['s1',3]}", ""},
    {"medical", "{'labels':['EffectEstimate'],'contains_participant_level':true,'intended_status':'validated'}",
     "MEDICAL_DEIDENTIFICATION_REQUIRED@deidentification EVIDENCE_REQUIRED@evidence_refs "
     "MEDICAL_EFFECT_ESTIMATE_STUDY_REF@study_refs"},
    {"medical", "{'labels':['AdverseEvent']}", "MEDICAL_ADVERSE_EVENT_WINDOW_REQUIRED@observation_window"},
    {"medical", "{'labels':['AdverseEvent'],'observation_window':{'start':'2024-01-01','end':' '}}",
     "MEDICAL_ADVERSE_EVENT_WINDOW_REQUIRED@observation_window"},
    {"medical", "{'labels':['AdverseEvent'],'observation_window':{'start':1,'end':'2024-02-01'}}",
     "MEDICAL_ADVERSE_EVENT_WINDOW_REQUIRED@observation_window"},
    {"medical", "{'labels':['AdverseEvent'],'observation_window':{'start':'2024-01-01','end':'2024-02-01'}}", ""},
    {"medical", "{'labels':[1,'AdverseEvent']}", "MEDICAL_ADVERSE_EVENT_WINDOW_REQUIRED@observation_window"},
    {"medical", "{'labels':['Patient'],'intended_status':'validated'}", ""},
    {"medical", "{'labels':['Condition'],'recommendation_requested':true}",
     "MEDICAL_TREATMENT_RECOMMENDATION_UNSUPPORTED@recommendation_requested"},
    {"medical", "{'labels':['Condition'],'recommendation_requested':false,'request_kind':'Treatment-Recommendation'}",
     "MEDICAL_TREATMENT_RECOMMENDATION_UNSUPPORTED@request_kind"},
    {"medical", "{'operation':'suggest dosing'}", "MEDICAL_TREATMENT_RECOMMENDATION_UNSUPPORTED@operation"},
    {"medical", "{'operation':'node.validate','request_kind':'evidence_summary'}", ""},
    {"medical", "{'labels':['TreatmentRecommendation']}", "MEDICAL_TREATMENT_RECOMMENDATION_UNSUPPORTED@labels"},
    {"medical", "{'labels':['AdverseEvent'],'request_kind':'clinical advice'}",
     "MEDICAL_ADVERSE_EVENT_WINDOW_REQUIRED@observation_window MEDICAL_TREATMENT_RECOMMENDATION_UNSUPPORTED@request_kind"},
    {"medical", "'free text'", ""},

    /* ---- research (reference rules, then identifiers) ---- */
    {"research", "{'labels':['Author']}", "RESEARCH_NODE_TYPE_REQUIRED@node_type"},
    {"research", "{}", "RESEARCH_NODE_TYPE_REQUIRED@node_type"},
    {"research", "[]", "RESEARCH_NODE_TYPE_REQUIRED@node_type"},
    {"research", "{'labels':['Dataset']}", ""},
    {"research", "{'id':'c1','labels':['Claim']}", "RESEARCH_CLAIM_ATTRIBUTION_REQUIRED@asserting_work"},
    {"research", "{'labels':['Claim'],'asserting_work':'w1','credited_actor':' '}",
     "RESEARCH_CLAIM_ATTRIBUTION_REQUIRED@asserting_work"},
    {"research", "{'labels':['Claim'],'asserting_work':'w1','credited_actor':'a1'}", ""},
    {"research", "{'labels':['Claim'],'asserting_work':'w1','credited_actor':'a1','intended_status':'validated'}",
     "EVIDENCE_REQUIRED@evidence_refs"},
    {"research", "{'labels':['Claim'],'intended_status':'validated'}",
     "RESEARCH_CLAIM_ATTRIBUTION_REQUIRED@asserting_work EVIDENCE_REQUIRED@evidence_refs"},
    {"research", "{'labels':['Finding']}", "RESEARCH_FINDING_RESULT_REQUIRED@result_refs"},
    {"research", "{'labels':['Finding'],'result_refs':['r1'],'intended_status':'validated','evidence_refs':['e']}", ""},
    {"research", "{'labels':['Result']}", "RESEARCH_RESULT_SOURCE_REQUIRED@source_refs"},
    {"research", "{'labels':['Result'],'source_refs':['s']}", ""},
    {"research", "{'labels':['ReplicationAttempt']}", "RESEARCH_REPLICATION_ATTRIBUTION_REQUIRED@replication_attempts"},
    {"research",
     "{'labels':['ReplicationAttempt'],'replication_attempts':[{'target_work':'w1','reporting_work':'w2',"
     "'outcome':'maybe'}]}",
     "RESEARCH_REPLICATION_ATTRIBUTION_REQUIRED@replication_attempts"},
    {"research",
     "{'labels':['ReplicationAttempt'],'replication_attempts':[{'target_work':'w1','reporting_work':'w2',"
     "'outcome':'partially_successful'},{'target_work':'w3','outcome':7}]}",
     ""},
    {"research",
     "{'labels':['ReplicationAttempt'],'replication_attempts':[{'target_work':'w1','reporting_work':'w2',"
     "'outcome':'failed'},{'target_work':'w3','reporting_work':'w4','outcome':'successful'}]}",
     "RESEARCH_REPLICATION_ATTRIBUTION_REQUIRED@replication_attempts"},
    {"research",
     "{'labels':['ReplicationAttempt'],'replication_attempts':[{'target_work':'w1','reporting_work':'',"
     "'outcome':'inconclusive'}]}",
     "RESEARCH_REPLICATION_ATTRIBUTION_REQUIRED@replication_attempts"},
    {"research",
     "{'labels':['Study'],'intended_status':'validated','supporting_works':[{'work_id':'w1','retracted':true},"
     "{'work_id':'w2','retracted':true,'retraction_override':{'justification':'j','recorded_by':'r'}},"
     "{'retracted':true},{'work_id':'w4','retracted':true,'retraction_override':{'justification':' ',"
     "'recorded_by':'r'}},{'work_id':'w5','retracted':false}]}",
     "RESEARCH_RETRACTED_SUPPORT_REQUIRES_OVERRIDE@supporting_works "
     "RESEARCH_RETRACTED_SUPPORT_REQUIRES_OVERRIDE@supporting_works"},
    {"research", "{'labels':['Study'],'supporting_works':[{'work_id':'w1','retracted':true}]}", ""},
    {"research", "{'labels':['Publication'],'doi':'https://doi.org/10.1000/ABC-def','orcid':'0000-0002-1825-0097'}",
     ""},
    {"research", "{'labels':['Publication'],'doi':' doi:DOI:10.1000/x ','orcid':'https://orcid.org/0000-0002-1694-233x'}",
     ""},
    {"research", "{'labels':['Publication'],'doi':'10.abc/x','orcid':'0000-0002-1825-0098'}",
     "RESEARCH_DOI_INVALID@doi RESEARCH_ORCID_INVALID@orcid"},
    {"research", "{'labels':['Publication'],'doi':'10.1000/a b','orcid':42}",
     "RESEARCH_DOI_INVALID@doi RESEARCH_ORCID_INVALID@orcid"},
    {"research", "{'labels':['Publication'],'doi':'','orcid':null}", "RESEARCH_DOI_INVALID@doi"},
    {"research", "{'labels':['Person'],'orcid':'0000-0002-1825-00977'}", "RESEARCH_ORCID_INVALID@orcid"},
};

static void run_rule_cases(provider *by_domain[], const char *const domains[], void *handles[], size_t count) {
  for (size_t i = 0; i < sizeof rule_cases / sizeof rule_cases[0]; i++) {
    const rule_case *c = &rule_cases[i];
    size_t d = 0;
    while (d < count && strcmp(domains[d], c->domain) != 0) d++;
    if (d == count || !handles[d]) {
      check(false, "case %zu: no provider for %s", i, c->domain);
      continue;
    }
    char label[64], request_id[32], status[32], summary[2048];
    snprintf(label, sizeof label, "%s case %zu", c->domain, i);
    snprintf(request_id, sizeof request_id, "req-%zu", i);
    char *payload = unquote(c->payload);
    char *request = make_request(c->domain, request_id, payload);
    char *response;
    int32_t rc = invoke_raw(by_domain[d], handles[d], request, strlen(request), &response);
    check(rc == 0, "%s: invoke status %d", label, rc);
    if (rc == 0) {
      sdp_json payload_json;
      if (sdp_json_parse((const uint8_t *)payload, strlen(payload), &payload_json, NULL) != SDP_JSON_OK) {
        check(false, "%s: test payload is not JSON", label);
      } else if (read_response(label, c->domain, response, request_id, &payload_json, status, sizeof status, summary,
                               sizeof summary)) {
        check(strcmp(summary, c->expected) == 0, "%s: issues\n      got:      %s\n      expected: %s\n      payload: %s",
              label, summary, c->expected, payload);
      }
    }
    free(response);
    free(request);
    free(payload);
  }
}

/* ---------------------------------------------------------------------- */
/* ABI, envelope and limits                                                */
/* ---------------------------------------------------------------------- */

static void test_metadata_and_health(provider *p, const char *domain, void *handle) {
  char expected[512];
  snprintf(expected, sizeof expected,
           "{\"schema_version\":\"1\",\"provider_id\":\"service.domain.%s\",\"provider_version\":\"0.3.1\","
           "\"domain\":\"%s\",\"thread_safe\":false,\"max_concurrency\":1,\"max_request_bytes\":1048576,"
           "\"max_response_bytes\":1048576,\"capabilities\":[{\"name\":\"node.validate\",\"version\":\"1\"}]}",
           domain, domain);
  buffer_v1 out = {0};
  check(p->abi_version() == 0x00010001u, "%s: abi_version", domain);
  check(p->metadata(NULL, 0, &out) == 0, "%s: metadata(empty)", domain);
  char *text = take(p, &out);
  check(strcmp(text, expected) == 0, "%s: metadata text %s", domain, text);
  free(text);
  uint8_t context[3] = {'{', '}', 'x'};
  check(p->metadata(context, sizeof context, &out) == 0, "%s: metadata ignores host context", domain);
  /* partial copies */
  uint8_t small[10];
  check(p->buffer_copy(&out, small, sizeof small) == sizeof small && memcmp(small, expected, sizeof small) == 0,
        "%s: buffer_copy partial", domain);
  check(p->buffer_copy(&out, NULL, 10) == 0 && p->buffer_copy(NULL, small, 10) == 0, "%s: buffer_copy nulls", domain);
  p->free_buffer(&out);
  p->free_buffer(&out); /* zeroed: no-op */
  p->free_buffer(NULL);
  check(out.ptr == NULL && out.len == 0, "%s: free twice", domain);

  check(p->metadata(NULL, 5, &out) == 1 && out.ptr == NULL, "%s: metadata(NULL, 5) -> 1", domain);
  check(p->metadata(NULL, 0, NULL) == 1, "%s: metadata(out NULL) -> 1", domain);
  buffer_v1 dirty = {(uint8_t *)small, 3};
  check(p->metadata(NULL, 0, &dirty) == 1 && dirty.ptr == small && dirty.len == 3, "%s: metadata(dirty out) -> 1",
        domain);

  check(p->health(handle, &out) == 0, "%s: health", domain);
  text = take(p, &out);
  check(strcmp(text, "{\"schema_version\":\"1\",\"status\":\"ready\"}") == 0, "%s: health text %s", domain, text);
  free(text);
  check(p->health(NULL, &out) == 1 && out.ptr == NULL, "%s: health(NULL) -> 1", domain);
  check(p->health(handle, NULL) == 1, "%s: health(out NULL) -> 1", domain);
}

static void test_create(provider *p, const char *domain) {
  const char *bad[] = {
      "{\"schema_version\":\"1\",\"domain\":\"other\"}",
      "{\"schema_version\":\"2\",\"domain\":\"%s\"}",
      "{\"schema_version\":\"1\",\"domain\":\"%s\",\"extra\":1}",
      "{\"schema_version\":\"1\",\"domain\":\"%s\",\"domain\":\"%s\"}",
      "{\"domain\":\"%s\"}",
      "{\"schema_version\":1,\"domain\":\"%s\"}",
      "[\"%s\"]",
      "{\"schema_version\":\"1\",\"domain\":\"%s\"",
      "",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char config[256];
    snprintf(config, sizeof config, bad[i], domain, domain);
    uint8_t *bytes = exact_copy(config, strlen(config));
    void *handle = p->create(bytes, strlen(config));
    check(handle == NULL, "%s: create refuses config %zu (%s)", domain, i, config);
    p->destroy(handle);
    free(bytes);
  }
  check(p->create(NULL, 10) == NULL, "%s: create(NULL) -> NULL", domain);
  p->destroy(NULL);
  void *handle = create_for(p, domain);
  check(handle != NULL, "%s: create", domain);
  p->destroy(handle);
}

static void expect_status(provider *p, void *handle, const char *label, const char *request, size_t len,
                          int32_t expected) {
  char *response;
  int32_t status = invoke_raw(p, handle, request, len, &response);
  check(status == expected, "%s: status %d, expected %d", label, status, expected);
  free(response);
}

static void test_envelopes(provider *p, const char *domain, void *handle) {
  char label[96];
  struct {
    const char *request; /* %s is the domain */
    int32_t status;
  } cases[] = {
      {"{'schema_version':'1','request_id':'r','domain':'%s','operation':'node.validate','payload':{}}", 0},
      {"{'payload':{},'operation':'node.validate','domain':'%s','request_id':'','schema_version':'1',"
       "'workspace_id':'w','snapshot_id':'s'}",
       0},
      {" \n{'schema_version':'1','request_id':'r','domain':'%s','operation':'node.validate','payload':null}\t\r\n", 0},
      {"{'schema_version':'1','request_id':'r','domain':'%s','operation':'node.validate','payload':{},'extra':1}", 2},
      {"{'schema_version':'1','request_id':'r','request_id':'s','domain':'%s','operation':'node.validate',"
       "'payload':{}}",
       2},
      {"{'schema_version':'1','request_id':'r','domain':'%s','operation':'node.validate','payload':{'a':1,'a':2}}", 2},
      {"{'schema_version':'1','request_id':'r','domain':'%s','operation':'node.validate','payload':{'a':1,'\\u0061':2}}",
       2},
      {"{'schema_version':'2','request_id':'r','domain':'%s','operation':'node.validate','payload':{}}", 2},
      {"{'schema_version':1,'request_id':'r','domain':'%s','operation':'node.validate','payload':{}}", 2},
      {"{'schema_version':'1','request_id':'r','domain':'%s-x','operation':'node.validate','payload':{}}", 2},
      {"{'schema_version':'1','request_id':7,'domain':'%s','operation':'node.validate','payload':{}}", 2},
      {"{'schema_version':'1','domain':'%s','operation':'node.validate','payload':{}}", 2},
      {"{'schema_version':'1','request_id':'r','domain':'%s','operation':'node.validate'}", 2},
      {"{'schema_version':'1','request_id':'r','domain':'%s','operation':'node.explain','payload':{}}", 3},
      {"{'schema_version':'1','request_id':'r','domain':'%s','operation':'','payload':{}}", 3},
      {"{'schema_version':'1','request_id':'r','domain':'%s','operation':5,'payload':{}}", 2},
      {"{'schema_version':'1','request_id':'r','domain':'other','operation':'node.explain','payload':{}}", 2},
      {"{'schema_version':'1','request_id':'r','domain':'%s','operation':'node.validate','payload':{},"
       "'workspace_id':5}",
       2},
      {"{'schema_version':'1','request_id':'r','domain':'%s','operation':'node.validate','payload':{}} x", 2},
      {"{'schema_version':'1','request_id':'r','domain':'%s','operation':'node.validate','payload':{}", 2},
      {"{'schema_version':'1','request_id':'\\ud800','domain':'%s','operation':'node.validate','payload':{}}", 2},
      {"{'schema_version':'1','request_id':'\\udc00\\ud800','domain':'%s','operation':'node.validate','payload':{}}",
       2},
      {"{'schema_version':'1','request_id':'\\x','domain':'%s','operation':'node.validate','payload':{}}", 2},
      {"{'schema_version':'1','request_id':'r','domain':'%s','operation':'node.validate','payload':[01]}", 2},
      {"{'schema_version':'1','request_id':'r','domain':'%s','operation':'node.validate','payload':[1.]}", 2},
      {"{'schema_version':'1','request_id':'r','domain':'%s','operation':'node.validate','payload':[-]}", 2},
      {"{'schema_version':'1','request_id':'r','domain':'%s','operation':'node.validate','payload':[1,]}", 2},
      {"{'schema_version':'1','request_id':'r','domain':'%s','operation':'node.validate','payload':{'a':1,}}", 2},
      {"{'schema_version':'1','request_id':'r','domain':'%s','operation':'node.validate','payload':[tru]}", 2},
      {"{'schema_version':'1','request_id':'r','domain':'%s','operation':'node.validate','payload':[NaN]}", 2},
      {"{'schema_version':'1','request_id':'r','domain':'%s','operation':'node.validate','payload':[1e5,-0.0e-1,"
       "12345678901234567890123e400]}",
       0},
      {"['schema_version']", 2},
      {"'%s'", 2},
      {"", 2},
      {"   ", 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char request[1024];
    char *pattern = unquote(cases[i].request);
    snprintf(request, sizeof request, pattern, domain);
    free(pattern);
    snprintf(label, sizeof label, "%s envelope %zu", domain, i);
    expect_status(p, handle, label, request, strlen(request), cases[i].status);
  }

  /* raw bytes the quote trick cannot express */
  const char *templates[] = {
      "{\"schema_version\":\"1\",\"request_id\":\"a\x01\",\"domain\":\"%s\",\"operation\":\"node.validate\","
      "\"payload\":{}}",
      "{\"schema_version\":\"1\",\"request_id\":\"\xc0\xaf\",\"domain\":\"%s\",\"operation\":\"node.validate\","
      "\"payload\":{}}",
      "{\"schema_version\":\"1\",\"request_id\":\"\xed\xa0\x80\",\"domain\":\"%s\",\"operation\":\"node.validate\","
      "\"payload\":{}}",
      "{\"schema_version\":\"1\",\"request_id\":\"\xf4\x90\x80\x80\",\"domain\":\"%s\",\"operation\":"
      "\"node.validate\",\"payload\":{}}",
      "{\"schema_version\":\"1\",\"request_id\":\"\xe2\x82\",\"domain\":\"%s\",\"operation\":\"node.validate\","
      "\"payload\":{}}",
      "\xef\xbb\xbf{\"schema_version\":\"1\",\"request_id\":\"r\",\"domain\":\"%s\",\"operation\":\"node.validate\","
      "\"payload\":{}}",
  };
  for (size_t i = 0; i < sizeof templates / sizeof templates[0]; i++) {
    char request[512];
    snprintf(request, sizeof request, templates[i], domain);
    snprintf(label, sizeof label, "%s raw envelope %zu", domain, i);
    expect_status(p, handle, label, request, strlen(request), 2);
  }
  /* an embedded NUL byte between tokens; and a request not terminated at all */
  char with_nul[256];
  int n = snprintf(with_nul, sizeof with_nul,
                   "{\"schema_version\":\"1\",\"request_id\":\"r\",\"domain\":\"%s\",\"operation\":\"node.validate\","
                   "\"payload\":{}} ",
                   domain);
  with_nul[n - 1] = '\0';
  snprintf(label, sizeof label, "%s NUL byte", domain);
  expect_status(p, handle, label, with_nul, (size_t)n, 2);
  snprintf(label, sizeof label, "%s prefix of a request", domain);
  expect_status(p, handle, label, with_nul, (size_t)n - 5, 2);

  /* argument errors */
  buffer_v1 out = {0};
  uint8_t byte = '{';
  check(p->invoke(NULL, &byte, 1, &out) == 1 && out.ptr == NULL, "%s: invoke(NULL handle) -> 1", domain);
  check(p->invoke(handle, NULL, 0, &out) == 1 && out.ptr == NULL, "%s: invoke(NULL request) -> 1", domain);
  check(p->invoke(handle, &byte, 1, NULL) == 1, "%s: invoke(NULL out) -> 1", domain);
  uint8_t fake[4];
  buffer_v1 dirty = {fake, 4};
  check(p->invoke(handle, &byte, 1, &dirty) == 1 && dirty.ptr == fake && dirty.len == 4,
        "%s: invoke(dirty out) -> 1, untouched", domain);
  uint64_t not_a_handle[8] = {0};
  check(p->invoke(not_a_handle, &byte, 1, &out) == 1, "%s: invoke(foreign pointer) -> 1", domain);
}

static void test_request_id_echo(provider *p, const char *domain, void *handle) {
  const char *ids[] = {"a\\\"b\\\\c\\/\\u00e9\\ud83d\\ude00\\n\\u0000\\u001f", "\xc3\xa9\xf0\x9f\x98\x80 plain", ""};
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
    char *request = make_request(domain, ids[i], "{}");
    char *response;
    int32_t status = invoke_raw(p, handle, request, strlen(request), &response);
    check(status == 0, "%s: echo %zu status %d", domain, i, status);
    if (status == 0) {
      sdp_json sent, got, sent_id, got_id;
      sdp_json_parse((const uint8_t *)request, strlen(request), &sent, NULL);
      check(sdp_json_parse((const uint8_t *)response, strlen(response), &got, NULL) == SDP_JSON_OK &&
                get(&sent, "request_id", &sent_id) && get(&got, "request_id", &got_id) &&
                sdp_json_strings_equal(&sent_id, &got_id),
            "%s: request_id %zu echoed exactly", domain, i);
    }
    free(response);
    free(request);
  }
}

/* Builds {"schema_version":...,"payload":{"labels":["X"],"pad":"aaaa..."}} of exactly `total` bytes. */
static char *padded_request(const char *domain, size_t total) {
  char head[256];
  int n = snprintf(head, sizeof head,
                   "{\"schema_version\":\"1\",\"request_id\":\"big\",\"domain\":\"%s\",\"operation\":\"node.validate\","
                   "\"payload\":{\"labels\":[\"Dataset\"],\"pad\":\"",
                   domain);
  const char *tail = "\"}}";
  char *request = malloc(total + 1);
  memcpy(request, head, (size_t)n);
  size_t pad = total - (size_t)n - strlen(tail);
  memset(request + n, 'a', pad);
  memcpy(request + n + pad, tail, strlen(tail) + 1);
  return request;
}

static void test_limits(provider *p, const char *domain, void *handle) {
  char label[64];
  char *request = padded_request(domain, 1048576);
  snprintf(label, sizeof label, "%s request of exactly 1 MiB", domain);
  expect_status(p, handle, label, request, 1048576, 0);
  free(request);
  request = padded_request(domain, 1048577);
  snprintf(label, sizeof label, "%s request over 1 MiB", domain);
  expect_status(p, handle, label, request, 1048577, 2);
  free(request);

  /* depth: the envelope is level 1, so 63 nested arrays in payload reach the limit of 64 */
  for (int depth = 63; depth <= 64; depth++) {
    char payload[200] = {0};
    for (int i = 0; i < depth; i++) payload[i] = '[';
    for (int i = 0; i < depth; i++) payload[depth + i] = ']';
    char *deep = make_request(domain, "deep", payload);
    snprintf(label, sizeof label, "%s payload depth %d", domain, depth);
    expect_status(p, handle, label, deep, strlen(deep), depth == 63 ? 0 : 2);
    free(deep);
  }
}

/* Many retracted supporting works: each yields an issue, so the response outgrows 1 MiB. */
static void test_response_too_large(provider *p, void *handle) {
  const char *item = "{\"work_id\":\"w\",\"retracted\":true},";
  size_t count = 8000, item_len = strlen(item);
  char *payload = malloc(count * item_len + 128);
  size_t n = (size_t)sprintf(payload, "{\"labels\":[\"Study\"],\"intended_status\":\"validated\",\"supporting_works\":[");
  size_t head = n;
  for (size_t i = 0; i < count; i++, n += item_len) memcpy(payload + n, item, item_len);
  strcpy(payload + n - 1, "]}");
  char *request = make_request("research", "large", payload);
  expect_status(p, handle, "research response over 1 MiB", request, strlen(request), 5);
  free(request);
  /* one tenth of that fits */
  strcpy(payload + head + 800 * item_len - 1, "]}");
  request = make_request("research", "fits", payload);
  char *response;
  check(invoke_raw(p, handle, request, strlen(request), &response) == 0 && response && strlen(response) < 1048576,
        "research: 800 issues fit");
  free(response);
  free(request);
  free(payload);
}

static void test_table(provider *p, const char *domain, provider *other) {
  const service_domain_provider_api_v1 *api = p->get_api();
  check(api != NULL && api->abi_major == 1 && api->abi_minor == 1 && api->struct_size == 64, "%s: table header",
        domain);
  if (!api) return;
  check(api->metadata && api->create && api->invoke && api->health && api->destroy && api->free_buffer,
        "%s: table functions", domain);
  buffer_v1 out = {0};
  check(api->metadata((slice_v1){NULL, 0}, &out) == 0 && out.len > 0, "%s: table metadata", domain);
  api->free_buffer(out);
  char config[128];
  snprintf(config, sizeof config, "{\"schema_version\":\"1\",\"domain\":\"%s\"}", domain);
  void *handle = (void *)1;
  check(api->create((slice_v1){(const uint8_t *)config, strlen(config)}, NULL) == 1, "%s: table create(NULL out)",
        domain);
  check(api->create((slice_v1){(const uint8_t *)"{}", 2}, &handle) == 2 && handle == NULL, "%s: table create bad",
        domain);
  check(api->create((slice_v1){(const uint8_t *)config, strlen(config)}, &handle) == 0 && handle,
        "%s: table create", domain);
  char *request = make_request(domain, "table", "{}");
  out = (buffer_v1){0};
  check(api->invoke(handle, (slice_v1){(const uint8_t *)request, strlen(request)}, &out) == 0 && out.len > 0,
        "%s: table invoke", domain);
  api->free_buffer(out);
  out = (buffer_v1){0};
  check(api->health(handle, &out) == 0, "%s: table health", domain);
  api->free_buffer(out);
  api->free_buffer((buffer_v1){0});
  /* a handle from another provider library is refused */
  if (other) {
    out = (buffer_v1){0};
    check(other->invoke(handle, (const uint8_t *)request, strlen(request), &out) == 1 && out.ptr == NULL,
          "%s: handle refused by another provider", domain);
  }
  free(request);
  api->destroy(handle);
}

static void test_identifiers(void) {
  char out[128];
  struct {
    const char *input;
    const char *expected; /* NULL = invalid */
  } dois[] = {
      {"10.1000/ABC", "10.1000/abc"},
      {"  https://DOI.org/10.1000/XyZ  ", "10.1000/xyz"},
      {"doi:https://dx.doi.org/10.5555/Q", "10.5555/q"},
      {"10./x", NULL},
      {"10.12a/x", NULL},
      {"10.1000/", NULL},
      {"11.1000/x", NULL},
      {"10.1000/a\xc2\xa0" "b", NULL},
      {"   ", NULL},
  }, orcids[] = {
      {"0000-0002-1825-0097", "0000-0002-1825-0097"},
      {"orcid:000000021825009 7", NULL},
      {"https://orcid.org/0000-0002-1694-233x", "0000-0002-1694-233X"},
      {"0000000218250097", "0000-0002-1825-0097"},
      {"0000-0002-1825-009X", NULL},
      {"X000-0002-1825-0097", NULL},
      {"0000-0002-1825-009", NULL},
  };
  for (size_t i = 0; i < sizeof dois / sizeof dois[0]; i++) {
    bool ok = research_normalise_doi(dois[i].input, strlen(dois[i].input), out, sizeof out);
    check(dois[i].expected ? ok && strcmp(out, dois[i].expected) == 0 : !ok, "doi %zu (%s)", i, dois[i].input);
  }
  for (size_t i = 0; i < sizeof orcids / sizeof orcids[0]; i++) {
    bool ok = research_normalise_orcid(orcids[i].input, strlen(orcids[i].input), out, sizeof out);
    check(orcids[i].expected ? ok && strcmp(out, orcids[i].expected) == 0 : !ok, "orcid %zu (%s)", i,
          orcids[i].input);
  }
}

static void test_json_numbers(void) {
  struct {
    const char *text;
    double value;
  } cases[] = {{"0.8", 0.8}, {"-0", -0.0}, {"1e2", 100.0}, {"0.0001", 0.0001}, {"123456789012345678901234", 1.2345678901234568e23},
               {"1E-400", 0.0}, {"8e-1", 0.8}, {"80e-2", 0.8}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    sdp_json v;
    double d = -1;
    check(sdp_json_parse((const uint8_t *)cases[i].text, strlen(cases[i].text), &v, NULL) == SDP_JSON_OK &&
              sdp_json_number_double(&v, &d) && d == cases[i].value,
          "number %s -> %.17g", cases[i].text, d);
  }
  sdp_json v;
  double d;
  int64_t k;
  check(sdp_json_parse((const uint8_t *)"1e999", 5, &v, NULL) == SDP_JSON_OK && !sdp_json_number_double(&v, &d),
        "1e999 is not a double");
  check(sdp_json_parse((const uint8_t *)"-9223372036854775808", 20, &v, NULL) == SDP_JSON_OK &&
            sdp_json_number_int64(&v, &k) && k == INT64_MIN,
        "INT64_MIN");
  check(sdp_json_parse((const uint8_t *)"9223372036854775808", 19, &v, NULL) == SDP_JSON_OK &&
            !sdp_json_number_int64(&v, &k),
        "INT64_MAX + 1 refused");
}

/* ---------------------------------------------------------------------- */
/* Test providers                                                          */
/* ---------------------------------------------------------------------- */

typedef struct slow_call {
  provider *p;
  void *handle;
  int32_t status;
} slow_call;

static void *run_slow(void *arg) {
  slow_call *call = arg;
  char *request = make_request("cti", "slow", "{\"sleep_ms\":400}");
  char *response;
  call->status = invoke_raw(call->p, call->handle, request, strlen(request), &response);
  free(response);
  free(request);
  return NULL;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1000.0 + (double)t.tv_nsec / 1e6;
}

static void test_test_providers(const char *dir) {
  provider p;
  buffer_v1 out = {0};
  char *text, *response;
  char *request = make_request("cti", "t", "{\"labels\":[\"Indicator\"]}");

  if (load(&p, dir, "libservice_test_noop_provider.so")) {
    void *h = create_for(&p, "cti");
    check(h != NULL, "noop: create");
    check(invoke_raw(&p, h, request, strlen(request), &response) == 0 && response &&
              strcmp(response, "{\"schema_version\":\"1\",\"request_id\":\"t\",\"status\":\"accepted\",\"issues\":[],"
                               "\"diagnostics\":null}") == 0,
          "noop: accepts");
    free(response);
    expect_status(&p, h, "noop: bad envelope", "{}", 2, 2);
    p.destroy(h);
    dlclose(p.library);
  }
  if (load(&p, dir, "libservice_test_slow_provider.so")) {
    void *h = create_for(&p, "cti");
    char *slow = make_request("cti", "s", "{\"sleep_ms\":150}");
    double start = now_ms();
    check(invoke_raw(&p, h, slow, strlen(slow), &response) == 0, "slow: invoke");
    double elapsed = now_ms() - start;
    check(elapsed >= 150.0, "slow: slept %.0f ms", elapsed);
    free(response);
    free(slow);
    /* an overlapping call on the same handle is refused, not run concurrently */
    slow_call call = {&p, h, -1};
    pthread_t thread;
    pthread_create(&thread, NULL, run_slow, &call);
    struct timespec pause = {0, 100 * 1000000L};
    nanosleep(&pause, NULL);
    expect_status(&p, h, "slow: overlapping call", request, strlen(request), 4);
    pthread_join(thread, NULL);
    check(call.status == 0, "slow: first call completes");
    p.destroy(h);
    dlclose(p.library);
  }
  if (load(&p, dir, "libservice_test_bad_abi_provider.so")) {
    check(p.abi_version() == 0x00020001u, "bad_abi: abi_version 2.1");
    check(p.get_api()->abi_major == 2, "bad_abi: table major 2");
    dlclose(p.library);
  }
  if (load(&p, dir, "libservice_test_unhealthy_provider.so")) {
    void *h = create_for(&p, "cti");
    check(p.health(h, &out) == 0, "unhealthy: health call");
    text = take(&p, &out);
    check(strcmp(text, "{\"schema_version\":\"1\",\"status\":\"degraded\"}") == 0, "unhealthy: %s", text);
    free(text);
    p.destroy(h);
    dlclose(p.library);
  }
  if (load(&p, dir, "libservice_test_no_capability_provider.so")) {
    check(p.metadata(NULL, 0, &out) == 0, "no_capability: metadata");
    text = take(&p, &out);
    check(strstr(text, "\"capabilities\":[]}") != NULL, "no_capability: %s", text);
    free(text);
    void *h = create_for(&p, "cti");
    expect_status(&p, h, "no_capability: invoke", request, strlen(request), 3);
    p.destroy(h);
    dlclose(p.library);
  }
  if (load(&p, dir, "libservice_test_failing_provider.so")) {
    void *h = create_for(&p, "cti");
    expect_status(&p, h, "failing: invoke", request, strlen(request), 4);
    p.destroy(h);
    dlclose(p.library);
  }
  free(request);
}

/*
 * Vocabulary cases written by scripts/test-providers.mjs from each pack's
 * package.json: "domain<TAB>payload<TAB>forbidden" per line; the response must
 * not contain `forbidden` (so every declared label and relationship is known
 * to the C tables).
 */
static void run_vocabulary_cases(const char *path, provider *providers, const char *const domains[], void *handles[],
                                 size_t count) {
  FILE *file = fopen(path, "r");
  check(file != NULL, "open %s", path);
  if (!file) return;
  char line[4096];
  size_t cases = 0;
  while (fgets(line, sizeof line, file)) {
    line[strcspn(line, "\n")] = '\0';
    char *payload = strchr(line, '\t');
    char *forbidden = payload ? strchr(payload + 1, '\t') : NULL;
    if (!forbidden) continue;
    *payload++ = '\0';
    *forbidden++ = '\0';
    size_t d = 0;
    while (d < count && strcmp(domains[d], line) != 0) d++;
    if (d == count || !handles[d]) continue;
    char *request = make_request(line, "vocabulary", payload);
    char *response;
    int32_t status = invoke_raw(&providers[d], handles[d], request, strlen(request), &response);
    check(status == 0 && response && strstr(response, forbidden) == NULL, "%s vocabulary: %s gave %s", line, payload,
          response ? response : "no response");
    free(response);
    free(request);
    cases++;
  }
  fclose(file);
  check(cases > 0, "vocabulary cases found in %s", path);
}

/* ---------------------------------------------------------------------- */

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4) {
    fprintf(stderr, "usage: %s <providers-dir> <test-providers-dir> [vocabulary-cases.tsv]\n", argv[0]);
    return 2;
  }
  static const char *const domains[] = {"cti", "fimi", "crisis", "medical", "research"};
  enum { DOMAIN_COUNT = 5 };
  provider providers[DOMAIN_COUNT];
  provider *by_domain[DOMAIN_COUNT];
  void *handles[DOMAIN_COUNT] = {0};

  test_identifiers();
  test_json_numbers();

  for (size_t d = 0; d < DOMAIN_COUNT; d++) {
    char file[128];
    snprintf(file, sizeof file, "libservice_%s_provider.so", domains[d]);
    by_domain[d] = &providers[d];
    if (!load(&providers[d], argv[1], file)) continue;
    test_create(&providers[d], domains[d]);
    handles[d] = create_for(&providers[d], domains[d]);
    check(handles[d] != NULL, "%s: create", domains[d]);
    if (!handles[d]) continue;
    test_metadata_and_health(&providers[d], domains[d], handles[d]);
    test_envelopes(&providers[d], domains[d], handles[d]);
    test_request_id_echo(&providers[d], domains[d], handles[d]);
    test_limits(&providers[d], domains[d], handles[d]);
  }
  for (size_t d = 0; d < DOMAIN_COUNT; d++) {
    size_t next = (d + 1) % DOMAIN_COUNT;
    if (handles[d]) test_table(&providers[d], domains[d], handles[next] ? &providers[next] : NULL);
  }
  run_rule_cases(by_domain, domains, handles, DOMAIN_COUNT);
  if (argc == 4) run_vocabulary_cases(argv[3], providers, domains, handles, DOMAIN_COUNT);
  if (handles[4]) test_response_too_large(&providers[4], handles[4]);
  test_test_providers(argv[2]);

  for (size_t d = 0; d < DOMAIN_COUNT; d++) {
    if (handles[d]) providers[d].destroy(handles[d]);
    if (providers[d].library) dlclose(providers[d].library);
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
