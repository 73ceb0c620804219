import { type Driver, Integer, isNode, isPath, isRelationship } from 'neo4j-driver'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type BoltServer, codeOf, driver5For, driverFor, neo4j, startBoltServer } from './bolt-support.js'
import { ADMIN_TOKEN, TOKEN } from './harness.js'

describe('Bolt door', () => {
  let server: BoltServer
  let driver: Driver

  beforeAll(async () => {
    server = await startBoltServer({
      env: { SERVICE_BOLT_MAX_CONNECTIONS: '40', SERVICE_HTTP_ADMIN_AUTH_TOKEN: ADMIN_TOKEN },
    })
    driver = driverFor(server)
  })
  afterAll(async () => {
    await server?.stop()
  })

  it('connects with neo4j-driver 6 and 5: a Neo4j/5 agent naming this product', async () => {
    const info = await driver.getServerInfo()
    expect(info.agent).toMatch(/^Neo4j\/5\.\S+ .*service-http-server/)
    expect(String(info.protocolVersion)).toMatch(/^5\./)
    const old = driver5For(server)
    const oldInfo = await old.getServerInfo()
    expect(oldInfo.agent).toMatch(/^Neo4j\/5/)
    const result = await old.executeQuery('RETURN 1 + 1 AS two')
    expect(result.records[0]?.get('two').toNumber()).toBe(2)
    // The version tools read from dbms.components() is the agent's.
    const components = await driver.executeQuery(
      'CALL dbms.components() YIELD versions RETURN versions[0] AS v',
    )
    expect(info.agent).toContain(`Neo4j/${components.records[0]?.get('v')} `)
  })

  it('accepts basic (any user) and bearer with the token, refuses anything else without the secret', async () => {
    for (const auth of [neo4j.auth.basic('someone-else', TOKEN), neo4j.auth.bearer(TOKEN)]) {
      const d = neo4j.driver(server.boltUrl(), auth)
      await d.verifyConnectivity()
      await d.close()
    }
    // The admin token grants nothing on Bolt: it is not the bearer token.
    for (const auth of [
      neo4j.auth.basic('neo4j', 'wrong-secret-42'),
      neo4j.auth.bearer('nope-nope'),
      neo4j.auth.basic('admin', ADMIN_TOKEN),
      neo4j.auth.bearer(ADMIN_TOKEN),
      neo4j.auth.kerberos(TOKEN),
    ]) {
      const d = neo4j.driver(server.boltUrl(), auth)
      const failure = await d.verifyConnectivity().catch((error: { code: string; message: string }) => error)
      await d.close()
      expect((failure as { code: string }).code).toBe('Neo.ClientError.Security.Unauthorized')
      expect(JSON.stringify(failure)).not.toContain('wrong-secret-42')
      expect(JSON.stringify(failure)).not.toContain(ADMIN_TOKEN)
    }
    expect(server.stdout() + server.stderr()).not.toContain(TOKEN)
    expect(server.stdout() + server.stderr()).not.toContain(ADMIN_TOKEN)
  })

  it('sends every value type both ways', async () => {
    const params = {
      nothing: null,
      yes: true,
      small: neo4j.int(-7),
      big: neo4j.int('9007199254740993'),
      float: 2.5,
      text: 'grüße ☃ \u{1F600}',
      list: [neo4j.int(1), 'two', 3.5, null, [true]],
      map: { nested: { deep: neo4j.int(5) }, empty: {} },
    }
    const { records } = await driver.executeQuery(
      'RETURN $nothing AS nothing, $yes AS yes, $small AS small, $big AS big, $float AS float, $text AS text, $list AS list, $map AS map, $big + 1 AS next',
      params,
    )
    const row = records[0]!
    expect(row.get('nothing')).toBeNull()
    expect(row.get('yes')).toBe(true)
    expect(Integer.isInteger(row.get('small')) && row.get('small').toNumber()).toBe(-7)
    expect(row.get('big').toString()).toBe('9007199254740993')
    expect(row.get('next').toString()).toBe('9007199254740994')
    expect(row.get('float')).toBe(2.5)
    expect(row.get('text')).toBe(params.text)
    expect(row.get('list')[0].toNumber()).toBe(1)
    expect(row.get('list').slice(1)).toEqual(['two', 3.5, null, [true]])
    expect(row.get('map').nested.deep.toNumber()).toBe(5)
    expect(row.get('map').empty).toEqual({})

    const graph = await driver.executeQuery(
      "CREATE p = (a:Person {name: 'a'})-[r:KNOWS {since: 2020}]->(b:Person:Agent {name: 'b'}) RETURN a, r, b, p",
    )
    const [a, r, b, p] = ['a', 'r', 'b', 'p'].map((key) => graph.records[0]!.get(key))
    expect(isNode(a) && isNode(b) && isRelationship(r) && isPath(p)).toBe(true)
    expect(a.elementId).toMatch(/^node--\d+$/)
    expect(a.identity.toString()).toBe(a.elementId.slice('node--'.length))
    expect(b.labels.sort()).toEqual(['Agent', 'Person'])
    expect(r.elementId).toMatch(/^relationship--\d+$/)
    expect(r.type).toBe('KNOWS')
    expect(r.startNodeElementId).toBe(a.elementId)
    expect(r.endNodeElementId).toBe(b.elementId)
    expect(r.properties.since.toNumber()).toBe(2020)
    expect(p.length).toBe(1)
    expect(p.start.elementId).toBe(a.elementId)
    expect(p.end.elementId).toBe(b.elementId)
    expect(p.segments[0].relationship.elementId).toBe(r.elementId)
    expect(graph.summary.counters.updates()).toMatchObject({
      nodesCreated: 2,
      relationshipsCreated: 1,
      labelsAdded: 3,
    })
    expect(graph.summary.queryType).toBe('rw')

    // Walked against its direction, the path keeps the relationship's own start and end.
    const reverse = await driver.executeQuery(
      "MATCH p = (:Person {name: 'b'})<-[:KNOWS]-(:Person {name: 'a'}) RETURN p",
    )
    const back = reverse.records[0]!.get('p')
    expect(back.start.properties.name).toBe('b')
    expect(back.segments[0].relationship.startNodeElementId).toBe(a.elementId)

    // A float holding an integer is taken where Cypher needs one (LangChain sends topK: 10.0).
    const limited = await driver.executeQuery('UNWIND range(1, 10) AS i RETURN i LIMIT $k', { k: 3.0 })
    expect(limited.records).toHaveLength(3)
  })

  it('sends temporal values both ways as Bolt structures', async () => {
    const { types } = neo4j
    const params = {
      d: new types.Date(2024, 2, 29),
      lt: new types.LocalTime(12, 30, 15, 123456789),
      t: new types.Time(1, 2, 3, 4, 3600),
      ldt: new types.LocalDateTime(2024, 1, 2, 3, 4, 5, 6),
      dt: new types.DateTime(2024, 1, 2, 3, 4, 5, 6, -7200),
      dtz: new types.DateTime(2024, 7, 1, 12, 0, 0, 0, undefined, 'Europe/Stockholm'),
      dur: new types.Duration(14, 3, 100, 5),
    }
    const { records } = await driver.executeQuery(
      `RETURN $d AS d, $lt AS lt, $t AS t, $ldt AS ldt, $dt AS dt, $dtz AS dtz, $dur AS dur,
              $d.year AS year, $dtz.offset AS offset,
              date('2015-07-21') AS made, datetime('2015-07-21T20:40:32.142+01:00') AS zoned,
              duration('P1Y2M3DT4H') AS span`,
      params,
    )
    const row = records[0]!
    for (const key of ['d', 'lt', 't', 'ldt', 'dt', 'dur'] as const) {
      expect(String(row.get(key)), key).toBe(String(params[key]))
    }
    // A zoned value comes back with the offset the zone has at that instant.
    expect(String(row.get('dtz'))).toBe('2024-07-01T12:00:00+02:00[Europe/Stockholm]')
    expect(row.get('year').toNumber()).toBe(2024)
    expect(row.get('offset')).toBe('+02:00')
    expect(String(row.get('made'))).toBe('2015-07-21')
    expect(String(row.get('zoned'))).toBe('2015-07-21T20:40:32.142000000+01:00')
    const span = row.get('span')
    expect([span.months, span.days, span.seconds, span.nanoseconds].map(Number)).toEqual([14, 3, 14400, 0])
    // Stored as a property and read back.
    await driver.executeQuery('CREATE (:Event {at: $dtz, on: $d})', params)
    const stored = await driver.executeQuery('MATCH (e:Event) RETURN e.at AS at, e.on AS on')
    expect(String(stored.records[0]?.get('at'))).toBe('2024-07-01T12:00:00+02:00[Europe/Stockholm]')
    expect(String(stored.records[0]?.get('on'))).toBe('2024-02-29')
  })

  it('maps engine errors to Neo4j status codes', async () => {
    expect(await codeOf(driver.executeQuery('RETURN 1 +'))).toBe('Neo.ClientError.Statement.SyntaxError')
    expect(await codeOf(driver.executeQuery('RETURN $missing'))).toBe(
      'Neo.ClientError.Statement.ParameterMissing',
    )
    expect(await codeOf(driver.executeQuery('RETURN $b', { b: new Int8Array([1, 2]) }))).toBe(
      'Neo.ClientError.Statement.TypeError',
    )
    // The session goes on after a failure (the driver RESETs).
    const session = driver.session()
    await expect(session.run('RETURN 1 / 0')).rejects.toThrow()
    const ok = await session.run('RETURN 42 AS n')
    expect(ok.records[0]?.get('n').toNumber()).toBe(42)
    await session.close()
  })

  it('refuses a write in read access mode with AccessMode', async () => {
    const session = driver.session({ defaultAccessMode: neo4j.session.READ })
    expect(await codeOf(session.run('CREATE (:Nope)'))).toBe('Neo.ClientError.Statement.AccessMode')
    await session.close()
    const readTx = driver.session()
    expect(await codeOf(readTx.executeRead((tx) => tx.run('CREATE (:Nope)')))).toBe(
      'Neo.ClientError.Statement.AccessMode',
    )
    await readTx.close()
    const { records } = await driver.executeQuery('MATCH (n:Nope) RETURN count(n) AS c')
    expect(records[0]?.get('c').toNumber()).toBe(0)
  })

  it('streams a result page by page with a small fetch size', async () => {
    const session = driver.session({ fetchSize: 100 })
    let seen = 0
    let total = 0
    await new Promise<void>((resolve, reject) => {
      session.run('UNWIND range(1, 10000) AS i RETURN i').subscribe({
        onNext: (record) => {
          seen += 1
          total += record.get('i').toNumber()
        },
        onCompleted: () => resolve(),
        onError: reject,
      })
    })
    await session.close()
    expect(seen).toBe(10000)
    expect(total).toBe((10000 * 10001) / 2)
  })

  it('routes neo4j:// to itself in every role', async () => {
    const routed = driverFor(server, 'neo4j')
    await routed.executeQuery("CREATE (:Routed {v: 'x'})")
    const { records } = await routed.executeQuery('MATCH (n:Routed) RETURN n.v AS v', {}, { routing: 'READ' })
    expect(records[0]?.get('v')).toBe('x')
  })

  it('keeps databases apart: each is a workspace, neo4j is the default one', async () => {
    await driver.executeQuery("CREATE (:Iso {w: 'one'})", {}, { database: 'workspace--bolt-one' })
    await driver.executeQuery("CREATE (:Iso {w: 'default'})", {}, { database: 'neo4j' })
    const one = await driver.executeQuery(
      'MATCH (n:Iso) RETURN n.w AS w',
      {},
      { database: 'workspace--bolt-one' },
    )
    expect(one.records.map((r) => r.get('w'))).toEqual(['one'])
    const other = await driver.executeQuery(
      'MATCH (n:Iso) RETURN n.w AS w',
      {},
      { database: 'workspace--bolt-two' },
    )
    expect(other.records).toHaveLength(0)
    // Over HTTP, the default workspace is what `neo4j` reached.
    const http = await server.request<{ result: { data: { rows: unknown[][] } } }>('/v1/cypher/read', {
      body: { query: 'MATCH (n:Iso) RETURN n.w' },
    })
    expect(http.json.result.data.rows).toEqual([['default']])
  })

  it('serves 24 concurrent sessions', async () => {
    const runs = Array.from({ length: 24 }, async (_, i) => {
      const session = driver.session()
      try {
        await session.executeWrite((tx) => tx.run('CREATE (:Concurrent {i: $i})', { i }))
        const read = await session.executeRead((tx) =>
          tx.run('MATCH (c:Concurrent {i: $i}) RETURN c.i AS i', { i }),
        )
        return read.records[0]?.get('i').toNumber()
      } finally {
        await session.close()
      }
    })
    expect((await Promise.all(runs)).sort((x, y) => (x ?? 0) - (y ?? 0))).toEqual(
      Array.from({ length: 24 }, (_, i) => i),
    )
  })

  it('joins a session audit log through tx_metadata.session_id, auto-commit and in a transaction', async () => {
    const started = await server.request<{ result: { session_id: string } }>('/v1/sessions/start', {
      body: { workspace_id: 'workspace--http-default', actor_id: 'actor--bolt' },
    })
    const sessionId = started.json.result.session_id
    const txConfig = { metadata: { session_id: sessionId } }
    const session = driver.session()
    await session.run('CREATE (:AuditedBolt {i: 1})', {}, txConfig)
    await session.executeWrite((tx) => tx.run('CREATE (:AuditedBolt {i: 2})'), txConfig)
    await session.close()
    const logs = await server.request<{
      result: {
        entries: { fields: { event: string; query?: string } }[]
        audit_parity: { parity_ok: boolean }
      }
    }>(`/v1/sessions/${sessionId}/logs`)
    const inputs = logs.json.result.entries.filter((e) => e.fields.event === 'cypher_audit_input')
    expect(inputs.map((e) => e.fields.query)).toEqual([
      'CREATE (:AuditedBolt {i: 1})',
      'CREATE (:AuditedBolt {i: 2})',
    ])
    expect(logs.json.result.audit_parity.parity_ok).toBe(true)
    // An unknown session is refused, as over HTTP.
    expect(
      await codeOf(
        driver.executeQuery('RETURN 1', {}, { transactionConfig: { metadata: { session_id: 'nope' } } }),
      ),
    ).toBe('Neo.ClientError.Request.Invalid')
  })

  it('holds a result computed whole (ORDER BY) to the same row budget as HTTP', async () => {
    const failure = await driver
      .executeQuery('UNWIND range(1, 20000) AS i RETURN i ORDER BY i DESC')
      .catch((error: { code: string; message: string }) => error)
    expect(failure).toMatchObject({ code: 'Neo.ClientError.Statement.ExecutionFailed' })
    expect((failure as { message: string }).message).toContain('returned_records')
  })

  it('shows the listener in /health and counts in /metrics', async () => {
    const health = await server.request<{ bolt: Record<string, unknown> }>('/health')
    expect(health.json.bolt).toMatchObject({
      enabled: true,
      listening: true,
      port: server.boltPort,
      tls: false,
    })
    const metrics = await server.request('/metrics')
    expect(metrics.text).toMatch(/service_bolt_messages_total\{message="RUN"\} [1-9]/)
    expect(metrics.text).toMatch(
      /service_bolt_failures_total\{code="Neo.ClientError.Statement.SyntaxError"\} [1-9]/,
    )
    expect(metrics.text).toMatch(/service_bolt_bytes_total\{direction="in"\} [1-9]/)
    // Access-log lines like HTTP's: one per statement, failures with their code.
    const lines = server
      .stdout()
      .split('\n')
      .filter((line) => line.includes('"event":"bolt_request"'))
      .map((line) => JSON.parse(line) as { message: string; code: string | null; ms: number })
    expect(lines.some((line) => line.message === 'RUN' && line.code === null && line.ms >= 0)).toBe(true)
    expect(lines.some((line) => line.code === 'Neo.ClientError.Statement.SyntaxError')).toBe(true)
  })
})
