/*
 * FIMI (foreign information manipulation and interference) domain provider.
 * Rules and codes: packs/fimi/RULES.md.
 *
 * The spec asks that observations, claims and hypotheses stay distinct and
 * that a model inference is never evidence. Here that means: a record says
 * what it is (epistemic_status observation | claim | hypothesis, with the
 * explicit marker hypothesis:true for hypotheses); a Claim is only ever a
 * claim; an observation carries its time and evidence; attributions and
 * coordination findings without evidence must be marked as hypotheses; and a
 * hypothesis cannot be promoted to "validated".
 */
#include "service_provider_sdk.h"

enum fimi_node { ACTOR, NARRATIVE, CLAIM, ACCOUNT, OUTLET, CAMPAIGN, COORDINATION_CLUSTER, NODE_COUNT };

static const char *const node_names[NODE_COUNT] = {
    "Actor", "Narrative", "Claim", "Account", "Outlet", "Campaign", "CoordinationCluster",
};

enum fimi_relationship { AMPLIFIES, COORDINATES_WITH, ORIGINATES_FROM, TARGETS, REPEATS, CONTRADICTS, REL_COUNT };

static const char *const relationship_names[REL_COUNT] = {
    "Amplifies", "CoordinatesWith", "OriginatesFrom", "Targets", "Repeats", "Contradicts",
};

#define B SDP_BIT
#define SPEAKERS (B(ACTOR) | B(ACCOUNT) | B(OUTLET))
#define CONTENT (B(NARRATIVE) | B(CLAIM))
static const sdp_relationship_rule relationship_rules[] = {
    /* Who spreads what: a speaker (or a cluster acting as one) amplifies content or another speaker. */
    {AMPLIFIES, SPEAKERS | B(COORDINATION_CLUSTER), CONTENT | B(ACCOUNT) | B(OUTLET)},
    {COORDINATES_WITH, SPEAKERS, SPEAKERS},
    /* Where content or an operation comes from. */
    {ORIGINATES_FROM, CONTENT | B(CAMPAIGN), SPEAKERS},
    /* Targets are the audiences and voices an operation aims at. */
    {TARGETS, B(CAMPAIGN) | CONTENT | B(ACTOR) | B(COORDINATION_CLUSTER), SPEAKERS},
    {REPEATS, B(CLAIM), B(CLAIM)},
    {REPEATS, B(NARRATIVE), B(NARRATIVE)},
    {REPEATS, SPEAKERS, CONTENT},
    {CONTRADICTS, CONTENT, CONTENT},
};
#undef CONTENT
#undef SPEAKERS
#undef B

static const sdp_vocabulary vocabulary = {
    node_names, NODE_COUNT, relationship_names, REL_COUNT, relationship_rules,
    sizeof relationship_rules / sizeof relationship_rules[0],
};

/* ---- epistemic status ---- */

enum epistemic { EPISTEMIC_NONE = -1, EPISTEMIC_OBSERVATION, EPISTEMIC_CLAIM, EPISTEMIC_HYPOTHESIS };
static const char *const epistemic_names[] = {"observation", "claim", "hypothesis"};

/* EPISTEMIC_NONE when absent, null or not one of the three (the latter is reported by common_rules). */
static int epistemic_status(const sdp_json *record) {
  sdp_json status;
  if (!sdp_json_object_get(record, "epistemic_status", &status)) return EPISTEMIC_NONE;
  return sdp_string_index(&status, epistemic_names, 3);
}

static bool marked_hypothesis(const sdp_json *record) {
  sdp_json marker;
  return sdp_json_object_get(record, "hypothesis", &marker) && sdp_json_is_true(&marker);
}

static bool has_evidence(const sdp_json *record) {
  return sdp_count_nonblank_string_items(record, "evidence_refs") > 0;
}

static void common_rules(sdp_validation *v, const sdp_json *record) {
  double confidence;
  bool is_null;
  sdp_check_confidence(v, record, &confidence, &is_null);

  sdp_json status, marker, intended, attributed;
  bool has_status = sdp_json_object_get(record, "epistemic_status", &status) && status.type != SDP_JSON_NULL;
  int epistemic = epistemic_status(record);
  if (has_status && epistemic == EPISTEMIC_NONE)
    sdp_issue(v, SDP_ERROR, "FIMI_EPISTEMIC_STATUS_INVALID", "epistemic_status",
              "epistemic_status must be observation, claim or hypothesis");
  if (sdp_json_object_get(record, "hypothesis", &marker) && marker.type != SDP_JSON_NULL &&
      marker.type != SDP_JSON_TRUE && marker.type != SDP_JSON_FALSE)
    sdp_issue(v, SDP_ERROR, "FIMI_HYPOTHESIS_MARKER_INVALID", "hypothesis", "hypothesis must be true or false");

  bool hypothesis = marked_hypothesis(record);
  if (hypothesis && epistemic != EPISTEMIC_NONE && epistemic != EPISTEMIC_HYPOTHESIS)
    sdp_issue(v, SDP_ERROR, "FIMI_EPISTEMIC_STATUS_CONFLICT", "hypothesis",
              "a record marked hypothesis:true cannot also be an observation or a claim");
  if (epistemic == EPISTEMIC_HYPOTHESIS && !hypothesis)
    sdp_issue(v, SDP_ERROR, "FIMI_HYPOTHESIS_MARKER_REQUIRED", "hypothesis",
              "a hypothesis must carry the explicit marker hypothesis:true");
  if (epistemic == EPISTEMIC_OBSERVATION) {
    sdp_json label;
    bool is_claim = sdp_first_label(record, &label) && sdp_json_string_equals(&label, "Claim");
    if (!is_claim) /* a Claim checks observed_at itself */
      sdp_read_timestamp(v, record, "observed_at", "OBSERVATION_TIME_REQUIRED");
    if (!has_evidence(record))
      sdp_issue(v, SDP_ERROR, "FIMI_OBSERVATION_EVIDENCE_REQUIRED", "evidence_refs",
                "an observation must reference the evidence it was made from");
  }
  if ((hypothesis || epistemic == EPISTEMIC_HYPOTHESIS) && sdp_json_object_get(record, "intended_status", &intended) &&
      sdp_json_string_equals(&intended, "validated"))
    sdp_issue(v, SDP_ERROR, "FIMI_HYPOTHESIS_NOT_VALIDATABLE", "intended_status",
              "a hypothesis cannot be validated; record the supporting observations and re-assess");

  bool attributes = sdp_json_object_get(record, "attributed_to", &attributed) &&
                    ((attributed.type == SDP_JSON_STRING && !sdp_json_string_is_blank(&attributed)) ||
                     sdp_count_nonblank_string_items(record, "attributed_to") > 0);
  if (attributes && !hypothesis && !has_evidence(record))
    sdp_issue(v, SDP_ERROR, "FIMI_ATTRIBUTION_EVIDENCE_REQUIRED", "attributed_to",
              "an attribution needs evidence_refs, or must be marked hypothesis:true");
}

/* ---- per-type rules ---- */

static void name_required(sdp_validation *v, const sdp_json *node) {
  if (!sdp_has_nonblank_string(node, "name"))
    sdp_issue(v, SDP_ERROR, "FIMI_NAME_REQUIRED", "name", "name is required for this FIMI node type");
}

static void campaign(sdp_validation *v, const sdp_json *node) {
  name_required(v, node);
  sdp_require_seen_window(v, node);
}

static void claim(sdp_validation *v, const sdp_json *node) {
  if (!sdp_has_nonblank_string(node, "source") && sdp_count_nonblank_string_items(node, "source_refs") == 0)
    sdp_issue(v, SDP_ERROR, "FIMI_CLAIM_SOURCE_REQUIRED", "source",
              "a Claim must name its source (source or source_refs)");
  sdp_read_timestamp(v, node, "observed_at", "CLAIM_OBSERVED_AT_REQUIRED");
  int epistemic = epistemic_status(node);
  if ((epistemic != EPISTEMIC_NONE && epistemic != EPISTEMIC_CLAIM) || marked_hypothesis(node))
    sdp_issue(v, SDP_ERROR, "FIMI_CLAIM_EPISTEMIC_STATUS_MISMATCH", "epistemic_status",
              "a Claim records what a source asserts; record observations and hypotheses about it separately");
}

static void account(sdp_validation *v, const sdp_json *node) {
  if (!sdp_has_nonblank_string(node, "platform"))
    sdp_issue(v, SDP_ERROR, "FIMI_ACCOUNT_PLATFORM_REQUIRED", "platform", "an Account needs its platform");
  if (!sdp_has_nonblank_string(node, "handle"))
    sdp_issue(v, SDP_ERROR, "FIMI_ACCOUNT_HANDLE_REQUIRED", "handle", "an Account needs its handle on the platform");
}

/* True if members holds two different non-blank strings (O(n): find one, then any other). */
static bool has_two_distinct_members(const sdp_json *node) {
  sdp_json members, item, first = {0};
  sdp_json_iter it;
  bool have_first = false;
  if (!sdp_json_object_get(node, "members", &members) || !sdp_json_array_iter_init(&members, &it)) return false;
  while (sdp_json_array_next(&it, &item)) {
    if (item.type != SDP_JSON_STRING || sdp_json_string_is_blank(&item)) continue;
    if (!have_first) {
      first = item;
      have_first = true;
    } else if (!sdp_json_strings_equal(&first, &item)) {
      return true;
    }
  }
  return false;
}

static void coordination_cluster(sdp_validation *v, const sdp_json *node) {
  if (!has_two_distinct_members(node))
    sdp_issue(v, SDP_ERROR, "FIMI_COORDINATION_MEMBERS_REQUIRED", "members",
              "a CoordinationCluster needs at least two distinct members");
  if (!has_evidence(node) && !marked_hypothesis(node))
    sdp_issue(v, SDP_ERROR, "FIMI_COORDINATION_EVIDENCE_REQUIRED", "evidence_refs",
              "coordination is an inference: give evidence_refs, or mark the cluster hypothesis:true");
  sdp_require_seen_window(v, node);
}

static const sdp_node_rules_fn node_rules[NODE_COUNT] = {
    [ACTOR] = name_required,
    [NARRATIVE] = name_required,
    [CLAIM] = claim,
    [ACCOUNT] = account,
    [OUTLET] = name_required,
    [CAMPAIGN] = campaign,
    [COORDINATION_CLUSTER] = coordination_cluster,
};

static const sdp_graph_rules graph_rules = {&vocabulary, common_rules, node_rules};

static int fimi_validate(sdp_validation *v, const sdp_json *payload) {
  sdp_validate_graph_record(v, payload, &graph_rules);
  return SDP_VALIDATE_OK;
}

const sdp_provider_def sdp_provider_definition = {
    .domain = "fimi",
    .provider_id = "service.domain.fimi",
    .code_prefix = "FIMI",
    .node_id_from_payload = true,
    .diagnostics = true,
    .validate = fimi_validate,
    SDP_STANDARD_PROVIDER,
};
