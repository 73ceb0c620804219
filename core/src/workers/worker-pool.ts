import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import type { TransferListItem } from 'node:worker_threads'
import Tinypool from 'tinypool'

/**
 * The engine's worker pool (tinypool) for CPU work that need not hold the event loop: checkpoint encoding and
 * hashing, large STIX bundle parsing. One pool per process, made on first use; its threads end after a
 * while idle and never keep the process alive. Data crosses as transferable buffers or flat strings.
 */
let pool: Tinypool | null = null
let entry: string | null | undefined

/**
 * The built worker entry (`dist/workers/tasks.js`). Under a TypeScript test runner this module is the
 * source file, and the entry is the build's; null when there is no build, and the callers then do the
 * work in-process.
 */
function workerEntry(): string | null {
  if (entry !== undefined) return entry
  const here = fileURLToPath(import.meta.url)
  const built = here.endsWith('.ts')
    ? here.replace(/\/src\/workers\/worker-pool\.ts$/, '/dist/workers/tasks.js')
    : here.replace(/worker-pool\.js$/, 'tasks.js')
  entry = existsSync(built) ? built : null
  return entry
}

/** Whether tasks can run off the event loop (a built worker entry exists). */
export function workerPoolAvailable(): boolean {
  return workerEntry() !== null
}

function thePool(): Tinypool {
  if (pool !== null) return pool
  const filename = workerEntry()
  if (filename === null) throw new Error('the worker pool has no built entry (run the build)')
  pool = new Tinypool({
    filename,
    minThreads: 0,
    // One core stays with the event loop.
    maxThreads: Math.max(1, availableParallelism() - 1),
    idleTimeout: 30_000,
  })
  return pool
}

/** Runs the named task of the worker entry with `data`; `transfer` lists buffers and ports moved, not copied. */
export function runInWorker<T>(name: string, data: unknown, transfer: TransferListItem[] = []): Promise<T> {
  return thePool().run(data, { name, transferList: transfer }) as Promise<T>
}

/** Ends the pool's threads (tests and shutdown; the next task makes a new pool). */
export async function closeWorkerPool(): Promise<void> {
  const p = pool
  pool = null
  await p?.destroy()
}
