// `node bench/storage-single.mjs`: only the durable single-record write figures of `pnpm bench storage`
// (section 2), beside the disk ceiling measured in the same run, so the write path can be profiled
// (`node --cpu-prof bench/storage-single.mjs`). BENCH_CONCURRENCY picks the levels (default 1,16,64).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { diskCeiling, durableSingleWrites } from './lib/durable-writes.mjs'

// BENCH_CORE: another build of the core package to compare against (a path to its dist/index.js).
const { openEngine } = await import(process.env.BENCH_CORE ?? '@service/core')
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const LEVELS = (process.env.BENCH_CONCURRENCY ?? '1,16,64').split(',').map(Number)
const root = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'bench-storage-single-'))

const batched = diskCeiling(root, 64, SECONDS)
console.log(`disk ceiling: append 64 + fdatasync: ${Math.round(batched)} records/s`)

const engine = await openEngine({
  storage: { mode: 'persistent', dir: join(root, 'single'), requireFsync: true },
})
for (const concurrency of LEVELS) {
  const { perSec, cpuPerWriteUs, loopPerWriteUs } = await durableSingleWrites(engine, concurrency, SECONDS)
  console.log(
    `durable single-record writes, concurrency ${concurrency}: ${Math.round(perSec)} writes/s, ${((perSec / batched) * 100).toFixed(0)}% of batched ceiling, ${cpuPerWriteUs.toFixed(1)} us CPU per write, ${loopPerWriteUs.toFixed(1)} us of event loop`,
  )
}
await engine.close()
rmSync(root, { recursive: true, force: true })
