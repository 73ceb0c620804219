// The disk's own fsync ceiling and our durable single-record writes on it: shared by `pnpm bench storage`
// and `bench/storage-single.mjs` (the profiling entry), so both measure exactly the same thing.
import { closeSync, fdatasyncSync, openSync, writeSync } from 'node:fs'
import { join } from 'node:path'

/** Records/s of 120-byte appends with one fdatasync per `batch`, for `seconds`, in a file under `dir`. */
export function diskCeiling(dir, batch, seconds) {
  const fd = openSync(join(dir, `ceiling-${batch}.log`), 'a')
  const record = Buffer.from(`${'x'.repeat(119)}\n`)
  let n = 0
  const end = performance.now() + seconds * 1000
  while (performance.now() < end) {
    for (let i = 0; i < batch; i++) writeSync(fd, record)
    fdatasyncSync(fd)
    n += batch
  }
  closeSync(fd)
  return n / seconds
}

/**
 * `concurrency` writers each awaiting `CREATE (:Event {w, n})` on a durable engine for `seconds`: writes/s,
 * CPU per write (all threads, user + system; steadier than throughput on a shared machine), and the event
 * loop's busy time per write (what bounds throughput once the fsyncs overlap the work; wall time, so a
 * loaded machine inflates it too).
 */
export async function durableSingleWrites(engine, concurrency, seconds) {
  let done = 0
  const loop = performance.eventLoopUtilization()
  const cpu = process.cpuUsage()
  const end = performance.now() + seconds * 1000
  const worker = async (w) => {
    while (performance.now() < end) {
      await engine.write('CREATE (:Event {w: $w, n: $n})', { w, n: done })
      done++
    }
  }
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)))
  const used = process.cpuUsage(cpu)
  const busy = performance.eventLoopUtilization(loop)
  return {
    perSec: done / seconds,
    cpuPerWriteUs: (used.user + used.system) / done,
    loopPerWriteUs: (busy.active * 1000) / done,
  }
}

/** Durable bulk transactions of 1,000 nodes + 4,000 relationships each for `seconds`: records/s and tx/s. */
export async function durableBulk(engine, seconds) {
  let txs = 0
  const started = performance.now()
  const end = started + seconds * 1000
  while (performance.now() < end) {
    await engine.transact('bench', (tx, store) => {
      const label = [store.names.id('Object')]
      const key = store.names.id('i')
      const type = store.names.id('REL')
      const ids = []
      for (let i = 0; i < 1000; i++) ids.push(tx.createNode(label, new Map([[key, BigInt(i)]])))
      for (let r = 0; r < 4000; r++)
        tx.createRelationship(type, ids[r % 1000], ids[(r * 7 + 3) % 1000], new Map())
    })
    txs++
  }
  const elapsed = (performance.now() - started) / 1000
  return { recordsPerSec: (txs * 5000) / elapsed, txPerSec: txs / elapsed }
}
