import { describe, expect, it } from 'vitest'
import { EngineError } from '../errors.js'
import { GraphCatalog } from '../graph/catalog.js'
import type { CommitRecord } from '../graph/commit.js'
import { CypherEngine, type CypherRequest } from './engine.js'
import type { CypherBudgets } from './executor/context.js'

const fresh = (budgets?: Partial<CypherBudgets>) =>
  new CypherEngine(new GraphCatalog(), budgets ? { budgets } : {})
const req = (
  query: string,
  mode: CypherRequest['mode'] = 'auto',
  params?: Record<string, unknown>,
): CypherRequest => ({
  query,
  mode,
  ...(params ? { params } : {}),
})
const count = async (engine: CypherEngine): Promise<unknown> =>
  (await engine.run(req('MATCH (n) RETURN count(n)'))).data?.rows[0]?.[0]

describe('modes and classification', () => {
  it('read mode refuses writes, and a string containing CREATE is a read', async () => {
    const engine = fresh()
    const refused = await engine.run(req('CREATE (n)', 'read'))
    expect(refused.status).toBe('Rejected')
    expect(refused.validation_errors[0]).toMatchObject({
      code: 'WRITE_PERMISSION_REQUIRED',
      field: 'query_text',
    })
    const read = await engine.execute(req("RETURN 'CREATE (n) SET x' AS text", 'read'))
    expect(read.result.status).toBe('Success')
    expect(read.classification).toBe('read')
    expect((await engine.execute(req('MERGE (n:A)'))).classification).toBe('write')
    expect(await count(engine)).toBe(1)
  })

  it('validate mode parses and plans without executing and reports every error', async () => {
    const engine = fresh()
    const ok = await engine.run(req('CREATE (n:X) RETURN n', 'validate'))
    expect(ok).toMatchObject({ status: 'Success', data: null, validation_errors: [] })
    expect(await count(engine)).toBe(0)
    const bad = await engine.run(req('MATCH (n) RETURN a, b', 'validate'))
    expect(bad.status).toBe('ValidationFailed')
    expect(bad.validation_errors.map((e) => e.code)).toEqual(['UNDEFINED_VARIABLE', 'UNDEFINED_VARIABLE'])
    expect(bad.validation_errors[1]?.position).toEqual({ line: 1, column: 21, offset: 20 })
  })

  it('maps failures to statuses and codes', async () => {
    const engine = fresh()
    expect((await engine.run(req('MATCH (n) RETURN'))).validation_errors[0]?.code).toBe('CYPHER_SYNTAX_ERROR')
    expect((await engine.run(req('RETURN nope()'))).status).toBe('ValidationFailed')
    const unsupported = await engine.run(req('START n=node(1) RETURN n'))
    expect(unsupported).toMatchObject({
      status: 'Rejected',
      validation_errors: [{ code: 'UNSUPPORTED_CYPHER_FEATURE' }],
    })
    const missing = await engine.run(req('RETURN $p'))
    expect(missing).toMatchObject({ status: 'Rejected', validation_errors: [{ code: 'PARAMETER_MISSING' }] })
    expect(missing.validation_errors[0]?.message).toContain('$p')
    expect((await engine.run(req("RETURN 1 + 'a' + true"))).validation_errors[0]?.code).toBe(
      'INVALID_ARGUMENT_TYPE',
    )
  })
})

describe('parameters', () => {
  it('binds scalars, lists and maps as values, never as text', async () => {
    const engine = fresh()
    const result = await engine.run(
      req('RETURN $s, $i, $f, $l, $m.k, $inj', 'read', {
        s: 'x',
        i: 2,
        f: 2.5,
        l: [1, 'a'],
        m: { k: [true] },
        inj: "') RETURN 1 //",
      }),
    )
    expect(result.data?.rows).toEqual([['x', 2, 2.5, [1, 'a'], [true], "') RETURN 1 //"]])
    const created = await engine.run(
      req('CREATE (n:P $props) RETURN n.name', 'write', { props: { name: 'Ann' } }),
    )
    expect(created.data?.rows).toEqual([['Ann']])
  })
})

describe('result values', () => {
  it('returns nodes and relationships as objects with element ids consistent with id()', async () => {
    const engine = fresh()
    const result = await engine.run(
      req('CREATE (a:A {x: 1})-[r:R {w: 0.5}]->(b) RETURN a, r, id(a), elementId(a), id(r)'),
    )
    const [a, r, id, elementId, relId] = result.data?.rows[0] ?? []
    expect(a).toEqual({ id: 'node--0', labels: ['A'], properties: { x: 1 } })
    expect(r).toEqual({
      id: 'relationship--0',
      type: 'R',
      start: 'node--0',
      end: 'node--1',
      properties: { w: 0.5 },
    })
    expect(id).toBe(0)
    expect(elementId).toBe('node--0')
    expect(relId).toBe(0)
  })

  it('returns unsafe integers as decimal strings with a warning', async () => {
    const result = await fresh().run(req('RETURN 9007199254740993 AS big, 9007199254740991 AS safe'))
    expect(result.data?.rows).toEqual([['9007199254740993', 9007199254740991]])
    expect(result.warnings).toHaveLength(1)
  })
})

describe('atomicity and publication', () => {
  it('leaves the graph unchanged when a write query fails halfway', async () => {
    const engine = fresh()
    await engine.run(req('CREATE (:A {v: 1}), (:A {v: 0})'))
    const failed = await engine.run(req('MATCH (n:A) CREATE (:B) SET n.r = 10 / n.v RETURN n'))
    expect(failed.validation_errors[0]?.code).toBe('DIVISION_BY_ZERO')
    expect((await engine.run(req('MATCH (n:B) RETURN count(n)'))).data?.rows).toEqual([[0]])
    expect((await engine.run(req('MATCH (n:A) WHERE n.r IS NOT NULL RETURN count(n)'))).data?.rows).toEqual([
      [0],
    ])
  })

  it('hands the redo record to beforePublish and publishes nothing when it fails', async () => {
    const catalog = new GraphCatalog()
    const seen: { commit: CommitRecord; workspace: string; sequence: number }[] = []
    let fail = false
    const engine = new CypherEngine(catalog, {
      beforePublish: async (commit, workspace, sequence) => {
        seen.push({ commit, workspace, sequence })
        if (fail) throw new Error('disk full')
      },
    })
    await engine.run({ query: "CREATE (:A {name: 'x'})", mode: 'write', workspaceId: 'workspace--w' })
    expect(seen[0]?.workspace).toBe('workspace--w')
    expect(seen[0]?.sequence).toBe(1)
    expect(JSON.parse(JSON.stringify(seen[0]?.commit))).toEqual({
      ops: [{ op: 'createNode', id: 0, labels: ['A'], props: { name: 'x' } }],
    })
    fail = true
    await expect(
      engine.run({ query: 'CREATE (:B)', mode: 'write', workspaceId: 'workspace--w' }),
    ).rejects.toBeInstanceOf(EngineError)
    expect(catalog.workspace('workspace--w').nodeCount()).toBe(1)
    expect(catalog.workspace('workspace--w').sequence).toBe(1)
    // Reads never call the hook.
    await engine.run({ query: 'MATCH (n) RETURN n', mode: 'read', workspaceId: 'workspace--w' })
    expect(seen).toHaveLength(2)
  })

  it('reads the published version while a write waits for durability', async () => {
    const catalog = new GraphCatalog()
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const engine = new CypherEngine(catalog, { beforePublish: () => gate })
    const write = engine.run(req('CREATE (:A)', 'write'))
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect(await count(engine)).toBe(0)
    release()
    await write
    expect(await count(engine)).toBe(1)
  })
})

describe('budgets at their edges', () => {
  const code = async (engine: CypherEngine, request: CypherRequest) =>
    (await engine.run(request)).validation_errors[0]?.code

  it('query length and parameter count', async () => {
    const engine = fresh()
    const pad = (n: number) => `RETURN 1 //${'x'.repeat(n - 11)}`
    expect(pad(8192)).toHaveLength(8192)
    expect((await engine.run(req(pad(8192)))).status).toBe('Success')
    expect(await code(engine, req(pad(8193)))).toBe('REQUEST_LIMIT_EXCEEDED')
    const params = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, i]))
    expect((await engine.run(req('RETURN 1', 'read', params(128)))).status).toBe('Success')
    expect(await code(engine, req('RETURN 1', 'read', params(129)))).toBe('REQUEST_LIMIT_EXCEEDED')
  })

  it('returned and loaded records', async () => {
    const engine = fresh()
    expect((await engine.run(req('UNWIND range(1, 10000) AS x RETURN x'))).status).toBe('Success')
    const over = await engine.run(req('UNWIND range(1, 10001) AS x RETURN x'))
    expect(over.validation_errors[0]).toMatchObject({
      code: 'QUERY_BUDGET_EXCEEDED',
      message: 'query budget exceeded for returned_records: actual 10001, limit 10000',
    })
    expect((await engine.run(req('UNWIND range(1, 50000) AS x RETURN x SKIP 49999'))).status).toBe('Success')
    const loaded = await engine.run(req('UNWIND range(1, 50001) AS x RETURN x SKIP 50000'))
    expect(loaded.validation_errors[0]?.message).toBe(
      'query budget exceeded for loaded_records: actual 50001, limit 50000',
    )
    // Rows an aggregation consumes are work, not rows a result holds.
    const counted = await engine.run(req('UNWIND range(1, 90000) AS x RETURN x % 3 AS k, count(*) AS c'))
    expect(counted.status).toBe('Success')
    expect(counted.data?.rows.length).toBe(3)
  })

  it('scanned records bound the work an aggregation does', async () => {
    const engine = fresh({ maxScannedRecords: 1000 })
    expect((await engine.run(req('UNWIND range(1, 1000) AS x RETURN count(*)'))).status).toBe('Success')
    const over = await engine.run(req('UNWIND range(1, 1001) AS x RETURN count(*)'))
    expect(over.validation_errors[0]).toMatchObject({
      code: 'QUERY_BUDGET_EXCEEDED',
      message: 'query budget exceeded for scanned_records: actual 1001, limit 1000',
    })
    // A WITH that only filters passes its rows on to the aggregation; one that holds them (DISTINCT, ORDER BY,
    // SKIP, LIMIT) counts them as loaded again.
    const small = fresh({ maxLoadedRecords: 10 })
    expect((await small.run(req('UNWIND range(1, 11) AS x RETURN sum(x) AS s'))).status).toBe('Success')
    const piped = 'UNWIND range(1, 11) AS x WITH x * 2 AS y WHERE y > 0 RETURN sum(y) AS s'
    expect((await small.run(req(piped))).status).toBe('Success')
    const held = 'UNWIND range(1, 11) AS x WITH DISTINCT x RETURN sum(x) AS s'
    expect((await small.run(req(held))).validation_errors[0]?.message).toBe(
      'query budget exceeded for loaded_records: actual 11, limit 10',
    )
  })

  it('mutations are refused before anything is published', async () => {
    const engine = fresh({ maxMutations: 10 })
    expect((await engine.run(req('UNWIND range(1, 10) AS x CREATE ()'))).status).toBe('Success')
    const over = await engine.run(req('UNWIND range(1, 11) AS x CREATE ()'))
    expect(over.validation_errors[0]?.message).toBe(
      'query budget exceeded for mutation_count: actual 11, limit 10',
    )
    expect(await count(engine)).toBe(10)
  })

  it('list size, payload, time and abort', async () => {
    const engine = fresh()
    expect((await engine.run(req('RETURN size(range(1, 100000))'))).status).toBe('Success')
    expect((await engine.run(req('RETURN size(range(1, 100001))'))).validation_errors[0]?.message).toBe(
      'query budget exceeded for list_size: actual 100001, limit 100000',
    )
    const small = fresh({ maxPayloadBytes: 64 })
    expect(await code(small, req("RETURN 'x' AS a"))).toBeUndefined()
    expect(await code(small, req(`RETURN '${'x'.repeat(64)}' AS a`))).toBe('QUERY_BUDGET_EXCEEDED')
    const slow = fresh({ maxExecutionMs: -1 })
    expect(
      (await slow.run(req('UNWIND range(1, 5000) AS x RETURN count(*)'))).validation_errors[0]?.message,
    ).toMatch(/^query budget exceeded for execution_time_ms/)
    const controller = new AbortController()
    controller.abort()
    expect(
      (await engine.run(req('RETURN 1'), { signal: controller.signal })).validation_errors[0]?.code,
    ).toBe('QUERY_ABORTED')
  })

  it('regular expressions are guarded', async () => {
    const engine = fresh()
    expect((await engine.run(req("RETURN 'aaaa' =~ '(a+)+b'"))).validation_errors[0]?.code).toBe(
      'REGEX_REJECTED',
    )
    expect((await engine.run(req("RETURN 'AbC' =~ '(?i)abc'"))).data?.rows).toEqual([[true]])
  })
})

// Defects the cypher fuzz targets found (tools/src/fuzz/targets/cypher.ts): each escaped as a JavaScript
// error wrapped in CYPHER_RUNTIME_ERROR, or lost data silently.
describe('inputs the fuzzers found', () => {
  it('treats Object.prototype names as unknown functions', async () => {
    const engine = fresh()
    for (const name of ['constructor', '__proto__', 'hasOwnProperty', 'valueOf']) {
      const result = await engine.run(req(`RETURN ${name}(1)`))
      expect(result.validation_errors.map((e) => e.code)).toEqual(['UNKNOWN_FUNCTION'])
    }
  })

  it('checks the arity of aggregates at compile time', async () => {
    const engine = fresh()
    const code = async (query: string) => (await engine.run(req(query))).validation_errors[0]?.code
    for (const query of ['count()', 'max()', 'collect()', 'avg(1, 2)', 'percentileCont(1)', 'stDev()']) {
      expect(await code(`UNWIND [1, 2] AS x RETURN ${query} AS v`)).toBe('INVALID_NUMBER_OF_ARGUMENTS')
    }
    expect(await code('UNWIND [1] AS x RETURN sum(*) AS v')).toBe('CYPHER_SYNTAX_ERROR')
    const ok = await engine.run(req('UNWIND [1, 3] AS x RETURN count(*), percentileCont(x, 0.5), collect(x)'))
    expect(ok.data?.rows).toEqual([[2, 2, [1, 3]]])
  })

  it('returns a property named __proto__ or constructor like any other', async () => {
    const engine = fresh()
    const result = await engine.run(req("CREATE (n {__proto__: 1, constructor: 'c'}) RETURN n", 'write'))
    const node = result.data?.rows[0]?.[0] as { properties: Record<string, unknown> }
    expect(Object.entries(node.properties).sort()).toEqual([
      ['__proto__', 1],
      ['constructor', 'c'],
    ])
  })
})
