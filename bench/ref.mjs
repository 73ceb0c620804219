// `pnpm bench ref`: reference-platform writes, all in one run on the same disk: durable bulk writes
// (1,000 creates + 4,000 relationships per request), single writes at concurrency 16 and 64, idempotent
// replay latency (embedded and over HTTP), and the outbox drain rate to a real reference instance.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { httpReference } from '@service/core/ref'
import { httpClient } from './lib/http-client.mjs'
import { BENCH_TOKEN, startService } from './lib/server.mjs'

// BENCH_CORE: another build of the core package to compare against (a path to its dist/index.js).
const { openEngine } = await import(process.env.BENCH_CORE ?? '@service/core')

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const DRAIN_ENTRIES = Number(process.env.BENCH_DRAIN_ENTRIES ?? 3000)
const REPLAYS = Number(process.env.BENCH_REPLAYS ?? 2000)
const root = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'bench-ref-'))
// `pnpm bench ref [bulk] [single] [replay] [drain]` runs only the named parts (default: all).
const only = new Set(process.argv.slice(2))
const part = (name) => only.size === 0 || only.has(name)
const rows = []
const row = (name, value, unit, target = '', met = '') => {
  rows.push({ name, value, unit, target, met })
  process.stderr.write(`  ${name}: ${typeof value === 'number' ? value.toFixed(2) : value} ${unit}\n`)
}
/**
 * p95 latency in ms of `REPLAYS` sequential rounds, one figure per call; a round makes each call once, so
 * calls compared with each other see the same machine state (load from other processes drifts a lot).
 */
async function p95Of(...calls) {
  const times = calls.map(() => [])
  for (let i = 0; i < REPLAYS; i++)
    for (const [c, call] of calls.entries()) {
      const t = performance.now()
      await call()
      times[c].push(performance.now() - t)
    }
  const at = Math.min(REPLAYS - 1, Math.floor(0.95 * REPLAYS))
  return times.map((list) => list.sort((a, b) => a - b)[at])
}

let seq = 0
const request = (operation, body, key = `bench-key-${++seq}`) => ({
  contract_version: { major: 1, minor: 0 },
  context: {
    request_id: `r-${seq}`,
    correlation_id: `c-${seq}`,
    idempotency_key: key,
    access: { subject_id: 'user--bench', organization_ids: [], marking_ids: [], roles: [], attributes: {} },
    consistency: 'eventual',
  },
  operation: { operation, request: body },
})
const malware = (id) => ({ id, type: 'malware', name: `Malware ${id}`, description: 'bench record' })
const down = { post: async () => Promise.reject(new Error('reference down (bench)')) }

// 1. Durable bulk: 1,000 creates + 4,000 relationships per request; projected (entries stay pending).
if (part('bulk')) {
  const engine = await openEngine({
    storage: { mode: 'persistent', dir: join(root, 'bulk'), requireFsync: true },
    ref: { maxOperations: 5000, outboxCapacity: 1_000_000, reference: down, retryIntervalMs: 3_600_000 },
  })
  let writes = 0
  const start = performance.now()
  const end = start + SECONDS * 1000
  while (performance.now() < end) {
    const b = writes++
    const operations = []
    for (let i = 0; i < 1000; i++)
      operations.push({ operation: 'create', record: malware(`malware--b${b}-${i}`) })
    for (let r = 0; r < 4000; r++)
      operations.push({
        operation: 'create',
        record: {
          id: `relationship--b${b}-${r}`,
          type: 'relationship',
          relationship_type: 'uses',
          source_ref: `malware--b${b}-${r % 1000}`,
          target_ref: `malware--b${b}-${(r * 7 + 3) % 1000}`,
        },
      })
    const answer = await engine.ref.write(request('bulk', { operations, atomic: true }))
    if (answer.outcome.status !== 'success') throw new Error(JSON.stringify(answer.outcome).slice(0, 300))
  }
  const seconds = (performance.now() - start) / 1000
  const perSec = (writes * 5000) / seconds
  row(
    'durable bulk writes (1,000 creates + 4,000 relationships per request)',
    perSec,
    'records/s',
    '>= 100,000',
    perSec >= 100_000 ? 'met' : 'NOT met',
  )
  await engine.close()
}

// 2. Single durable writes at concurrency 16 and 64 (permits raised to the concurrency).
for (const concurrency of part('single') ? [16, 64] : []) {
  const engine = await openEngine({
    storage: { mode: 'persistent', dir: join(root, `single-${concurrency}`), requireFsync: true },
    ref: { maxConcurrency: concurrency },
  })
  let done = 0
  const end = performance.now() + SECONDS * 1000
  const worker = async (w) => {
    while (performance.now() < end) {
      await engine.ref.write(request('create', { record: malware(`malware--s${w}-${done}`) }))
      done++
    }
  }
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)))
  row(`durable single writes, concurrency ${concurrency} (embedded)`, done / SECONDS, 'writes/s')
  await engine.close()
}

// 3. Idempotent replay latency: embedded, then over HTTP against a server process.
if (part('replay')) {
  const engine = await openEngine({
    storage: { mode: 'persistent', dir: join(root, 'replay'), requireFsync: true },
  })
  const body = request('create', { record: malware('malware--replay') })
  await engine.ref.write(body)
  const [p95] = await p95Of(() => engine.ref.write(body))
  row('idempotent replay p95 (embedded)', p95, 'ms', '<= 2', p95 <= 2 ? 'met' : 'NOT met')
  await engine.close()

  const service = await startService({
    SERVICE_STORAGE_MODE: 'persistent',
    SERVICE_STORAGE_DIR: join(root, 'replay-http'),
    SERVICE_REF_RATE_LIMIT_PER_SECOND: '10000000',
    SERVICE_REF_RATE_LIMIT_BURST: '10000000',
  })
  // One lean keep-alive client (bench/lib/http-client.mjs) for BOTH figures: the global `fetch` costs more per
  // request than the server's replay does, and it would hide what the server spends.
  const client = httpClient(service.url, { authorization: `Bearer ${BENCH_TOKEN}` })
  const post = async () => {
    const r = await client.post('/v1/ref/writes', body)
    if (r.status !== 200 || r.body?.outcome?.status !== 'success')
      throw new Error(`replay answered ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`)
  }
  await post()
  for (let i = 0; i < 200; i++) await post() // warm-up
  // Beside it, the floor of the HTTP stack on this machine (a request that does nothing), interleaved.
  const live = () => client.get('/health/live')
  for (let i = 0; i < 200; i++) await live() // warm-up
  const [httpP95, floor] = await p95Of(post, live)
  row('idempotent replay p95 (HTTP, loopback)', httpP95, 'ms', '<= 2', httpP95 <= 2 ? 'met' : 'NOT met')
  row('HTTP floor: GET /health/live p95 (same server, interleaved)', floor, 'ms')
  await client.close()
  await service.stop()
}

// 4. Outbox drain to a reference instance (a persistent server process), entries queued during an outage.
if (part('drain')) {
  const reference = await startService({
    SERVICE_STORAGE_MODE: 'persistent',
    SERVICE_STORAGE_DIR: join(root, 'reference'),
    // The reference accepts as many simultaneous writes as the projector sends.
    SERVICE_REF_SHADOW_MAX_CONCURRENCY: '64',
    SERVICE_REF_RATE_LIMIT_PER_SECOND: '10000000',
    SERVICE_REF_RATE_LIMIT_BURST: '10000000',
  })
  for (const concurrency of [4, 16, 64]) {
    let up = false
    const http = httpReference(`${reference.url}/v1/ref/writes`, BENCH_TOKEN, concurrency)
    // Up to 64 entries a request through the reference's batch form; BENCH_DRAIN_SINGLE=1 sends one entry
    // a request, as before the batch form existed (same run, same machine state: compare the two).
    const client = {
      post: (body, signal) => (up ? http.post(body, signal) : down.post()),
      ...(process.env.BENCH_DRAIN_SINGLE === '1'
        ? {}
        : { postBatch: (bodies, signal) => (up ? http.postBatch(bodies, signal) : down.post()) }),
    }
    const engine = await openEngine({
      storage: { mode: 'persistent', dir: join(root, `drain-${concurrency}`), requireFsync: true },
      ref: {
        reference: client,
        maxConcurrency: 64,
        outboxCapacity: 1_000_000,
        retryIntervalMs: 3_600_000,
        timeoutMs: 10_000,
      },
    })
    // Writes go in with 64 permits; projection concurrency is what the row measures.
    const writers = Array.from({ length: 32 }, async (_, w) => {
      for (let i = w; i < DRAIN_ENTRIES; i += 32)
        await engine.ref.write(request('create', { record: malware(`malware--d${concurrency}-${i}`) }))
    })
    await Promise.all(writers)
    await engine.close()
    const drainer = await openEngine({
      storage: { mode: 'persistent', dir: join(root, `drain-${concurrency}`), requireFsync: true },
      ref: {
        reference: client,
        maxConcurrency: concurrency,
        retryIntervalMs: 3_600_000,
        timeoutMs: 10_000,
        outboxCapacity: 1_000_000,
      },
    })
    up = true
    const start = performance.now()
    const status = await drainer.ref.drain()
    const seconds = (performance.now() - start) / 1000
    if (status.result.projection_lag !== 0)
      throw new Error(`drain left ${status.result.projection_lag} entries`)
    const perSec = DRAIN_ENTRIES / seconds
    row(
      `outbox drain to a reference instance, ${concurrency} in flight`,
      perSec,
      'entries/s',
      '>= 5,000',
      perSec >= 5000 ? 'met' : 'NOT met',
    )
    await drainer.close()
  }
  await reference.stop()
}

rmSync(root, { recursive: true, force: true })
console.log(
  `\nref, ${SECONDS} s per throughput measurement, Node ${process.version}, dir ${process.env.BENCH_DIR ?? tmpdir()}`,
)
console.log('| measurement | value | unit | target | met |')
console.log('|---|---:|---|---|---|')
for (const r of rows)
  console.log(
    `| ${r.name} | ${r.value >= 100 ? Math.round(r.value) : r.value.toFixed(2)} | ${r.unit} | ${r.target} | ${r.met} |`,
  )
