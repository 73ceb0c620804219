import type { GraphReader } from '../graph/types.js'
import type { EmbeddingProvider } from '../seed/embeddings/provider.js'
import { normalizeInPlace } from '../seed/embeddings/provider.js'
import { QUESTION_WORDS, STOPWORDS, tokenize } from '../seed/tokenizer.js'
import { MEMORY_RELATION } from './layout.js'
import { relValue } from './recall.js'

/**
 * Which relationship kinds of the workspace an objective asks about ("what mitigates X" -> `mitigates`,
 * "which software employs Y" -> `uses` when a word-vector provider says employ ~ use). The vocabulary is the
 * kinds the workspace holds, never a fixed list: each kind is split into words, and an objective word matches a
 * kind word when their roots meet (mitigations/mitigated/mitigates, using/used/uses) or, with an embedding
 * provider, when their vectors are close.
 */
export interface RelationMatch {
  /** Matched kinds, each with its strength (1 for a root match, the cosine for a vector neighbour). */
  kinds: Map<string, number>
  /** kind -> the objective word that matched it, and how (shown in selection_reasons). */
  evidence: Map<string, { word: string; via: 'root' | 'vector' }>
  /** Objective words that name a relation: they say how, not what, so they do not select seeds. */
  words: Set<string>
}

export const NO_RELATION: RelationMatch = { kinds: new Map(), evidence: new Map(), words: new Set() }

/**
 * Cosine above which a word-vector neighbour of a kind word counts as that kind. With the local GloVe-like
 * model, 0.6 let "devices", "does" and "techniques" mean `uses` (ATT&CK tuning objectives); 0.7 does not.
 */
export const RELATION_VECTOR_MIN = 0.7

const SUFFIXES = ['ations', 'ation', 'ions', 'ion', 'ings', 'ing', 'ers', 'er', 'ed', 'es', 's']

/** A word's root for relation matching: one inflectional or nominal suffix off, then a final e. */
export function relationRoot(word: string): string {
  let w = word
  for (const suffix of SUFFIXES)
    if (w.endsWith(suffix) && w.length - suffix.length >= 2) {
      w = w.slice(0, -suffix.length)
      break
    }
  return w.length >= 3 && w.endsWith('e') ? w.slice(0, -1) : w
}

/** Roots meet when equal, or when the shorter (four letters or more) begins the longer. */
export function rootsMeet(a: string, b: string): boolean {
  if (a === b) return true
  const [short, long] = a.length <= b.length ? [a, b] : [b, a]
  return short.length >= 4 && long.startsWith(short)
}

export const contentWords = (text: string) => tokenize(text).filter((w) => !STOPWORDS.has(w) && w.length >= 3)

/** Kinds seen per store: relationships only grow the set, so each recall scans the ones created since. */
const seenKinds = new WeakMap<GraphReader, { scanned: number; kinds: Set<string> }>()

/** The distinct kinds of this workspace's memory relationships (deleted kinds may linger: harmless). */
export function workspaceKinds(reader: GraphReader & { nextRelId: number }): ReadonlySet<string> {
  let seen = seenKinds.get(reader)
  if (seen === undefined) {
    seen = { scanned: 0, kinds: new Set() }
    seenKinds.set(reader, seen)
  }
  const type = reader.names.lookup(MEMORY_RELATION)
  const key = reader.names.lookup('kind')
  if (type >= 0 && key >= 0)
    for (let id = seen.scanned; id < reader.nextRelId; id++) {
      if (reader.relType(id) !== type) continue
      // One column read per relationship: building each one's property map made the first recall cost seconds.
      const kind = relValue(reader, id, key)
      if (typeof kind === 'string') seen.kinds.add(kind)
    }
  seen.scanned = Math.max(seen.scanned, reader.nextRelId)
  return seen.kinds
}

/** The objective without its relation words (unchanged when nothing else would be left). */
export function withoutRelationWords(objective: string, match: RelationMatch): string {
  if (match.words.size === 0) return objective
  const rest = tokenize(objective).filter((w) => !match.words.has(w))
  return rest.some((w) => !STOPWORDS.has(w)) ? rest.join(' ') : objective
}

/** The kinds the objective names by root. */
export function matchRelations(objective: string, kinds: Iterable<string>): RelationMatch {
  const words = contentWords(objective).map((w) => [w, relationRoot(w)] as const)
  const match: RelationMatch = { kinds: new Map(), evidence: new Map(), words: new Set() }
  for (const kind of kinds)
    for (const kindWord of contentWords(kind)) {
      const root = relationRoot(kindWord)
      for (const [word, r] of words) {
        if (!rootsMeet(r, root)) continue
        match.kinds.set(kind, 1)
        if (!match.evidence.has(kind)) match.evidence.set(kind, { word, via: 'root' })
        match.words.add(word)
      }
    }
  return match
}

/** Adds kinds whose words are word-vector neighbours of an objective word ("prevent" ~ "mitigate"). */
export async function widenWithVectors(
  match: RelationMatch,
  objective: string,
  kinds: Iterable<string>,
  provider: EmbeddingProvider,
  signal?: AbortSignal,
): Promise<void> {
  // Question words ("does", "can") are near every verb in vector space: they never name a relation.
  const words = [...new Set(contentWords(objective))].filter((w) => !QUESTION_WORDS.has(w))
  const kindWords = new Map<string, string[]>()
  for (const kind of kinds) if (!match.kinds.has(kind)) kindWords.set(kind, contentWords(kind))
  const vocabulary = [...new Set([...kindWords.values()].flat())]
  if (words.length === 0 || vocabulary.length === 0) return
  const vectors = await provider.embed([...words, ...vocabulary], signal)
  const unit = vectors.map((v) => (normalizeInPlace(v) ? v : null))
  const of = new Map(vocabulary.map((w, i) => [w, unit[words.length + i] ?? null]))
  for (const [kind, kws] of kindWords) {
    let best = { cos: 0, word: '' }
    for (let i = 0; i < words.length; i++) {
      const a = unit[i]
      if (a === null || a === undefined) continue
      for (const kw of kws) {
        const b = of.get(kw)
        if (b === null || b === undefined) continue
        let cos = 0
        for (let d = 0; d < a.length; d++) cos += (a[d] as number) * (b[d] as number)
        if (cos > best.cos) best = { cos, word: words[i] as string }
      }
    }
    if (best.cos >= RELATION_VECTOR_MIN) {
      match.kinds.set(kind, best.cos)
      match.evidence.set(kind, { word: best.word, via: 'vector' })
      match.words.add(best.word)
    }
  }
}
