// `pnpm bench bolt`: the same Cypher through the Bolt door (neo4j-driver 6) and over HTTP (undici), one server,
// one graph, interleaved so both see the same machine state. Point lookups: p50/p95 of one-row reads, one at a
// time. Paged: BOLT_BENCH_RECORDS small records read in pages of the row budget (10,000, what one query may
// return), records/s through each door (Bolt pulls them BOLT_BENCH_FETCH at a time). Streamed: the same records
// in ONE query through Bolt (computed as the driver pulls), and every node of the graph in one MATCH: records/s
// and how far the server's RSS grew, beside the same query as one HTTP request where HTTP can answer it (1M rows
// it cannot: its row budget, and the output shows the refusal rather than a peer). Needs `pnpm build` first.
import { readFileSync } from 'node:fs'
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
  {
    SERVICE_BOLT_ENABLED: 'true',
    SERVICE_BOLT_PORT: String(boltPort),
    SERVICE_LOG_LEVEL: 'warn',
    SERVICE_BOLT_MAX_STREAMED_RECORDS: String(Math.max(RECORDS, NODES, 5_000_000)),
  },
  pinning(),
)

/** The server's resident memory in bytes (Linux /proc; null elsewhere). */
const serverRss = () => {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${service.child.pid}/status`, 'utf8'))?.[1]
    return kb === undefined ? null : Number(kb) * 1024
  } catch {
    return null
  }
}

/** One query through Bolt, every record counted: records/s and the server's RSS growth (sampled every 20 ms). */
async function streamOnce(session, query, params) {
  const before = serverRss()
  let peak = before
  const sampler = setInterval(() => {
    const now = serverRss()
    if (now !== null && (peak === null || now > peak)) peak = now
  }, 20)
  const started = performance.now()
  let records = 0
  try {
    await new Promise((resolve, reject) =>
      session.run(query, params).subscribe({
        onNext: () => {
          records += 1
        },
        onCompleted: resolve,
        onError: reject,
      }),
    )
  } finally {
    clearInterval(sampler)
  }
  const seconds = (performance.now() - started) / 1000
  return { records, rate: records / seconds, rssGrowth: before === null ? null : peak - before }
}

/**
 * The same query as one HTTP request: its records/s when HTTP can answer it, else its refusal (code and message)
 * as the output shows it, rather than a peer it cannot be.
 */
async function httpPeer(query, params) {
  const started = performance.now()
  const res = await request(`${service.url}/v1/cypher/read`, {
    method: 'POST',
    dispatcher: agent,
    headers: { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, params }),
  })
  const { result } = await res.body.json()
  const error = result?.validation_errors?.[0]
  if (error !== undefined)
    return `cannot: one HTTP answer holds at most ${PAGE} rows (${error.code}: ${error.message})`
  const rows = result.data.rows.length
  return `${rows} records, ${Math.round(rows / ((performance.now() - started) / 1000))} records/s`
}
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
  const oneQuery = 'UNWIND range(1, $n) AS i RETURN i'
  const streamedOne = await streamOnce(session, oneQuery, { n: RECORDS })
  const graphQuery = 'MATCH (n:Item) RETURN n.id AS id, n.name AS name'
  const streamedGraph = await streamOnce(session, graphQuery, {})
  const httpOne = await httpPeer(oneQuery, { n: RECORDS })
  const httpGraph = await httpPeer(graphQuery, {})
  await session.close()

  const ms = (x) => x.toFixed(3)
  console.log(
    `\nBolt vs HTTP: ${NODES} nodes, ${LOOKUPS} lookups each, ${RECORDS} records streamed each, Node ${process.version}`,
  )
  console.log('| door | lookup p50 ms | lookup p95 ms | paged records | records/s |')
  console.log('|---|---:|---:|---:|---:|')
  for (const door of ['bolt', 'http']) {
    const rate = streamed[door] / (elapsed[door] / 1000)
    console.log(
      `| ${door === 'bolt' ? `Bolt (neo4j-driver, fetch ${FETCH})` : 'HTTP (undici, /v1/cypher/read)'} | ${ms(pct(times[door], 50))} | ${ms(pct(times[door], 95))} | ${streamed[door]} | ${Math.round(rate)} |`,
    )
  }
  const mib = (bytes) => (bytes === null ? 'n/a' : (bytes / 1024 / 1024).toFixed(1))
  console.log(`\nOne query, streamed through Bolt (neo4j-driver, fetch ${FETCH}):`)
  console.log('| query | records | records/s | server RSS growth MiB | the same over HTTP |')
  console.log('|---|---:|---:|---:|---|')
  for (const [query, run, httpNote] of [
    [oneQuery.replace('$n', String(RECORDS)), streamedOne, httpOne],
    [graphQuery, streamedGraph, httpGraph],
  ]) {
    console.log(
      `| \`${query}\` | ${run.records} | ${Math.round(run.rate)} | ${mib(run.rssGrowth)} | ${httpNote} |`,
    )
  }
} finally {
  await driver.close()
  await agent.close()
  await service.stop()
}
