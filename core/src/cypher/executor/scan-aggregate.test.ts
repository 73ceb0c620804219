import { beforeEach, describe, expect, it } from 'vitest'
import { GraphCatalog } from '../../graph/catalog.js'
import { CypherEngine } from '../engine.js'
import { planQuery } from '../planner.js'

let engine: CypherEngine

/** The rows of a query that must succeed (its errors are in the assertion message when it does not). */
async function rows(query: string, params: Record<string, unknown> = {}): Promise<unknown[][]> {
  const result = await engine.run({ query, mode: 'auto', params })
  expect(result.validation_errors, query).toEqual([])
  return result.data?.rows ?? []
}

/** Each query is planned without the fused operator `marker`. */
const expectUnfused = (marker: string, queries: string[]): void => {
  for (const query of queries) expect(explain(query), query).not.toContain(marker)
}

const explain = (query: string): string[] =>
  planQuery(query, { maxExpressionDepth: 256, maxVariableLengthHops: 15, collectErrors: false }).plan
    ?.explain ?? []

/** The same query on the general row pipeline: a WITH between MATCH and the projection keeps it unfused. */
const general = (query: string): string =>
  query.replace(/^MATCH \((\w+):(\w+)\)( WHERE .*?)? (RETURN|WITH) /, 'MATCH ($1:$2)$3 WITH $1 $4 ')

/** The same top-k query on the general pipeline: a WITH between MATCH and RETURN keeps it out of the fusion. */
const viaWith = (query: string): string => query.replace(' RETURN ', ' WITH v RETURN ')

beforeEach(async () => {
  engine = new CypherEngine(new GraphCatalog(), { budgets: { maxLoadedRecords: 1000 } })
  // Groups mix strings, integers, an integral float (1.0 groups with 1), booleans, lists and missing keys.
  await rows(`UNWIND range(0, 59) AS i
    CREATE (:L {g: CASE i % 6 WHEN 0 THEN 'a' WHEN 1 THEN 'b|c' WHEN 2 THEN 1 WHEN 3 THEN 1.0 WHEN 4 THEN [1, 'x'] ELSE null END,
                h: i % 2 = 0, x: CASE WHEN i % 5 = 0 THEN null WHEN i % 7 = 0 THEN toFloat(i) ELSE i END, s: 'v' + toString(i % 4)})`)
  await rows('CREATE (:Other {g: "a", x: 1000})')
})

describe('fused label scan + aggregation', () => {
  const queries = [
    'MATCH (v:L) RETURN v.g AS g, count(*) AS n, count(v.x) AS c, sum(v.x) AS s, avg(v.x) AS a, min(v.x) AS lo, max(v.x) AS hi, collect(v.x) AS xs',
    'MATCH (v:L) RETURN v.g, v.h, count(*)',
    'MATCH (v:L) RETURN count(*) AS n, sum(v.x) AS s, min(v.s) AS lo, max(v.s) AS hi',
    'MATCH (v:L) RETURN v.s AS s, count(DISTINCT v.g) AS kinds, collect(DISTINCT v.h) AS hs',
    'MATCH (v:L) RETURN v.missing AS m, count(v.missing) AS c, sum(v.missing) AS s, avg(v.missing) AS a',
    'MATCH (v:L) RETURN v.s AS s, count(*) AS n ORDER BY n DESC, s SKIP 1 LIMIT 2',
    'MATCH (v:L) WITH v.s AS s, sum(v.x) AS total WHERE total > 100 RETURN s, total ORDER BY s',
    'MATCH (v:Nope) RETURN count(*) AS n, collect(v.x) AS xs',
    'MATCH (v:Nope) RETURN v.g, count(*)',
    'MATCH (v:L) WHERE v.x > 10 RETURN v.s AS s, count(*) AS n, sum(v.x) AS t',
    'MATCH (v:L) WHERE v.x > $min AND v.h RETURN count(*) AS n, collect(v.g) AS gs',
    'MATCH (v:L) WHERE $flag RETURN count(*) AS n',
    'MATCH (v:L) WHERE NOT $flag RETURN count(*) AS n, collect(v.x) AS xs',
    'MATCH (v:L) WHERE v.missing IS NULL AND (v.x < 5 OR v.s CONTAINS "1") RETURN v.h AS h, count(*) AS n',
  ]
  const params = { min: 20, flag: true }

  it.each(queries)('plans the fused operator and answers as the general pipeline: %s', async (query) => {
    expect(explain(query)).toContain('ScanAggregate')
    expect(explain(general(query))).not.toContain('ScanAggregate')
    expect(await rows(query, params)).toEqual(await rows(general(query), params))
  })

  it('reads columns that follow every kind of write to the label (the cache is dropped on each)', async () => {
    const query = 'MATCH (v:L) RETURN v.s AS s, count(*) AS n, sum(v.x) AS total, collect(v.g) AS gs'
    const check = async () => expect(await rows(query)).toEqual(await rows(general(query)))
    await check()
    for (const write of [
      "MATCH (v:L) WHERE v.x = 3 SET v.s = 'new'",
      'MATCH (v:L) WHERE v.x = 4 REMOVE v.s',
      "CREATE (:L {s: 'v1', x: 7})",
      'MATCH (v:L) WHERE v.x = 8 DELETE v',
      'MATCH (v:L) WHERE v.x = 9 REMOVE v:L',
      "MATCH (v:Other) SET v:L, v.s = 'v2'",
      'MATCH (v:L) WHERE v.x = 11 SET v.x = 11.5',
    ]) {
      await rows(write)
      await check()
    }
    expect(await rows("MATCH (v:L) WHERE v.s = 'new' RETURN count(*)")).toEqual([[1]])
  })

  it('groups 1 and 1.0 together and keeps strings with separators apart from composite keys', async () => {
    const byGroup = new Map(
      (await rows('MATCH (v:L) RETURN v.g AS g, count(*) AS n')).map(([g, n]) => [JSON.stringify(g), n]),
    )
    expect(byGroup.get('1')).toBe(20)
    expect(byGroup.get('"b|c"')).toBe(10)
    expect(byGroup.get('null')).toBe(10)
  })

  it('leaves other shapes on the general path', () => {
    expectUnfused('ScanAggregate', [
      'MATCH (v:L) RETURN v, count(*)',
      'MATCH (v:L) RETURN v.g + 1 AS g, count(*)',
      'MATCH (v:L) RETURN v.g, count(*) + 1',
      'MATCH (v:L:Other) RETURN count(*)',
      'MATCH (v:L {g: 1}) RETURN count(*)',
      'MATCH (v:L) WHERE v.g = 1 RETURN count(*)',
      'MATCH (v:L) WHERE v:Other RETURN count(*)',
      'MATCH (v:L) WHERE (v)-->() RETURN count(*)',
      'MATCH (v) RETURN count(*)',
      'MATCH (v:L)-->(w) RETURN count(*)',
      'OPTIONAL MATCH (v:L) RETURN count(*)',
      'MATCH (v:L) RETURN v.g',
      'MATCH (v:L) CREATE (:M) RETURN count(*)',
    ])
  })

  it('sees the writes of the same query: it is not used for writing queries', async () => {
    expect(explain('CREATE (:L {g: "z"}) WITH 1 AS one MATCH (v:L) RETURN count(*)')).not.toContain(
      'ScanAggregate',
    )
    expect(await rows('CREATE (:L {g: "z"}) WITH 1 AS one MATCH (v:L) RETURN count(*) AS n')).toEqual([[61]])
  })

  it('counts scanned records against the scanned-records budget at the same edge as the general path', async () => {
    const catalog = new GraphCatalog()
    const writer = new CypherEngine(catalog)
    await writer.run({ query: 'UNWIND range(1, 1000) AS i CREATE (:L {x: i})', mode: 'write' })
    const bounded = new CypherEngine(catalog, { budgets: { maxScannedRecords: 1000 } })
    const query = 'MATCH (v:L) RETURN sum(v.x) AS total, count(*) AS n'
    // The fused scan and the general pipeline (an aggregation after MATCH … WHERE true) count alike.
    const unfused = 'MATCH (v:L) WHERE v.x = v.x RETURN sum(v.x) AS total, count(*) AS n'
    expect(explain(query)).toContain('ScanAggregate')
    expect(explain(unfused)).not.toContain('ScanAggregate')
    for (const q of [query, unfused])
      expect((await bounded.run({ query: q, mode: 'read' })).status).toBe('Success')
    await writer.run({ query: 'CREATE (:L {x: 0})', mode: 'write' })
    const errors = []
    for (const q of [query, unfused]) {
      const result = await bounded.run({ query: q, mode: 'read' })
      expect(result.status).toBe('Rejected')
      errors.push(result.validation_errors)
    }
    expect(errors[0]).toEqual([
      expect.objectContaining({
        code: 'QUERY_BUDGET_EXCEEDED',
        message: 'query budget exceeded for scanned_records: actual 1001, limit 1000',
      }),
    ])
    expect(errors[0]).toEqual(errors[1])
  })
})

describe('fused label scan + filter + top-k', () => {
  const queries = [
    'MATCH (v:L) RETURN v.x AS x, v.s AS s ORDER BY x DESC LIMIT 5',
    'MATCH (v:L) WHERE v.x > 10 AND v.s <> $s RETURN v.x AS x, v.s AS s ORDER BY s, x DESC SKIP 2 LIMIT 7',
    'MATCH (v:L) WHERE v.x >= 3 RETURN v.s, v.x * 2 AS double ORDER BY v.s DESC, double LIMIT 4',
    'MATCH (v:L) RETURN v.g AS g, v.h AS h ORDER BY g, h LIMIT 100',
    'MATCH (v:L) WHERE $flag RETURN v.x AS x ORDER BY x LIMIT 3',
    'MATCH (v:L) WHERE v.missing > 1 RETURN v.x AS x ORDER BY x LIMIT 3',
    'MATCH (v:L) RETURN v.h AS h ORDER BY h LIMIT $n',
    'MATCH (v:Nope) RETURN v.x AS x ORDER BY x LIMIT 3',
  ]
  const params = { s: 'v1', flag: true, n: 0 }

  it.each(queries)('plans the fused operator and answers as the general pipeline: %s', async (query) => {
    expect(explain(query)).toContain('ScanTopK')
    expect(explain(viaWith(query))).not.toContain('ScanTopK')
    expect(await rows(query, params)).toEqual(await rows(viaWith(query), { ...params }))
  })

  it('leaves other shapes on the general path', () => {
    expectUnfused('ScanTopK', [
      'MATCH (v:L) WHERE v.x = 3 RETURN v.x ORDER BY v.x LIMIT 1',
      'MATCH (v:L) RETURN v ORDER BY v.x LIMIT 1',
      'MATCH (v:L) RETURN v.x ORDER BY v.x',
      'MATCH (v:L) RETURN DISTINCT v.x ORDER BY v.x LIMIT 2',
      'MATCH (v:L) WHERE v:Other RETURN v.x ORDER BY v.x LIMIT 1',
      'MATCH (v:L) RETURN [x IN [v.x] | x] AS xs ORDER BY xs LIMIT 1',
      'UNWIND [1, 2] AS i MATCH (v:L) RETURN v.x ORDER BY v.x LIMIT 1',
      'MATCH (v:L) RETURN count(v.x) AS c ORDER BY c LIMIT 1',
    ])
  })

  it('counts rows passing the filter against the loaded-records budget, as the general path', async () => {
    // 48 of the 60 seeded nodes have x >= 1: 952 more make exactly the budget of 1000 passing rows.
    await rows('UNWIND range(1, 952) AS i CREATE (:L {x: 1})')
    const query = 'MATCH (v:L) WHERE v.x >= 1 RETURN v.x AS x ORDER BY x LIMIT 1'
    expect(await rows(query)).toEqual([[1]])
    await rows('CREATE (:L {x: 2}), (:L {x: 0})')
    const errors = []
    for (const q of [query, viaWith(query)]) {
      const result = await engine.run({ query: q, mode: 'read' })
      errors.push(result.validation_errors)
    }
    expect(errors[0]).toEqual([expect.objectContaining({ code: 'QUERY_BUDGET_EXCEEDED' })])
    expect(errors[0]).toEqual(errors[1])
  })
})

describe('ORDER BY … LIMIT keeps only the top rows', () => {
  it('gives exactly the full sort’s rows, ties in arrival order, across many buffer cuts', async () => {
    const all = Array.from({ length: 900 }, (_, n) => n + 1)
    const expected = (skip: number, limit: number) =>
      all
        .map((i) => [i % 7, i])
        .sort((a, b) => (b[0] as number) - (a[0] as number))
        .slice(skip, skip + limit)
    for (const [skip, limit] of [
      [0, 1],
      [3, 20],
      [0, 0],
      [880, 50],
      [0, 900],
    ] as const) {
      expect(
        await rows('UNWIND range(1, 900) AS i RETURN i % 7 AS k, i ORDER BY k DESC SKIP $s LIMIT $l', {
          s: skip,
          l: limit,
        }),
      ).toEqual(expected(skip, limit))
    }
  })
})
