import type { Bm25Index } from './bm25-index.js'

/**
 * Evidence beyond bags of words: objective words that stand next to each other in a node's name,
 * description or what its relationships say of it (a phrase), and identifiers written whole (T0829,
 * attack-pattern--…).
 */

/** Raw points per adjacent objective pair found adjacent (in order) in the node, times the pair's mean idf. */
export const PHRASE_WEIGHT = 0.3
/** Pairs found within this many positions (either order) count half. */
export const PROXIMITY_WINDOW = 4

/**
 * Phrase scorer for one objective: for each adjacent pair of its (stemmed) terms, full credit when the
 * node has them side by side in that order, half when they are within PROXIMITY_WINDOW words.
 */
export function phraseEvidence(terms: readonly string[], index: Bm25Index): (doc: number) => number {
  const pairs: { a: number; b: number; idf: number }[] = []
  for (let i = 1; i < terms.length; i++) {
    const [x, y] = [terms[i - 1] as string, terms[i] as string]
    if (index.documentFrequency(x) === 0 || index.documentFrequency(y) === 0) continue
    pairs.push({ a: index.termNumber(x), b: index.termNumber(y), idf: (index.idf(x) + index.idf(y)) / 2 })
  }
  return (doc) => {
    const seq = index.sequence(doc)
    if (pairs.length === 0 || seq === undefined) return 0
    let points = 0
    for (const { a, b, idf } of pairs) {
      let best = 0
      for (let i = 0; i < seq.length && best < 1; i++) {
        if (seq[i] !== a) continue
        if (seq[i + 1] === b) best = 1
        else
          for (let j = Math.max(0, i - PROXIMITY_WINDOW); j <= i + PROXIMITY_WINDOW && j < seq.length; j++)
            if (seq[j] === b) best = 0.5
      }
      points += PHRASE_WEIGHT * best * idf
    }
    return points
  }
}

/** Punctuation around a word that is not part of an identifier ("(T0829)," -> T0829). */
const EDGES = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu

/** Documents whose stix id or external id the objective writes whole, with the ids matched. */
export function objectiveIds(objective: string, index: Bm25Index): Map<number, string[]> {
  const out = new Map<number, string[]>()
  for (const word of objective.split(/\s+/)) {
    const id = word.replace(EDGES, '')
    if (id.length < 2) continue
    for (const doc of index.byId(id)) out.set(doc, [...(out.get(doc) ?? []), id])
  }
  return out
}
