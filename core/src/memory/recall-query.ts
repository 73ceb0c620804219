import type { GraphStore } from '../graph/store.js'
import type { GraphReader } from '../graph/types.js'
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
import { answerKinds, waypointKinds, workspaceMemoryKinds } from './recall-answer-kind.js'
import { compileFilters, NO_FILTERS, type RecallFilters } from './recall-filters.js'
import { type RankPlan, rankRecall, type TextEvidence } from './recall-rank.js'
import {
  matchRelations,
  NO_RELATION,
  widenWithVectors,
  withoutRelationWords,
  workspaceKinds,
} from './recall-relations.js'
import { asksAboutPast, pastYears } from './recall-time-cues.js'
import type { RecallLimits } from './types.js'

/** Share of a matching relationship's score its two ends get as text evidence. */
export const RELATIONSHIP_TEXT_SHARE = 0.3

/** A relationship recall may use: recallable itself and between recallable memories, all within the filters. */
function usableFact(store: RecallGraph, rel: number, nowMs: number, filters: Filter): boolean {
  const start = store.relStart(rel)
  const end = store.relEnd(rel)
  return (
    relationshipRecallable(store, recordKeys(store), rel, nowMs) &&
    isRecallableMemory(store, start, nowMs) &&
    isRecallableMemory(store, end, nowMs) &&
    (!filters.active ||
      (filters.relationship(store, rel) && filters.memory(store, start) && filters.memory(store, end)))
  )
}

type Filter = ReturnType<typeof compileFilters>

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
  filters?: RecallFilters
  /** The graph recall reads instead of the published one (`as_of`: the workspace as recorded then). */
  view?: (store: GraphStore) => RecallGraph
}

/** What recall reads: the published workspace graph, or a view of it (history/as-recorded-reader.ts). */
export type RecallGraph = GraphReader & { readonly nextNodeId: number; readonly nextRelId: number }

/** What a recall found and how: the ranked page, and whether a dense provider took part. */
export interface RecallAnswer {
  walked: WalkResult
  dense: boolean
  hits: number
  /** Objective hits the caller's filters left out (then no seed is the filters' doing, not a missing provider). */
  filteredOut: number
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
  let filters: Filter | undefined
  const view = q.view ?? ((store: GraphStore): RecallGraph => store)
  const filtersOf = (store: RecallGraph): Filter => {
    keys ??= recordKeys(store)
    filters ??= compileFilters(q.filters ?? NO_FILTERS, keys)
    return filters
  }
  let filteredOut = 0
  const accept = (published: GraphStore, id: number) => {
    const store = view(published)
    const f = filtersOf(store)
    if (!memoryRecallable(store, keys as RecordKeys, id, q.nowMs)) return false
    if (!f.active || f.memory(store, id)) return true
    filteredOut++
    return false
  }
  const limit = Math.max(TEXT_POOL_MIN, q.offset + q.limits.max_items + TEXT_POOL_MIN)
  const [kinds, memoryKinds] = await readGraph(q.workspace, (store) => [
    [...workspaceKinds(view(store))],
    workspaceMemoryKinds(view(store)),
  ])
  const answer = answerKinds(q.objective, memoryKinds)
  const waypoints = waypointKinds(q.objective, memoryKinds, answer)
  const relations =
    kinds.length === 0 ? { ...NO_RELATION, words: new Set<string>() } : matchRelations(q.objective, kinds)
  const provider = seed.embeddings.provider
  if (provider !== null && kinds.length > 0)
    await widenWithVectors(relations, q.objective, kinds, provider, q.signal)
  const asksPast = asksAboutPast(q.objective, q.nowMs)
  // A question about a fact's time ("where did X work in 2022") asks about the fact, whose text carries the
  // verb: its relation words stay in the text query, so the versions that say it outrank a walk across the kind.
  const text = asksPast ? q.objective : withoutRelationWords(q.objective, relations)
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
  const facts = await seed.relationshipHits(
    q.workspace,
    objective.terms,
    q.limits.max_items,
    (published, rel) => {
      const store = view(published)
      return usableFact(store, rel, q.nowMs, filtersOf(store))
    },
  )
  const ends = await readGraph(q.workspace, (published) => {
    const store = view(published)
    return facts.map((f) => [store.relStart(f.id), store.relEnd(f.id)])
  })
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
  const walked = await readGraph(q.workspace, (published) => {
    const store = view(published)
    const filter = filtersOf(store)
    const explicit: number[] = []
    for (const seedId of q.seedIds) {
      const node = parseId(seedId, 'node')
      // A seed that is hidden, missing, not recallable or filtered out is simply not a seed: nothing leaks.
      if (
        node !== null &&
        isRecallableMemory(store, node, q.nowMs) &&
        (!filter.active || filter.memory(store, node))
      )
        explicit.push(node)
    }
    // A memory of a waypoint kind is a way to the answer, not where the walk starts: "team" matches every team,
    // and each would pass its members on as if they were in the anchor's. It still ranks on its text.
    if (waypoints.kinds.size > 0) {
      const kindKey = store.names.lookup('kind')
      for (const h of hits) {
        const kind = kindKey < 0 ? undefined : store.node(h.id)?.props.get(kindKey)
        if (typeof kind === 'string' && waypoints.kinds.has(kind)) h.seed = false
      }
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
      filters: filter,
      asksPast,
      pastWindow: pastYears(q.objective, q.nowMs),
      answerKinds: answer,
      waypointKinds: waypoints.kinds,
      ...(filter.active ? { relationshipAllowed: filter.relationship } : {}),
    }
    return rankRecall(store, plan)
  })
  return { walked, dense: objective.dense, hits: hits.length, filteredOut }
}
