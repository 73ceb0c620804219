import { afterEach, describe, expect, it } from 'vitest'
import { type Engine, openEngine } from '../runtime/index.js'
import { context, inner, limits, memoryInput, op } from '../testing/memory-requests.js'
import { asksAboutPast } from './recall-time-cues.js'

const engines: Engine[] = []
afterEach(async () => {
  for (const e of engines.splice(0)) await e.close()
})

const PAST = '2020-01-01T00:00:00Z'
const LATER = '2021-06-01T00:00:00Z'

/**
 * A small memory of a user: two addresses (the old one valid until the move), a preference, a project, and
 * links between them with kinds, confidences and validity.
 */
async function userMemory() {
  const engine = await openEngine()
  engines.push(engine)
  const ctx = context()
  const remember = async (text: string, extra: Record<string, unknown>) =>
    inner(await op(engine, ctx, 'remember', memoryInput(text, extra))).record.id as string
  const relate = async (
    source_id: string,
    target_id: string,
    kind: string,
    extra: Record<string, unknown> = {},
  ) =>
    inner(
      await op(engine, ctx, 'relate', {
        source_id,
        target_id,
        kind,
        properties: {},
        provenance: [{ source_id: 'chat' }],
        lifecycle: 'active',
        ...extra,
      }),
    ).relationship.id as string
  const user = await remember('the user Dana', { kind: 'person', tags: ['user'], confidence: 1 })
  const oldHome = await remember('address 12 Elm Street', {
    kind: 'address',
    tags: ['home', 'address'],
    confidence: 0.9,
    valid_from: PAST,
    valid_until: LATER,
  })
  const newHome = await remember('address 4 Harbour Road', {
    kind: 'address',
    tags: ['home', 'address'],
    confidence: 0.95,
    valid_from: LATER,
  })
  const tea = await remember('prefers green tea', { kind: 'preference', tags: ['drink'], confidence: 0.4 })
  const project = await remember('project Atlas address book', {
    kind: 'project',
    tags: ['work'],
    confidence: 0.8,
  })
  await relate(user, oldHome, 'lived_at', { valid_from: PAST, valid_until: LATER })
  await relate(user, newHome, 'lives_at', { valid_from: LATER })
  await relate(user, tea, 'prefers', { confidence: 0.4 })
  await relate(user, project, 'works_on', { confidence: 0.9 })
  await relate(oldHome, newHome, 'replaced_by')
  return { engine, ctx, ids: { user, oldHome, newHome, tea, project } }
}

const recall = async (engine: Engine, ctx: ReturnType<typeof context>, input: Record<string, unknown>) =>
  inner(await op(engine, ctx, 'recall', { seed_ids: [], limits: limits(), ...input }))

const ids = (res: { items: { record: { id: string } }[] }) => res.items.map((i) => i.record.id)

describe('recall filters', () => {
  it('kinds, tags_any, tags_all and min_confidence narrow the answer', async () => {
    const { engine, ctx, ids: m } = await userMemory()
    const byKind = await recall(engine, ctx, { objective: 'address', filters: { kinds: ['address'] } })
    expect(ids(byKind).sort()).toEqual([m.oldHome, m.newHome].sort())
    // Dana herself is filtered out: a filter applies to seeds and walk alike, so she carries nothing.
    expect(
      ids(await recall(engine, ctx, { objective: 'Dana', filters: { tags_any: ['drink', 'work'] } })),
    ).toEqual([])
    const anyTag = await recall(engine, ctx, {
      objective: 'green tea Atlas',
      filters: { tags_any: ['drink', 'work'] },
    })
    expect(ids(anyTag).sort()).toEqual([m.tea, m.project].sort())
    const allTags = await recall(engine, ctx, {
      objective: 'address',
      filters: { tags_all: ['home', 'address'] },
    })
    expect(ids(allTags).sort()).toEqual([m.oldHome, m.newHome].sort())
    const confident = await recall(engine, ctx, {
      objective: 'Dana tea Atlas',
      filters: { min_confidence: 0.5 },
    })
    expect(ids(confident)).not.toContain(m.tea)
    expect(ids(confident)).toContain(m.project)
  })

  it('relationship_kinds walks only those kinds', async () => {
    const { engine, ctx, ids: m } = await userMemory()
    const res = await recall(engine, ctx, {
      objective: 'Dana',
      seed_ids: [m.user],
      limits: limits({ max_depth: 1 }),
      filters: { relationship_kinds: ['works_on'] },
    })
    expect(ids(res).sort()).toEqual([m.user, m.project].sort())
    expect(res.relationships.map((r: { kind: string }) => r.kind)).toEqual(['works_on'])
  })

  it('valid_at keeps what holds at that instant: valid_from included, valid_until excluded', async () => {
    const { engine, ctx, ids: m } = await userMemory()
    const at = async (instant: string) =>
      ids(
        await recall(engine, ctx, {
          objective: 'address',
          filters: { kinds: ['address'], valid_at: instant },
        }),
      )
    expect(await at(PAST)).toEqual([m.oldHome])
    expect(await at('2021-05-31T23:59:59.999Z')).toEqual([m.oldHome])
    expect(await at(LATER)).toEqual([m.newHome])
    expect(await at('2019-12-31T23:59:59Z')).toEqual([])
  })

  it('a filter that excludes everything gives an empty, complete result', async () => {
    const { engine, ctx } = await userMemory()
    const res = await recall(engine, ctx, { objective: 'address', filters: { kinds: ['no-such-kind'] } })
    expect(res.items).toEqual([])
    expect(res.completeness.complete).toBe(true)
    expect(res.usage.filters).toEqual({ kinds: ['no-such-kind'] })
  })

  it('applies to explicit seeds too, reports the filters in usage and trace, and binds the page token', async () => {
    const { engine, ctx, ids: m } = await userMemory()
    const res = await recall(engine, ctx, {
      objective: 'Dana',
      seed_ids: [m.tea],
      limits: limits({ max_items: 1 }),
      filters: { kinds: ['address', 'person'], tags_any: ['user', 'home'] },
    })
    expect(ids(res)).not.toContain(m.tea)
    expect(res.usage.filters).toEqual({ kinds: ['address', 'person'], tags_any: ['home', 'user'] })
    const trace = inner(await op(engine, ctx, 'trace', { target: { kind: 'recall', id: res.recall_id } }))
    expect(trace.details.filters).toEqual(res.usage.filters)
    expect(res.next_page_token).not.toBeNull()
    // The same token with other filters is another recall: not found, like a token of another objective.
    await expect(
      op(engine, ctx, 'recall', {
        objective: 'Dana',
        seed_ids: [m.tea],
        limits: limits({ max_items: 1 }),
        page_token: res.next_page_token,
        filters: { kinds: ['address'] },
      }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' })
    const next = await recall(engine, ctx, {
      objective: 'Dana',
      seed_ids: [m.tea],
      limits: limits({ max_items: 1 }),
      page_token: res.next_page_token,
      filters: { tags_any: ['home', 'user'], kinds: ['person', 'address'] },
    })
    expect(ids(next)).toHaveLength(1)
    // A genuine token in another workspace is a hidden target.
    await expect(
      op(engine, context({ workspace_id: 'workspace--b' }), 'recall', {
        objective: 'Dana',
        seed_ids: [m.tea],
        limits: limits({ max_items: 1 }),
        page_token: res.next_page_token,
        filters: { kinds: ['address', 'person'], tags_any: ['user', 'home'] },
      }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' })
  })

  it('refuses malformed filters as INVALID_REQUEST naming the field', async () => {
    const { engine, ctx } = await userMemory()
    const bad = (filters: unknown) =>
      op(engine, ctx, 'recall', { objective: 'x', seed_ids: [], limits: limits(), filters }).then(
        () => 'ok',
        (error: { code: string; message: string }) => `${error.code} ${error.message}`,
      )
    expect(await bad({ min_confidence: 1.5 })).toMatch(/^INVALID_REQUEST .*filters\.min_confidence/)
    expect(await bad({ valid_at: 'yesterday' })).toMatch(/^INVALID_REQUEST .*filters\.valid_at/)
    expect(await bad({ as_of: '2026-13-01T00:00:00Z' })).toMatch(/^INVALID_REQUEST .*filters\.as_of/)
    expect(await bad({ kinds: 'address' })).toMatch(/^INVALID_REQUEST .*filters\.kinds/)
    expect(await bad({ kinds: [''] })).toMatch(/^INVALID_REQUEST .*filters\.kinds/)
    expect(await bad({ colour: ['red'] })).toMatch(/^INVALID_REQUEST .*filters\.colour/)
    expect(await bad({ tags_any: Array.from({ length: 101 }, (_, i) => `t${i}`) })).toMatch(
      /filters\.tags_any/,
    )
    expect(await bad({ tags_any: Array.from({ length: 100 }, (_, i) => `t${i}`) })).toBe('ok')
  })
})

describe('validity is not forgetting', () => {
  it('returns a memory past its valid_until, below what holds now, with the reason', async () => {
    const { engine, ctx, ids: m } = await userMemory()
    const res = await recall(engine, ctx, { objective: 'address' })
    const order = ids(res)
    expect(order).toContain(m.oldHome)
    expect(order.indexOf(m.newHome)).toBeLessThan(order.indexOf(m.oldHome))
    const old = res.items.find((i: { record: { id: string } }) => i.record.id === m.oldHome)
    expect(old.selection_reasons).toContain(`no_longer_valid_since:${LATER}`)
    // valid_at now excludes it.
    const now = await recall(engine, ctx, {
      objective: 'address',
      filters: { valid_at: new Date().toISOString() },
    })
    expect(ids(now)).not.toContain(m.oldHome)
  })

  it('an objective about the past prefers what is no longer valid: the version valid then', async () => {
    const { engine, ctx, ids: m } = await userMemory()
    const res = await recall(engine, ctx, {
      objective: 'address before the move',
      filters: { kinds: ['address'] },
    })
    const scores = new Map(
      res.items.map((i: { record: { id: string }; score: number }) => [i.record.id, i.score]),
    )
    expect(scores.get(m.oldHome)).toBeGreaterThan(scores.get(m.newHome) as number)
  })

  it('forget still removes a memory from ordinary recall', async () => {
    const { engine, ctx, ids: m } = await userMemory()
    await op(engine, ctx, 'forget', { memory_id: m.oldHome, mode: 'tombstone', reason: 'wrong' })
    expect(ids(await recall(engine, ctx, { objective: 'address' }))).not.toContain(m.oldHome)
  })
})

describe('asksAboutPast', () => {
  const now = Date.parse('2026-06-01T00:00:00Z')
  it.each([
    ['what was the address before the move', true],
    ['which app the user used to take notes with', true],
    ['the previous manager', true],
    ['what did they decide in 2023', true],
    ['what is the address', false],
    ['plans for 2026', false],
    ['which editor does the user prefer', false],
  ])('%s -> %s', (objective, expected) => {
    expect(asksAboutPast(objective, now)).toBe(expected)
  })
})
