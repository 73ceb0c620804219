/*
 * Crisis domain provider: humanitarian events, places, needs, organisations
 * and observations. Rules and codes: packs/crisis/RULES.md.
 *
 * Scales: severity is an integer 1..5 (1 minimal, 2 stressed, 3 crisis,
 * 4 emergency, 5 catastrophe/famine), the five phases shared by the IPC and
 * the INFORM Severity Index; sectors are the eleven IASC global clusters.
 */
#include "service_provider_sdk.h"

enum crisis_node { CRISIS_EVENT, LOCATION, HUMANITARIAN_NEED, ORGANIZATION, OBSERVATION, NODE_COUNT };

static const char *const node_names[NODE_COUNT] = {
    "CrisisEvent", "Location", "HumanitarianNeed", "Organization", "Observation",
};

enum crisis_relationship { OCCURS_AT, IMPACTS, REPORTED_BY, NEEDS, ESCALATES_TO, REL_COUNT };

static const char *const relationship_names[REL_COUNT] = {
    "OccursAt", "Impacts", "ReportedBy", "Needs", "EscalatesTo",
};

#define B SDP_BIT
static const sdp_relationship_rule relationship_rules[] = {
    {OCCURS_AT, B(CRISIS_EVENT) | B(OBSERVATION) | B(HUMANITARIAN_NEED), B(LOCATION)},
    {IMPACTS, B(CRISIS_EVENT), B(LOCATION) | B(ORGANIZATION)},
    {REPORTED_BY, B(OBSERVATION) | B(CRISIS_EVENT) | B(HUMANITARIAN_NEED), B(ORGANIZATION)},
    {NEEDS, B(LOCATION) | B(ORGANIZATION) | B(CRISIS_EVENT), B(HUMANITARIAN_NEED)},
    {ESCALATES_TO, B(CRISIS_EVENT), B(CRISIS_EVENT)},
};
#undef B

static const sdp_vocabulary vocabulary = {
    node_names, NODE_COUNT, relationship_names, REL_COUNT, relationship_rules,
    sizeof relationship_rules / sizeof relationship_rules[0],
};

#define SEVERITY_MIN 1
#define SEVERITY_MAX 5

static void common_rules(sdp_validation *v, const sdp_json *record) {
  double confidence;
  bool is_null;
  sdp_check_confidence(v, record, &confidence, &is_null);
}

static void name_required(sdp_validation *v, const sdp_json *node) {
  if (!sdp_has_nonblank_string(node, "name"))
    sdp_issue(v, SDP_ERROR, "CRISIS_NAME_REQUIRED", "name", "name is required for this crisis node type");
}

static void crisis_event(sdp_validation *v, const sdp_json *node) {
  sdp_json severity;
  int64_t level;
  name_required(v, node);
  sdp_time_field started = sdp_read_timestamp(v, node, "started_at", "EVENT_STARTED_AT_REQUIRED");
  sdp_time_field ended = sdp_read_timestamp(v, node, "ended_at", NULL);
  sdp_require_order(v, &started, &ended, true, "ended_at", "EVENT_ENDED_BEFORE_STARTED",
                    "ended_at must not be earlier than started_at");
  if (!sdp_json_object_get(node, "severity", &severity) || severity.type == SDP_JSON_NULL) {
    sdp_issue(v, SDP_ERROR, "CRISIS_EVENT_SEVERITY_REQUIRED", "severity",
              "a CrisisEvent needs a severity from 1 (minimal) to 5 (catastrophe)");
  } else if (!sdp_json_number_int64(&severity, &level) || level < SEVERITY_MIN || level > SEVERITY_MAX) {
    sdp_issue(v, SDP_ERROR, "CRISIS_EVENT_SEVERITY_INVALID", "severity",
              "severity must be an integer from 1 (minimal) to 5 (catastrophe)");
  }
}

static void location(sdp_validation *v, const sdp_json *node) {
  sdp_check_location(v, node, "iso_country_code", "LOCATION_COUNTRY_CODE_INVALID", "place_name");
}

/* -1 absent or null, 0 present but not a non-negative integer, 1 valid (*count set). */
static int people_count(const sdp_json *node, const char *key, int64_t *count) {
  sdp_json value;
  if (!sdp_json_object_get(node, key, &value) || value.type == SDP_JSON_NULL) return -1;
  return sdp_json_number_int64(&value, count) && *count >= 0 ? 1 : 0;
}

static void humanitarian_need(sdp_validation *v, const sdp_json *node) {
  static const char *const sectors[] = {
      "food_security", "health",          "shelter",        "wash",          "protection",
      "education",     "nutrition",       "logistics",      "camp_management", "early_recovery",
      "emergency_telecommunications",
  };
  sdp_json sector;
  if (!sdp_json_object_get(node, "sector", &sector) || sector.type == SDP_JSON_NULL) {
    sdp_issue(v, SDP_ERROR, "CRISIS_NEED_SECTOR_REQUIRED", "sector", "a HumanitarianNeed needs its IASC sector");
  } else if (!sdp_string_in(&sector, sectors, sizeof sectors / sizeof sectors[0])) {
    sdp_issue(v, SDP_ERROR, "CRISIS_NEED_SECTOR_INVALID", "sector",
              "sector must be an IASC cluster: food_security, health, shelter, wash, protection, education, "
              "nutrition, logistics, camp_management, early_recovery, emergency_telecommunications");
  }
  int64_t in_need = 0, targeted = 0;
  int in_need_state = people_count(node, "people_in_need", &in_need);
  if (in_need_state < 0)
    sdp_issue(v, SDP_ERROR, "CRISIS_NEED_PEOPLE_IN_NEED_REQUIRED", "people_in_need",
              "a HumanitarianNeed needs people_in_need");
  else if (in_need_state == 0)
    sdp_issue(v, SDP_ERROR, "CRISIS_NEED_PEOPLE_IN_NEED_INVALID", "people_in_need",
              "people_in_need must be a non-negative integer");
  int targeted_state = people_count(node, "people_targeted", &targeted);
  if (targeted_state == 0)
    sdp_issue(v, SDP_ERROR, "CRISIS_NEED_PEOPLE_TARGETED_INVALID", "people_targeted",
              "people_targeted must be a non-negative integer");
  else if (targeted_state == 1 && in_need_state == 1 && targeted > in_need)
    sdp_issue(v, SDP_ERROR, "CRISIS_NEED_TARGETED_EXCEEDS_IN_NEED", "people_targeted",
              "people_targeted cannot exceed people_in_need");
}

static void observation(sdp_validation *v, const sdp_json *node) {
  sdp_time_field observed = sdp_read_timestamp(v, node, "observed_at", "OBSERVATION_OBSERVED_AT_REQUIRED");
  sdp_time_field reported = sdp_read_timestamp(v, node, "reported_at", NULL);
  sdp_require_order(v, &observed, &reported, true, "observed_at", "OBSERVATION_AFTER_REPORT",
                    "observed_at cannot be later than reported_at");
  if (!sdp_has_nonblank_string(node, "source") && !sdp_has_nonblank_string(node, "reported_by") &&
      sdp_count_nonblank_string_items(node, "source_refs") == 0)
    sdp_issue(v, SDP_WARNING, "CRISIS_OBSERVATION_SOURCE_MISSING", "source",
              "an Observation without source, reported_by or source_refs cannot be traced or verified");
}

static const sdp_node_rules_fn node_rules[NODE_COUNT] = {
    [CRISIS_EVENT] = crisis_event,
    [LOCATION] = location,
    [HUMANITARIAN_NEED] = humanitarian_need,
    [ORGANIZATION] = name_required,
    [OBSERVATION] = observation,
};

static const sdp_graph_rules graph_rules = {&vocabulary, common_rules, node_rules};

static int crisis_validate(sdp_validation *v, const sdp_json *payload) {
  sdp_validate_graph_record(v, payload, &graph_rules);
  return SDP_VALIDATE_OK;
}

const sdp_provider_def sdp_provider_definition = {
    .domain = "crisis",
    .provider_id = "service.domain.crisis",
    .code_prefix = "CRISIS",
    .node_id_from_payload = true,
    .diagnostics = true,
    .validate = crisis_validate,
    SDP_STANDARD_PROVIDER,
};
