import type { GraphStore } from '../graph/store.js'
import { parseId, relationshipId } from './layout.js'
import type { ObjectiveSearch } from './objective-search.js'
import {
  isRecallableMemory,
  memoryRecallable,
  type RecordKeys,
  recordKeys,
  relationshipRecallable,
  type WalkResult,
} from './recall.js'
import { type RankPlan, rankRecall, type TextEvidence } from './recall-rank.js'
import {
  matchRelations,
  NO_RELATION,
  widenWithVectors,
  withoutRelationWords,
  workspaceKinds,
} from './recall-relations.js'
import type { RecallLimits } from './types.js'

/** Share of a matching relationship's score its two ends get as text evidence. */
export const RELATIONSHIP_TEXT_SHARE = 0.3

/** A relationship recall may use: recallable itself and between recallable memories. */
function usableFact(store: GraphStore, rel: number, nowMs: number): boolean {
  return (
    relationshipRecallable(store, recordKeys(store), rel, nowMs) &&
    isRecallableMemory(store, store.relStart(rel), nowMs) &&
    isRecallableMemory(store, store.relEnd(rel), nowMs)
  )
}

/** Objective hits kept as text evidence beyond the page (and at least that many in all). */
export const TEXT_POOL_MIN = 50

export interface RecallQuery {
  workspace: string
  objective: string
  seedIds: readonly string[]
  limits: RecallLimits
  offset: number
  nowMs: number
  deadline: number
  signal?: AbortSignal | undefined
}

/** What a recall found and how: the ranked page, and whether a dense provider took part. */
export interface RecallAnswer {
  walked: WalkResult
  dense: boolean
  hits: number
}

type ReadGraph = <T>(workspaceId: string, fn: (store: GraphStore) => T) => Promise<T>

/**
 * One recall: text evidence and term corrections from the seed-search index, the relationship kinds the
 * objective names (by root, widened by word vectors when a provider is set), then the ranked walk over one
 * published version of the workspace graph.
 */
export async function runRecall(
  seed: ObjectiveSearch,
  readGraph: ReadGraph,
  q: RecallQuery,
): Promise<RecallAnswer> {
  let keys: RecordKeys | undefined // looked up once: the hit pool asks about hundreds of memories
  const accept = (store: GraphStore, id: number) => {
    keys ??= recordKeys(store)
    return memoryRecallable(store, keys, id, q.nowMs)
  }
  const limit = Math.max(TEXT_POOL_MIN, q.offset + q.limits.max_items + TEXT_POOL_MIN)
  const kinds = await readGraph(q.workspace, (store) => [...workspaceKinds(store)])
  const relations =
    kinds.length === 0 ? { ...NO_RELATION, words: new Set<string>() } : matchRelations(q.objective, kinds)
  const provider = seed.embeddings.provider
  if (provider !== null && kinds.length > 0)
    await widenWithVectors(relations, q.objective, kinds, provider, q.signal)
  const text = withoutRelationWords(q.objective, relations)
  const objective = await seed.objectiveHits(q.workspace, text, limit, accept, q.signal)
  const shared = objective.corrections.map((c) => `term_correction:${c.word}->${c.term}`)
  const evidence = new Map<number, TextEvidence>()
  for (const h of objective.hits)
    evidence.set(h.id, {
      id: h.id,
      score: h.score,
      reasons: [h.lexical > 0 ? 'objective_lexical_match' : 'objective_semantic_match'],
    })
  // A relationship that matches the objective brings both of its ends, at RELATIONSHIP_TEXT_SHARE of its score,
  // as text evidence only: they rank, but do not spread (a fact's words are mostly its ends' names).
  const facts = await seed.relationshipHits(q.workspace, objective.terms, q.limits.max_items, (store, rel) =>
    usableFact(store, rel, q.nowMs),
  )
  const ends = await readGraph(q.workspace, (store) =>
    facts.map((f) => [store.relStart(f.id), store.relEnd(f.id)]),
  )
  for (const [i, fact] of facts.entries())
    for (const end of ends[i] ?? []) {
      const score = RELATIONSHIP_TEXT_SHARE * fact.score
      const known = evidence.get(end)
      const reason = `relationship_match:${relationshipId(fact.id)}`
      if (known === undefined) evidence.set(end, { id: end, score, reasons: [reason], seed: false })
      else {
        known.score = Math.max(known.score, score)
        if (!known.reasons.includes(reason)) known.reasons.push(reason)
      }
    }
  const hits = [...evidence.values()].sort((a, b) => b.score - a.score || a.id - b.id)
  const walked = await readGraph(q.workspace, (store) => {
    const explicit: number[] = []
    for (const seedId of q.seedIds) {
      const node = parseId(seedId, 'node')
      // A seed that is hidden, missing or not recallable is simply not a seed: nothing leaks.
      if (node !== null && isRecallableMemory(store, node, q.nowMs)) explicit.push(node)
    }
    const plan: RankPlan = {
      limits: q.limits,
      offset: q.offset,
      nowMs: q.nowMs,
      deadline: q.deadline,
      signal: q.signal,
      explicit,
      hits,
      relations,
      shared,
    }
    return rankRecall(store, plan)
  })
  return { walked, dense: objective.dense, hits: hits.length }
}
