/*
 * CTI domain provider: STIX 2.1-aligned checks on one node or relationship
 * record. Rules and codes: packs/cti/RULES.md.
 *
 * A payload whose keys are all among {confidence, evidence_refs, external_id,
 * labels} and that has "confidence" is the host's graph-validation summary of
 * a stored node (FACTS section 11). A summary carries no properties, so only
 * the confidence and evidence rules apply to it.
 */
#include <stdlib.h>
#include <string.h>

#include "service_provider_sdk.h"

enum cti_node {
  THREAT_ACTOR,
  MALWARE,
  INDICATOR,
  TOOL,
  CAMPAIGN,
  INFRASTRUCTURE,
  VULNERABILITY,
  IDENTITY,
  LOCATION,
  REPORT,
  NODE_COUNT
};

static const char *const node_names[NODE_COUNT] = {
    "ThreatActor", "Malware",       "Indicator", "Tool",     "Campaign",
    "Infrastructure", "Vulnerability", "Identity",  "Location", "Report",
};

enum cti_relationship { INDICATES, USES, TARGETS, ATTRIBUTED_TO, COMMUNICATES_WITH, RELATED_TO, RELATIONSHIP_COUNT };

static const char *const relationship_names[RELATIONSHIP_COUNT] = {
    "Indicates", "Uses", "Targets", "AttributedTo", "CommunicatesWith", "RelatedTo",
};

#define B SDP_BIT
/* The STIX 2.1 relationship summary tables (section 4 of each SDO), mapped onto this vocabulary. */
static const sdp_relationship_rule relationship_rules[] = {
    {INDICATES, B(INDICATOR), B(MALWARE) | B(THREAT_ACTOR) | B(CAMPAIGN) | B(INFRASTRUCTURE) | B(TOOL)},
    {USES, B(THREAT_ACTOR) | B(CAMPAIGN) | B(MALWARE), B(MALWARE) | B(TOOL) | B(INFRASTRUCTURE)},
    {USES, B(TOOL) | B(INFRASTRUCTURE), B(INFRASTRUCTURE)},
    {TARGETS, B(THREAT_ACTOR) | B(CAMPAIGN), B(IDENTITY) | B(LOCATION) | B(VULNERABILITY)},
    {TARGETS, B(MALWARE) | B(TOOL), B(IDENTITY) | B(LOCATION) | B(VULNERABILITY) | B(INFRASTRUCTURE)},
    {ATTRIBUTED_TO, B(CAMPAIGN) | B(MALWARE), B(THREAT_ACTOR)},
    {ATTRIBUTED_TO, B(THREAT_ACTOR), B(IDENTITY)},
    {COMMUNICATES_WITH, B(MALWARE) | B(INFRASTRUCTURE), B(INFRASTRUCTURE)},
    {RELATED_TO, SDP_ANY_NODE, SDP_ANY_NODE},
};
#undef B

static const sdp_vocabulary vocabulary = {
    node_names, NODE_COUNT, relationship_names, RELATIONSHIP_COUNT, relationship_rules,
    sizeof relationship_rules / sizeof relationship_rules[0],
};

#define CONFIDENCE_MINIMUM 0.8

/* ---- common rules ---- */

static void confidence_and_evidence(sdp_validation *v, const sdp_json *record) {
  double confidence;
  bool is_null;
  if (sdp_check_confidence(v, record, &confidence, &is_null)) {
    if (confidence < CONFIDENCE_MINIMUM)
      sdp_issue(v, SDP_ERROR, "CTI_CONFIDENCE_TOO_LOW", "confidence", "confidence is below the CTI minimum of 0.8");
  } else if (is_null) {
    sdp_issue(v, SDP_ERROR, "CTI_CONFIDENCE_TOO_LOW", "confidence",
              "confidence is null; CTI records need a confidence of at least 0.8");
  }
  sdp_json refs;
  if (!sdp_json_object_get(record, "evidence_refs", &refs) || refs.type == SDP_JSON_NULL) return;
  if (refs.type != SDP_JSON_ARRAY) {
    sdp_issue(v, SDP_ERROR, "CTI_EVIDENCE_REFS_INVALID", "evidence_refs",
              "evidence_refs must be an array of evidence identifiers");
  } else if (sdp_count_nonblank_string_items(record, "evidence_refs") == 0) {
    sdp_issue(v, SDP_ERROR, "CTI_EVIDENCE_REQUIRED", "evidence_refs",
              "at least one evidence reference is required");
  }
}

static void common_rules(sdp_validation *v, const sdp_json *record) {
  confidence_and_evidence(v, record);
  sdp_time_field created = sdp_read_timestamp(v, record, "created", NULL);
  sdp_time_field modified = sdp_read_timestamp(v, record, "modified", NULL);
  sdp_require_order(v, &created, &modified, true, "modified", "MODIFIED_BEFORE_CREATED",
                    "modified must not be earlier than created");
}

/* ---- per-type rules ---- */

static void name_required(sdp_validation *v, const sdp_json *node) {
  if (!sdp_has_nonblank_string(node, "name"))
    sdp_issue(v, SDP_ERROR, "CTI_NAME_REQUIRED", "name", "name is required for this CTI object type");
}

static void named_with_window(sdp_validation *v, const sdp_json *node) {
  name_required(v, node);
  sdp_require_seen_window(v, node);
}

static void malware(sdp_validation *v, const sdp_json *node) {
  named_with_window(v, node);
  sdp_json is_family;
  if (!sdp_json_object_get(node, "is_family", &is_family) ||
      (is_family.type != SDP_JSON_TRUE && is_family.type != SDP_JSON_FALSE))
    sdp_issue(v, SDP_ERROR, "CTI_MALWARE_IS_FAMILY_REQUIRED", "is_family",
              "is_family must be true (a malware family) or false (a single instance)");
}

/*
 * Plausibility of a STIX pattern: starts with '[' or '(', brackets and
 * parentheses balance outside quoted literals, every outermost [...]
 * observation expression holds an object path (a ':' outside literals).
 */
static bool stix_pattern_plausible(const char *pattern, size_t n) {
  char open[64];
  size_t depth = 0, observations = 0, i = 0;
  bool in_literal = false, path_seen = false;
  while (i < n && (pattern[i] == ' ' || pattern[i] == '\t' || pattern[i] == '\n' || pattern[i] == '\r')) i++;
  if (i == n || (pattern[i] != '[' && pattern[i] != '(')) return false;
  for (; i < n; i++) {
    char c = pattern[i];
    if (in_literal) {
      if (c == '\\') {
        i++;
      } else if (c == '\'') {
        in_literal = false;
      }
      continue;
    }
    if (c == '\'') {
      in_literal = true;
    } else if (c == '[' || c == '(') {
      if (depth == sizeof open) return false;
      if (c == '[' && memchr(open, '[', depth) == NULL) {
        observations++;
        path_seen = false;
      }
      open[depth++] = c;
    } else if (c == ']' || c == ')') {
      if (depth == 0 || open[depth - 1] != (c == ']' ? '[' : '(')) return false;
      depth--;
      if (c == ']' && memchr(open, '[', depth) == NULL && !path_seen) return false;
    } else if (c == ':' && memchr(open, '[', depth) != NULL) {
      path_seen = true;
    }
  }
  return !in_literal && depth == 0 && observations > 0;
}

static void indicator_pattern(sdp_validation *v, const sdp_json *node) {
  static const char *const pattern_types[] = {"stix", "pcre", "sigma", "snort", "suricata", "yara"};
  sdp_json pattern, pattern_type;
  bool has_pattern = sdp_has_nonblank_string(node, "pattern");
  if (!has_pattern)
    sdp_issue(v, SDP_ERROR, "CTI_INDICATOR_PATTERN_REQUIRED", "pattern", "an Indicator needs a non-blank pattern");
  if (!sdp_has_nonblank_string(node, "pattern_type")) {
    sdp_issue(v, SDP_ERROR, "CTI_INDICATOR_PATTERN_TYPE_REQUIRED", "pattern_type",
              "an Indicator needs a pattern_type (stix, pcre, sigma, snort, suricata or yara)");
    return;
  }
  sdp_json_object_get(node, "pattern_type", &pattern_type);
  if (!sdp_string_in(&pattern_type, pattern_types, sizeof pattern_types / sizeof pattern_types[0])) {
    sdp_issue(v, SDP_ERROR, "CTI_INDICATOR_PATTERN_TYPE_INVALID", "pattern_type",
              "pattern_type must be one of stix, pcre, sigma, snort, suricata, yara");
    return;
  }
  if (!has_pattern || !sdp_json_string_equals(&pattern_type, "stix")) return;
  sdp_json_object_get(node, "pattern", &pattern);
  size_t n;
  char *text = sdp_json_string_dup(&pattern, &n);
  if (!text) return; /* out of memory: plausibility is best effort, the required-field rules already ran */
  if (!stix_pattern_plausible(text, n))
    sdp_issue(v, SDP_ERROR, "CTI_INDICATOR_PATTERN_INVALID", "pattern",
              "pattern is not a STIX pattern: expected [object-type:property op value] expressions with "
              "balanced brackets");
  free(text);
}

static void indicator(sdp_validation *v, const sdp_json *node) {
  indicator_pattern(v, node);
  sdp_time_field from = sdp_read_timestamp(v, node, "valid_from", "INDICATOR_VALID_FROM_REQUIRED");
  sdp_time_field until = sdp_read_timestamp(v, node, "valid_until", NULL);
  sdp_require_order(v, &from, &until, false, "valid_until", "INDICATOR_VALID_UNTIL_NOT_AFTER_VALID_FROM",
                    "valid_until must be later than valid_from");
}

static void identity(sdp_validation *v, const sdp_json *node) {
  static const char *const classes[] = {"individual", "group", "system", "organization", "class", "unknown"};
  sdp_json identity_class;
  name_required(v, node);
  if (sdp_json_object_get(node, "identity_class", &identity_class) && identity_class.type != SDP_JSON_NULL &&
      !sdp_string_in(&identity_class, classes, sizeof classes / sizeof classes[0]))
    sdp_issue(v, SDP_WARNING, "CTI_IDENTITY_CLASS_UNKNOWN", "identity_class",
              "identity_class should come from the STIX identity-class-ov vocabulary: individual, group, "
              "system, organization, class, unknown");
}

/* "CVE-" year "-" four digits, or more digits without a leading zero (CVE ID syntax, 2014). */
static bool is_cve_id(const char *s, size_t n) {
  if (n < 13 || memcmp(s, "CVE-", 4) != 0 || s[8] != '-') return false;
  for (size_t i = 4; i < 8; i++)
    if (s[i] < '0' || s[i] > '9') return false;
  if (memcmp(s + 4, "1999", 4) < 0) return false;
  for (size_t i = 9; i < n; i++)
    if (s[i] < '0' || s[i] > '9') return false;
  return n == 13 || s[9] != '0';
}

/* "vulnerability--" followed by an RFC 4122 UUID in canonical 8-4-4-4-12 form. */
static bool is_vulnerability_stix_id(const char *s, size_t n) {
  static const char prefix[] = "vulnerability--";
  size_t p = sizeof prefix - 1;
  if (n != p + 36 || memcmp(s, prefix, p) != 0) return false;
  for (size_t i = 0; i < 36; i++) {
    char c = s[p + i];
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

static void vulnerability(sdp_validation *v, const sdp_json *node) {
  sdp_json external_id;
  char text[80];
  name_required(v, node);
  if (!sdp_json_object_get(node, "external_id", &external_id) || external_id.type == SDP_JSON_NULL) return;
  size_t n = sdp_json_string_decode(&external_id, text, sizeof text);
  if (n == SIZE_MAX || !(is_cve_id(text, n) || is_vulnerability_stix_id(text, n)))
    sdp_issue(v, SDP_ERROR, "CTI_VULNERABILITY_EXTERNAL_ID_INVALID", "external_id",
              "external_id of a Vulnerability must be a CVE identifier (CVE-YYYY-NNNN) or its STIX id");
}

static void location(sdp_validation *v, const sdp_json *node) {
  sdp_check_location(v, node, "country", "LOCATION_COUNTRY_INVALID", "region");
}

static void report(sdp_validation *v, const sdp_json *node) {
  name_required(v, node);
  sdp_read_timestamp(v, node, "published", "REPORT_PUBLISHED_REQUIRED");
  if (sdp_count_nonblank_string_items(node, "object_refs") == 0)
    sdp_issue(v, SDP_ERROR, "CTI_REPORT_OBJECT_REFS_REQUIRED", "object_refs",
              "a Report must reference at least one object (object_refs)");
}

static const sdp_node_rules_fn node_rules[NODE_COUNT] = {
    [THREAT_ACTOR] = named_with_window,
    [MALWARE] = malware,
    [INDICATOR] = indicator,
    [TOOL] = name_required,
    [CAMPAIGN] = named_with_window,
    [INFRASTRUCTURE] = named_with_window,
    [VULNERABILITY] = vulnerability,
    [IDENTITY] = identity,
    [LOCATION] = location,
    [REPORT] = report,
};

static const sdp_graph_rules graph_rules = {&vocabulary, common_rules, node_rules};

static bool is_graph_summary(const sdp_json *payload) {
  static const char *const summary_keys[] = {"confidence", "evidence_refs", "external_id", "labels"};
  sdp_json_iter it;
  sdp_json key;
  if (!sdp_has_key(payload, "confidence") || !sdp_json_object_iter_init(payload, &it)) return false;
  while (sdp_json_object_next(&it, &key, NULL))
    if (!sdp_string_in(&key, summary_keys, sizeof summary_keys / sizeof summary_keys[0])) return false;
  return true;
}

static int cti_validate(sdp_validation *v, const sdp_json *payload) {
  if (is_graph_summary(payload)) {
    sdp_set_record_kind(v, "summary");
    confidence_and_evidence(v, payload);
  } else {
    sdp_validate_graph_record(v, payload, &graph_rules);
  }
  return SDP_VALIDATE_OK;
}

const sdp_provider_def sdp_provider_definition = {
    .domain = "cti",
    .provider_id = "service.domain.cti",
    .code_prefix = "CTI",
    .node_id_from_payload = true,
    .diagnostics = true,
    .validate = cti_validate,
    SDP_STANDARD_PROVIDER,
};
