import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Engine, openEngine } from '../../runtime/index.js'
import {
  ASSISTANT_WORKSPACE,
  assistantMemorySet,
  assistantRecallRanker,
  assistantSeedRanker,
  type PartFigures,
  rememberAssistantSet,
  scoreAssistant,
  writeAssistantNodes,
} from '../../testing/assistant-recall.js'
import { nodeProperty } from '../../testing/seed-relevance.js'

/**
 * Recall on the generated assistant-memory set (core/src/testing/assistant-memory.ts), tuning part only: floors a
 * little under what it measured when waypoint kinds and the past-version rules landed (nDCG@10 all 0.895, lookup
 * 0.994, relational 1.000, multi-hop 0.590, temporal 0.963, hub-crossing 0.929; seed full_text all 0.529), so a
 * ranking regression fails here. The kept-aside part is scored only by `pnpm bench memory` with
 * RECALL_JUDGED_FINAL=1.
 */
const FLOORS = {
  all: 0.88,
  lookup: 0.98,
  relational: 0.98,
  multihop: 0.57,
  temporal: 0.94,
  hub: 0.91,
} as const
/** Recall over seed search full_text on the same texts, overall (measured 1.69x). */
const OVER_FULL_TEXT = 1.6

describe('recall on the assistant-memory set (tuning part)', () => {
  const set = assistantMemorySet()
  const tuning = set.queries.filter((q) => q.part === 'tuning')
  let engine: Engine
  let seedEngine: Engine
  let recall: PartFigures
  beforeAll(async () => {
    engine = await openEngine()
    const idOf = await rememberAssistantSet(engine, set)
    recall = await scoreAssistant(tuning, assistantRecallRanker(engine, set, idOf))
    seedEngine = await openEngine()
  }, 300_000)
  afterAll(async () => {
    await engine?.close()
    await seedEngine?.close()
  })

  it('is generated the same every time, with the shape the brief asks for', () => {
    const again = assistantMemorySet()
    expect(again.queries).toEqual(set.queries)
    expect(again.memories.length).toBe(set.memories.length)
    expect(set.memories.length).toBeGreaterThan(3000)
    expect(set.queries.filter((q) => q.part === 'kept_aside').length).toBe(set.queries.length / 5)
    // The user is a hub: linked to a large share of the workspace.
    const userLinks = set.relationships.filter((r) => r.source === 'user' || r.target === 'user').length
    expect(userLinks / set.memories.length).toBeGreaterThan(0.2)
    expect(set.memories.some((m) => m.valid_until !== undefined)).toBe(true)
    expect(set.relationships.some((r) => r.kind === 'replaces')).toBe(true)
  })

  it('meets its floors by category', () => {
    expect(recall.all).toBeGreaterThanOrEqual(FLOORS.all)
    for (const [category, floor] of Object.entries(FLOORS))
      if (category !== 'all')
        expect(recall.byCategory[category as keyof PartFigures['byCategory']]).toBeGreaterThanOrEqual(floor)
  })

  it('beats seed full_text on the same texts', async () => {
    const keyOf = await writeAssistantNodes(seedEngine, set)
    const seed = await scoreAssistant(tuning, assistantSeedRanker(seedEngine, keyOf))
    expect(recall.all).toBeGreaterThanOrEqual(OVER_FULL_TEXT * seed.all)
  }, 120_000)

  it('scores every objective at least as well with its anchor as an explicit seed', async () => {
    const idOf = new Map(
      [...(await nodeProperty(engine, ASSISTANT_WORKSPACE, 'identity_key'))].map(([id, key]) => [key, id]),
    )
    const anchored = await scoreAssistant(tuning, assistantRecallRanker(engine, set, idOf, true))
    for (const [i, q] of recall.perQuery.entries())
      expect(anchored.perQuery[i]?.ndcg10, q.objective).toBeGreaterThanOrEqual(q.ndcg10 - 1e-9)
  }, 120_000)
})
