import { describe, expect, it } from 'vitest'
import { DEFAULT_WORKSPACE_ID, GraphCatalog } from '../graph/catalog.js'
import type { DetachedNode, DetachedValue } from './detached.js'
import { CypherEngine } from './engine.js'
import type { CypherBudgets } from './executor/context.js'
import { type ResultCursor, SLICE_ITEMS } from './stream-cursor.js'

/** An engine whose streamed reads always answer with their cursor (no first page computed ahead). */
const engineWith = (budgets: Partial<CypherBudgets> = {}, streamPrefetchRows = 0) => {
  const catalog = new GraphCatalog()
  return { catalog, engine: new CypherEngine(catalog, { budgets, streamPrefetchRows }) }
}

async function open(engine: CypherEngine, query: string, params?: Record<string, unknown>) {
  const { result } = await engine.execute({
    query,
    mode: 'read',
    rows: 'stream',
    ...(params ? { params } : {}),
  })
  return result
}

/** Pulls everything in pages of `page`; returns the rows and how many pulls it took. */
function drain(cursor: ResultCursor, page: number): { rows: DetachedValue[][]; pulls: number } {
  const rows: DetachedValue[][] = []
  let pulls = 0
  while (cursor.hasMore) {
    pulls++
    const got = cursor.pull(page, (row) => rows.push(row))
    expect(got).toBeLessThanOrEqual(page)
  }
  return { rows, pulls }
}

async function items(engine: CypherEngine, n: number): Promise<void> {
  const { result } = await engine.execute({
    query: 'UNWIND range(1, $n) AS i CREATE (:Item {id: i})-[:NEXT]->(:Tag {of: i})',
    mode: 'write',
    params: { n },
  })
  expect(result.status).toBe('Success')
}

describe('which reads stream', () => {
  const { engine } = engineWith()
  it.each([
    'UNWIND range(1, 10) AS i RETURN i',
    'UNWIND $list AS x RETURN x',
    'MATCH (n:Item) RETURN n.id',
    'MATCH (n) WHERE n.id > 3 RETURN n',
    'MATCH (n:Item)-[:NEXT]->(t) WITH n, t WHERE t.of > 1 RETURN n.id, t.of SKIP 2 LIMIT 5',
    'MATCH (n:Item) OPTIONAL MATCH (n)-[:NEXT]->(t) RETURN n, t',
    'UNWIND range(1, 3) AS i MATCH (n:Item {id: i}) RETURN n',
    'MATCH (n:Item {id: 1}) RETURN n',
  ])('%s', (query) => {
    expect(engine.plan(query).stream).toBeDefined()
  })
  it.each([
    'MATCH (n:Item) RETURN n.id ORDER BY n.id',
    'MATCH (n:Item) RETURN count(n)',
    'MATCH (n:Item) RETURN DISTINCT n.id',
    'MATCH (n:Item) WITH n ORDER BY n.id RETURN n',
    'OPTIONAL MATCH (n:Item) RETURN n',
    'RETURN 1 AS one',
    'UNWIND [1] AS i RETURN i UNION ALL UNWIND [2] AS i RETURN i',
    'MATCH (n:Item) SET n.x = 1 RETURN n',
    'EXPLAIN MATCH (n:Item) RETURN n',
    'CALL db.labels() YIELD label RETURN label',
  ])('not %s', (query) => {
    expect(engine.plan(query).stream).toBeUndefined()
  })
})

describe('a streamed result', () => {
  it('counts 1M integers exactly in pages, holding no list (the list budget is not at stake)', async () => {
    const { engine } = engineWith()
    const result = await open(engine, 'UNWIND range(1, 1000000) AS i RETURN i')
    expect(result.status).toBe('Success')
    expect(result.data).toEqual({ columns: ['i'], rows: [] })
    expect(result.query_type).toBe('r')
    const cursor = result.cursor as ResultCursor
    let sum = 0n
    let count = 0
    while (cursor.hasMore) {
      cursor.pull(4096, (row) => {
        count++
        sum += row[0] as bigint
      })
    }
    expect(count).toBe(1_000_000)
    expect(sum).toBe(500_000_500_000n)
    // Whole (as HTTP asks for it) the same query is still held to the list and row budgets.
    const whole = await engine.execute({ query: 'UNWIND range(1, 1000000) AS i RETURN i', mode: 'read' })
    expect(whole.result.validation_errors[0]?.message).toContain('list_size')
  })

  it('counts UNWIND range() down and by steps, and checks its arguments as range() does', async () => {
    const { engine } = engineWith()
    const values = async (query: string) =>
      drain((await open(engine, query)).cursor as ResultCursor, 2).rows.map((row) => row[0])
    expect(await values('UNWIND range(10, 1, -3) AS i RETURN i')).toEqual([10n, 7n, 4n, 1n])
    expect(await values('UNWIND range(0, 10, 4) AS i RETURN i')).toEqual([0n, 4n, 8n])
    expect(await values('UNWIND range(5, 1) AS i RETURN i')).toEqual([])
    for (const [query, message] of [
      ["UNWIND range(1, 'x') AS i RETURN i", /range\(\) expects integers, got STRING/],
      ['UNWIND range(1, 5, 0) AS i RETURN i', /step must not be zero/],
    ] as const) {
      const cursor = (await open(engine, query)).cursor as ResultCursor
      expect(() => cursor.pull(1, () => {})).toThrow(message)
      // The same errors as the whole (HTTP) run gives.
      const whole = await engine.run({ query, mode: 'read' })
      expect(whole.validation_errors[0]?.message).toMatch(message)
    }
  })

  it('keeps SKIP, LIMIT and filters across pages, and an item’s expansions whole', async () => {
    const { engine } = engineWith()
    await items(engine, 500)
    const limited = await open(
      engine,
      'MATCH (n:Item) WHERE n.id % 2 = 0 RETURN n.id AS id SKIP 10 LIMIT 100',
    )
    const { rows, pulls } = drain(limited.cursor as ResultCursor, 7)
    expect(rows.map((row) => row[0])).toEqual(Array.from({ length: 100 }, (_, i) => BigInt(22 + 2 * i)))
    expect(pulls).toBe(15)
    // Two rows per Item (itself and its tag through UNWIND): a page of 3 ends mid-item, the rest waits.
    const fanned = await open(
      engine,
      'MATCH (n:Item)-[:NEXT]->(t:Tag) UNWIND [n.id, -t.of] AS v RETURN v, t AS tag',
    )
    const all = drain(fanned.cursor as ResultCursor, 3).rows
    expect(all.length).toBe(1000)
    expect(all.reduce((sum, row) => sum + (row[0] as bigint), 0n)).toBe(0n)
    expect((all[1]?.[1] as DetachedNode | undefined)?.labels).toEqual(['Tag'])
  })

  it('resumes an index seek as its source', async () => {
    const { engine } = engineWith()
    await engine.execute({
      query: 'UNWIND range(1, 30) AS i CREATE (:Item {group: i % 3, id: i})',
      mode: 'write',
    })
    const result = await open(engine, 'MATCH (n:Item {group: 1}) RETURN n.id AS id')
    const { rows, pulls } = drain(result.cursor as ResultCursor, 4)
    expect(rows.map((row) => row[0])).toEqual(Array.from({ length: 10 }, (_, i) => BigInt(1 + 3 * i)))
    expect(pulls).toBe(3)
  })

  it('ends a slice after SLICE_ITEMS source items even when its filter passed little', async () => {
    const { engine } = engineWith()
    const result = await open(engine, 'UNWIND range(1, 200000) AS i WITH i WHERE i = 199999 RETURN i')
    const cursor = result.cursor as ResultCursor
    const got: number[] = []
    while (cursor.hasMore) got.push(cursor.pull(10, () => {}))
    // 65,536 items a slice: three empty pulls, then the one row and the end.
    expect(SLICE_ITEMS).toBe(65_536)
    expect(got).toEqual([0, 0, 0, 1])
  })

  it('computes its first page when run: a result that ends within it is answered whole', async () => {
    const { engine } = engineWith({}, 100)
    const small = await open(engine, 'UNWIND range(1, 99) AS i RETURN i')
    expect(small.cursor).toBeUndefined()
    expect(small.data?.rows.length).toBe(99)
    expect(small.data?.rows.at(-1)).toEqual([99n])
    // A runtime error of a small result comes with the run, as before streaming.
    const failed = await open(engine, 'UNWIND [1, 0] AS x RETURN 1 / x')
    expect(failed.status).toBe('Rejected')
    const large = await open(engine, 'UNWIND range(1, 101) AS i RETURN i')
    const cursor = large.cursor as ResultCursor
    expect(large.data?.rows).toEqual([])
    const page: DetachedValue[] = []
    expect(cursor.pull(100, (row) => page.push(row[0] as DetachedValue))).toBe(100)
    expect(page.at(-1)).toBe(100n)
    expect(drain(cursor, 10).rows).toEqual([[101n]])
  })

  it('bounds what it delivers by maxStreamedRecords, exactly at the edge', async () => {
    const { engine } = engineWith({ maxStreamedRecords: 1000 })
    const edge = await open(engine, 'UNWIND range(1, 1000) AS i RETURN i')
    expect(drain(edge.cursor as ResultCursor, 300).rows.length).toBe(1000)
    const over = await open(engine, 'UNWIND range(1, 1001) AS i RETURN i')
    const cursor = over.cursor as ResultCursor
    expect(() => drain(cursor, 300)).toThrow(/streamed_records: actual 1001, limit 1000/)
    expect(cursor.hasMore).toBe(false)
  })

  it('stops on close and on an aborted signal, and counts its compute time across pulls', async () => {
    const { engine } = engineWith({ maxExecutionMs: 50 })
    const closed = (await open(engine, 'UNWIND range(1, 100) AS i RETURN i')).cursor as ResultCursor
    closed.pull(10, () => {})
    closed.close('discarded')
    expect(closed.hasMore).toBe(false)
    expect(() => closed.pull(1, () => {})).toThrow(/discarded/)
    const aborted = (await open(engine, 'UNWIND range(1, 100) AS i RETURN i')).cursor as ResultCursor
    const controller = new AbortController()
    controller.abort()
    expect(() => aborted.pull(10, () => {}, { signal: controller.signal })).toThrow(/aborted/)
    const slow = (await open(engine, 'UNWIND range(1, 100000000) AS i RETURN i')).cursor as ResultCursor
    expect(() => drain(slow, 50_000)).toThrow(/execution_time_ms/)
  })

  it('reads the published graph as each page finds it: a node deleted meanwhile is skipped', async () => {
    const { engine } = engineWith()
    await items(engine, 10)
    const cursor = (await open(engine, 'MATCH (n:Item) RETURN n.id')).cursor as ResultCursor
    const seen: DetachedValue[] = []
    cursor.pull(3, (row) => seen.push(row[0] as DetachedValue))
    await engine.execute({ query: 'MATCH (n:Item {id: 5}) DETACH DELETE n', mode: 'write' })
    while (cursor.hasMore) cursor.pull(3, (row) => seen.push(row[0] as DetachedValue))
    expect(seen).toEqual([1n, 2n, 3n, 4n, 6n, 7n, 8n, 9n, 10n])
  })

  it('is not thrown off when the label index is compacted between pages (many deletes)', async () => {
    const { engine } = engineWith()
    await engine.execute({ query: 'UNWIND range(1, 3000) AS i CREATE (:Item {id: i})', mode: 'write' })
    const cursor = (await open(engine, 'MATCH (n:Item) RETURN n.id')).cursor as ResultCursor
    const seen: bigint[] = []
    cursor.pull(10, (row) => seen.push(row[0] as bigint))
    // 2,000 of 3,000 removed: past a quarter, the index compacts its id list in place.
    const deleted = await engine.execute({
      query: 'MATCH (n:Item) WHERE n.id % 3 <> 0 DELETE n',
      mode: 'write',
    })
    expect(deleted.result.mutation_summary.deleted_nodes).toBe(2000)
    while (cursor.hasMore) cursor.pull(100, (row) => seen.push(row[0] as bigint))
    const survivors = Array.from({ length: 1000 }, (_, i) => BigInt(3 * (i + 1))).filter((id) => id > 10n)
    expect(seen).toEqual([...Array.from({ length: 10 }, (_, i) => BigInt(i + 1)), ...survivors])
  })

  it('streams inside a transaction over its overlay, seeing its own writes', async () => {
    const { engine, catalog } = engineWith()
    await items(engine, 3)
    const tx = catalog.workspace(DEFAULT_WORKSPACE_ID).begin()
    const wrote = engine.executeInTransaction(tx, {
      query: 'UNWIND range(4, 2000) AS i CREATE (:Item {id: i})',
      mode: 'write',
    })
    expect(wrote.result.status).toBe('Success')
    const read = engine.executeInTransaction(tx, {
      query: 'MATCH (n:Item) RETURN n.id',
      mode: 'read',
      rows: 'stream',
    })
    const cursor = read.result.cursor as ResultCursor
    expect(cursor.onPublishedGraph).toBe(false)
    const rows = drain(cursor, 500).rows
    expect(rows.length).toBe(2000)
    expect(rows.reduce((sum, row) => sum + (row[0] as bigint), 0n)).toBe(2_001_000n)
  })

  it('reports the query type: r, w, rw and s', async () => {
    const { engine } = engineWith()
    const type = async (query: string) =>
      (await engine.execute({ query, mode: 'auto', rows: 'detached' })).result.query_type
    expect(await type('RETURN 1 AS one')).toBe('r')
    expect(await type('CREATE (:T)')).toBe('w')
    expect(await type('CREATE (t:T) RETURN t')).toBe('rw')
    expect(await type('MATCH (t:T) SET t.x = 1')).toBe('rw')
    expect(await type('CREATE INDEX t_x FOR (t:T) ON (t.x)')).toBe('s')
    expect(await type('DROP INDEX t_x')).toBe('s')
    // JSON (HTTP) results carry no query type.
    expect((await engine.run({ query: 'RETURN 1 AS one', mode: 'read' })).query_type).toBeUndefined()
  })
})
