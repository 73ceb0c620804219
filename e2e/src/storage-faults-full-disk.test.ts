import { execFileSync } from 'node:child_process'
import { rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer } from './harness.js'
import {
  checkDigest,
  countItems,
  eventually,
  mountSmallTmpfs,
  persistentEnv,
  readyStatus,
  toolPresent,
  writePair,
} from './storage-faults-support.js'

const mountpoint = mountSmallTmpfs('4m', 'full-disk-')
const present = toolPresent('a mountable tmpfs (root)', mountpoint !== null)

describe.skipIf(!present)('a real full disk (tmpfs of 4 MiB)', () => {
  const mount = mountpoint as string
  beforeAll(() => {
    // Space to give back once the disk is full.
    writeFileSync(join(mount, 'ballast'), Buffer.alloc(768 * 1024, 1))
  })
  afterAll(() => {
    execFileSync('umount', [mount])
    rmSync(mount, { recursive: true, force: true })
  })

  it('refuses writes with ENOSPC, keeps serving reads, resumes when space returns, nothing half-applied', async () => {
    const dir = join(mount, 'graph')
    const env = persistentEnv(dir)
    const acknowledged = new Set<string>()
    const refused = new Set<string>()
    const pad = 'p'.repeat(16 * 1024)
    let server = await startServer({ env })
    try {
      let full: Awaited<ReturnType<typeof writePair>> | null = null
      for (let i = 0; i < 1000 && full === null; i++) {
        const w = await writePair(server, `k-${i}`, pad)
        if (w.acknowledged) acknowledged.add(`k-${i}`)
        else {
          refused.add(`k-${i}`)
          full = w
        }
      }
      expect(full).toMatchObject({ status: 503, code: 'DURABILITY_FAILED' })
      expect(full?.message).toMatch(/storage is full \(ENOSPC/)
      expect(acknowledged.size).toBeGreaterThan(50)
      // Reads go on; writes stay refused while the disk is full.
      expect(await countItems(server)).toBe(2 * acknowledged.size)
      const again = await writePair(server, 'while-full', pad)
      refused.add('while-full')
      expect(again.code).toBe('DURABILITY_FAILED')
      expect(await readyStatus(server)).toBe(503)
      expect(await countItems(server)).toBe(2 * acknowledged.size)

      unlinkSync(join(mount, 'ballast'))
      await eventually(async () => (await readyStatus(server)) === 200)
      for (let i = 0; i < 5; i++) {
        const w = await writePair(server, `after-${i}`)
        expect(w.acknowledged).toBe(true)
        acknowledged.add(`after-${i}`)
      }
      await checkDigest(server, acknowledged, refused)
    } finally {
      await server.stop()
    }
    server = await startServer({ env })
    try {
      const { foundRefused } = await checkDigest(server, acknowledged, refused)
      expect(foundRefused).toEqual([])
    } finally {
      await server.stop()
    }
  })
})
