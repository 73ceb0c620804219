/*
 * Offline normalisation of scholarly identifiers, as the reference library
 * defines it: trim, strip the listed prefixes (case-insensitive, repeatedly),
 * trim again, then check the system's syntax. An identifier is valid iff it
 * normalises.
 */
#ifndef RESEARCH_IDENTIFIERS_H
#define RESEARCH_IDENTIFIERS_H

#include <stdbool.h>
#include <stddef.h>

/* Longest normalised form these functions write (including the NUL). */
#define RESEARCH_ORCID_NORMALISED_SIZE 20

/*
 * DOI: "10." + non-empty all-digit registrant + "/" + non-empty suffix
 * without whitespace. On success writes "10.<registrant>/<lowercased suffix>"
 * into out (capacity cap, needs at least the input length + 1).
 */
bool research_normalise_doi(const char *input, size_t len, char *out, size_t cap);

/*
 * ORCID: hyphens dropped -> 15 digits + a check character (digit or X) that
 * satisfies ISO 7064 MOD 11-2. On success writes "NNNN-NNNN-NNNN-NNNC" (X
 * uppercase) into out (cap >= RESEARCH_ORCID_NORMALISED_SIZE).
 */
bool research_normalise_orcid(const char *input, size_t len, char *out, size_t cap);

#endif
