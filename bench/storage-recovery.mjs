// Child process of the storage benchmark: `build DIR NODES RELS` loads a graph durably and closes cleanly
// (which checkpoints); `recover DIR` opens it and reports recovery time and RSS.
import { openEngine } from '@service/core'
import { loopDelay } from './lib/loop-delay.mjs'

const [mode, dir, nodesArg, relsArg] = process.argv.slice(2)
// A postgres:// URL instead of a directory: the same measurements against the PostgreSQL store.
const storage = (extra = {}) =>
  dir.startsWith('postgres://')
    ? {
        mode: 'persistent',
        requireFsync: true,
        postgres: { url: dir, role: 'primary', promote: 'off' },
        ...extra,
      }
    : { mode: 'persistent', dir, requireFsync: true, ...extra }
if (mode === 'build') {
  const nodes = Number(nodesArg)
  const rels = Number(relsArg)
  const engine = await openEngine({
    storage: storage({ checkpointEveryBytes: 2 ** 40 }),
  })
  const started = performance.now()
  const NODE_BATCH = 20_000
  for (let from = 0; from < nodes; from += NODE_BATCH) {
    await engine.transact('bench', (tx, store) => {
      const label = [store.names.id('Object')]
      const key = store.names.id('uid')
      for (let i = from; i < Math.min(nodes, from + NODE_BATCH); i++)
        tx.createNode(label, new Map([[key, BigInt(i)]]))
    })
  }
  const REL_BATCH = 50_000
  let seed = 1
  for (let from = 0; from < rels; from += REL_BATCH) {
    await engine.transact('bench', (tx, store) => {
      const type = store.names.id('LINKS')
      for (let r = from; r < Math.min(rels, from + REL_BATCH); r++) {
        seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0
        tx.createRelationship(type, seed % nodes, (seed >>> 8) % nodes, new Map())
      }
    })
    if ((from / REL_BATCH) % 20 === 0) process.stderr.write(`  loaded ${from + REL_BATCH} relationships\n`)
  }
  const seconds = (performance.now() - started) / 1000
  await engine.close()
  process.stdout.write(`${JSON.stringify({ recordsPerSec: (nodes + rels) / seconds })}\n`)
} else {
  globalThis.gc?.()
  const started = performance.now()
  const engine = await openEngine({ storage: storage() })
  const recoveryMs = performance.now() - started
  const facts = engine.recoveryFacts()
  const rssMb = process.memoryUsage().rss / 1048576
  // The seed-search index is built in the background after open: its time and the RSS once it is complete.
  const warmStarted = performance.now()
  await engine.seed.warm()
  const seedWarmMs = performance.now() - warmStarted
  const rssWarmMb = process.memoryUsage().rss / 1048576
  // A checkpoint of the whole graph, and how long the event loop waited meanwhile (reads go on): longest and
  // p99, beside the same figures over an idle stretch just before (the machine's own noise floor: on a shared
  // machine a process that does nothing still waits tens of milliseconds now and then).
  const idle = await loopDelay(() => new Promise((resolve) => setTimeout(resolve, 2000)))
  const checkpointStarted = performance.now()
  const busy = await loopDelay(() => engine.checkpoint())
  const checkpointMs = performance.now() - checkpointStarted
  const checkpointStallMs = busy.max
  const checkpointStallP99Ms = busy.p99
  process.stdout.write(
    `${JSON.stringify({ recoveryMs, rssMb, seedWarmMs, rssWarmMb, checkpointMs, checkpointStallMs, checkpointStallP99Ms, checkpointOver20PerSec: busy.over20PerSec, idleStallMs: idle.max, idleStallP99Ms: idle.p99, idleOver20PerSec: idle.over20PerSec, path: facts.recovery_path })}\n`,
  )
  await engine.close()
}
