// `pnpm bench bolt`: the same Cypher through the Bolt door (neo4j-driver 6) and over HTTP (undici), one server,
// one graph, interleaved so both see the same machine state. Point lookups: p50/p95 of one-row reads, one at a
// time. Streaming: BOLT_BENCH_RECORDS small records read in pages of the row budget (10,000, what one query may
// return), records/s through each door (Bolt pulls them BOLT_BENCH_FETCH at a time). Needs `pnpm build` first.
import neo4j from 'neo4j-driver'
import { Agent, request } from 'undici'
import { BENCH_TOKEN, freePort, pinning, startService } from './lib/server.mjs'

const NODES = Number(process.env.BOLT_BENCH_NODES ?? 10_000)
const LOOKUPS = Number(process.env.BOLT_BENCH_LOOKUPS ?? 2_000)
const RECORDS = Number(process.env.BOLT_BENCH_RECORDS ?? 1_000_000)
const FETCH = Number(process.env.BOLT_BENCH_FETCH ?? 1_000)
const PAGE = 10_000

const pct = (xs, p) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]

const boltPort = await freePort()
const service = await startService(
  { SERVICE_BOLT_ENABLED: 'true', SERVICE_BOLT_PORT: String(boltPort), SERVICE_LOG_LEVEL: 'warn' },
  pinning(),
)
const driver = neo4j.driver(`bolt://127.0.0.1:${boltPort}`, neo4j.auth.bearer(BENCH_TOKEN), {
  disableLosslessIntegers: true,
})
const agent = new Agent({ connections: 4 })
const http = async (query, params) => {
  const res = await request(`${service.url}/v1/cypher/read`, {
    method: 'POST',
    dispatcher: agent,
    headers: { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, params }),
  })
  const json = await res.body.json()
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${JSON.stringify(json)}`)
  return json.result.data.rows
}

try {
  process.stderr.write(`loading ${NODES} nodes over Bolt\n`)
  for (let i = 0; i < NODES; i += 1_000) {
    await driver.executeQuery(
      'UNWIND range($from, $to) AS i CREATE (:Item {id: i, name: "item " + toString(i)})',
      {
        from: i,
        to: Math.min(NODES, i + 1_000) - 1,
      },
    )
  }
  await driver.executeQuery('CREATE INDEX item_id IF NOT EXISTS FOR (n:Item) ON (n.id)').catch(() => {})

  const lookup = 'MATCH (n:Item {id: $id}) RETURN n.name AS name'
  const session = driver.session({ defaultAccessMode: neo4j.session.READ, fetchSize: FETCH })
  const times = { bolt: [], http: [] }
  for (let i = 0; i < LOOKUPS; i++) {
    const id = (i * 7919) % NODES
    const order = i % 2 === 0 ? ['bolt', 'http'] : ['http', 'bolt']
    for (const door of order) {
      const started = performance.now()
      const rows =
        door === 'bolt'
          ? (await session.run(lookup, { id })).records.length
          : (await http(lookup, { id })).length
      times[door].push(performance.now() - started)
      if (rows !== 1) throw new Error(`${door} lookup of ${id} returned ${rows} rows`)
    }
  }

  const stream = 'UNWIND range($from, $to) AS i RETURN i'
  const streamed = { bolt: 0, http: 0 }
  const elapsed = { bolt: 0, http: 0 }
  for (let from = 0; from < RECORDS; from += PAGE) {
    const params = { from, to: Math.min(RECORDS, from + PAGE) - 1 }
    for (const door of from % (2 * PAGE) === 0 ? ['bolt', 'http'] : ['http', 'bolt']) {
      const started = performance.now()
      if (door === 'bolt') {
        await new Promise((resolve, reject) =>
          session.run(stream, params).subscribe({
            onNext: () => {
              streamed.bolt += 1
            },
            onCompleted: resolve,
            onError: reject,
          }),
        )
      } else {
        streamed.http += (await http(stream, params)).length
      }
      elapsed[door] += performance.now() - started
    }
  }
  await session.close()

  const ms = (x) => x.toFixed(3)
  console.log(
    `\nBolt vs HTTP: ${NODES} nodes, ${LOOKUPS} lookups each, ${RECORDS} records streamed each, Node ${process.version}`,
  )
  console.log('| door | lookup p50 ms | lookup p95 ms | streamed records | records/s |')
  console.log('|---|---:|---:|---:|---:|')
  for (const door of ['bolt', 'http']) {
    const rate = streamed[door] / (elapsed[door] / 1000)
    console.log(
      `| ${door === 'bolt' ? `Bolt (neo4j-driver, fetch ${FETCH})` : 'HTTP (undici, /v1/cypher/read)'} | ${ms(pct(times[door], 50))} | ${ms(pct(times[door], 95))} | ${streamed[door]} | ${Math.round(rate)} |`,
    )
  }
} finally {
  await driver.close()
  await agent.close()
  await service.stop()
}
