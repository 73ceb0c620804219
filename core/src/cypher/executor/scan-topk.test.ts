import { beforeAll, describe, expect, it } from 'vitest'
import { GraphCatalog } from '../../graph/catalog.js'
import { CypherEngine } from '../engine.js'
import { planQuery } from '../planner.js'

// The fused scan + top-k (column tests, key bound, batched filter) against the general row pipeline on random
// graphs whose properties mix types, nulls, NaN, signed zeros, infinities and integers past 2^53.

/** mulberry32: a small seeded generator, so a failing case can be replayed from its seed. */
function random(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = Math.imul(s ^ (s >>> 15), 1 | s)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const pick = <T>(rand: () => number, items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T

const explain = (query: string): string[] =>
  planQuery(query, { maxExpressionDepth: 256, maxVariableLengthHops: 15, collectErrors: false }).plan
    ?.explain ?? []

/** The same query on the general pipeline: a WITH between MATCH and RETURN keeps it out of the fusion. */
const viaWith = (query: string): string => query.replace(' RETURN ', ' WITH v RETURN ')

async function run(engine: CypherEngine, query: string, params: Record<string, unknown>) {
  const result = await engine.run({ query, mode: 'read', params })
  return { rows: result.data?.rows, errors: result.validation_errors }
}

/** A cell literal: mostly small numbers (many ties), sometimes anything Cypher orders. */
function numberish(rand: () => number): string | undefined {
  const roll = rand()
  if (roll < 0.4) return String(Math.floor(rand() * 20))
  if (roll < 0.6) return (Math.floor(rand() * 40) / 2).toFixed(1)
  if (roll < 0.7) return undefined
  return pick(rand, [
    '0.0 / 0.0',
    '-0.0',
    '1.0 / 0.0',
    '-1.0 / 0.0',
    '9007199254740993',
    '9007199254740992',
    '-9007199254740993',
    "'7'",
    "'abc'",
    'true',
    '[1, 2]',
    '7.0',
  ])
}

function stringish(rand: () => number): string | undefined {
  const roll = rand()
  return roll < 0.85 ? `'${pick(rand, ['', 'a', 'ab', 'b', 'B', 'ä', 'a b', 'zz', 'm'])}'` : undefined
}

async function seededGraph(seed: number, nodes: number): Promise<CypherEngine> {
  const rand = random(seed)
  const engine = new CypherEngine(new GraphCatalog(), {
    budgets: { maxLoadedRecords: 1_000_000, maxQueryLength: 1_000_000 },
  })
  const creates: string[] = []
  for (let i = 0; i < nodes; i++) {
    const props = [
      ['a', numberish(rand)],
      ['b', numberish(rand)],
      // `s` is an all-string column in some graphs (dictionary ranks), mixed in others.
      ['s', seed % 2 === 0 ? stringish(rand) : (stringish(rand) ?? numberish(rand))],
      ['u', String(i)],
    ].filter(([, value]) => value !== undefined)
    creates.push(`(:L {${props.map(([key, value]) => `${key}: ${value}`).join(', ')}})`)
  }
  for (let i = 0; i < creates.length; i += 500) {
    const result = await engine.run({
      query: `CREATE ${creates.slice(i, i + 500).join(', ')}`,
      mode: 'write',
    })
    expect(result.validation_errors).toEqual([])
  }
  await engine.run({ query: 'CREATE (:Other {a: 1})', mode: 'write' })
  return engine
}

function randomQuery(rand: () => number): { query: string; params: Record<string, unknown> } {
  const conjuncts = [
    'v.a > $p',
    'v.a <= $p',
    '$p < v.b',
    'v.b >= 3.5',
    'v.a <> 4',
    'v.b < 9007199254740993',
    "v.s > 'aa'",
    "v.s <> 'b'",
    "'ab' >= v.s",
    'v.s < $q',
    'v.a > $q',
    'v.b IS NOT NULL',
    'v.a > v.b',
    'v.a > $p + 1',
    'v.b < -2',
    "v.s >= $q + 'b'",
    '$flag',
  ]
  const where = Array.from({ length: Math.floor(rand() * 3) }, () => pick(rand, conjuncts))
  const items = pick(rand, [
    ['v.a AS a', 'v.b AS b', 'v.u AS u'],
    ['v.s AS s', 'v.a AS a', 'v.u AS u'],
    ['v.u AS u', 'coalesce(v.a, -1) AS c', 'v.b AS b'],
    ['v.a AS a', 'v.s AS s', "'k' AS k", 'v.u AS u'],
  ])
  const names = items.map((item) => item.split(' AS ')[1] as string)
  const keys = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => {
    // `v.u % 3` is no column read: the bound then judges on the first key alone.
    const key = rand() < 0.3 ? pick(rand, ['v.a', 'v.b', 'v.s', 'v.u % 3']) : pick(rand, names)
    return `${key}${rand() < 0.5 ? ' DESC' : ''}`
  })
  const skip = rand() < 0.3 ? ` SKIP ${Math.floor(rand() * 5)}` : ''
  const limit = pick(rand, [0, 1, 3, 10, 40, 100, 2000])
  const query = `MATCH (v:L)${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} RETURN ${items.join(', ')} ORDER BY ${keys.join(', ')}${skip} LIMIT ${limit}`
  const params = {
    p: pick(rand, [3, 2.5, 10, -1, 9007199254740992, Number.NaN]),
    q: pick(rand, ['a', 'b', 'c', 'ab ', 5, null]),
    flag: rand() < 0.9,
  }
  return { query, params }
}

describe('fused scan + top-k against the general pipeline on random graphs', () => {
  for (const seed of [1, 2, 3, 4]) {
    describe(`graph seed ${seed}`, () => {
      let engine: CypherEngine
      beforeAll(async () => {
        // Past one filter batch (1024 rows), so batch edges are crossed.
        engine = await seededGraph(seed, 2500)
      })

      it('answers 100 random queries with the same rows, order and errors', async () => {
        const rand = random(seed * 7919)
        for (let n = 0; n < 100; n++) {
          const { query, params } = randomQuery(rand)
          expect(explain(query), query).toContain('ScanTopK')
          const fused = await run(engine, query, params)
          const general = await run(engine, viaWith(query), params)
          expect(fused, `${query} ${JSON.stringify(params)}`).toEqual(general)
        }
      })
    })
  }
})

describe('fused scan + top-k edge cases', () => {
  it('compares strings against constants the column lacks as the general pipeline does', async () => {
    const engine = await seededGraph(2, 300)
    for (const probe of ['', 'a', 'aa', 'ab ', 'B', 'c', 'zzz', 'ä', 'ö'])
      for (const op of ['<', '<=', '>', '>=', '<>']) {
        const query = `MATCH (v:L) WHERE v.s ${op} $q RETURN v.s AS s, v.u AS u ORDER BY s DESC, u LIMIT 1000`
        const fused = await run(engine, query, { q: probe })
        expect(fused, `${op} ${probe}`).toEqual(await run(engine, viaWith(query), { q: probe }))
      }
  })

  it('takes a LIMIT far past the label size without sizing anything by it', async () => {
    const engine = await seededGraph(6, 200)
    const query = 'MATCH (v:L) WHERE v.a >= 2 RETURN v.a AS a, v.u AS u ORDER BY a DESC, u LIMIT 9000000000'
    const fused = await run(engine, query, {})
    expect(fused.rows?.length).toBeGreaterThan(50)
    expect(fused).toEqual(await run(engine, viaWith(query), {}))
  })

  it('raises a missing parameter as the general pipeline does', async () => {
    const engine = await seededGraph(5, 50)
    const query = 'MATCH (v:L) WHERE v.a > $missing RETURN v.a AS a ORDER BY a LIMIT 3'
    const fused = await run(engine, query, {})
    expect(fused.errors).not.toEqual([])
    expect(fused).toEqual(await run(engine, viaWith(query), {}))
  })

  it('stops at the loaded-records budget on the same row, inside a filter batch', async () => {
    const catalog = new GraphCatalog()
    const writer = new CypherEngine(catalog)
    await writer.run({
      query: 'UNWIND range(1, 3000) AS i CREATE (:L {x: i % 7, y: toFloat(i)})',
      mode: 'write',
    })
    const bounded = new CypherEngine(catalog, { budgets: { maxLoadedRecords: 1500 } })
    const query = 'MATCH (v:L) WHERE v.x > 1 RETURN v.y AS y ORDER BY y DESC LIMIT 5'
    const fused = await run(bounded, query, {})
    expect(fused.errors).toEqual([expect.objectContaining({ code: 'QUERY_BUDGET_EXCEEDED' })])
    expect(fused).toEqual(await run(bounded, viaWith(query), {}))
  })
})
