/*
 * Medical evidence provider. Rules and codes: packs/medical/RULES.md.
 *
 * The four rules of the reference provider run first, in its order, with its
 * codes and fields; issues always carry a field, node_id is null, diagnostics
 * null, no warnings. An unknown or missing first label reads as "Evidence"
 * (no type rules).
 *
 * This pack is not a medical device and never gives advice: node.validate is
 * its only operation and it only reports on record completeness. A payload
 * that asks for a treatment recommendation is refused with
 * MEDICAL_TREATMENT_RECOMMENDATION_UNSUPPORTED (after the reference rules).
 */
#include <stdlib.h>
#include <string.h>

#include "service_provider_sdk.h"

static const char *const node_names[] = {
    "Study",       "ClinicalTrial", "Protocol",  "Population",         "Intervention", "Comparator",
    "Condition",   "Outcome",       "Finding",   "EffectEstimate",     "AdverseEvent", "Biomarker",
    "Specimen",    "Measurement",   "Publication", "Guideline",        "RegulatoryDecision",
    "Dataset",     "Person",        "Institution", "Evidence",
};

typedef enum medical_type { TYPE_OTHER, TYPE_FINDING, TYPE_EFFECT_ESTIMATE, TYPE_ADVERSE_EVENT } medical_type;

static medical_type type_of(const sdp_json *payload) {
  sdp_json label;
  if (!sdp_first_label(payload, &label) || !sdp_string_in(&label, node_names, sizeof node_names / sizeof node_names[0]))
    return TYPE_OTHER; /* reads as Evidence */
  if (sdp_json_string_equals(&label, "Finding")) return TYPE_FINDING;
  if (sdp_json_string_equals(&label, "EffectEstimate")) return TYPE_EFFECT_ESTIMATE;
  if (sdp_json_string_equals(&label, "AdverseEvent")) return TYPE_ADVERSE_EVENT;
  return TYPE_OTHER;
}

static bool intended_validated(const sdp_json *payload) {
  sdp_json status;
  return sdp_json_object_get(payload, "intended_status", &status) && sdp_json_string_equals(&status, "validated");
}

/* A de-identification attestation with a known method and a non-blank attested_by. */
static bool deidentification_attested(const sdp_json *payload) {
  static const char *const methods[] = {"SafeHarbor", "ExpertDetermination", "Aggregate", "SyntheticData"};
  sdp_json attestation, method;
  if (!sdp_json_object_get(payload, "deidentification", &attestation) ||
      !sdp_json_object_get(&attestation, "method", &method) ||
      !sdp_string_in(&method, methods, sizeof methods / sizeof methods[0]))
    return false;
  return sdp_has_nonblank_string(&attestation, "attested_by");
}

/* observation_window {start, end}: both strings (else treated as absent) and neither blank. */
static bool has_observation_window(const sdp_json *payload) {
  sdp_json window, start, end;
  if (!sdp_json_object_get(payload, "observation_window", &window) ||
      !sdp_json_object_get(&window, "start", &start) || !sdp_json_object_get(&window, "end", &end) ||
      start.type != SDP_JSON_STRING || end.type != SDP_JSON_STRING)
    return false;
  return !sdp_json_string_is_blank(&start) && !sdp_json_string_is_blank(&end);
}

/*
 * Does this string ask for advice? ASCII case-insensitive, '-' and ' ' read
 * as '_'. Returns 1 yes, 0 no, -1 out of memory.
 */
static int asks_for_advice(const sdp_json *value) {
  static const char *const markers[] = {"recommend", "advice", "advise", "prescri", "dosing", "dosage",
                                        "treatment_plan"};
  size_t n;
  char *text = sdp_json_string_dup(value, &n);
  if (!text) return -1;
  for (size_t i = 0; i < n; i++) {
    char c = text[i];
    if (c >= 'A' && c <= 'Z') text[i] = (char)(c - 'A' + 'a');
    if (c == '-' || c == ' ') text[i] = '_';
    if (c == '\0') text[i] = '_'; /* keep strstr from stopping at an embedded U+0000 */
  }
  int found = 0;
  for (size_t i = 0; i < sizeof markers / sizeof markers[0] && !found; i++) found = strstr(text, markers[i]) != NULL;
  free(text);
  return found;
}

static const char recommendation_message[] =
    "this pack validates medical evidence records and never gives treatment recommendations or clinical advice";

/* Returns false on allocation failure. */
static bool refuse_recommendations(sdp_validation *v, const sdp_json *payload) {
  static const char *const request_keys[] = {"operation", "request_kind"};
  sdp_json value;
  if (sdp_json_object_get(payload, "recommendation_requested", &value) && sdp_json_is_true(&value))
    sdp_issue(v, SDP_ERROR, "MEDICAL_TREATMENT_RECOMMENDATION_UNSUPPORTED", "recommendation_requested",
              recommendation_message);
  for (size_t i = 0; i < sizeof request_keys / sizeof request_keys[0]; i++) {
    if (!sdp_json_object_get(payload, request_keys[i], &value) || value.type != SDP_JSON_STRING) continue;
    int asks = asks_for_advice(&value);
    if (asks < 0) return false;
    if (asks)
      sdp_issue(v, SDP_ERROR, "MEDICAL_TREATMENT_RECOMMENDATION_UNSUPPORTED", request_keys[i],
                recommendation_message);
  }
  if (sdp_first_label(payload, &value)) {
    int asks = asks_for_advice(&value);
    if (asks < 0) return false;
    if (asks) sdp_issue(v, SDP_ERROR, "MEDICAL_TREATMENT_RECOMMENDATION_UNSUPPORTED", "labels", recommendation_message);
  }
  return true;
}

static int medical_validate(sdp_validation *v, const sdp_json *payload) {
  medical_type type = type_of(payload);
  sdp_json participant_level;

  if (sdp_json_object_get(payload, "contains_participant_level", &participant_level) &&
      sdp_json_is_true(&participant_level) && !deidentification_attested(payload))
    sdp_issue(v, SDP_ERROR, "MEDICAL_DEIDENTIFICATION_REQUIRED", "deidentification",
              "participant-level data needs a de-identification attestation: method SafeHarbor, "
              "ExpertDetermination, Aggregate or SyntheticData, and a non-blank attested_by");

  if ((type == TYPE_FINDING || type == TYPE_EFFECT_ESTIMATE) && intended_validated(payload) &&
      sdp_count_string_items(payload, "evidence_refs") == 0)
    sdp_issue(v, SDP_ERROR, "EVIDENCE_REQUIRED", "evidence_refs",
              "a Finding or EffectEstimate cannot be validated without evidence_refs");

  if (type == TYPE_EFFECT_ESTIMATE && sdp_count_string_items(payload, "study_refs") != 1)
    sdp_issue(v, SDP_ERROR, "MEDICAL_EFFECT_ESTIMATE_STUDY_REF", "study_refs",
              "an EffectEstimate must reference exactly one study in study_refs");

  if (type == TYPE_ADVERSE_EVENT && !has_observation_window(payload))
    sdp_issue(v, SDP_ERROR, "MEDICAL_ADVERSE_EVENT_WINDOW_REQUIRED", "observation_window",
              "an AdverseEvent needs an observation_window with non-blank start and end");

  return refuse_recommendations(v, payload) ? SDP_VALIDATE_OK : SDP_VALIDATE_FAILED;
}

const sdp_provider_def sdp_provider_definition = {
    .domain = "medical",
    .provider_id = "service.domain.medical",
    .code_prefix = "MEDICAL",
    .node_id_from_payload = false,
    .diagnostics = false,
    .validate = medical_validate,
    SDP_STANDARD_PROVIDER,
};
