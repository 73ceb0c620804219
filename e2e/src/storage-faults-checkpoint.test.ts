import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from './harness.js'
import {
  checkDigest,
  eventually,
  fiuControl,
  fiuPresent,
  persistentEnv,
  toolPresent,
  writePair,
} from './storage-faults-support.js'

const fiu = toolPresent('fiu-run (libfiu)', fiuPresent())

interface Health {
  durability: { checkpoint_sequence: number | null }
  storage_faults: { checkpoint_failures_total: number; checkpoint_error: string | null; state: string }
}
const health = async (server: RunningServer) =>
  (await server.request<Health>('/health', { token: null })).json

/**
 * Calls a checkpoint makes that the log does not: its file's open, fsync (the log uses fdatasync) and rename.
 * (A failing pwrite reaches the log first: that row is in the log's matrix.)
 */
const CHECKPOINT_FAULTS = [
  { call: 'open', point: 'posix/io/oc/open', errno: 5 },
  { call: 'fsync', point: 'posix/io/sync/fsync', errno: 5 },
  { call: 'rename', point: 'posix/io/dir/rename', errno: 5 },
]

describe.skipIf(!fiu)('a failed checkpoint (libfiu)', () => {
  for (const row of CHECKPOINT_FAULTS) {
    it(`${row.call} x checkpoint x errno ${row.errno}: previous checkpoint and log stay, /health reports it, retried later`, async () => {
      const dir = join(mkdtempSync(join(tmpdir(), 'faults-ckpt-')), 'graph')
      const control = fiuControl()
      // A checkpoint is due after every 4 KiB of log, so a few writes start one.
      const env = persistentEnv(dir, { SERVICE_STORAGE_CHECKPOINT_EVERY_BYTES: '4096' })
      const acknowledged = new Set<string>()
      const refused = new Set<string>()
      const pad = 'x'.repeat(1500)
      let server = await startServer({ env: { ...env, ...control.env } })
      try {
        let n = 0
        const write = async () => {
          const k = `k-${n++}`
          const w = await writePair(server, k, pad)
          if (w.acknowledged) acknowledged.add(k)
          else refused.add(k)
          return w
        }
        await eventually(async () => {
          await write()
          return (await health(server)).durability.checkpoint_sequence !== null
        })
        const before = (await health(server)).durability.checkpoint_sequence
        await control.send(server, `enable name=${row.point},failinfo=${row.errno}`)
        const failed = await eventually(async () => {
          await write()
          const h = await health(server)
          return h.storage_faults.checkpoint_failures_total > 0 ? h : undefined
        })
        expect(failed.storage_faults.checkpoint_error).toMatch(/storage (failed|is full)/)
        // The failed checkpoint changed nothing: the previous one stands and writes go on on the log.
        expect(failed.durability.checkpoint_sequence).toBe(before)
        const during = await write()
        expect(during.acknowledged).toBe(true)
        await control.send(server, `disable name=${row.point}`)
        // Retried after its backoff: the next due checkpoint succeeds and clears the error.
        const recovered = await eventually(async () => {
          await write()
          const h = await health(server)
          return h.storage_faults.checkpoint_error === null && h.storage_faults.state === 'healthy'
            ? h
            : undefined
        })
        expect(recovered.durability.checkpoint_sequence).toBeGreaterThan(before ?? 0)
        await checkDigest(server, acknowledged, refused)
      } finally {
        await server.stop()
      }
      server = await startServer({ env })
      try {
        await checkDigest(server, acknowledged, refused)
      } finally {
        await server.stop()
      }
    })
  }

  it('a failed checkpoint at shutdown leaves the log to replay', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'faults-close-')), 'graph')
    const control = fiuControl()
    let server = await startServer({ env: { ...persistentEnv(dir), ...control.env } })
    const acknowledged = new Set<string>()
    for (let i = 0; i < 5; i++) {
      expect((await writePair(server, `k-${i}`)).acknowledged).toBe(true)
      acknowledged.add(`k-${i}`)
    }
    await control.send(server, 'enable name=posix/io/dir/rename,failinfo=5')
    await server.stop()
    server = await startServer({ env: persistentEnv(dir) })
    try {
      await checkDigest(server, acknowledged, new Set())
    } finally {
      await server.stop()
    }
  })
})
