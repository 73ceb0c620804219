// `pnpm bench taxii`: TAXII 2.1 paging against a persistent, fsync-on server. Imports a deterministic
// synthetic workspace of 100,000 STIX objects (60,000 SDOs and 40,000 relationships, in bundles of 10,000),
// then pages through the collection's objects with `next` at the maximum page and at the default page, and
// through its manifest; reports objects served per second and the server's RSS (VmRSS sampled every 50 ms
// while paging: the peak, and the resident size before paging).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BENCH_TOKEN, startService } from './lib/server.mjs'

const OBJECTS = Number(process.env.TAXII_BENCH_OBJECTS ?? 100_000)
const NODES = Math.round(OBJECTS * 0.6)
const CHUNK = 10_000
const PAGE_MAX = 1000
const T = '2024-01-02T03:04:05.000Z'
const TAXII = 'application/taxii+json;version=2.1'
const WS = 'workspace--bench-taxii'
const TYPES = ['malware', 'tool', 'threat-actor', 'campaign', 'infrastructure']

const uuid = (kind, n) =>
  `00000000-0000-4${kind.toString(16).padStart(3, '0')}-8000-${n.toString(16).padStart(12, '0')}`
const nodeId = (i) => `${TYPES[i % TYPES.length]}--${uuid(1, i)}`

function* objects() {
  for (let i = 0; i < NODES; i++) {
    const type = TYPES[i % TYPES.length]
    const o = { type, spec_version: '2.1', id: nodeId(i), created: T, modified: T, name: `${type} ${i}` }
    if (type === 'malware') o.is_family = true
    yield o
  }
  for (let r = 0; r < OBJECTS - NODES; r++)
    yield {
      type: 'relationship',
      spec_version: '2.1',
      id: `relationship--${uuid(2, r)}`,
      created: T,
      modified: T,
      relationship_type: 'uses',
      source_ref: nodeId(r % NODES),
      target_ref: nodeId((r * 7919 + 1) % NODES),
    }
}

async function importAll(url) {
  let chunk = []
  const send = async () => {
    const res = await fetch(`${url}/v1/import/stix`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        workspace_id: WS,
        bundle: { type: 'bundle', id: `bundle--${uuid(3, 0)}`, objects: chunk },
      }),
    })
    if (res.status !== 200) throw new Error(`import ${res.status}: ${(await res.text()).slice(0, 300)}`)
    await res.arrayBuffer()
    chunk = []
  }
  for (const o of objects()) {
    chunk.push(o)
    if (chunk.length === CHUNK) await send()
  }
  if (chunk.length > 0) await send()
}

const get = async (url, path) => {
  const res = await fetch(`${url}${path}`, {
    headers: { authorization: `Bearer ${BENCH_TOKEN}`, accept: TAXII },
  })
  const text = await res.text()
  if (res.status !== 200) throw new Error(`GET ${path} ${res.status}: ${text.slice(0, 300)}`)
  return JSON.parse(text)
}

const vmRss = (pid) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) * 1024 : null
}
const mb = (n) => (n === null ? 'n/a' : `${(n / 1048576).toFixed(1)} MB`)

/** Pages through `resource` with `next`; counts entries, samples the server's RSS meanwhile. */
async function page(url, pid, collection, resource, limit) {
  let peak = 0
  const timer = setInterval(() => {
    peak = Math.max(peak, vmRss(pid) ?? 0)
  }, 50)
  const t0 = performance.now()
  let served = 0
  let pages = 0
  let next
  try {
    for (;;) {
      const query = new URLSearchParams({ limit: String(limit) })
      if (next !== undefined) query.set('next', next)
      const body = await get(url, `/taxii2/root/collections/${collection}/${resource}/?${query}`)
      served += body.objects?.length ?? 0
      pages++
      if (!body.more) break
      next = body.next
    }
  } finally {
    clearInterval(timer)
  }
  const ms = performance.now() - t0
  peak = Math.max(peak, vmRss(pid) ?? 0)
  return {
    resource,
    limit,
    pages,
    served,
    'objects/s': Math.round(served / (ms / 1000)),
    'rss peak': mb(peak),
  }
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-taxii-'))
  const svc = await startService({
    SERVICE_STORAGE_MODE: 'persistent',
    SERVICE_STORAGE_DIR: join(dir, 'graph'),
    SERVICE_HTTP_SESSION_STORE_DIR: join(dir, 'runtime'),
    SERVICE_HTTP_IMPORT_MAX_BODY_BYTES: String(256 * 1024 * 1024),
    SERVICE_TAXII_PAGE_MAX: String(PAGE_MAX),
    SERVICE_SEED_EMBEDDING_PROVIDER: 'none',
  })
  const rows = []
  try {
    const t0 = performance.now()
    await importAll(svc.url)
    const importS = (performance.now() - t0) / 1000
    const collections = await get(svc.url, '/taxii2/root/collections/')
    const collection = collections.collections.find((c) => c.title === WS).id
    const before = vmRss(svc.child.pid)
    for (const [resource, limit] of [
      ['objects', PAGE_MAX],
      ['objects', 100],
      ['manifest', PAGE_MAX],
      ['objects', PAGE_MAX],
    ]) {
      const row = await page(svc.url, svc.child.pid, collection, resource, limit)
      if (row.served !== OBJECTS) throw new Error(`${resource} served ${row.served} of ${OBJECTS}`)
      rows.push({ ...row, 'rss before paging': mb(before) })
    }
    console.log(`TAXII 2.1 paging through ${OBJECTS} objects (imported in ${importS.toFixed(1)} s, durable)`)
    console.table(rows)
  } finally {
    await svc.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
