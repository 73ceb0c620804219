// The PostgreSQL store's figures for `pnpm bench storage`, measured in the same run as the file WAL's:
// durable single writes at concurrency 64, durable bulk, recovery at scale, and a follower's lag.
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { openEngine } from '@service/core'
import { postgresBin, startPostgres } from '@service/tools/postgres'
import { durableBulk, durableSingleWrites } from './lib/durable-writes.mjs'
import { freePort } from './lib/server.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const LAG_RATE = Number(process.env.BENCH_LAG_WRITES_PER_SEC ?? 2000)

const store = (url, role = 'primary') => ({
  mode: 'persistent',
  requireFsync: true,
  postgres: { url, role, promote: 'off', pollMs: 200 },
})

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0
}

function child(args) {
  const run = spawnSync(
    process.execPath,
    ['--max-old-space-size=12288', join(here, 'storage-recovery.mjs'), ...args],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  )
  if (run.status !== 0) throw new Error(`storage-recovery ${args[0]} against PostgreSQL failed`)
  return JSON.parse(run.stdout.trim().split('\n').at(-1))
}

/** A follower engine on a worker thread: `applied(seq)` resolves once it has applied that sequence. */
async function followerThread(storage) {
  const worker = new Worker(join(here, 'storage-follower-worker.mjs'), { workerData: { storage } })
  const waiting = new Map()
  let next = 0
  await new Promise((resolve, reject) => {
    worker.once('error', reject)
    worker.once('message', resolve)
  })
  worker.on('message', (message) => {
    waiting.get(message.id)?.(message.applied)
    waiting.delete(message.id)
  })
  return {
    applied: (seq) =>
      new Promise((resolve) => {
        const id = next++
        waiting.set(id, resolve)
        worker.postMessage({ id, seq })
      }),
    close: async () => {
      worker.postMessage('close')
      await new Promise((resolve) => worker.once('message', resolve))
      await worker.terminate()
    },
  }
}

/**
 * Writes at `rate` per second for `seconds` on the primary; after each acknowledged write, the time until
 * the follower (its own thread) has applied its sequence: what a read-your-writes read would wait.
 */
async function followerLag(primary, follower, rate, seconds) {
  const lags = []
  const pending = []
  const started = performance.now()
  const total = rate * seconds
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate
    const wait = due - performance.now()
    if (wait > 1) await new Promise((r) => setTimeout(r, wait))
    pending.push(
      primary
        .transact('bench', (tx, s) => {
          tx.createNode([s.names.id('Tick')], new Map([[s.names.id('i'), BigInt(i)]]))
        })
        .then(async ({ sequence }) => {
          const acked = performance.now()
          lags.push((await follower.applied(sequence)) ? performance.now() - acked : 10_000)
        }),
    )
  }
  await Promise.all(pending)
  const achieved = total / ((performance.now() - started) / 1000)
  return { p50: percentile(lags, 50), p95: percentile(lags, 95), max: percentile(lags, 100), achieved }
}

export async function postgresFigures(row, { seconds, nodes, rels, fileSingle64 }) {
  if (postgresBin() === null) {
    row('PostgreSQL store', 'skipped', '', 'PostgreSQL is not installed (apt-get install postgresql)')
    return
  }
  const cluster = startPostgres(await freePort())
  try {
    const single = await openEngine({ storage: store(cluster.createDatabase('single')) })
    const { perSec, cpuPerWriteUs } = await durableSingleWrites(single, 64, seconds)
    row(
      'PostgreSQL: durable single-record writes, concurrency 64',
      perSec,
      'writes/s',
      `${((perSec / fileSingle64) * 100).toFixed(0)}% of the file WAL's ${Math.round(fileSingle64)} (target >= 50%); ${cpuPerWriteUs.toFixed(1)} µs CPU a write`,
    )
    await single.close()

    const bulk = await openEngine({ storage: store(cluster.createDatabase('bulk')) })
    const bulkFigures = await durableBulk(bulk, seconds)
    row(
      'PostgreSQL: durable bulk (1,000 nodes + 4,000 rels per tx)',
      bulkFigures.recordsPerSec,
      'records/s',
      `${bulkFigures.txPerSec.toFixed(1)} tx/s`,
    )
    await bulk.close()

    const big = cluster.createDatabase('big')
    const built = child(['build', big, String(nodes), String(rels)])
    row(
      `PostgreSQL: load ${nodes.toLocaleString()} nodes + ${rels.toLocaleString()} rels (durable)`,
      built.recordsPerSec,
      'records/s',
    )
    const recovered = child(['recover', big])
    row(
      'PostgreSQL: recovery time (checkpoint + log replay + indexes)',
      recovered.recoveryMs / 1000,
      's',
      `path ${recovered.path}`,
    )
    row('PostgreSQL: RSS after recovery', recovered.rssMb, 'MiB')

    const lagDb = cluster.createDatabase('lag')
    const primary = await openEngine({ storage: store(lagDb) })
    const follower = await followerThread(store(lagDb, 'follower'))
    const lag = await followerLag(primary, follower, LAG_RATE, Math.max(seconds, 5))
    row(
      `PostgreSQL: follower lag p95 at ${LAG_RATE} writes/s`,
      lag.p95,
      'ms',
      `acknowledged write to applied on the follower (own thread); p50 ${lag.p50.toFixed(1)} ms, max ${lag.max.toFixed(1)} ms, ${Math.round(lag.achieved)} writes/s achieved; target <= 100 ms`,
    )
    await follower.close()
    await primary.close()
  } finally {
    cluster.destroy()
  }
}
