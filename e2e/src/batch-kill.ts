import { expect } from 'vitest'
import { type RunningServer, startServer } from './harness.js'

/** What a batched write has left: how many of its rows, and the lowest and highest row number among them. */
export interface BatchCount {
  count: number
  min: number | null
  max: number | null
}

export interface KillMidBatches {
  env: Record<string, string>
  /** The batched write, sent to /v1/cypher/write. */
  write: string
  count: (server: RunningServer) => Promise<BatchCount>
  /** Rows visible (acknowledged batches) before the SIGKILL. */
  minSeen: number
  batch: number
  total: number
}

/**
 * Starts a server, sends the batched write, kills it with SIGKILL once `minSeen` rows are visible, restarts it
 * and checks what stays: everything seen before the kill, whole batches only, in order from the first.
 */
export async function killMidBatches(options: KillMidBatches): Promise<void> {
  const { env, batch, total, minSeen } = options
  let server = await startServer({ env, timeoutMs: 60_000 })
  const write = server.request('/v1/cypher/write', { body: { query: options.write } }).catch(() => undefined)
  let seen = 0
  for (let i = 0; i < 4_000 && seen < minSeen; i++) {
    seen = (await options.count(server)).count
    if (seen < minSeen) await new Promise((r) => setTimeout(r, 5))
  }
  await server.kill()
  await write
  expect(seen).toBeGreaterThanOrEqual(minSeen)
  server = await startServer({ env, timeoutMs: 60_000 })
  try {
    const after = await options.count(server)
    expect(after.count).toBeGreaterThanOrEqual(seen)
    expect(after.count % batch).toBe(0)
    expect(after.min).toBe(1)
    expect(after.max).toBe(after.count)
    if (after.count === total)
      process.stdout.write('the write finished before the kill: only the batch check applied\n')
  } finally {
    await server.stop()
  }
}
