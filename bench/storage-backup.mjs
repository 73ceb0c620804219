// Child process of the storage benchmark: `backup DIR OUT` opens the built store, measures durable write
// latency alone and then while an online backup streams into OUT (backup MB/s of store, p99 write latency
// beside its level without the backup); `restore OUT TARGET` restores it (digests, staging, strict recovery).
import { createReadStream, createWriteStream, statSync } from 'node:fs'
import { pipeline } from 'node:stream/promises'
import { openEngine, restoreBackup } from '@service/core'

const [mode, from, to] = process.argv.slice(2)
const CONCURRENCY = 8

/** Durable single writes from CONCURRENCY workers until `until` settles: each write's latency in ms. */
async function writeLoad(engine, until) {
  const latencies = []
  let stop = false
  const worker = async (w) => {
    for (let n = 0; !stop; n++) {
      const started = performance.now()
      await engine.write('CREATE (:BackupLoad {w: $w, n: $n})', { w, n })
      latencies.push(performance.now() - started)
    }
  }
  const workers = Array.from({ length: CONCURRENCY }, (_, w) => worker(w))
  await until
  stop = true
  await Promise.all(workers)
  latencies.sort((a, b) => a - b)
  return { p99: latencies[Math.floor((latencies.length - 1) * 0.99)] ?? 0, writes: latencies.length }
}

if (mode === 'backup') {
  const engine = await openEngine({ storage: { mode: 'persistent', dir: from, requireFsync: true } })
  const alone = await writeLoad(engine, new Promise((resolve) => setTimeout(resolve, 3000)))
  const started = performance.now()
  const backup = await engine.backup()
  const streamed = pipeline(backup.stream, createWriteStream(to))
  const during = await writeLoad(engine, streamed)
  const seconds = (performance.now() - started) / 1000
  const bytes = statSync(to).size
  await engine.close()
  process.stdout.write(
    `${JSON.stringify({ sequence: backup.sequence, bytes, seconds, mbPerSec: bytes / 1e6 / seconds, p99Alone: alone.p99, p99During: during.p99, writesDuring: during.writes })}\n`,
  )
} else if (mode === 'restore') {
  const started = performance.now()
  const report = await restoreBackup(createReadStream(from, { highWaterMark: 1 << 20 }), to)
  process.stdout.write(
    `${JSON.stringify({ restoreMs: performance.now() - started, recoveryMs: report.recovery.elapsed_ms, sequence: report.backup.sequence })}\n`,
  )
} else {
  throw new Error(`unknown mode ${mode}`)
}
