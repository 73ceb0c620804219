import { afterEach, describe, expect, it } from 'vitest'
import { type Engine, openEngine } from '../runtime/index.js'
import { context, inner, limits, memoryInput, op } from '../testing/memory-requests.js'
import { rankRecall } from './recall-rank.js'
import { NO_RELATION } from './recall-relations.js'
import { memoryResponseBody } from './response-json.js'
import { RECALL_LIMITS } from './types.js'

const engines: Engine[] = []
const open = async () => {
  const engine = await openEngine()
  engines.push(engine)
  return engine
}
afterEach(async () => {
  for (const e of engines.splice(0)) await e.close()
})

const recall = (engine: Engine, ctx = context(), input: Record<string, unknown> = {}) =>
  op(engine, ctx, 'recall', { objective: 'anchor', seed_ids: [], limits: limits(), ...input })

/** A chain anchor -> m1 -> m2 -> m3 plus a hub with `spokes` neighbours. */
async function chain(engine: Engine, ctx = context(), spokes = 0) {
  const ids: string[] = []
  const remember = async (text: string) =>
    inner(await op(engine, ctx, 'remember', memoryInput(text))).record.id as string
  const relate = (a: string, b: string, kind = 'next') =>
    op(engine, ctx, 'relate', {
      source_id: a,
      target_id: b,
      kind,
      properties: {},
      provenance: [{ source_id: `ev-${a}-${b}` }],
      lifecycle: 'active',
    })
  ids.push(await remember('anchor memory'))
  for (const word of ['first link', 'second link', 'third link']) {
    ids.push(await remember(word))
    await relate(ids[ids.length - 2] as string, ids[ids.length - 1] as string)
  }
  const spokeIds: string[] = []
  for (let i = 0; i < spokes; i++) {
    spokeIds.push(await remember(`spoke ${i}`))
    await relate(ids[0] as string, spokeIds[i] as string, 'spoke')
  }
  return { ids, spokeIds }
}

describe('recall', () => {
  it('selects lexical seeds from the full-text index and walks breadth-first to max_depth', async () => {
    const engine = await open()
    const ctx = context()
    const { ids } = await chain(engine, ctx)
    const res = inner(await recall(engine, ctx, { limits: limits({ max_depth: 2 }) }))
    expect(res.recall_id).toMatch(/^recall--[0-9a-f]{24}$/)
    expect(res.items.map((i: { record: { id: string } }) => i.record.id)).toEqual(ids.slice(0, 3))
    expect(res.items[0].selection_reasons).toEqual(['objective_lexical_match', 'graph_proximity'])
    expect(res.items[1].selection_reasons).toEqual([
      'authorized_relationship_depth_1',
      'bounded_authorized_neighborhood',
      'graph_proximity',
    ])
    expect(res.items[2].selection_reasons[0]).toBe('authorized_relationship_depth_2')
    expect(res.items[0].score).toBeGreaterThan(res.items[1].score)
    // Relationships between returned items keep their evidence.
    expect(res.relationships).toHaveLength(2)
    expect(res.relationships[0].provenance[0].source_id).toBe(`ev-${ids[0]}-${ids[1]}`)
    expect(res.usage).toMatchObject({
      items: 3,
      depth: 2,
      cost: expect.any(Number),
      payload_bytes: expect.any(Number),
    })
    expect(res.usage.elapsed_ms).toBeGreaterThanOrEqual(0)
    expect(res.completeness).toEqual({ complete: true, truncated: false, outcomes: [] })
    expect(res.next_page_token).toBeNull()
  })

  it('takes explicit seeds first and ignores seeds it cannot see', async () => {
    const engine = await open()
    const ctx = context()
    const { ids } = await chain(engine, ctx)
    const res = inner(
      await recall(engine, ctx, {
        objective: 'nothing matches this',
        seed_ids: [ids[3], 'node--9999', 'bogus'],
        limits: limits({ max_depth: 1 }),
      }),
    )
    expect(res.items.map((i: { record: { id: string } }) => i.record.id)).toEqual([ids[3], ids[2]])
    expect(res.items[0].selection_reasons).toEqual(['explicit_seed'])
    // No lexical seed and no embedding provider: said, not hidden.
    expect(res.completeness.outcomes).toEqual(['semantic_provider_unavailable'])
  })

  it('requires every limit and enforces each at its edges (0 and max+1 refused, 1 and max accepted)', async () => {
    const engine = await open()
    await chain(engine)
    for (const [key, max] of Object.entries(RECALL_LIMITS)) {
      await expect(recall(engine, context(), { limits: limits({ [key]: 0 }) })).rejects.toMatchObject({
        code: 'INVALID_BUDGET',
      })
      await expect(recall(engine, context(), { limits: limits({ [key]: 1 }) })).resolves.toMatchObject({
        ok: true,
      })
      if (max !== Number.MAX_SAFE_INTEGER) {
        await expect(recall(engine, context(), { limits: limits({ [key]: max }) })).resolves.toMatchObject({
          ok: true,
        })
        await expect(recall(engine, context(), { limits: limits({ [key]: max + 1 }) })).rejects.toMatchObject(
          {
            code: 'INVALID_BUDGET',
          },
        )
      }
      const { [key]: _missing, ...rest } = limits() as Record<string, number>
      await expect(recall(engine, context(), { limits: rest })).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
      })
    }
    await expect(recall(engine, context(), { limits: limits({ max_items: 1.5 }) })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    })
    await expect(recall(engine, context(), { limits: limits({ max_depth: -1 }) })).rejects.toMatchObject({
      code: 'INVALID_BUDGET',
    })
  })

  it('reports each bounded outcome instead of expanding further', async () => {
    const engine = await open()
    const ctx = context()
    const { ids } = await chain(engine, ctx, 5)
    const supernode = inner(await recall(engine, ctx, { limits: limits({ supernode_threshold: 3 }) }))
    expect(supernode.completeness.outcomes).toContain('supernode_blocked')
    expect(supernode.items.map((i: { record: { id: string } }) => i.record.id)).toEqual([ids[0]])
    const cost = inner(await recall(engine, ctx, { limits: limits({ max_cost: 2 }) }))
    expect(cost.completeness).toMatchObject({
      complete: false,
      truncated: true,
      outcomes: ['cost_budget_exhausted'],
    })
    expect(cost.usage.cost).toBe(2)
    const payload = inner(await recall(engine, ctx, { limits: limits({ max_payload_bytes: 1 }) }))
    expect(payload.items).toEqual([])
    expect(payload.completeness.outcomes).toContain('payload_budget_exhausted')
    expect(payload.usage.payload_bytes).toBe(0)
  })

  it('pages with signed tokens bound to workspace and objective', async () => {
    const engine = await open()
    const ctx = context()
    const { ids, spokeIds } = await chain(engine, ctx, 3)
    const all = [ids[0], ids[1], ...spokeIds, ids[2], ids[3]]
    const seen: string[] = []
    let token: string | null = null
    let pages = 0
    do {
      const res = inner(
        await recall(engine, ctx, {
          limits: limits({ max_items: 2, max_depth: 3 }),
          ...(token ? { page_token: token } : {}),
        }),
      )
      seen.push(...res.items.map((i: { record: { id: string } }) => i.record.id))
      token = res.next_page_token
      if (token !== null) expect(res.completeness.truncated).toBe(true)
      pages++
    } while (token !== null && pages < 10)
    expect(seen).toEqual(all)
    const first = inner(await recall(engine, ctx, { limits: limits({ max_items: 2 }) }))
      .next_page_token as string
    const [body, mac] = first.split('.') as [string, string]
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), off: 0 }),
    ).toString('base64url')
    for (const bad of [`${forged}.${mac}`, 'garbage', `${body}.${mac}x`])
      await expect(recall(engine, ctx, { page_token: bad })).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
      })
    await expect(
      recall(engine, context({ workspace_id: 'workspace--b' }), { page_token: first }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    })
    await expect(
      recall(engine, ctx, { objective: 'other objective', page_token: first }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    })
  })

  it('traverses only recallable memories and relationships', async () => {
    const engine = await open()
    const ctx = context()
    const { ids } = await chain(engine, ctx)
    await op(engine, ctx, 'forget', { memory_id: ids[1], mode: 'tombstone', reason: 'gone' })
    const res = inner(await recall(engine, ctx, { limits: limits({ max_depth: 3 }) }))
    expect(res.items.map((i: { record: { id: string } }) => i.record.id)).toEqual([ids[0]])
  })

  it('is CANCELLED when the caller has gone', async () => {
    const engine = await open()
    const controller = new AbortController()
    controller.abort()
    await expect(
      engine.memory.execute(
        {
          contract_version: 'v1',
          operation: 'recall',
          input: { objective: 'x', seed_ids: [], limits: limits() },
        },
        context(),
        { signal: controller.signal },
      ),
    ).rejects.toMatchObject({ code: 'CANCELLED' })
  })
})

describe('the walk itself', () => {
  it('stops with outcome timeout once its deadline has passed, without examining more', async () => {
    const engine = await open()
    const ctx = context()
    await chain(engine, ctx, 300)
    const result = await engine.readGraph(ctx.workspace_id, (store) =>
      rankRecall(store, {
        explicit: [0],
        hits: [],
        relations: NO_RELATION,
        shared: [],
        limits: limits({ max_items: 1000, supernode_threshold: 10_000 }),
        offset: 0,
        nowMs: Date.now(),
        deadline: 0, // already past: the first clock check stops the walk
      }),
    )
    expect(result.outcomes).toEqual(['timeout'])
    expect(result.cost).toBe(256) // the clock is read every 256 relationships examined
    expect(result.items.length).toBeLessThan(301)
  })

  it("returns each link between returned memories once, a supernode's from the other side", async () => {
    const engine = await open()
    const ctx = context()
    const { ids, spokeIds } = await chain(engine, ctx, 5)
    const res = inner(
      await recall(engine, ctx, {
        seed_ids: [spokeIds[0], ids[1]],
        limits: limits({ max_depth: 1, supernode_threshold: 3 }),
      }),
    )
    // Explicit seeds rank as the best text hit; the objective's own hit (the anchor) joins them.
    const returned = res.items.map((i: { record: { id: string } }) => i.record.id)
    expect(returned).toHaveLength(4)
    expect(returned).toEqual(expect.arrayContaining([spokeIds[0], ids[1], ids[0], ids[2]]))
    // anchor (a supernode: 6 links) -> spoke 0 and anchor -> first link show from the spoke's and link's side.
    const links = res.relationships.map((r: { source_id: string; target_id: string }) => [
      r.source_id,
      r.target_id,
    ])
    expect(links).toHaveLength(3)
    expect(links).toEqual(
      expect.arrayContaining([
        [ids[0], ids[1]],
        [ids[1], ids[2]],
        [ids[0], spokeIds[0]],
      ]),
    )
    expect(res.completeness.outcomes).toContain('supernode_blocked')
  })

  it('sends as JSON exactly JSON.stringify of the response, even when content looks like the splice marks', async () => {
    const engine = await open()
    const ctx = context()
    const { ids } = await chain(engine, ctx)
    await op(engine, ctx, 'update', {
      target: { kind: 'memory', id: ids[1] },
      expected_version: 1,
      patch: { content: { format: 'text', value: '"\u0000relationships" \u0000items $& $1 é 😀' } },
    })
    const response = await recall(engine, ctx, { limits: limits({ max_depth: 3 }) })
    const res = inner(response)
    expect(res.items.length).toBe(4)
    expect(res.relationships.length).toBe(3)
    expect(JSON.stringify(res.items)).toContain('\\u0000relationships')
    expect(memoryResponseBody(response).toString()).toBe(JSON.stringify(response))
    // The payload budget counted the bytes that are sent for the items and relationships.
    const sent = [...res.items, ...res.relationships].map((x) => Buffer.byteLength(JSON.stringify(x)))
    expect(res.usage.payload_bytes).toBe(sent.reduce((a, b) => a + b, 0))
    // A response changed after the recall is serialised afresh, not from the text made before.
    res.items = res.items.slice(1)
    expect(memoryResponseBody(response).toString()).toBe(JSON.stringify(response))
  })
})
