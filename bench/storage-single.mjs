// `node bench/storage-single.mjs`: only the durable single-record write figures of `pnpm bench storage`
// (section 2), beside the disk ceiling measured in the same run, so the write path can be profiled
// (`node --cpu-prof bench/storage-single.mjs`). BENCH_CONCURRENCY picks the levels (default 1,16,64).
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// BENCH_CORE: another build of the core package to compare against (a path to its dist/index.js).
const { openEngine } = await import(process.env.BENCH_CORE ?? '@service/core')
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const LEVELS = (process.env.BENCH_CONCURRENCY ?? '1,16,64').split(',').map(Number)
const root = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'bench-storage-single-'))

// The same ceiling as bench/storage.mjs: 120-byte appends, one fdatasync per batch of 64.
function ceiling(batch) {
  const fd = openSync(join(root, `ceiling-${batch}.log`), 'a')
  const record = Buffer.from(`${'x'.repeat(119)}\n`)
  let n = 0
  const end = performance.now() + SECONDS * 1000
  while (performance.now() < end) {
    for (let i = 0; i < batch; i++) writeSync(fd, record)
    fdatasyncSync(fd)
    n += batch
  }
  closeSync(fd)
  return n / SECONDS
}
const batched = ceiling(64)
console.log(`disk ceiling: append 64 + fdatasync: ${Math.round(batched)} records/s`)

const engine = await openEngine({
  storage: { mode: 'persistent', dir: join(root, 'single'), requireFsync: true },
})
for (const concurrency of LEVELS) {
  let done = 0
  const cpu = process.cpuUsage()
  const end = performance.now() + SECONDS * 1000
  const worker = async (w) => {
    while (performance.now() < end) {
      await engine.write('CREATE (:Event {w: $w, n: $n})', { w, n: done })
      done++
    }
  }
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)))
  const perSec = done / SECONDS
  const used = process.cpuUsage(cpu)
  // CPU per write (all threads, user + system) is steadier than throughput on a shared machine.
  const cpuPerWrite = (used.user + used.system) / done
  console.log(
    `durable single-record writes, concurrency ${concurrency}: ${Math.round(perSec)} writes/s, ${((perSec / batched) * 100).toFixed(0)}% of batched ceiling, ${cpuPerWrite.toFixed(1)} us CPU per write`,
  )
}
await engine.close()
rmSync(root, { recursive: true, force: true })
