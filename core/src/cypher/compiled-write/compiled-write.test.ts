import { describe, expect, it } from 'vitest'
import { GraphCatalog } from '../../graph/catalog.js'
import { commitOpsJson } from '../../graph/commit.js'
import { CypherEngine, type CypherEngineOptions, type RowForm } from '../engine.js'
import { parseQuery } from '../parser.js'
import { compileSingleWrite } from './index.js'
import { recogniseNodeCreate } from './recognise.js'

/** A seeded generator, so a failing run can be replayed (the seed is in the test name). */
function random(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

type Rng = () => number
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T

/** Parameter values: storable ones, and every kind the general path refuses or converts. */
const PARAM_VALUES: readonly (() => unknown)[] = [
  () => 7,
  () => -3,
  () => 2.5,
  () => Number.NaN,
  () => 'text',
  () => '',
  () => 'dup', // collides under the uniqueness constraint below
  () => true,
  () => null,
  () => [1, 2, 3],
  () => ['a', 'b'],
  () => [1, 'a'],
  () => [],
  () => [[1]], // a nested list: refused
  () => [null],
  () => ({ a: 1 }), // a map: refused as a property
  () => 12n,
  () => 2n ** 70n, // outside 64 bits
  () => 2 ** 60, // an unsafe integer
  () => ({ $date: '2015-07-21' }),
  () => ({ $date: 5 }), // a bad temporal tag
  () => undefined, // left out: PARAMETER_MISSING
]

const LITERALS = ['1', '-0.5', "'lit'", 'true', 'null', '2.0', '9223372036854775807', "'dup'"]

/** A random write: mostly the compiled shape, with neighbours of it that are not (they run the general way). */
function randomWrite(rng: Rng): { query: string; params: Record<string, unknown> } {
  const labels = Array.from({ length: Math.floor(rng() * 3) }, () => pick(rng, ['A', 'B', 'U']))
  const params: Record<string, unknown> = {}
  const entries: string[] = []
  for (let i = Math.floor(rng() * 4); i > 0; i--) {
    const key = pick(rng, ['k', 'v', 'w', 'name'])
    if (rng() < 0.6) {
      const name = pick(rng, ['p', 'q', 'r'])
      const value = pick(rng, PARAM_VALUES)()
      if (value !== undefined) params[name] = value
      entries.push(`${key}: $${name}`)
    } else entries.push(`${key}: ${pick(rng, LITERALS)}`)
  }
  if (rng() < 0.1) params.extra = pick(rng, PARAM_VALUES)() ?? 1 // unused, still converted and checked
  const variable = rng() < 0.5 ? 'n' : ''
  const map = entries.length > 0 || rng() < 0.5 ? ` {${entries.join(', ')}}` : ''
  const node = `(${variable}${labels.map((l) => `:${l}`).join('')}${map})`
  const tail = variable && rng() < 0.4 ? pick(rng, [' RETURN n', ' RETURN n AS node', ' RETURN n.k']) : ''
  const general = rng() < 0.1 ? pick(rng, [`, (:B)`, ` SET ${variable || 'm'}.z = 1`]) : ''
  return { query: `CREATE ${node}${general}${tail}`, params }
}

/** What a run answers, minus what differs by design between two engines (nothing, today). */
function answer(outcome: Awaited<ReturnType<CypherEngine['execute']>>) {
  const { result, error, classification, queryType } = outcome
  return {
    result,
    error: error && { code: (error as { code?: string }).code, message: error.message },
    classification,
    queryType,
  }
}

function pair(options: Partial<CypherEngineOptions> = {}) {
  const make = (compiledWrites: boolean) => {
    const catalog = new GraphCatalog()
    const log: string[] = []
    const engine = new CypherEngine(catalog, {
      ...options,
      compiledWrites,
      beforePublish: (commit, workspaceId, sequence) => {
        log.push(`${workspaceId} ${sequence} ${commitOpsJson(commit.ops)}`)
      },
    })
    return { engine, catalog, log }
  }
  return { compiled: make(true), general: make(false) }
}

const GRAPH = 'MATCH (n) RETURN n ORDER BY id(n)'

describe('compiled single writes', () => {
  it('recognises one node created from parameters and literals, and nothing around it', () => {
    const shape = (text: string) => recogniseNodeCreate(parseQuery(text, { maxExpressionDepth: 100 }))
    expect(shape("CREATE (n:A:B {k: $k, v: 'x'}) RETURN n")).toEqual({
      labels: ['A', 'B'],
      keys: ['k', 'v'],
      values: [{ param: 'k' }, { literal: 'x' }],
      returns: true,
    })
    expect(shape('CREATE ()')).toEqual({ labels: [], keys: [], values: [], returns: false })
    for (const other of [
      'CREATE (a), (b)',
      'CREATE (a)-[:R]->(b)',
      'CREATE p = (a)',
      'CREATE (n {k: $k + 1})',
      'CREATE (n $props)',
      'CREATE (n:$($l))',
      'CREATE (n) RETURN n.k',
      'CREATE (n) RETURN DISTINCT n',
      'CREATE (n) RETURN n LIMIT 1',
      'CREATE (n) SET n.k = 1',
      'EXPLAIN CREATE (n)',
      'USE other CREATE (n)',
      'MATCH (m) CREATE (n)',
    ])
      expect(shape(other), other).toBeUndefined()
    expect(compileSingleWrite(parseQuery('CREATE (:A {k: 1})', { maxExpressionDepth: 100 }))).toBeDefined()
  })

  for (const seed of [1, 2, 3]) {
    it(`answers, commits and leaves the graph exactly as the general path (random writes, seed ${seed})`, async () => {
      const rng = random(seed)
      const { compiled, general } = pair()
      for (const side of [compiled, general])
        await side.engine.run({
          query: 'CREATE CONSTRAINT FOR (u:U) REQUIRE u.name IS UNIQUE',
          mode: 'write',
        })
      for (let i = 0; i < 400; i++) {
        const { query, params } = randomWrite(rng)
        const rows = pick<RowForm>(rng, ['json', 'json', 'detached'])
        const mode = rng() < 0.8 ? 'write' : 'auto'
        const request = { query, params, mode, rows, workspaceId: 'w' } as const
        // Both doors: at once (the writer idle) and through the queue.
        const now = rng() < 0.5
        const run = (engine: CypherEngine) =>
          now ? (engine.executeWriteNow(request) ?? engine.execute(request)) : engine.execute(request)
        const expected = answer(await run(general.engine))
        const actual = answer(await run(compiled.engine))
        expect(
          actual,
          `${query} ${JSON.stringify(params, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))}`,
        ).toEqual(expected)
      }
      expect(compiled.log).toEqual(general.log)
      expect(compiled.log.length).toBeGreaterThan(100) // most writes commit; the test is not all refusals
      const read = async (engine: CypherEngine) =>
        (await engine.run({ query: GRAPH, mode: 'read', workspaceId: 'w' })).data
      expect(await read(compiled.engine)).toEqual(await read(general.engine))
      const store = compiled.catalog.workspace('w')
      expect(store.nodeCount()).toBe(general.catalog.workspace('w').nodeCount())
    })
  }

  it('keeps the budgets and the abort signal of the general path', async () => {
    const { compiled, general } = pair({ budgets: { maxMutations: 0 } })
    const request = { query: 'CREATE (n:A {k: $k}) RETURN n', params: { k: 1 }, mode: 'write' } as const
    const refused = answer(await compiled.engine.execute(request))
    expect(refused.error?.code).toBe('QUERY_BUDGET_EXCEEDED')
    expect(refused).toEqual(answer(await general.engine.execute(request)))
    const small = pair({ budgets: { maxPayloadBytes: 30 } })
    const big = { ...request, params: { k: 'x'.repeat(100) } }
    const tooBig = answer(await small.compiled.engine.execute(big))
    expect(tooBig.error?.code).toBe('QUERY_BUDGET_EXCEEDED')
    expect(tooBig).toEqual(answer(await small.general.engine.execute(big)))
    const aborted = new AbortController()
    aborted.abort()
    const stopped = answer(await compiled.engine.execute(request, { signal: aborted.signal }))
    expect(stopped.error?.code).toBe('QUERY_ABORTED')
    expect(stopped).toEqual(answer(await general.engine.execute(request, { signal: aborted.signal })))
    expect(compiled.log).toEqual([])
  })
})
