// `pnpm bench storage`: the disk's own fsync ceiling, then our durable writes on it, bulk transactions,
// recovery time and RSS at scale, and bytes per record. All in one run, on the same disk.
// `pnpm bench storage checkpoint`: only the build at scale, its recovery and the checkpoint's event-loop
// stalls; BENCH_RECOVERY_DIR keeps the built directory there and reuses it on the next run (no rebuild).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { openEngine } from '@service/core'
import { diskCeiling, durableBulk, durableSingleWrites } from './lib/durable-writes.mjs'
import { postgresFigures } from './storage-postgres.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const RECOVERY_NODES = Number(process.env.BENCH_RECOVERY_NODES ?? 1_000_000)
const RECOVERY_RELS = Number(process.env.BENCH_RECOVERY_RELS ?? 5_000_000)
const root = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'bench-storage-'))
const checkpointOnly = process.argv[2] === 'checkpoint'
const keptDir = process.env.BENCH_RECOVERY_DIR
const rows = []
const row = (name, value, unit, note = '') => {
  rows.push({ name, value, unit, note })
  process.stderr.write(`  ${name}: ${typeof value === 'number' ? Math.round(value) : value} ${unit}\n`)
}

let fileSingle64 = 0
if (!checkpointOnly) fileSingle64 = await writeFigures()

// 1-3. The disk's ceiling, durable single-record writes and bulk transactions; the single-write rate at
// concurrency 64 is returned for the PostgreSQL comparison.
async function writeFigures() {
  // 1. The disk's ceiling: 120-byte appends, fdatasync after each, and after batches of 64.
  const single = diskCeiling(root, 1, SECONDS)
  row('disk ceiling: append + fdatasync each', single, 'records/s')
  const batched = diskCeiling(root, 64, SECONDS)
  row('disk ceiling: append 64 + fdatasync', batched, 'records/s')

  // 2. Our durable single-record writes at concurrency 1, 16, 64 (embedded engine, fsync on).
  const engine = await openEngine({
    storage: { mode: 'persistent', dir: join(root, 'single'), requireFsync: true },
  })
  let fileSingle64 = 0
  for (const concurrency of [1, 16, 64]) {
    const { perSec, cpuPerWriteUs, loopPerWriteUs } = await durableSingleWrites(engine, concurrency, SECONDS)
    if (concurrency === 64) fileSingle64 = perSec
    row(
      `durable single-record writes, concurrency ${concurrency}`,
      perSec,
      'writes/s',
      `${((perSec / batched) * 100).toFixed(0)}% of batched ceiling${concurrency === 64 ? ' (target >= 50%)' : ''}; ${cpuPerWriteUs.toFixed(1)} µs CPU a write, ${loopPerWriteUs.toFixed(1)} µs of event loop`,
    )
  }
  await engine.close()

  // 3. Durable bulk transactions: 1,000 nodes + 4,000 relationships each.
  const bulk = await openEngine({
    storage: { mode: 'persistent', dir: join(root, 'bulk'), requireFsync: true },
  })
  const bulkFigures = await durableBulk(bulk, SECONDS)
  row(
    'durable bulk (1,000 nodes + 4,000 rels per tx)',
    bulkFigures.recordsPerSec,
    'records/s',
    `${bulkFigures.txPerSec.toFixed(1)} tx/s; reference reports ~62,000`,
  )
  await bulk.close()
  return fileSingle64
}

// 4. Recovery time and RSS at scale, in a fresh process: build the directory, then reopen it.
const big = keptDir ?? join(root, 'big')
const reuse = keptDir !== undefined && existsSync(join(keptDir, 'manifest.json'))
const build = reuse
  ? { status: 0, stdout: '{"recordsPerSec":null}' }
  : spawnSync(
      process.execPath,
      [
        '--max-old-space-size=12288',
        join(here, 'storage-recovery.mjs'),
        'build',
        big,
        String(RECOVERY_NODES),
        String(RECOVERY_RELS),
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
    )
if (build.status !== 0) throw new Error('building the recovery directory failed')
const built = JSON.parse(build.stdout.trim().split('\n').at(-1))
row(
  `load ${RECOVERY_NODES.toLocaleString()} nodes + ${RECOVERY_RELS.toLocaleString()} rels (durable)`,
  built.recordsPerSec ?? 'reused',
  built.recordsPerSec === null ? '' : 'records/s',
  built.recordsPerSec === null ? `directory ${big} built by an earlier run` : '',
)
const recover = spawnSync(
  process.execPath,
  ['--max-old-space-size=12288', join(here, 'storage-recovery.mjs'), 'recover', big],
  { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
)
if (recover.status !== 0) throw new Error('recovery failed')
const recovered = JSON.parse(recover.stdout.trim().split('\n').at(-1))
row(
  'recovery time (checkpoint + WAL replay + indexes)',
  recovered.recoveryMs / 1000,
  's',
  `target <= 10 s; path ${recovered.path}`,
)
row('RSS after recovery', recovered.rssMb, 'MiB', 'target <= 1024 MiB')
row(
  'seed-search index built after open (background)',
  recovered.seedWarmMs / 1000,
  's',
  'search works before it ends: a search catches up itself',
)
row('RSS once the seed-search index is built', recovered.rssWarmMb, 'MiB', 'target <= 1024 MiB')
row('checkpoint of the recovered graph', recovered.checkpointMs / 1000, 's', 'written in slices')
row(
  'longest event-loop stall during that checkpoint',
  recovered.checkpointStallMs,
  'ms',
  `target <= 20 ms; p99 ${recovered.checkpointStallP99Ms.toFixed(1)} ms, ${recovered.checkpointOver20PerSec.toFixed(1)} stalls > 20 ms a second; the same process idle for 2 s just before: longest ${recovered.idleStallMs.toFixed(1)} ms, p99 ${recovered.idleStallP99Ms.toFixed(1)} ms, ${recovered.idleOver20PerSec.toFixed(1)} stalls > 20 ms a second (the machine's noise floor)`,
)
// 5. Online backup of that store while a write load goes on, then its restore (issue 38's targets).
const backupFile = join(root, 'big-backup.tar')
const backedUp = spawnSync(
  process.execPath,
  ['--max-old-space-size=12288', join(here, 'storage-backup.mjs'), 'backup', big, backupFile],
  { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
)
if (backedUp.status !== 0) throw new Error('the online backup failed')
const backup = JSON.parse(backedUp.stdout.trim().split('\n').at(-1))
row(
  'online backup while writing',
  backup.mbPerSec,
  'MB/s of store',
  `target >= 100 MB/s; ${(backup.bytes / 1e6).toFixed(0)} MB in ${backup.seconds.toFixed(1)} s at sequence ${backup.sequence}; ${backup.writesDuring} writes meanwhile`,
)
row(
  'p99 durable write latency during the backup',
  backup.p99During,
  'ms',
  `target <= 2x without it (${backup.p99Alone.toFixed(1)} ms; ${(backup.p99During / backup.p99Alone).toFixed(2)}x)`,
)
const restored = spawnSync(
  process.execPath,
  [
    '--max-old-space-size=12288',
    join(here, 'storage-backup.mjs'),
    'restore',
    backupFile,
    join(root, 'restored'),
  ],
  { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
)
if (restored.status !== 0) throw new Error('the restore failed')
const restore = JSON.parse(restored.stdout.trim().split('\n').at(-1))
row(
  'restore of that backup (digests, staging, strict recovery)',
  restore.restoreMs / 1000,
  's',
  `target <= 2x recovery (${(recovered.recoveryMs / 1000).toFixed(1)} s; ${(restore.restoreMs / recovered.recoveryMs).toFixed(2)}x)`,
)
rmSync(join(root, 'restored'), { recursive: true, force: true })
rmSync(backupFile, { force: true })

const bytes = readdirSync(big, { recursive: true })
  .map((f) => join(big, String(f)))
  .filter((p) => statSync(p).isFile())
  .reduce((n, p) => n + statSync(p).size, 0)
row(
  'disk bytes per record',
  bytes / (RECOVERY_NODES + RECOVERY_RELS),
  'bytes',
  `${(bytes / 1048576).toFixed(0)} MiB total`,
)

rmSync(root, { recursive: true, force: true })

// 6. The same store in PostgreSQL, beside the file WAL: writes, bulk, recovery at scale, follower lag.
if (!checkpointOnly)
  await postgresFigures(row, { seconds: SECONDS, nodes: RECOVERY_NODES, rels: RECOVERY_RELS, fileSingle64 })

console.log(
  `\nstorage, ${SECONDS} s per measurement, Node ${process.version}, dir ${process.env.BENCH_DIR ?? tmpdir()}`,
)
console.log('| measurement | value | unit | note |')
console.log('|---|---:|---|---|')
for (const r of rows)
  console.log(
    `| ${r.name} | ${typeof r.value === 'number' ? (r.value >= 100 ? Math.round(r.value) : r.value.toFixed(2)) : r.value} | ${r.unit} | ${r.note} |`,
  )
