import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ErrorBody, type RunningServer, startServer } from './harness.js'

interface Result {
  ok: true
  result: {
    status: 'Success' | 'Rejected' | 'ValidationFailed'
    data: { columns: string[]; rows: unknown[][] } | null
    mutation_summary: Record<string, number>
    validation_errors: { code: string; message: string; position?: { line: number; column: number } }[]
    warnings: string[]
  }
}

describe('Cypher over HTTP', () => {
  let server: RunningServer
  const cypher = (route: string, body: unknown) => server.request<Result>(`/v1/cypher/${route}`, { body })

  beforeAll(async () => {
    server = await startServer({ env: { SERVICE_HTTP_MAX_BODY_BYTES: '4096' } })
    const seed = await cypher('write', {
      query:
        "CREATE (a:ThreatActor {name: 'APT1', confidence: 0.9})-[:Uses {since: 2013}]->(m:Malware {name: 'Poison Ivy'}), (a)-[:Targets]->(:Identity {name: 'Acme'})",
    })
    expect(seed.json.result.status).toBe('Success')
  })
  afterAll(async () => {
    await server.stop()
  })

  it('carries temporal values in their tagged JSON form, as parameters, properties and results', async () => {
    const res = await cypher('write', {
      query: 'CREATE (n:Event {at: $at, took: $took}) RETURN n, n.at + n.took AS ended, date(n.at) AS day',
      params: {
        at: { $datetime: '2024-05-01T10:30:15.123456789+02:00[Europe/Paris]' },
        took: { $duration: 'PT1H30M' },
      },
    })
    expect(res.json.result.status).toBe('Success')
    const [node, ended, day] = res.json.result.data!.rows[0] as [
      { properties: Record<string, unknown> },
      unknown,
      unknown,
    ]
    expect(node.properties).toEqual({
      at: { $datetime: '2024-05-01T10:30:15.123456789+02:00[Europe/Paris]' },
      took: { $duration: 'PT1H30M' },
    })
    expect(ended).toEqual({ $datetime: '2024-05-01T12:00:15.123456789+02:00[Europe/Paris]' })
    expect(day).toEqual({ $date: '2024-05-01' })
    const bad = await cypher('read', { query: 'RETURN $d', params: { d: { $date: 'soon' } } })
    expect(bad.json.result.validation_errors[0]?.code).toBe('INVALID_PARAMETER')
  })

  it('carries points in their tagged JSON form, as parameters, properties and results', async () => {
    const res = await cypher('write', {
      query: `CREATE (n:Office {at: $at}) RETURN n, toInteger(point.distance(n.at, point({longitude: 12.56, latitude: 55.67})))
        AS meters, n.at.srid AS srid`,
      params: { at: { $point: { crs: 'wgs-84', longitude: 12.99, latitude: 55.61 } } },
    })
    expect(res.json.result.status).toBe('Success')
    const [node, meters, srid] = res.json.result.data!.rows[0] as [
      { properties: Record<string, unknown> },
      number,
      number,
    ]
    expect(node.properties).toEqual({ at: { $point: { crs: 'wgs-84', longitude: 12.99, latitude: 55.61 } } })
    expect(srid).toBe(4326)
    // Copenhagen to Malmö, about 28 km on Neo4j's sphere.
    expect(meters).toBeGreaterThan(27_000)
    expect(meters).toBeLessThan(29_000)
    const bad = await cypher('read', { query: 'RETURN $p', params: { p: { $point: { x: 1, y: 'north' } } } })
    expect(bad.json.result.validation_errors[0]?.code).toBe('INVALID_PARAMETER')
  })

  it('writes with /write and reports the mutation counters', async () => {
    const res = await cypher('write', {
      query: 'CREATE (n:Tool {name: $name, tags: $tags}) RETURN n',
      params: { name: 'nmap', tags: ['scan', 'recon'] },
    })
    expect(res.status).toBe(200)
    expect(res.json.result.status).toBe('Success')
    expect(res.json.result.mutation_summary).toMatchObject({
      created_nodes: 1,
      properties_set: 2,
      labels_added: 1,
    })
    const node = res.json.result.data!.rows[0]![0] as {
      id: string
      labels: string[]
      properties: Record<string, unknown>
    }
    expect(node.labels).toEqual(['Tool'])
    expect(node.properties).toEqual({ name: 'nmap', tags: ['scan', 'recon'] })
    expect(node.id).toMatch(/^node--\d+$/)
  })

  it('reads typed rows with /read and zero counters', async () => {
    const res = await cypher('read', {
      query:
        'MATCH (a:ThreatActor)-[r:Uses]->(m) RETURN a.name AS actor, r.since AS since, m.name AS malware, a.confidence AS c, 7/2 AS i, 7.0/2 AS f',
    })
    expect(res.json.result.data).toEqual({
      columns: ['actor', 'since', 'malware', 'c', 'i', 'f'],
      rows: [['APT1', 2013, 'Poison Ivy', 0.9, 3, 3.5]],
    })
    expect(Object.values(res.json.result.mutation_summary).every((v) => v === 0)).toBe(true)
  })

  it('rejects a write on /read with WRITE_PERMISSION_REQUIRED and changes nothing', async () => {
    const res = await cypher('read', { query: "CREATE (:Evil {name: 'x'})" })
    expect(res.status).toBe(200)
    expect(res.json.result.status).toBe('Rejected')
    expect(res.json.result.validation_errors[0]!.code).toBe('WRITE_PERMISSION_REQUIRED')
    const count = await cypher('read', { query: 'MATCH (n:Evil) RETURN count(n)' })
    expect(count.json.result.data!.rows).toEqual([[0]])
  })

  it('classifies auto from the parsed query, not from keywords in strings', async () => {
    const read = await cypher('execute', { query: "RETURN 'CREATE (n) DELETE n' AS text", mode: 'auto' })
    expect(read.json.result.status).toBe('Success')
    expect(read.json.result.data!.rows).toEqual([['CREATE (n) DELETE n']])
    const write = await cypher('execute', { query: 'CREATE (:Auto)', mode: ' AUTO ' })
    expect(write.json.result.mutation_summary.created_nodes).toBe(1)
    const forcedRead = await cypher('execute', { query: 'CREATE (:Auto)', mode: 'read_only' })
    expect(forcedRead.json.result.validation_errors[0]!.code).toBe('WRITE_PERMISSION_REQUIRED')
  })

  it('validate mode plans and reports errors with positions, executing nothing', async () => {
    const ok = await cypher('execute', { query: 'CREATE (:Validated)', mode: 'validate' })
    expect(ok.json.result).toMatchObject({ status: 'Success', data: null })
    const none = await cypher('read', { query: 'MATCH (n:Validated) RETURN count(n)' })
    expect(none.json.result.data!.rows).toEqual([[0]])
    const bad = await cypher('execute', { query: 'MATCH (n)\nRETURN m', mode: 'validate' })
    expect(bad.json.result.status).toBe('ValidationFailed')
    expect(bad.json.result.validation_errors[0]).toMatchObject({
      code: 'UNDEFINED_VARIABLE',
      position: { line: 2 },
    })
  })

  it('refuses unsupported syntax with a precise code', async () => {
    for (const query of [
      'START n=node(1) RETURN n',
      "CREATE USER bob SET PASSWORD 'secret'",
      'USING PERIODIC COMMIT LOAD CSV FROM "x" AS r RETURN r',
    ]) {
      const res = await cypher('execute', { query })
      expect(['Rejected', 'ValidationFailed']).toContain(res.json.result.status)
      expect(res.json.result.validation_errors[0]!.code).toMatch(/UNSUPPORTED|SYNTAX/)
    }
  })

  it('refuses LOAD CSV while no import directory is set, naming the setting', async () => {
    const res = await cypher('read', { query: "LOAD CSV FROM 'file:///x.csv' AS row RETURN row" })
    expect(res.json.result.status).toBe('Rejected')
    expect(res.json.result.validation_errors[0]).toMatchObject({
      code: 'LOAD_CSV_NOT_ALLOWED',
      message: expect.stringContaining('SERVICE_CYPHER_IMPORT_DIR'),
    })
  })

  it('binds parameters as values, never as text', async () => {
    const injection = "x'}) DETACH DELETE n //"
    const res = await cypher('read', {
      query: 'RETURN $p AS p, $list[1] AS second, $map.k AS k',
      params: { p: injection, list: [1, 2], map: { k: 'v' } },
    })
    expect(res.json.result.data!.rows).toEqual([[injection, 2, 'v']])
    const missing = await cypher('read', { query: 'RETURN $nope' })
    expect(missing.json.result.status).not.toBe('Success')
    expect(missing.json.result.validation_errors[0]!.message).toContain('nope')
  })

  it('enforces the query length and parameter count budgets at their edges', async () => {
    const atLimit = `RETURN 1 AS x ${' '.repeat(8192 - 'RETURN 1 AS x '.length)}`
    expect(atLimit.length).toBe(8192)
    // The 4 KiB body limit of this server would refuse 8 KiB queries; use a fresh default server for this one.
    const big = await startServer()
    try {
      const ok = await big.request<Result>('/v1/cypher/read', { body: { query: atLimit } })
      expect(ok.json.result.status).toBe('Success')
      const over = await big.request<Result>('/v1/cypher/read', { body: { query: `${atLimit} ` } })
      expect(over.json.result.validation_errors[0]!.code).toBe('REQUEST_LIMIT_EXCEEDED')
      const params128 = Object.fromEntries(Array.from({ length: 128 }, (_, i) => [`p${i}`, i]))
      expect(
        (await big.request<Result>('/v1/cypher/read', { body: { query: 'RETURN $p0', params: params128 } }))
          .json.result.status,
      ).toBe('Success')
      const params129 = { ...params128, p128: 1 }
      const tooMany = await big.request<Result>('/v1/cypher/read', {
        body: { query: 'RETURN $p0', params: params129 },
      })
      expect(tooMany.json.result.validation_errors[0]!.code).toBe('REQUEST_LIMIT_EXCEEDED')
    } finally {
      await big.stop()
    }
  })

  it('answers a returned-rows budget breach with QUERY_BUDGET_EXCEEDED naming the dimension', async () => {
    const res = await cypher('read', { query: 'UNWIND range(1, 10001) AS x RETURN x' })
    expect(res.json.result.status).toBe('Rejected')
    expect(res.json.result.validation_errors[0]!.code).toBe('QUERY_BUDGET_EXCEEDED')
    expect(res.json.result.validation_errors[0]!.message).toMatch(/returned_records: actual \d+, limit 10000/)
    const atLimit = await cypher('read', { query: 'UNWIND range(1, 10000) AS x RETURN x' })
    expect(atLimit.json.result.status).toBe('Success')
  })

  it('survives a 10,000-deep nested expression with a clean error', async () => {
    const big = await startServer()
    try {
      const query = `RETURN ${'('.repeat(4000)}1${')'.repeat(4000)}`
      const res = await big.request<Result>('/v1/cypher/read', { body: { query } })
      expect(res.status).toBe(200)
      expect(res.json.result.status).not.toBe('Success')
    } finally {
      await big.stop()
    }
  })
})

describe('the error envelope on every HTTP error path', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ env: { SERVICE_HTTP_MAX_BODY_BYTES: '1024' } })
  })
  afterAll(async () => {
    await server.stop()
  })

  const expectEnvelope = (
    res: { status: number; json: ErrorBody; headers: Record<string, unknown> },
    status: number,
    code: string,
  ) => {
    expect(res.status).toBe(status)
    expect(res.json.ok).toBe(false)
    expect(res.json.error.code).toBe(code)
    expect(typeof res.json.error.message).toBe('string')
    expect(res.headers['x-request-id']).toBe(res.json.correlation_id)
  }

  it('404 unknown route, 405 wrong method', async () => {
    expectEnvelope(await server.request<ErrorBody>('/v1/nope'), 404, 'NOT_FOUND')
    expectEnvelope(await server.request<ErrorBody>('/nope', { token: null }), 404, 'NOT_FOUND')
    const wrong = await server.request<ErrorBody>('/v1/cypher/read', { method: 'GET' })
    expectEnvelope(wrong, 405, 'METHOD_NOT_ALLOWED')
    expect(wrong.headers.allow).toBe('POST')
  })

  it('400 malformed JSON, empty JSON body and schema violations', async () => {
    expectEnvelope(
      await server.request<ErrorBody>('/v1/cypher/read', {
        rawBody: '{"query":',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'INVALID_JSON',
    )
    expectEnvelope(
      await server.request<ErrorBody>('/v1/cypher/read', {
        rawBody: '',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'INVALID_JSON',
    )
    expectEnvelope(
      await server.request<ErrorBody>('/v1/cypher/read', { body: { query: 42 } }),
      400,
      'INVALID_REQUEST',
    )
    expectEnvelope(await server.request<ErrorBody>('/v1/cypher/read', { body: {} }), 400, 'INVALID_REQUEST')
    expectEnvelope(
      await server.request<ErrorBody>('/v1/cypher/read', { body: { query: 'RETURN 1', unknown: true } }),
      400,
      'INVALID_REQUEST',
    )
    expectEnvelope(
      await server.request<ErrorBody>('/v1/cypher/read', { body: { query: '   ' } }),
      400,
      'INVALID_QUERY',
    )
    expectEnvelope(
      await server.request<ErrorBody>('/v1/cypher/read', { body: { query: 'RETURN 1', workspace_id: ' ' } }),
      400,
      'INVALID_WORKSPACE_ID',
    )
    expectEnvelope(
      await server.request<ErrorBody>('/v1/cypher/read', { body: { query: 'RETURN 1', session_id: '' } }),
      400,
      'INVALID_SESSION_ID',
    )
    expectEnvelope(
      await server.request<ErrorBody>('/v1/cypher/read', { body: { query: 'RETURN 1', budget_ref: ' ' } }),
      400,
      'INVALID_BUDGET_REF',
    )
  })

  it('413 above SERVICE_HTTP_MAX_BODY_BYTES, accepted at the limit', async () => {
    const body = (n: number) => {
      const base = JSON.stringify({ query: 'RETURN 1', params: { pad: '' } })
      return JSON.stringify({ query: 'RETURN 1', params: { pad: 'x'.repeat(n - base.length) } })
    }
    expect(Buffer.byteLength(body(1024))).toBe(1024)
    const at = await server.request('/v1/cypher/read', {
      rawBody: body(1024),
      headers: { 'content-type': 'application/json' },
    })
    expect(at.status).toBe(200)
    expectEnvelope(
      await server.request<ErrorBody>('/v1/cypher/read', {
        rawBody: body(1025),
        headers: { 'content-type': 'application/json' },
      }),
      413,
      'PAYLOAD_TOO_LARGE',
    )
  })

  it('415 for a body that is not JSON', async () => {
    expectEnvelope(
      await server.request<ErrorBody>('/v1/cypher/read', {
        rawBody: 'RETURN 1',
        headers: { 'content-type': 'text/plain' },
      }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    )
    expectEnvelope(
      await server.request<ErrorBody>('/v1/cypher/read', {
        rawBody: '<q/>',
        headers: { 'content-type': 'application/xml' },
      }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    )
  })

  it('404 SESSION_NOT_FOUND for an unknown session', async () => {
    expectEnvelope(
      await server.request<ErrorBody>('/v1/cypher/read', {
        body: { query: 'RETURN 1', session_id: 'no-such-session' },
      }),
      404,
      'SESSION_NOT_FOUND',
    )
  })
})

describe('rate limit and request timeout', () => {
  it('429 RATE_LIMITED past the burst, with Retry-After', async () => {
    const server = await startServer({
      env: { SERVICE_HTTP_RATE_LIMIT_PER_SECOND: '1', SERVICE_HTTP_RATE_LIMIT_BURST: '3' },
    })
    try {
      const statuses: number[] = []
      let limited: { status: number; json: ErrorBody; headers: Record<string, unknown> } | undefined
      for (let i = 0; i < 5; i++) {
        const res = await server.request<ErrorBody>('/v1/cypher/read', { body: { query: 'RETURN 1' } })
        statuses.push(res.status)
        if (res.status === 429) limited = res
      }
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200])
      expect(statuses.slice(3)).toEqual([429, 429])
      expect(limited!.json.error.code).toBe('RATE_LIMITED')
      expect(Number(limited!.headers['retry-after'])).toBeGreaterThanOrEqual(1)
      // Operational routes are not limited.
      expect((await server.request('/health', { token: null })).status).toBe(200)
    } finally {
      await server.stop()
    }
  })

  it('504 REQUEST_TIMEOUT when the handler budget runs out', async () => {
    const server = await startServer({ env: { SERVICE_HTTP_REQUEST_TIMEOUT_MS: '300' } })
    try {
      const res = await server.request<ErrorBody>('/v1/cypher/read', {
        body: {
          query:
            'UNWIND range(1, 40000) AS a WITH a, size([x IN range(1, 3000) WHERE x % 7 = a % 7]) AS s RETURN sum(s)',
        },
      })
      expect(res.status).toBe(504)
      expect(res.json.error.code).toBe('REQUEST_TIMEOUT')
      expect((await server.request('/health/ready', { token: null })).status).toBe(200)
    } finally {
      await server.stop()
    }
  })
})

describe('request projection bounds (SERVICE_STORAGE_MAX_*)', () => {
  it('refuses results and walks beyond the hot and warm bounds, at their edges', async () => {
    const server = await startServer({
      env: {
        SERVICE_STORAGE_MAX_HOT_NODES: '3',
        SERVICE_STORAGE_MAX_HOT_RELATIONSHIPS: '2',
        SERVICE_STORAGE_MAX_WARM_ADJACENCY_ENTRIES: '5',
      },
    })
    const cypher = (route: string, query: string) =>
      server.request<Result>(`/v1/cypher/${route}`, { body: { query } })
    const budgetMessage = async (query: string) => {
      const res = await cypher('read', query)
      expect(res.json.result.status, query).toBe('Rejected')
      expect(res.json.result.validation_errors[0]!.code).toBe('QUERY_BUDGET_EXCEEDED')
      return res.json.result.validation_errors[0]!.message
    }
    try {
      await cypher('write', 'UNWIND range(1, 4) AS i CREATE (:Hot {i: i})')
      await cypher(
        'write',
        'CREATE (h:Hub5) WITH h UNWIND range(1, 5) AS i CREATE (h)-[:SPOKE]->(:Leaf5 {i: i})',
      )
      await cypher(
        'write',
        'CREATE (h:Hub6) WITH h UNWIND range(1, 6) AS i CREATE (h)-[:SPOKE]->(:Leaf6 {i: i})',
      )
      // hot nodes: 3 is the limit, 4 is over; scalars do not count
      expect((await cypher('read', 'MATCH (n:Hot) WHERE n.i <= 3 RETURN n')).json.result.status).toBe(
        'Success',
      )
      expect(await budgetMessage('MATCH (n:Hot) RETURN n')).toMatch(/hot_nodes: actual 4, limit 3/)
      expect((await cypher('read', 'MATCH (n:Hot) RETURN n.i')).json.result.status).toBe('Success')
      // warm adjacency: walking 5 entries is the limit, 6 is over
      const five = await cypher('read', 'MATCH (:Hub5)-[r]->() RETURN count(r) AS c')
      expect(five.json.result.data!.rows).toEqual([[5]])
      expect(await budgetMessage('MATCH (:Hub6)-[r]->() RETURN count(r) AS c')).toMatch(
        /warm_adjacency_entries: actual 6, limit 5/,
      )
      // hot relationships: 2 is the limit, 3 is over
      expect(
        (await cypher('read', 'MATCH (:Hub5)-[r]->(l) WHERE l.i <= 2 RETURN r')).json.result.status,
      ).toBe('Success')
      expect(await budgetMessage('MATCH (:Hub5)-[r]->(l) WHERE l.i <= 3 RETURN r')).toMatch(
        /hot_relationships: actual 3, limit 2/,
      )
    } finally {
      await server.stop()
    }
  })
})
