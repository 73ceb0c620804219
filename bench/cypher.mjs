// `pnpm bench cypher`: our engine against two embedded native peers, @grafeo-db/js and kuzu, on the same
// generated graph, each in its own process so load time and RSS are its own.
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const runEngine = (name) => {
  process.stderr.write(`loading and querying ${name}…\n`)
  const r = spawnSync(
    process.execPath,
    ['--expose-gc', '--max-old-space-size=8192', join(here, 'cypher-worker.mjs'), name],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  )
  if (r.status !== 0) throw new Error(`${name} failed (exit ${r.status})`)
  return JSON.parse(r.stdout.trim().split('\n').at(-1))
}
const oursImport = runEngine('ours-import')
const ours = runEngine('ours')
const grafeo = runEngine('grafeo')
const kuzu = runEngine('kuzu')
const oursCsv = runEngine('ours-csv')

// Issue 15's targets: every query ≥ 1.0× Grafeo; lookups and 1–2 hop expansions ≥ 1.5× Grafeo; grouped
// aggregation and bulk create within 1.5× of Kuzu (ours/kuzu ≥ 1/1.5); our RSS ≤ Grafeo's.
const targets = (name, vsGrafeo, vsKuzu) => {
  const checks = []
  const hops = /lookup|hop/.test(name)
  checks.push([`≥${hops ? '1.5' : '1.0'}× grafeo`, vsGrafeo >= (hops ? 1.5 : 1.0)])
  if (/aggregation|create/.test(name)) checks.push(['≥0.67× kuzu', vsKuzu >= 1 / 1.5])
  return checks.map(([label, met]) => `${label}: ${met ? 'met' : 'NOT met'}`).join('; ')
}
const fmt = (n) => (n >= 100 ? Math.round(n).toString() : n.toFixed(2))
console.log(
  `\nCypher: ${process.env.BENCH_NODES ?? 100000} nodes, ${process.env.BENCH_RELS ?? 500000} relationships, embedded, Node ${process.version}`,
)
console.log(
  '| query | ours ops/s | grafeo ops/s | kuzu ops/s | ours/grafeo | ours/kuzu | ours p50 ms | grafeo p50 ms | kuzu p50 ms | rows (ours/grafeo/kuzu) | targets |',
)
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|')
/** A peer's figure, or a dash where the peer cannot run the case (the figure is then not even computed). */
const dash = (r, text) => (r.skipped ? '—' : text())
for (let i = 0; i < ours.results.length; i++) {
  const [a, b, c] = [ours, grafeo, kuzu].map((e) => e.results[i])
  if (b.skipped || c.skipped) {
    // A case a peer cannot run (temporal, shortest path): figures beside the peers that can, no issue-15 target.
    const vs = (r) => (r.skipped ? '—' : (a.opsPerSec / r.opsPerSec).toFixed(2))
    console.log(
      `| ${a.name} | ${fmt(a.opsPerSec)} | ${dash(b, () => fmt(b.opsPerSec))} | ${dash(c, () => fmt(c.opsPerSec))} | ${vs(b)} | ${vs(c)} | ${a.p50.toFixed(3)} | ${dash(b, () => b.p50.toFixed(3))} | ${dash(c, () => c.p50.toFixed(3))} | ${a.rows}/${dash(b, () => b.rows)}/${dash(c, () => c.rows)} | no target |`,
    )
    continue
  }
  const vsGrafeo = a.opsPerSec / b.opsPerSec
  const vsKuzu = a.opsPerSec / c.opsPerSec
  console.log(
    `| ${a.name} | ${fmt(a.opsPerSec)} | ${fmt(b.opsPerSec)} | ${fmt(c.opsPerSec)} | ${vsGrafeo.toFixed(2)} | ${vsKuzu.toFixed(2)} | ${a.p50.toFixed(3)} | ${b.p50.toFixed(3)} | ${c.p50.toFixed(3)} | ${a.rows}/${b.rows}/${c.rows} | ${targets(a.name, vsGrafeo, vsKuzu)} |`,
  )
}
const secs = (e) => (e.loadMs / 1000).toFixed(1)
console.log(`| load time (s) | ${secs(ours)} | ${secs(grafeo)} | ${secs(kuzu)} | | | | | | | |`)
const mib = (e) => Math.round(e.heapMb)
console.log(`| JS heap after run (MiB) | ${mib(ours)} | ${mib(grafeo)} | ${mib(kuzu)} | | | | | | | |`)
console.log(
  `| seed index catch-up before RSS (ms, documents) | ${Math.round(ours.seedCatchUpMs)} (${ours.seedDocuments}) | | | | | | | | | ours only: the full-text index the peers do not keep |`,
)
const rssMet = ours.rssMb <= grafeo.rssMb ? 'met' : 'NOT met'
console.log(
  `| RSS after run (MiB) | ${Math.round(ours.rssMb)} | ${Math.round(grafeo.rssMb)} | ${Math.round(kuzu.rssMb)} | | | | | | | ours ≤ grafeo: ${rssMet} |`,
)
// The load column: our durable LOAD CSV … IN TRANSACTIONS against Kuzu's COPY FROM, on the same CSV files.
const rate = (load) => (load ? Math.round((load.rows * 1000) / load.ms).toString() : '—')
console.log(
  `| CSV load (rows/s): ours LOAD CSV … IN TRANSACTIONS (durable, fsync) / kuzu COPY FROM (in memory) | ${rate(oursCsv.csvLoad)} | — | ${rate(kuzu.csvLoad)} | | | | | | ${oursCsv.csvLoad.rows}/—/${kuzu.csvLoad?.rows ?? '—'} | |`,
)
// The offline importer (import-csv) on the same files; issue 40's target: ≥ 0.5× Kuzu's COPY FROM rate.
const importVsKuzu = oursImport.csvLoad.ms ? kuzu.csvLoad.ms / oursImport.csvLoad.ms : Number.NaN
console.log(
  `| CSV load (rows/s): ours import-csv (offline, fsync) / kuzu COPY FROM (in memory) | ${rate(oursImport.csvLoad)} | — | ${rate(kuzu.csvLoad)} | | ${importVsKuzu.toFixed(2)} | | | | ${oursImport.csvLoad.rows}/—/${kuzu.csvLoad?.rows ?? '—'} | ≥0.5× kuzu: ${importVsKuzu >= 0.5 ? 'met' : 'NOT met'} |`,
)
