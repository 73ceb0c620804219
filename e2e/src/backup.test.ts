import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { backupDuringWrites, cli, expectExactlyUpTo, REF_LANE_ENV } from './backup-support.js'
import { ADMIN_TOKEN, startServer } from './harness.js'
import { persistentEnv, writePair } from './storage-faults-support.js'

const scratch = mkdtempSync(join(tmpdir(), 'backup-e2e-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const adminEnv = (dir: string) => persistentEnv(dir, { SERVICE_HTTP_ADMIN_AUTH_TOKEN: ADMIN_TOKEN })

describe('online backup of the file store', () => {
  it('taken during concurrent Cypher, memory and reference writes, holds every write acknowledged before it and none sent after it', async () => {
    const dir = join(scratch, 'live')
    // Small segments and checkpoints so rotation and compaction happen while the backup streams.
    const server = await startServer({
      env: {
        ...adminEnv(dir),
        ...REF_LANE_ENV,
        SERVICE_STORAGE_SEGMENT_BYTES: String(64 * 1024),
        SERVICE_STORAGE_CHECKPOINT_EVERY_BYTES: String(256 * 1024),
      },
    })
    try {
      const out = join(scratch, 'live.tar')
      const taken = await backupDuringWrites(server, out)

      const verified = await cli(['verify', out])
      expect(verified.code, verified.stderr).toBe(0)
      expect(JSON.parse(verified.stdout)).toMatchObject({ kind: 'archive', sequence: taken.sequence })

      const target = join(scratch, 'restored')
      const restored = await cli(['restore', out, '--storage-dir', target])
      expect(restored.code, restored.stderr).toBe(0)
      expect(JSON.parse(restored.stdout)).toMatchObject({
        backup: { sequence: taken.sequence },
        recovery: { durable_sequence: taken.sequence },
      })

      const copy = await startServer({ env: persistentEnv(target, REF_LANE_ENV) as Record<string, string> })
      try {
        await expectExactlyUpTo(copy, taken)
      } finally {
        await copy.stop()
      }

      // A second restore into the now non-empty target is refused.
      const again = await cli(['restore', out, '--storage-dir', target])
      expect(again.code).toBe(2)
      expect(again.stderr).toContain('RESTORE_TARGET_NOT_EMPTY')
    } finally {
      await server.stop()
    }
  })

  it('answers 409 to a second backup while one streams, and refuses a corrupted archive naming the file', async () => {
    const dir = join(scratch, 'busy')
    const server = await startServer({ env: adminEnv(dir) as Record<string, string> })
    try {
      // Larger than the socket buffers hold, so the first backup is still streaming while its body is unread.
      for (let i = 0; i < 400; i++) await writePair(server, `busy:${i}`, 'y'.repeat(16_000))
      const auth = { authorization: `Bearer ${ADMIN_TOKEN}` }
      const first = await fetch(`${server.url}/v1/admin/backup`, { headers: auth })
      expect(first.status).toBe(200)
      const second = await fetch(`${server.url}/v1/admin/backup`, { headers: auth })
      expect(second.status).toBe(409)
      expect(((await second.json()) as { error: { code: string } }).error.code).toBe('BACKUP_IN_PROGRESS')
      const archive = Buffer.from(await first.arrayBuffer())
      // The first one ended: a third is accepted again.
      const third = await fetch(`${server.url}/v1/admin/backup`, { headers: auth })
      expect(third.status).toBe(200)
      await third.arrayBuffer()

      const unauthorized = await server.request('/v1/admin/backup')
      expect(unauthorized.status).toBe(401)

      // One flipped byte inside the WAL segment's data.
      const at = archive.indexOf('busy:10')
      expect(at).toBeGreaterThan(0)
      const damaged = Buffer.from(archive)
      damaged[at] = 'B'.charCodeAt(0)
      const file = join(scratch, 'damaged.tar')
      writeFileSync(file, damaged)
      const target = join(scratch, 'from-damaged')
      const restore = await cli(['restore', file, '--storage-dir', target])
      expect(restore.code).toBe(6)
      expect(restore.stderr).toMatch(/BACKUP_CORRUPT: wal\/segment-\d{20}\.jsonl fails its checksum/)
      expect(existsSync(target)).toBe(false)
      // A cut-short download is refused too.
      const cut = join(scratch, 'cut.tar')
      writeFileSync(cut, archive.subarray(0, Math.floor(archive.length / 2)))
      const short = await cli(['verify', cut])
      expect(short.code).toBe(6)
      expect(short.stderr).toContain('cut short')
      expect(readFileSync(cut).length).toBeGreaterThan(0)
    } finally {
      await server.stop()
    }
  })
})
