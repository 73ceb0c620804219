// `pnpm bench footprint` (issue 39): what a CTI-shaped store costs the machine. Imports the synthetic set of
// bench/lib/cti-set.mjs (200k scale: 1,000 malware + 100,000 indicators + 100,000 `indicates`; 2M scale with
// FOOTPRINT_BENCH_SCALE=2m) through the real server (persistent, fsync on), then restarts it once per payload
// cache size and reports RSS, JS heap, disk, import rate, recovery time and query latencies: Cypher point
// lookup and 2-hop, the label count and a grouped count, seed search, and the STIX export of a 10k workspace.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ctiBundles, ctiShape, indicatorId } from './lib/cti-set.mjs'
import { BENCH_TOKEN, repoRoot, startService } from './lib/server.mjs'

const SCALES = { '200k': 100_000, '2m': 1_000_000 }
const scale = process.env.FOOTPRINT_BENCH_SCALE ?? '200k'
const INDICATORS = SCALES[scale] ?? Number(process.env.FOOTPRINT_BENCH_INDICATORS)
if (!Number.isInteger(INDICATORS) || INDICATORS <= 0) {
  process.stderr.write(`FOOTPRINT_BENCH_SCALE must be one of ${Object.keys(SCALES).join(', ')}\n`)
  process.exit(2)
}
const IDLE_SETTLE_MS = 10_000
const CACHE_SETTING = 'SERVICE_STORAGE_PAYLOAD_CACHE_BYTES'
// Cache sizes to restart with (MiB); `default` leaves the setting unset.
const CACHES = (process.env.FOOTPRINT_BENCH_CACHES_MB ?? 'default,16,256').split(',')
const SAMPLES = Number(process.env.FOOTPRINT_BENCH_SAMPLES ?? 200)
const WORKSPACE = 'workspace--footprint'
const EXPORT_WORKSPACE = 'workspace--footprint-export'

const auth = { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' }
const perObject = (bytes, objects) => (bytes === null ? 'n/a' : Math.round(bytes / objects))
const mb = (n) => (n === null || n === undefined ? 'n/a' : `${(n / 1048576).toFixed(0)} MB`)

async function postJson(url, path, body) {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: auth, body })
  const json = await res.json()
  return { status: res.status, json }
}

async function importSet(url, workspace, bundles) {
  let objects = 0
  for (const bundle of bundles) {
    const body = `{"workspace_id":${JSON.stringify(workspace)},"bundle":${JSON.stringify(bundle)}}`
    const { status, json } = await postJson(url, '/v1/import/stix', body)
    if (status !== 200) throw new Error(`import ${status}: ${JSON.stringify(json).slice(0, 300)}`)
    objects += json.result.processed_objects
  }
  return objects
}

/** RSS and JS heap in use, from the server's own /metrics (prom-client's process and Node gauges). */
async function memory(url) {
  const res = await fetch(`${url}/metrics`, { headers: auth })
  const text = await res.text()
  const gauge = (name) => {
    const m = new RegExp(`^${name} (\\d+(?:\\.\\d+)?)`, 'm').exec(text)
    return m ? Number(m[1]) : null
  }
  return {
    rss: gauge('process_resident_memory_bytes'),
    heap: gauge('nodejs_heap_size_used_bytes'),
    heapTotal: gauge('nodejs_heap_size_total_bytes'),
    external: gauge('nodejs_external_memory_bytes'),
    backlog: (gauge('service_seed_index_backlog') ?? 0) + (gauge('service_seed_embedding_backlog') ?? 0),
  }
}

function diskBytes(dir) {
  let total = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    total += entry.isDirectory() ? diskBytes(path) : statSync(path).size
  }
  return total
}

function cypher(url, query, params) {
  return postJson(url, '/v1/cypher/read', JSON.stringify({ query, params, workspace_id: WORKSPACE }))
}

/** Why an answer is not a result (HTTP error, or a Cypher result that is not Success), or null. */
function refusal(status, json) {
  if (status !== 200) return `refused ${json?.error?.code ?? status}`
  const result = json.result
  if (result?.status !== undefined && result.status !== 'Success')
    return `refused ${result.validation_errors?.[0]?.code ?? result.status}`
  return null
}

/** p50/p95 of `SAMPLES` sequential calls of `call(i)` in ms; a failed call stops the run with its answer. */
async function latency(call) {
  const times = []
  for (let i = 0; i < SAMPLES; i++) {
    const t0 = performance.now()
    const { status, json } = await call(i)
    times.push(performance.now() - t0)
    const refused = refusal(status, json)
    if (refused !== null) return refused
  }
  times.sort((a, b) => a - b)
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(1)
  return `${at(0.5)} / ${at(0.95)}`
}

/** One answer of a whole-label query: its time and its first row, or the error code it was refused with. */
async function once(url, query) {
  const t0 = performance.now()
  const { status, json } = await cypher(url, query, {})
  const ms = (performance.now() - t0).toFixed(0)
  const refused = refusal(status, json)
  if (refused !== null) return `${refused} (${ms} ms)`
  const rows = json.result.data?.rows ?? []
  return `${rows.length} rows, first ${JSON.stringify(rows[0] ?? null)} (${ms} ms)`
}

// A pseudo-random but repeatable walk over the indicators.
const pickN = (i) => (i * 7919 + 13) % INDICATORS
const pick = (i) => indicatorId(pickN(i))

function seedSearch(url, i) {
  const objective = `indicator ${pickN(i)}`
  return postJson(
    url,
    '/v1/seed/search',
    JSON.stringify({ workspace_id: WORKSPACE, objective, mode: 'full_text' }),
  )
}

async function measureQueries(url) {
  // The seed-search index is rebuilt in the background after a restart and a search catches it up: one search
  // first, timed on its own, so the latencies below are not measured against that build.
  const t0 = performance.now()
  const first = await seedSearch(url, 0)
  const firstSearch = refusal(first.status, first.json) ?? `${(performance.now() - t0).toFixed(0)}`
  return {
    'first seed search ms (index catch-up)': firstSearch,
    'point p50/p95 ms': await latency((i) =>
      cypher(url, 'MATCH (n:StixObject {stix_id: $id}) RETURN n.name, n.description', { id: pick(i) }),
    ),
    '2-hop p50/p95 ms': await latency((i) =>
      cypher(url, 'MATCH (:StixObject {stix_id: $id})-[:Indicates]->(m)<-[:Indicates]-(o) RETURN count(o)', {
        id: pick(i),
      }),
    ),
    'seed search p50/p95 ms': await latency((i) => seedSearch(url, i)),
    'export 10k ms': await exportMs(url),
    'count(Indicator)': await once(url, 'MATCH (n:Indicator) RETURN count(n)'),
    'grouped count': await once(url, 'MATCH (n:Indicator) RETURN n.indicator_types AS t, count(*) AS c'),
  }
}

/** Waits (printing progress) until seed search's background work is done; seconds waited, or 'not in 15 min'. */
async function backgroundDone(url) {
  const t0 = performance.now()
  for (let last = -1; ; ) {
    const { backlog } = await memory(url)
    if (backlog === 0) return ((performance.now() - t0) / 1000).toFixed(0)
    if (performance.now() - t0 > 15 * 60_000) return 'not in 15 min'
    if (backlog !== last) process.stderr.write(`  seed search background backlog: ${backlog}\n`)
    last = backlog
    await new Promise((resolve) => setTimeout(resolve, 5000))
  }
}

/** The lookups again, once nothing runs in the background. */
async function measureSteadyQueries(url) {
  return {
    'point p50/p95 ms, indexed': await latency((i) =>
      cypher(url, 'MATCH (n:StixObject {stix_id: $id}) RETURN n.name, n.description', { id: pick(i) }),
    ),
    '2-hop p50/p95 ms, indexed': await latency((i) =>
      cypher(url, 'MATCH (:StixObject {stix_id: $id})-[:Indicates]->(m)<-[:Indicates]-(o) RETURN count(o)', {
        id: pick(i),
      }),
    ),
  }
}

async function exportMs(url) {
  const t0 = performance.now()
  const res = await fetch(`${url}/v1/export/stix?workspace_id=${encodeURIComponent(EXPORT_WORKSPACE)}`, {
    headers: auth,
  })
  const text = await res.text()
  if (res.status !== 200) return `refused ${res.status}`
  return `${(performance.now() - t0).toFixed(0)} (${JSON.parse(text).objects.length} objects)`
}

/** Whether this build reads the payload cache setting (it lands with the payload store, issue 39 step 3). */
function knowsCacheSetting() {
  const doc = spawnSync(process.execPath, [join(repoRoot, 'host', 'dist', 'main.js'), 'settings-doc'], {
    encoding: 'utf8',
  })
  return doc.stdout.includes(CACHE_SETTING)
}

async function main() {
  const shape = ctiShape(INDICATORS)
  // BENCH_FOOTPRINT_KEEP=1 keeps the store (its path is printed) for probing it afterwards.
  const keep = process.env.BENCH_FOOTPRINT_KEEP === '1'
  const dir = mkdtempSync(join(tmpdir(), 'bench-footprint-'))
  const storageDir = join(dir, 'graph')
  const env = {
    SERVICE_STORAGE_MODE: 'persistent',
    SERVICE_STORAGE_DIR: storageDir,
    SERVICE_STORAGE_REQUIRE_FSYNC: 'true',
    SERVICE_HTTP_IMPORT_MAX_BODY_BYTES: String(256 * 1024 * 1024),
    SERVICE_HTTP_REQUEST_TIMEOUT_MS: '600000',
  }
  const rows = []
  try {
    let svc = await startService(env)
    const before = await memory(svc.url)
    const t0 = performance.now()
    const objects = await importSet(svc.url, WORKSPACE, ctiBundles(INDICATORS))
    const importS = (performance.now() - t0) / 1000
    await importSet(svc.url, EXPORT_WORKSPACE, ctiBundles(5_000))
    const imported = await memory(svc.url)
    process.stderr.write(`imported ${objects} objects in ${importS.toFixed(1)} s\n`)
    rows.push({
      run: 'import',
      objects,
      'import obj/s': Math.round(objects / importS),
      'rss before': mb(before.rss),
      rss: mb(imported.rss),
      heap: mb(imported.heap),
      'heap B/object (whole process)': perObject(imported.heap, objects),
      disk: mb(diskBytes(storageDir)),
    })
    await svc.stop()

    const caches = knowsCacheSetting() ? CACHES : ['default']
    if (caches.length < CACHES.length)
      process.stderr.write(`this build does not read ${CACHE_SETTING}: one restart, everything resident\n`)
    for (const cache of caches) {
      const cacheEnv = cache === 'default' ? {} : { [CACHE_SETTING]: String(Number(cache) * 1048576) }
      const r0 = performance.now()
      svc = await startService({ ...env, ...cacheEnv }, null, 600_000)
      const recoveryS = (performance.now() - r0) / 1000
      const restarted = await memory(svc.url)
      // V8 returns the garbage of loading only after a while idle: the resident size a server settles at.
      await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS))
      const settled = await memory(svc.url)
      // V8 shrinks its young generation only after ~5 s of little allocation, so the 10 s sample can fall either
      // side of that (~30 MB): a second sample, 10 s later, is where an idle server stays.
      await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS))
      const settledLonger = await memory(svc.url)
      // Queries while seed search rebuilds its index and embeddings in the background (a fresh restart), then
      // once that is done (the gauges say so): what a user meets in each phase.
      const queries = await measureQueries(svc.url)
      const indexedIn = await backgroundDone(svc.url)
      const indexed = await memory(svc.url)
      const steady = await measureSteadyQueries(svc.url)
      const after = await memory(svc.url)
      await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS))
      const afterIdle = await memory(svc.url)
      rows.push({
        run: `restart, cache ${cache === 'default' ? 'default' : `${cache} MiB`}`,
        'recovery s': recoveryS.toFixed(1),
        rss: mb(restarted.rss),
        heap: mb(restarted.heap),
        'heap total': mb(restarted.heapTotal),
        'external (typed arrays, buffers)': mb(restarted.external),
        'heap B/object (whole process)': perObject(restarted.heap, shape.objects),
        [`rss after ${IDLE_SETTLE_MS / 1000} s idle`]: mb(settled.rss),
        [`rss after ${(2 * IDLE_SETTLE_MS) / 1000} s idle`]: mb(settledLonger.rss),
        'rss after queries': mb(after.rss),
        [`rss after queries and ${IDLE_SETTLE_MS / 1000} s idle`]: mb(afterIdle.rss),
        disk: mb(diskBytes(storageDir)),
        ...queries,
        'background indexing done after s': indexedIn,
        'rss once indexed': mb(indexed.rss),
        'heap once indexed': mb(indexed.heap),
        'external once indexed': mb(indexed.external),
        ...steady,
      })
      await svc.stop()
    }
  } finally {
    if (keep) process.stderr.write(`kept the store in ${storageDir}\n`)
    else rmSync(dir, { recursive: true, force: true })
  }
  console.log(
    `footprint, ${scale}: ${shape.objects} objects (${shape.malware} malware, ${shape.indicators} indicators, ${shape.relationships} indicates), Node ${process.version}`,
  )
  for (const row of rows) {
    console.log(`\n${row.run}`)
    for (const [key, value] of Object.entries(row)) if (key !== 'run') console.log(`  ${key}: ${value}`)
  }
}

await main()
