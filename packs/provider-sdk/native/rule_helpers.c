/*
 * Rule building blocks shared by the domain providers: field access,
 * RFC 3339 timestamps, confidence, geography, vocabularies and the common
 * node/relationship flow of the graph domains. Codes emitted here are
 * "<code_prefix>_<SUFFIX>" so each domain keeps its own namespace.
 */
#include <stdio.h>
#include <string.h>

#include "service_provider_sdk.h"

/* ---------------------------------------------------------------------- */
/* Field access                                                            */
/* ---------------------------------------------------------------------- */

int sdp_string_index(const sdp_json *string, const char *const *names, size_t count) {
  if (!sdp_json_is(string, SDP_JSON_STRING)) return -1;
  for (size_t i = 0; i < count; i++)
    if (sdp_json_string_equals(string, names[i])) return (int)i;
  return -1;
}

bool sdp_string_in(const sdp_json *string, const char *const *names, size_t count) {
  return sdp_string_index(string, names, count) >= 0;
}

bool sdp_has_key(const sdp_json *obj, const char *key) { return sdp_json_object_get(obj, key, NULL); }

bool sdp_has_nonblank_string(const sdp_json *obj, const char *key) {
  sdp_json value;
  return sdp_json_object_get(obj, key, &value) && sdp_json_is(&value, SDP_JSON_STRING) &&
         !sdp_json_string_is_blank(&value);
}

static size_t count_string_items(const sdp_json *obj, const char *key, bool nonblank) {
  sdp_json array, item;
  sdp_json_iter it;
  size_t n = 0;
  if (!sdp_json_object_get(obj, key, &array) || !sdp_json_array_iter_init(&array, &it)) return 0;
  while (sdp_json_array_next(&it, &item))
    if (item.type == SDP_JSON_STRING && (!nonblank || !sdp_json_string_is_blank(&item))) n++;
  return n;
}

size_t sdp_count_string_items(const sdp_json *obj, const char *key) { return count_string_items(obj, key, false); }

size_t sdp_count_nonblank_string_items(const sdp_json *obj, const char *key) {
  return count_string_items(obj, key, true);
}

bool sdp_first_string_item(const sdp_json *obj, const char *key, sdp_json *item) {
  sdp_json array, value;
  sdp_json_iter it;
  if (!sdp_json_object_get(obj, key, &array) || !sdp_json_array_iter_init(&array, &it)) return false;
  while (sdp_json_array_next(&it, &value)) {
    if (value.type == SDP_JSON_STRING) {
      if (item) *item = value;
      return true;
    }
  }
  return false;
}

bool sdp_first_label(const sdp_json *obj, sdp_json *label) { return sdp_first_string_item(obj, "labels", label); }

bool sdp_get_number(const sdp_json *obj, const char *key, double *value) {
  sdp_json number;
  return sdp_json_object_get(obj, key, &number) && sdp_json_number_double(&number, value);
}

/* ---------------------------------------------------------------------- */
/* RFC 3339                                                                */
/* ---------------------------------------------------------------------- */

static bool digits(const char *s, size_t n, int *out) {
  int value = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    value = value * 10 + (s[i] - '0');
  }
  *out = value;
  return true;
}

static bool is_leap(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

static int days_in_month(int year, int month) {
  static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap(year) ? 29 : days[month - 1];
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool sdp_parse_rfc3339(const sdp_json *string, sdp_timestamp *out) {
  char s[72];
  size_t n = sdp_json_string_decode(string, s, sizeof s);
  int year, month, day, hour, minute, second, offset_hour = 0, offset_minute = 0;
  /* YYYY-MM-DDTHH:MM:SS is 19 bytes; then [.frac] and Z or +HH:MM. */
  if (n == SIZE_MAX || n < 20) return false;
  if (!digits(s, 4, &year) || s[4] != '-' || !digits(s + 5, 2, &month) || s[7] != '-' || !digits(s + 8, 2, &day) ||
      (s[10] != 'T' && s[10] != 't') || !digits(s + 11, 2, &hour) || s[13] != ':' || !digits(s + 14, 2, &minute) ||
      s[16] != ':' || !digits(s + 17, 2, &second))
    return false;
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) || hour > 23 || minute > 59 ||
      second > 60)
    return false;
  size_t pos = 19;
  int32_t nanos = 0;
  if (s[pos] == '.') {
    size_t first = ++pos;
    int scale = 100000000;
    while (pos < n && s[pos] >= '0' && s[pos] <= '9') {
      nanos += (s[pos] - '0') * scale;
      scale /= 10;
      pos++;
    }
    if (pos == first) return false;
  }
  int sign = 0;
  if (pos < n && (s[pos] == 'Z' || s[pos] == 'z') && pos + 1 == n) {
    sign = 0;
  } else if (pos < n && (s[pos] == '+' || s[pos] == '-') && n - pos == 6 && digits(s + pos + 1, 2, &offset_hour) &&
             s[pos + 3] == ':' && digits(s + pos + 4, 2, &offset_minute) && offset_hour <= 23 && offset_minute <= 59) {
    sign = s[pos] == '+' ? 1 : -1;
  } else {
    return false;
  }
  int64_t seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
  seconds -= sign * (offset_hour * 3600 + offset_minute * 60);
  out->seconds = seconds;
  out->nanos = nanos;
  return true;
}

int sdp_timestamp_compare(const sdp_timestamp *a, const sdp_timestamp *b) {
  if (a->seconds != b->seconds) return a->seconds < b->seconds ? -1 : 1;
  if (a->nanos != b->nanos) return a->nanos < b->nanos ? -1 : 1;
  return 0;
}

sdp_time_field sdp_read_timestamp(sdp_validation *v, const sdp_json *obj, const char *key,
                                  const char *required_suffix) {
  sdp_time_field field = {SDP_FIELD_ABSENT, {0, 0}};
  sdp_json value;
  char message[160];
  if (!sdp_json_object_get(obj, key, &value) || value.type == SDP_JSON_NULL) {
    if (required_suffix) {
      snprintf(message, sizeof message, "%s is required (an RFC 3339 date-time)", key);
      sdp_issue_prefixed(v, SDP_ERROR, required_suffix, key, message);
    }
    return field;
  }
  if (!sdp_parse_rfc3339(&value, &field.value)) {
    snprintf(message, sizeof message, "%s must be an RFC 3339 date-time such as 2024-05-01T12:00:00Z", key);
    sdp_issue_prefixed(v, SDP_ERROR, "TIMESTAMP_INVALID", key, message);
    field.state = SDP_FIELD_INVALID;
    return field;
  }
  field.state = SDP_FIELD_VALID;
  return field;
}

void sdp_require_order(sdp_validation *v, const sdp_time_field *earlier, const sdp_time_field *later,
                       bool allow_equal, const char *field, const char *suffix, const char *message) {
  if (earlier->state != SDP_FIELD_VALID || later->state != SDP_FIELD_VALID) return;
  int order = sdp_timestamp_compare(&later->value, &earlier->value);
  if (order < 0 || (order == 0 && !allow_equal)) sdp_issue_prefixed(v, SDP_ERROR, suffix, field, message);
}

void sdp_require_seen_window(sdp_validation *v, const sdp_json *obj) {
  sdp_time_field first = sdp_read_timestamp(v, obj, "first_seen", NULL);
  sdp_time_field last = sdp_read_timestamp(v, obj, "last_seen", NULL);
  sdp_require_order(v, &first, &last, true, "last_seen", "LAST_SEEN_BEFORE_FIRST_SEEN",
                    "last_seen must not be earlier than first_seen");
}

/* ---------------------------------------------------------------------- */
/* Confidence and geography                                                */
/* ---------------------------------------------------------------------- */

bool sdp_check_confidence(sdp_validation *v, const sdp_json *obj, double *value, bool *is_null) {
  sdp_json confidence;
  double number;
  *is_null = false;
  if (!sdp_json_object_get(obj, "confidence", &confidence)) return false;
  if (confidence.type == SDP_JSON_NULL) {
    *is_null = true;
    return false;
  }
  if (!sdp_json_number_double(&confidence, &number) || !(number >= 0.0 && number <= 1.0)) {
    sdp_issue_prefixed(v, SDP_ERROR, "CONFIDENCE_INVALID", "confidence", "confidence must be a number from 0 to 1");
    return false;
  }
  *value = number;
  return true;
}

/* Assigned ISO 3166-1 alpha-2 codes (249) and XK. */
static const char country_codes[] =
    "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY "
    "BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK "
    "FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR "
    "IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK "
    "ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM "
    "PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF "
    "TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW";

bool sdp_is_country_code(const sdp_json *string) {
  char code[4];
  if (sdp_json_string_decode(string, code, sizeof code) != 2) return false;
  if (code[0] < 'A' || code[0] > 'Z' || code[1] < 'A' || code[1] > 'Z') return false;
  for (size_t i = 0; i + 1 < sizeof country_codes; i += 3)
    if (country_codes[i] == code[0] && country_codes[i + 1] == code[1]) return true;
  return false;
}

/* 1 = present and within [-limit, limit], 0 = absent or null, -1 = present but invalid. */
static int coordinate(sdp_validation *v, const sdp_json *obj, const char *key, double limit, const char *suffix,
                      const char *message) {
  sdp_json value;
  double number;
  if (!sdp_json_object_get(obj, key, &value) || value.type == SDP_JSON_NULL) return 0;
  if (sdp_json_number_double(&value, &number) && number >= -limit && number <= limit) return 1;
  sdp_issue_prefixed(v, SDP_ERROR, suffix, key, message);
  return -1;
}

bool sdp_check_coordinates(sdp_validation *v, const sdp_json *obj) {
  int latitude = coordinate(v, obj, "latitude", 90.0, "LOCATION_LATITUDE_INVALID",
                            "latitude must be a number from -90 to 90 (WGS 84 decimal degrees)");
  int longitude = coordinate(v, obj, "longitude", 180.0, "LOCATION_LONGITUDE_INVALID",
                             "longitude must be a number from -180 to 180 (WGS 84 decimal degrees)");
  if ((latitude == 0) != (longitude == 0)) {
    const char *missing = latitude == 0 ? "latitude" : "longitude";
    sdp_issue_prefixed(v, SDP_ERROR, "LOCATION_COORDINATES_INCOMPLETE", missing,
                       "latitude and longitude must be given together");
  }
  return latitude == 1 && longitude == 1;
}

void sdp_check_location(sdp_validation *v, const sdp_json *obj, const char *country_key, const char *country_suffix,
                        const char *name_key) {
  sdp_json country;
  char message[160];
  bool has_country = sdp_json_object_get(obj, country_key, &country) && country.type != SDP_JSON_NULL;
  if (has_country && !sdp_is_country_code(&country)) {
    snprintf(message, sizeof message, "%s must be an assigned ISO 3166-1 alpha-2 code such as FR", country_key);
    sdp_issue_prefixed(v, SDP_ERROR, country_suffix, country_key, message);
  }
  sdp_check_coordinates(v, obj);
  bool has_coordinate_key = sdp_has_key(obj, "latitude") || sdp_has_key(obj, "longitude");
  if (!has_country && !has_coordinate_key && !sdp_has_nonblank_string(obj, name_key)) {
    snprintf(message, sizeof message, "a Location needs latitude and longitude, %s or %s", country_key, name_key);
    sdp_issue_prefixed(v, SDP_ERROR, "LOCATION_REQUIRED", NULL, message);
  }
}

/* ---------------------------------------------------------------------- */
/* Graph records                                                           */
/* ---------------------------------------------------------------------- */

/* Endpoint type of source_labels / target_labels; -1 after reporting a problem. */
static int relationship_endpoint(sdp_validation *v, const sdp_json *record, const sdp_vocabulary *vocabulary,
                                 const char *key, const char *required_suffix, const char *unknown_suffix) {
  sdp_json label;
  char message[160];
  if (!sdp_first_string_item(record, key, &label)) {
    snprintf(message, sizeof message, "%s must be an array whose first string names the endpoint's node type", key);
    sdp_issue_prefixed(v, SDP_ERROR, required_suffix, key, message);
    return -1;
  }
  int index = sdp_string_index(&label, vocabulary->nodes, vocabulary->node_count);
  if (index < 0) {
    snprintf(message, sizeof message, "the first item of %s is not a %s node type", key,
             sdp_provider_definition.domain);
    sdp_issue_prefixed(v, SDP_ERROR, unknown_suffix, key, message);
  }
  return index;
}

static void validate_relationship(sdp_validation *v, const sdp_json *record, const sdp_json *type,
                                  const sdp_vocabulary *vocabulary) {
  int relationship = -1;
  if (!sdp_json_is(type, SDP_JSON_STRING) || sdp_json_string_is_blank(type)) {
    sdp_issue_prefixed(v, SDP_ERROR, "RELATIONSHIP_TYPE_REQUIRED", "relationship_type",
                       "relationship_type must be a non-blank string");
  } else if ((relationship = sdp_string_index(type, vocabulary->relationships, vocabulary->relationship_count)) < 0) {
    sdp_issue_prefixed(v, SDP_ERROR, "RELATIONSHIP_TYPE_UNKNOWN", "relationship_type",
                       "relationship_type is not a relationship of this domain's vocabulary");
  }
  int source = relationship_endpoint(v, record, vocabulary, "source_labels", "RELATIONSHIP_SOURCE_REQUIRED",
                                     "RELATIONSHIP_SOURCE_UNKNOWN");
  int target = relationship_endpoint(v, record, vocabulary, "target_labels", "RELATIONSHIP_TARGET_REQUIRED",
                                     "RELATIONSHIP_TARGET_UNKNOWN");
  if (relationship < 0 || source < 0 || target < 0) return;
  for (size_t i = 0; i < vocabulary->rule_count; i++) {
    const sdp_relationship_rule *rule = &vocabulary->rules[i];
    if (rule->relationship == relationship && (rule->sources & SDP_BIT(source)) && (rule->targets & SDP_BIT(target)))
      return;
  }
  char message[200];
  snprintf(message, sizeof message, "%s does not connect %s to %s", vocabulary->relationships[relationship],
           vocabulary->nodes[source], vocabulary->nodes[target]);
  sdp_issue_prefixed(v, SDP_ERROR, "RELATIONSHIP_ENDPOINTS_NOT_ALLOWED", "relationship_type", message);
}

void sdp_validate_graph_record(sdp_validation *v, const sdp_json *payload, const sdp_graph_rules *rules) {
  const sdp_vocabulary *vocabulary = rules->vocabulary;
  sdp_json relationship_type, label;
  if (!sdp_json_is(payload, SDP_JSON_OBJECT)) {
    sdp_issue_prefixed(v, SDP_ERROR, "PAYLOAD_INVALID", NULL,
                       "payload must be a JSON object: one node or relationship record");
    return;
  }
  if (sdp_json_object_get(payload, "relationship_type", &relationship_type)) {
    sdp_set_record_kind(v, "relationship");
    validate_relationship(v, payload, &relationship_type, vocabulary);
    if (rules->common) rules->common(v, payload);
    return;
  }
  sdp_set_record_kind(v, "node");
  int type = -1;
  if (!sdp_first_label(payload, &label)) {
    sdp_issue_prefixed(v, SDP_ERROR, "NODE_TYPE_REQUIRED", "labels",
                       "labels must be an array whose first string names the node type");
  } else if ((type = sdp_string_index(&label, vocabulary->nodes, vocabulary->node_count)) < 0) {
    sdp_issue_prefixed(v, SDP_ERROR, "NODE_TYPE_UNKNOWN", "labels",
                       "the first label is not a node type of this domain's vocabulary");
  }
  if (rules->common) rules->common(v, payload);
  if (type >= 0 && rules->node_rules[type]) rules->node_rules[type](v, payload);
}
