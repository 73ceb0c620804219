/*
 * Research provider. Rules and codes: packs/research/RULES.md.
 *
 * The reference provider's rules run first, in its order, with its codes and
 * fields: one type rule, then (only when intended_status is exactly
 * "validated") evidence and retracted-support rules. All issues are errors,
 * carry a field, and node_id is null; diagnostics are null. Added after them:
 * malformed "doi" / "orcid" values (RESEARCH_DOI_INVALID, RESEARCH_ORCID_INVALID).
 */
#include <stdlib.h>

#include "identifiers.h"
#include "service_provider_sdk.h"

enum research_node {
  RESEARCH_QUESTION,
  HYPOTHESIS,
  STUDY,
  METHOD,
  INSTRUMENT,
  SAMPLE,
  DATASET,
  CODE_ARTIFACT,
  EXPERIMENT,
  RESULT,
  FINDING,
  CLAIM,
  PUBLICATION,
  PREPRINT,
  VENUE,
  PERSON,
  INSTITUTION,
  GRANT,
  REVIEW,
  REPLICATION_ATTEMPT,
  EVIDENCE,
  NODE_COUNT
};

static const char *const node_names[NODE_COUNT] = {
    "ResearchQuestion", "Hypothesis", "Study",       "Method",      "Instrument", "Sample",
    "Dataset",          "CodeArtifact", "Experiment", "Result",     "Finding",    "Claim",
    "Publication",      "Preprint",   "Venue",       "Person",      "Institution", "Grant",
    "Review",           "ReplicationAttempt", "Evidence",
};

static int type_of(const sdp_json *payload) {
  sdp_json label;
  return sdp_first_label(payload, &label) ? sdp_string_index(&label, node_names, NODE_COUNT) : -1;
}

/* replication_attempts: items with a known outcome are kept; exactly one, fully attributed, is required. */
static bool replication_attributed(const sdp_json *payload) {
  static const char *const outcomes[] = {"successful", "failed", "partially_successful", "inconclusive"};
  sdp_json attempts, item, outcome, kept = {0};
  sdp_json_iter it;
  size_t count = 0;
  if (!sdp_json_object_get(payload, "replication_attempts", &attempts) || !sdp_json_array_iter_init(&attempts, &it))
    return false;
  while (sdp_json_array_next(&it, &item)) {
    if (!sdp_json_object_get(&item, "outcome", &outcome) || !sdp_string_in(&outcome, outcomes, 4)) continue;
    kept = item;
    if (++count > 1) return false;
  }
  return count == 1 && sdp_has_nonblank_string(&kept, "target_work") &&
         sdp_has_nonblank_string(&kept, "reporting_work");
}

static void type_rule(sdp_validation *v, const sdp_json *payload, int type) {
  switch (type) {
    case CLAIM:
      if (!sdp_has_nonblank_string(payload, "asserting_work") || !sdp_has_nonblank_string(payload, "credited_actor"))
        sdp_issue(v, SDP_ERROR, "RESEARCH_CLAIM_ATTRIBUTION_REQUIRED", "asserting_work",
                  "a Claim needs the work that asserts it (asserting_work) and the credited actor (credited_actor)");
      break;
    case FINDING:
      if (sdp_count_string_items(payload, "result_refs") == 0)
        sdp_issue(v, SDP_ERROR, "RESEARCH_FINDING_RESULT_REQUIRED", "result_refs",
                  "a Finding must reference the results it rests on (result_refs)");
      break;
    case RESULT:
      if (sdp_count_string_items(payload, "source_refs") == 0)
        sdp_issue(v, SDP_ERROR, "RESEARCH_RESULT_SOURCE_REQUIRED", "source_refs",
                  "a Result must reference its sources (source_refs)");
      break;
    case REPLICATION_ATTEMPT:
      if (!replication_attributed(payload))
        sdp_issue(v, SDP_ERROR, "RESEARCH_REPLICATION_ATTRIBUTION_REQUIRED", "replication_attempts",
                  "a ReplicationAttempt needs exactly one attempt with an outcome, a target_work and a "
                  "reporting_work");
      break;
    case -1:
      sdp_issue(v, SDP_ERROR, "RESEARCH_NODE_TYPE_REQUIRED", "node_type",
                "the first label must be a research node type (for example Claim, Finding, Result)");
      break;
    default:
      break;
  }
}

/* A retraction override counts only with both justification and recorded_by non-blank. */
static bool override_recorded(const sdp_json *work) {
  sdp_json override;
  return sdp_json_object_get(work, "retraction_override", &override) &&
         sdp_has_nonblank_string(&override, "justification") && sdp_has_nonblank_string(&override, "recorded_by");
}

static void retracted_support(sdp_validation *v, const sdp_json *payload) {
  sdp_json works, work, work_id, retracted;
  sdp_json_iter it;
  if (!sdp_json_object_get(payload, "supporting_works", &works) || !sdp_json_array_iter_init(&works, &it)) return;
  while (sdp_json_array_next(&it, &work)) {
    if (!sdp_json_object_get(&work, "work_id", &work_id) || work_id.type != SDP_JSON_STRING) continue; /* dropped */
    if (sdp_json_object_get(&work, "retracted", &retracted) && sdp_json_is_true(&retracted) &&
        !override_recorded(&work))
      sdp_issue(v, SDP_ERROR, "RESEARCH_RETRACTED_SUPPORT_REQUIRES_OVERRIDE", "supporting_works",
                "a retracted supporting work needs a retraction_override with justification and recorded_by");
  }
}

typedef bool (*normaliser)(const char *input, size_t len, char *out, size_t cap);

/* obj[key], when present and not null, must normalise. Returns false on allocation failure. */
static bool identifier_rule(sdp_validation *v, const sdp_json *payload, const char *key, normaliser normalise,
                            const char *code, const char *message) {
  sdp_json value;
  if (!sdp_json_object_get(payload, key, &value) || value.type == SDP_JSON_NULL) return true;
  bool valid = false;
  if (value.type == SDP_JSON_STRING) {
    size_t n;
    char *text = sdp_json_string_dup(&value, &n);
    char *normalised = text ? malloc(n + RESEARCH_ORCID_NORMALISED_SIZE) : NULL;
    if (!normalised) {
      free(text);
      return false;
    }
    valid = normalise(text, n, normalised, n + RESEARCH_ORCID_NORMALISED_SIZE);
    free(normalised);
    free(text);
  }
  if (!valid) sdp_issue(v, SDP_ERROR, code, key, message);
  return true;
}

static int research_validate(sdp_validation *v, const sdp_json *payload) {
  int type = type_of(payload);
  type_rule(v, payload, type);
  sdp_json status;
  if (sdp_json_object_get(payload, "intended_status", &status) && sdp_json_string_equals(&status, "validated")) {
    if ((type == CLAIM || type == FINDING) && sdp_count_string_items(payload, "evidence_refs") == 0)
      sdp_issue(v, SDP_ERROR, "EVIDENCE_REQUIRED", "evidence_refs",
                "a Claim or Finding cannot be validated without evidence_refs");
    retracted_support(v, payload);
  }
  bool ok = identifier_rule(v, payload, "doi", research_normalise_doi, "RESEARCH_DOI_INVALID",
                            "doi must be a DOI such as 10.1000/xyz123 (doi: and https://doi.org/ prefixes allowed)") &&
            identifier_rule(v, payload, "orcid", research_normalise_orcid, "RESEARCH_ORCID_INVALID",
                            "orcid must be an ORCID iD such as 0000-0002-1825-0097 with a valid check digit");
  return ok ? SDP_VALIDATE_OK : SDP_VALIDATE_FAILED;
}

const sdp_provider_def sdp_provider_definition = {
    .domain = "research",
    .provider_id = "service.domain.research",
    .code_prefix = "RESEARCH",
    .node_id_from_payload = false,
    .diagnostics = false,
    .validate = research_validate,
    SDP_STANDARD_PROVIDER,
};
