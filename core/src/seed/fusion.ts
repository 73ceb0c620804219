import type { RetrievalMode } from './rules.js'

/**
 * How the four modes turn signals into one score (all signals in [0, 1]):
 *
 * - full_text: lexical = raw BM25 / (raw + 2) (FACTS §4).
 * - vector: dense = max(0, cosine(objective, node)) from the embedding provider.
 * - semantic: 0.75 dense + 0.10 degree + 0.10 confidence + 0.05 status (hybrid's weights with the dense
 *   signal in the content slot).
 * - hybrid: 0.75 content + the same graph signals, content = (1 - w) lexical + w dense; with no
 *   provider, content = lexical. FACTS gives content 0.70 and degree 0.15: with degree that strong, hubs
 *   (techniques with many relationships) push better-matching mitigations and assets out of the top
 *   (ATT&CK judged set, hybrid nDCG@10 with content/degree 0.70/0.15 -> 0.730, 0.72/0.13 -> 0.733,
 *   0.74/0.11 -> 0.736, 0.75/0.10 -> 0.742, 0.76/0.09 -> 0.741, 0.78/0.07 -> 0.742).
 *
 * degree = ln(1 + d) / ln(1 + max d) (0 when max d is 0); confidence defaults to 0.5; status per FACTS.
 */
export const WEIGHTS = { content: 0.75, degree: 0.1, confidence: 0.1, status: 0.05 } as const
/**
 * Dense share of hybrid content. ATT&CK judged set, hybrid nDCG@10: 0 -> 0.739, 0.05 -> 0.740, 0.1 -> 0.742,
 * 0.2 -> 0.736, 0.3 -> 0.737: GloVe means add little here; kept so a better provider can help. With the
 * relationship context in BM25F (seed tuning set / memory-recall lookup tuning part): 0 -> 0.790 / 0.710,
 * 0.1 -> 0.795 / 0.733, 0.2 -> 0.796 / 0.734. Embedding the context too lifted hybrid to 0.808 at 0.3 but
 * cost semantic mode recall (0.416 -> 0.369): node vectors stay on the node's own text.
 */
export const HYBRID_DENSE_SHARE = 0.1

export interface Signals {
  lexical: number | null
  dense: number | null
  degree: number
  confidence: number
  status: number
}

export const degreeSignal = (degree: number, maxDegree: number): number =>
  maxDegree <= 0 ? 0 : Math.log1p(degree) / Math.log1p(maxDegree)

export interface Fused {
  score: number
  /** Named contributions that add up to the score. */
  parts: [string, number][]
}

export function fuse(mode: RetrievalMode, s: Signals, denseShare = HYBRID_DENSE_SHARE): Fused {
  if (mode === 'full_text') return { score: s.lexical ?? 0, parts: [['lexical', s.lexical ?? 0]] }
  if (mode === 'vector') return { score: s.dense ?? 0, parts: [['dense', s.dense ?? 0]] }
  const parts: [string, number][] = []
  if (mode === 'semantic') parts.push(['dense', WEIGHTS.content * (s.dense ?? 0)])
  else if (s.dense === null) parts.push(['lexical', WEIGHTS.content * (s.lexical ?? 0)])
  else {
    parts.push(['lexical', WEIGHTS.content * (1 - denseShare) * (s.lexical ?? 0)])
    parts.push(['dense', WEIGHTS.content * denseShare * s.dense])
  }
  parts.push(['degree', WEIGHTS.degree * s.degree])
  parts.push(['confidence', WEIGHTS.confidence * s.confidence])
  parts.push(['status', WEIGHTS.status * s.status])
  return { score: parts.reduce((sum, [, v]) => sum + v, 0), parts }
}

/** Where the raw lexical points came from (BM25F by field, phrase evidence, an exact identifier). */
export interface LexicalParts {
  name: number
  labels: number
  body: number
  /** What the node's relationships say of it (node-text.ts). */
  context: number
  phrase: number
  id: number
}

const f = (x: number) => x.toFixed(4)

const lexicalDetail = (p: LexicalParts) =>
  `; lexical raw ${f(p.name + p.labels + p.body + p.context + p.phrase + p.id)} = name/aliases ${f(p.name)} + labels ${f(
    p.labels,
  )} + description ${f(p.body)} + relationships ${f(p.context)} + phrase ${f(p.phrase)} + exact id ${f(p.id)}`

/** One line an analyst can check: the mode, each contribution, the lexical breakdown, the matched terms. */
export function rationale(
  mode: RetrievalMode,
  fused: Fused,
  s: Signals,
  matched: readonly string[],
  lexical: LexicalParts | null = null,
): string {
  const raw: Record<string, number | null> = {
    lexical: s.lexical,
    dense: s.dense,
    degree: s.degree,
    confidence: s.confidence,
    status: s.status,
  }
  const parts = fused.parts.map(([name, v]) => `${name} ${f(v)} (signal ${f(raw[name] ?? 0)})`).join(' + ')
  const terms = matched.length > 0 ? `; matched terms: ${matched.join(', ')}` : ''
  return `${mode} score ${f(fused.score)} = ${parts}${lexical === null ? '' : lexicalDetail(lexical)}${terms}`
}
