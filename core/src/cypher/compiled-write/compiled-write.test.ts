import { describe, expect, it } from 'vitest'
import { GraphCatalog } from '../../graph/catalog.js'
import { commitOpsJson } from '../../graph/commit.js'
import { random } from '../../testing/assistant-memory.js'
import { CypherEngine, type CypherEngineOptions, type RowForm } from '../engine.js'
import { parseQuery } from '../parser.js'
import { compileSingleWrite } from './index.js'
import { recogniseCreate } from './recognise.js'

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

/** A random property map: parameters (their values into `params`) and literals. */
function randomMap(rng: Rng, params: Record<string, unknown>): string {
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
  return entries.length > 0 || rng() < 0.5 ? ` {${entries.join(', ')}}` : ''
}

/**
 * A random write: mostly the compiled shape (new nodes and relationships in one or two parts, RETURN of one of
 * them), with neighbours of it that are not (they run the general way).
 */
function randomWrite(rng: Rng): { query: string; params: Record<string, unknown> } {
  const params: Record<string, unknown> = {}
  const variables: string[] = []
  const variable = () => {
    if (rng() < 0.5) return ''
    const name = pick(rng, ['a', 'b', 'c', 'd', 'r', 's'])
    variables.push(name) // repeated names join elements: the general path
    return name
  }
  const node = () => {
    const labels = Array.from({ length: Math.floor(rng() * 3) }, () => `:${pick(rng, ['A', 'B', 'U'])}`)
    return `(${variable()}${labels.join('')}${randomMap(rng, params)})`
  }
  const parts: string[] = []
  for (let p = rng() < 0.8 ? 1 : 2; p > 0; p--) {
    let part = node()
    for (let hops = rng() < 0.5 ? 0 : Math.floor(rng() * 3); hops > 0; hops--) {
      const rel = `[${variable()}:${pick(rng, ['R', 'S'])}${randomMap(rng, params)}]`
      part += `${rng() < 0.5 ? `-${rel}->` : `<-${rel}-`}${node()}`
    }
    parts.push(part)
  }
  if (rng() < 0.1) params.extra = pick(rng, PARAM_VALUES)() ?? 1 // unused, still converted and checked
  const returned = variables.length > 0 && rng() < 0.4 ? pick(rng, variables) : undefined
  const tail = returned
    ? pick(rng, [` RETURN ${returned}`, ` RETURN ${returned} AS x`, ` RETURN id(${returned})`])
    : ''
  const general = rng() < 0.05 && returned ? ` SET ${returned}.z = 1` : ''
  return { query: `CREATE ${parts.join(', ')}${general}${tail}`, params }
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

const GRAPH = ['MATCH (n) RETURN n ORDER BY id(n)', 'MATCH ()-[r]->() RETURN r ORDER BY id(r)']

describe('compiled single writes', () => {
  it('recognises new nodes and relationships made from parameters and literals, and nothing around them', () => {
    const shape = (text: string) => recogniseCreate(parseQuery(text, { maxExpressionDepth: 100 }))
    expect(shape("CREATE (n:A:B {k: $k, v: 'x'}) RETURN n")).toEqual({
      parts: [
        {
          nodes: [{ labels: ['A', 'B'], keys: ['k', 'v'], values: [{ param: 'k' }, { literal: 'x' }] }],
          rels: [],
        },
      ],
      returns: { part: 0, kind: 'node', index: 0 },
    })
    expect(shape('CREATE ()')).toEqual({
      parts: [{ nodes: [{ labels: [], keys: [], values: [] }], rels: [] }],
      returns: undefined,
    })
    expect(shape('CREATE (a)<-[r:T {w: 1}]-(b), (c) RETURN r')).toEqual({
      parts: [
        {
          nodes: [
            { labels: [], keys: [], values: [] },
            { labels: [], keys: [], values: [] },
          ],
          rels: [{ type: 'T', inward: true, keys: ['w'], values: [{ literal: 1n }] }],
        },
        { nodes: [{ labels: [], keys: [], values: [] }], rels: [] },
      ],
      returns: { part: 0, kind: 'rel', index: 0 },
    })
    for (const other of [
      'CREATE (a)-[:R]->(a)',
      'CREATE (a), (a)-[:R]->(b)',
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
      'MATCH (m) CREATE (m)-[:R]->(n)',
    ])
      expect(shape(other), other).toBeUndefined()
    expect(compileSingleWrite(parseQuery('CREATE (:A {k: 1})', { maxExpressionDepth: 100 }))).toBeDefined()
  })

  it('is planned for the writes the storage benchmark and the kill -9 tests send', () => {
    const engine = new CypherEngine(new GraphCatalog())
    for (const query of [
      'CREATE (:Event {w: $w, n: $n})', // bench/lib/durable-writes.mjs
      'CREATE (a:Item {k: $k, part: 1, round: $round})-[:PAIR {k: $k}]->(b:Item {k: $k, part: 2, round: $round})',
    ])
      expect(engine.plan(query).compiled, query).toBeDefined()
    expect(engine.plan('MATCH (n) RETURN n').compiled).toBeUndefined()
  })

  for (const seed of [1, 2, 3, 4]) {
    it(`answers, commits and leaves the graph exactly as the general path (random writes, seed ${seed})`, async () => {
      const rng = random(seed)
      const { compiled, general } = pair()
      for (const side of [compiled, general])
        await side.engine.run({
          query: 'CREATE CONSTRAINT FOR (u:U) REQUIRE u.name IS UNIQUE',
          mode: 'write',
        })
      for (let i = 0; i < 500; i++) {
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
      const read = (engine: CypherEngine) =>
        Promise.all(
          GRAPH.map(async (query) => (await engine.run({ query, mode: 'read', workspaceId: 'w' })).data),
        )
      expect(await read(compiled.engine)).toEqual(await read(general.engine))
      const [store, other] = [compiled.catalog.workspace('w'), general.catalog.workspace('w')]
      expect([store.nodeCount(), store.relCount()]).toEqual([other.nodeCount(), other.relCount()])
      expect(store.relCount()).toBeGreaterThan(50) // relationships were made, not only nodes
    })
  }

  it('keeps the budgets and the abort signal of the general path', async () => {
    const { compiled, general } = pair({ budgets: { maxMutations: 0 } })
    const request = { query: 'CREATE (n:A {k: $k}) RETURN n', params: { k: 1 }, mode: 'write' } as const
    const refused = answer(await compiled.engine.execute(request))
    expect(refused.error?.code).toBe('QUERY_BUDGET_EXCEEDED')
    expect(refused).toEqual(answer(await general.engine.execute(request)))
    // Every budget a row or a created element counts against, at nothing: the same refusal (or none) both ways.
    for (const budgets of [
      { maxReturnedRecords: 0, maxHotNodes: 0 },
      { maxHotNodes: 0 },
      { maxHotRelationships: 0 },
      { maxLoadedRecords: 0 },
      { maxScannedRecords: 0 },
      { maxListSize: 1 },
    ]) {
      const none = pair({ budgets })
      for (const query of [
        'CREATE (n:A {l: $l}) RETURN n',
        'CREATE (:A)-[r:R]->() RETURN r',
        'CREATE (n:A)',
      ]) {
        const capped = { ...request, query, params: { l: [1, 2] } }
        const expected = answer(await none.general.engine.execute(capped))
        expect(
          answer(await none.compiled.engine.execute(capped)),
          `${JSON.stringify(budgets)} ${query}`,
        ).toEqual(expected)
      }
      expect(none.compiled.log).toEqual(none.general.log)
    }
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
    // A deadline already past: a single create never reaches the clock check, either way.
    const late = { deadline: Date.now() - 1 }
    expect(answer(await compiled.engine.execute(request, late))).toEqual(
      answer(await general.engine.execute(request, late)),
    )
    expect(compiled.log).toEqual(general.log)
  })
})
