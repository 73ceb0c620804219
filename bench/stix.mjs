// `pnpm bench stix`: STIX import and export over HTTP against a persistent, fsync-on server. Imports ATT&CK
// ICS and Mobile (from SHARED_DIR, skipped when absent) and a deterministic synthetic bundle of 100,000
// objects + 200,000 relationships, sent as 10 bundles of 10,000 + 20,000 (one atomic transaction each) so
// each request stays well under a raised SERVICE_HTTP_IMPORT_MAX_BODY_BYTES; then exports each workspace.
// The server's RSS is read after each set's import and again after its export (export has its own peak).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { loopDelay } from './lib/loop-delay.mjs'
import { BENCH_TOKEN, repoRoot, startService } from './lib/server.mjs'

const sharedDir = resolve(repoRoot, process.env.SHARED_DIR ?? '../shared')
const NODES = Number(process.env.STIX_BENCH_NODES ?? 100_000)
const RELS_PER_NODE = 2
const CHUNK = 10_000
const T = '2024-01-02T03:04:05.000Z'

const uuid = (kind, n) =>
  `00000000-0000-4${kind.toString(16).padStart(3, '0')}-8000-${n.toString(16).padStart(12, '0')}`
const TYPES = ['malware', 'tool', 'threat-actor', 'campaign', 'infrastructure']

function syntheticChunk(start, end) {
  const objects = []
  for (let i = start; i < end; i++) {
    const type = TYPES[i % TYPES.length]
    const o = {
      type,
      spec_version: '2.1',
      id: `${type}--${uuid(1, i)}`,
      created: T,
      modified: T,
      name: `${type} ${i}`,
      description: `synthetic object ${i}`,
    }
    if (type === 'malware') o.is_family = true
    objects.push(o)
  }
  const idOf = (i) => `${TYPES[i % TYPES.length]}--${uuid(1, i)}`
  for (let i = start; i < end; i++) {
    for (let k = 0; k < RELS_PER_NODE; k++) {
      // Targets reach back into earlier chunks too, so endpoints resolve in the bundle and in the graph.
      const j = (i * 7919 + k * 104_729) % end
      objects.push({
        type: 'relationship',
        spec_version: '2.1',
        id: `relationship--${uuid(2, i * RELS_PER_NODE + k)}`,
        created: T,
        modified: T,
        relationship_type: k === 0 ? 'uses' : 'related-to',
        source_ref: idOf(i),
        target_ref: idOf(j),
      })
    }
  }
  return { type: 'bundle', id: `bundle--${uuid(3, start)}`, objects }
}

async function post(url, body) {
  const res = await fetch(`${url}/v1/import/stix`, {
    method: 'POST',
    headers: { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' },
    body,
  })
  const json = await res.json()
  if (res.status !== 200) throw new Error(`import ${res.status}: ${JSON.stringify(json).slice(0, 300)}`)
  return json.result
}

async function rss(url) {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${BENCH_TOKEN}` } })
  const m = /process_resident_memory_bytes (\d+)/.exec(await res.text())
  return m ? Number(m[1]) : null
}

const mb = (n) => (n === null ? 'n/a' : `${(n / 1048576).toFixed(1)} MB`)

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-stix-'))
  const svc = await startService({
    SERVICE_STORAGE_MODE: 'persistent',
    SERVICE_STORAGE_DIR: join(dir, 'graph'),
    SERVICE_STORAGE_REQUIRE_FSYNC: 'true',
    SERVICE_HTTP_IMPORT_MAX_BODY_BYTES: String(256 * 1024 * 1024),
    SERVICE_HTTP_REQUEST_TIMEOUT_MS: '600000',
  })
  const rows = []
  try {
    const sets = []
    for (const name of ['ics-attack-18.1.json', 'mobile-attack-17.1.json']) {
      const file = join(sharedDir, 'data', 'stix', 'attack', name)
      if (existsSync(file))
        sets.push({
          name,
          workspace: `workspace--bench-${name.split('-')[0]}`,
          bundles: [readFileSync(file, 'utf8')],
        })
      else process.stderr.write(`skipping ${name}: ${file} not found (set SHARED_DIR)\n`)
    }
    const synthetic = []
    for (let s = 0; s < NODES; s += CHUNK)
      synthetic.push(JSON.stringify(syntheticChunk(s, Math.min(NODES, s + CHUNK))))
    sets.push({
      name: `synthetic ${NODES} + ${NODES * RELS_PER_NODE} rels`,
      workspace: 'workspace--bench-synthetic',
      bundles: synthetic,
    })

    for (const set of sets) {
      let objects = 0
      let bytes = 0
      const t0 = performance.now()
      for (const text of set.bundles) {
        const body =
          text.startsWith('{"type":"bundle"') || !text.includes('"workspace_id"')
            ? `{"workspace_id":${JSON.stringify(set.workspace)},"bundle":${text}}`
            : text
        const result = await post(svc.url, body)
        objects += result.processed_objects
        bytes += body.length
      }
      const importMs = performance.now() - t0
      // The seed-search index catches up lazily (first search, or in the background): one search brings it
      // up to date, so its time is shown and the RSS below includes the whole index.
      const s0 = performance.now()
      const search = await fetch(`${svc.url}/v1/seed/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          workspace_id: set.workspace,
          objective: 'synthetic malware 4711',
          mode: 'full_text',
        }),
      })
      await search.arrayBuffer()
      const firstSearchMs = performance.now() - s0
      const rssImported = await rss(svc.url)
      const t1 = performance.now()
      const res = await fetch(`${svc.url}/v1/export/stix?workspace_id=${encodeURIComponent(set.workspace)}`, {
        headers: { authorization: `Bearer ${BENCH_TOKEN}` },
      })
      const text = await res.text()
      if (res.status !== 200) throw new Error(`export ${res.status}: ${text.slice(0, 300)}`)
      const exportMs = performance.now() - t1
      const exported = JSON.parse(text).objects.length
      rows.push({
        set: set.name,
        objects,
        'import obj/s': Math.round(objects / (importMs / 1000)),
        'import MB': (bytes / 1048576).toFixed(1),
        'first search ms': Math.round(firstSearchMs),
        'export obj/s': Math.round(exported / (exportMs / 1000)),
        'export MB': (text.length / 1048576).toFixed(1),
        'rss imported': mb(rssImported),
        'rss exported': mb(await rss(svc.url)),
      })
    }
  } finally {
    await svc.stop()
    rmSync(dir, { recursive: true, force: true })
  }
  console.log('STIX import (durable, fsync on) and export over HTTP')
  console.table(rows)
}

/**
 * The event loop during a 100k-object import, embedded: each chunk's text parsed (as the server's body
 * parser does) and imported on a persistent, fsync-on engine, with a 1 ms timer noting how late its turns
 * came; beside the same figures over an idle stretch just before (the machine's own noise floor).
 */
async function importStall() {
  const { openEngine } = await import('@service/core')
  const dir = mkdtempSync(join(tmpdir(), 'bench-stix-stall-'))
  const engine = await openEngine({
    storage: { mode: 'persistent', dir: join(dir, 'graph'), requireFsync: true },
  })
  try {
    const texts = []
    for (let s = 0; s < NODES; s += CHUNK)
      texts.push(JSON.stringify(syntheticChunk(s, Math.min(NODES, s + CHUNK))))
    const idle = await loopDelay(() => new Promise((r) => setTimeout(r, 2000)))
    const busy = await loopDelay(async () => {
      for (const text of texts) {
        await new Promise((r) => setImmediate(r)) // a request arrives on its own turn
        await engine.stix.import({ bundle: JSON.parse(text), workspaceId: 'workspace--stall' })
      }
    })
    const f = (n) => n.toFixed(1)
    console.log(
      `event-loop stall during an embedded import of ${NODES} objects + ${NODES * RELS_PER_NODE} relationships (${texts.length} bundles): longest ${f(busy.max)} ms, p99 ${f(busy.p99)} ms; idle floor longest ${f(idle.max)} ms, p99 ${f(idle.p99)} ms`,
    )
  } finally {
    await engine.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.env.STIX_BENCH_STALL_ONLY !== '1') await main()
await importStall()
