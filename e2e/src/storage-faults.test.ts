import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startServer } from './harness.js'
import {
  checkDigest,
  countItems,
  eventually,
  fiuControl,
  fiuPresent,
  persistentEnv,
  readyStatus,
  toolPresent,
  writePair,
} from './storage-faults-support.js'

const EIO = 5
const ENOSPC = 28

interface Row {
  call: string
  point: string
  errno: number
}

/** Faults in the write-ahead log's own calls: the write is refused, reads go on, writes resume in place. */
const LOG_FAULTS: Row[] = [
  { call: 'fdatasync', point: 'posix/io/sync/fdatasync', errno: EIO },
  { call: 'fdatasync', point: 'posix/io/sync/fdatasync', errno: ENOSPC },
  { call: 'pwrite', point: 'posix/io/rw/pwrite', errno: EIO },
  { call: 'pwrite', point: 'posix/io/rw/pwrite', errno: ENOSPC },
]

const fiu = toolPresent('fiu-run (libfiu)', fiuPresent())

describe.skipIf(!fiu)('storage faults injected into the running server (libfiu)', () => {
  for (const row of LOG_FAULTS) {
    it(`${row.call} x WAL x errno ${row.errno}: refused, reads go on, writes resume by themselves`, async () => {
      const dir = join(mkdtempSync(join(tmpdir(), 'faults-')), 'graph')
      const control = fiuControl()
      const acknowledged = new Set<string>()
      const refused = new Set<string>()
      let server = await startServer({ env: { ...persistentEnv(dir), ...control.env } })
      try {
        for (let i = 0; i < 5; i++) {
          const w = await writePair(server, `before-${i}`)
          expect(w.acknowledged).toBe(true)
          acknowledged.add(`before-${i}`)
        }
        await control.send(server, `enable name=${row.point},failinfo=${row.errno}`)
        const failed = await writePair(server, 'during-0')
        refused.add('during-0')
        expect(failed).toMatchObject({ acknowledged: false, status: 503, code: 'DURABILITY_FAILED' })
        expect(failed.message).toMatch(
          row.errno === ENOSPC ? /storage is full \(ENOSPC/ : /storage failed \(EIO/,
        )
        // Reads of the durable state go on while the fault lasts; writes stay refused.
        expect(await countItems(server)).toBe(10)
        const again = await writePair(server, 'during-1')
        refused.add('during-1')
        expect(again.code).toBe('DURABILITY_FAILED')
        expect(await readyStatus(server)).toBe(503)
        const readiness = await server.request<{ reason?: string; checks: { storage_writable: boolean } }>(
          '/health/ready',
          { token: null },
        )
        expect(readiness.json.checks.storage_writable).toBe(false)
        expect(readiness.json.reason).toMatch(/writes suspended/)
        const metrics = await server.request('/metrics', { token: null })
        expect(metrics.text).toMatch(/service_storage_fault_state\{state="writes_suspended"\} 1/)
        expect(await countItems(server)).toBe(10)

        await control.send(server, `disable name=${row.point}`)
        const cleared = Date.now()
        await eventually(async () => (await readyStatus(server)) === 200)
        const resumedInMs = Date.now() - cleared
        expect(resumedInMs).toBeLessThan(10_000)
        console.info(
          `${row.call} x WAL x errno ${row.errno}: writes resumed ${resumedInMs} ms after the fault cleared`,
        )
        const after = await writePair(server, 'after-0')
        expect(after.acknowledged).toBe(true)
        acknowledged.add('after-0')
        const health = await server.request<{
          storage_faults: { faults_total: number; recoveries_total: number }
        }>('/health', { token: null })
        expect(health.json.storage_faults).toMatchObject({ faults_total: 1, recoveries_total: 1 })
        await checkDigest(server, acknowledged, refused)
      } finally {
        await server.stop()
      }
      server = await startServer({ env: persistentEnv(dir) })
      try {
        await checkDigest(server, acknowledged, refused)
      } finally {
        await server.stop()
      }
    })
  }
})
