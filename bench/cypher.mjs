// `pnpm bench cypher`: our engine against @grafeo-db/js (embedded Cypher, native) on the same generated graph,
// each in its own process so load time and RSS are its own.
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
const ours = runEngine('ours')
const peer = runEngine('grafeo')
const fmt = (n) => (n >= 100 ? Math.round(n).toString() : n.toFixed(2))
console.log(
  `\nCypher: ${process.env.BENCH_NODES ?? 100000} nodes, ${process.env.BENCH_RELS ?? 500000} relationships, embedded, Node ${process.version}`,
)
console.log('| query | ours ops/s | grafeo ops/s | ours/grafeo | ours p50 ms | grafeo p50 ms |')
console.log('|---|---:|---:|---:|---:|---:|')
for (let i = 0; i < ours.results.length; i++) {
  const a = ours.results[i]
  const b = peer.results[i]
  console.log(
    `| ${a.name} | ${fmt(a.opsPerSec)} | ${fmt(b.opsPerSec)} | ${(a.opsPerSec / b.opsPerSec).toFixed(2)} | ${a.p50.toFixed(3)} | ${b.p50.toFixed(3)} |`,
  )
}
console.log(
  `| load time (s) | ${(ours.loadMs / 1000).toFixed(1)} | ${(peer.loadMs / 1000).toFixed(1)} | | | |`,
)
console.log(`| RSS after run (MiB) | ${Math.round(ours.rssMb)} | ${Math.round(peer.rssMb)} | | | |`)
