/* DOI and ORCID normalisation (FACTS section 11, "Identifier normalisation"). */
#include "identifiers.h"

#include <string.h>

#include "service_provider_sdk.h"

static bool starts_with_ci(const char *s, size_t n, const char *prefix) {
  size_t p = strlen(prefix);
  if (n < p) return false;
  for (size_t i = 0; i < p; i++) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != prefix[i]) return false;
  }
  return true;
}

/* Trim, strip the prefixes repeatedly, trim: sets [*start, *start + *len). False if nothing is left. */
static bool strip(const char *input, size_t len, const char *const *prefixes, size_t count, size_t *start,
                  size_t *out_len) {
  size_t n;
  size_t at = sdp_utf8_trim(input, len, &n);
  if (n == 0) return false;
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (size_t i = 0; i < count; i++) {
      if (starts_with_ci(input + at, n, prefixes[i])) {
        size_t p = strlen(prefixes[i]);
        at += p;
        n -= p;
        stripped = true;
      }
    }
  }
  size_t inner = sdp_utf8_trim(input + at, n, &n);
  at += inner;
  *start = at;
  *out_len = n;
  return n > 0;
}

bool research_normalise_doi(const char *input, size_t len, char *out, size_t cap) {
  static const char *const prefixes[] = {"https://doi.org/", "http://doi.org/", "https://dx.doi.org/",
                                         "http://dx.doi.org/", "doi:"};
  size_t at, n;
  if (!strip(input, len, prefixes, sizeof prefixes / sizeof prefixes[0], &at, &n)) return false;
  const char *s = input + at;
  if (n < 3 || memcmp(s, "10.", 3) != 0) return false;
  size_t i = 3;
  while (i < n && s[i] >= '0' && s[i] <= '9') i++;
  if (i == 3 || i >= n || s[i] != '/') return false;
  size_t suffix = i + 1;
  if (suffix >= n || sdp_utf8_contains_space(s + suffix, n - suffix)) return false;
  if (cap <= n) return false;
  for (size_t k = 0; k < n; k++) {
    char c = s[k];
    out[k] = (k >= suffix && c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
  }
  out[n] = '\0';
  return true;
}

bool research_normalise_orcid(const char *input, size_t len, char *out, size_t cap) {
  static const char *const prefixes[] = {"https://orcid.org/", "http://orcid.org/", "orcid:"};
  size_t at, n, count = 0;
  char digits[16];
  if (cap < RESEARCH_ORCID_NORMALISED_SIZE) return false;
  if (!strip(input, len, prefixes, sizeof prefixes / sizeof prefixes[0], &at, &n)) return false;
  for (size_t i = 0; i < n; i++) {
    char c = input[at + i];
    if (c == '-') continue;
    if (count == 16) return false;
    bool digit = c >= '0' && c <= '9';
    bool check_x = count == 15 && (c == 'X' || c == 'x');
    if (!digit && !check_x) return false;
    digits[count++] = check_x ? 'X' : c;
  }
  if (count != 16) return false;
  unsigned total = 0;
  for (size_t i = 0; i < 15; i++) total = (total + (unsigned)(digits[i] - '0')) * 2;
  unsigned check = (12 - total % 11) % 11;
  if (digits[15] != (check == 10 ? 'X' : (char)('0' + check))) return false;
  for (size_t group = 0, k = 0; group < 4; group++) {
    if (group) out[k++] = '-';
    memcpy(out + k, digits + group * 4, 4);
    k += 4;
  }
  out[19] = '\0';
  return true;
}
