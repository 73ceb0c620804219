/**
 * Spelling correction for objective terms no document has: the nearest indexed term, by a scan of the
 * vocabulary. At 100,000 documents the vocabulary holds about 100,000 terms, and the scan runs inside a
 * request the first time a misspelling is seen: it allocates nothing per term (no entry arrays, no slices,
 * no trigram sets) so that it costs a few milliseconds, not tens.
 */

/** Share of trigrams two terms must have in common (of their union) for the trigram rule. */
export const TRIGRAM_MIN = 0.45

/** `a` from `i` equals `b` from `j` (code units). */
function sameFrom(a: string, i: number, b: string, j: number): boolean {
  if (a.length - i !== b.length - j) return false
  for (; i < a.length; i++, j++) if (a.charCodeAt(i) !== b.charCodeAt(j)) return false
  return true
}

/** Optimal string alignment distance exactly 1 (the terms differ). */
export function oneEditApart(a: string, b: string): boolean {
  if (a === b) return false
  if (a.length === b.length) {
    let i = 0
    while (a.charCodeAt(i) === b.charCodeAt(i)) i++
    if (sameFrom(a, i + 1, b, i + 1)) return true // substitution
    // a swap of neighbours
    return (
      i + 1 < a.length &&
      a.charCodeAt(i) === b.charCodeAt(i + 1) &&
      a.charCodeAt(i + 1) === b.charCodeAt(i) &&
      sameFrom(a, i + 2, b, i + 2)
    )
  }
  const [short, long] = a.length < b.length ? [a, b] : [b, a]
  if (long.length - short.length !== 1) return false
  let i = 0
  while (i < short.length && short.charCodeAt(i) === long.charCodeAt(i)) i++
  return sameFrom(short, i, long, i + 1)
}

/** Code unit `i` of `^term$` (the padding marks word start and end, as trigram matching usually does). */
const padded = (term: string, i: number): number =>
  i === 0 ? 0x5e : i === term.length + 1 ? 0x24 : term.charCodeAt(i - 1)

/** Trigram `i` of `^term$` as one number (three 16-bit code units fit a double exactly). */
const trigram = (term: string, i: number): number =>
  padded(term, i) * 2 ** 32 + padded(term, i + 1) * 2 ** 16 + padded(term, i + 2)

/** The distinct trigrams of `^term$`. */
export function trigramSet(term: string): Set<number> {
  const out = new Set<number>()
  for (let i = 0; i + 3 <= term.length + 2; i++) out.add(trigram(term, i))
  return out
}

/** Jaccard similarity of the trigram sets of `term` (given as its set) and `candidate`. */
export function trigramSimilarity(grams: ReadonlySet<number>, candidate: string, scratch: number[]): number {
  scratch.length = 0
  let shared = 0
  for (let i = 0; i + 3 <= candidate.length + 2; i++) {
    const g = trigram(candidate, i)
    if (scratch.includes(g)) continue
    scratch.push(g)
    if (grams.has(g)) shared++
  }
  return shared / (grams.size + scratch.length - shared)
}

/** What the scan reads of the vocabulary: each term with its document frequency, in a stable order. */
export interface Vocabulary {
  forEach(visit: (posting: { readonly size: number }, term: string) => void): void
}

/**
 * The indexed term nearest to `term`: one edit away (insertion, deletion, substitution or a swap of
 * neighbours), the most frequent of those (the first seen on a tie); else, for terms of six letters or
 * more, the term sharing the most trigrams with it (at least TRIGRAM_MIN of their union, same first letter,
 * length within 3, in two documents or more). Null when none is near.
 */
export function nearestTerm(vocabulary: Vocabulary, term: string): string | null {
  let best: string | null = null
  let bestDf = 0
  vocabulary.forEach((posting, candidate) => {
    const d = candidate.length - term.length
    if (d <= 1 && d >= -1 && posting.size > bestDf && oneEditApart(term, candidate)) {
      best = candidate
      bestDf = posting.size
    }
  })
  if (best !== null || term.length < 6) return best
  const grams = trigramSet(term)
  const first = term.charCodeAt(0)
  const scratch: number[] = []
  let bestSimilarity = TRIGRAM_MIN
  vocabulary.forEach((posting, candidate) => {
    // Same first letter (misspellings rarely change it): keeps the scan to a sliver of the vocabulary.
    const d = candidate.length - term.length
    if (candidate.charCodeAt(0) !== first || d > 3 || d < -3 || posting.size < 2) return
    const similarity = trigramSimilarity(grams, candidate, scratch)
    if (similarity > bestSimilarity) {
      best = candidate
      bestSimilarity = similarity
    }
  })
  return best
}
