import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cli } from './backup-support.js'
import { ADMIN_TOKEN, type RunningServer, startServer } from './harness.js'
import {
  countItems,
  mountSmallTmpfs,
  persistentEnv,
  toolPresent,
  writePair,
} from './storage-faults-support.js'

const scratch = mkdtempSync(join(tmpdir(), 'pitr-e2e-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

async function backupOf(server: RunningServer, out: string): Promise<number> {
  const res = await fetch(`${server.url}/v1/admin/backup`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  })
  expect(res.status).toBe(200)
  writeFileSync(out, Buffer.from(await res.arrayBuffer()))
  return Number(res.headers.get('x-service-backup-seq'))
}

const env = (dir: string, archive: string) =>
  persistentEnv(dir, {
    SERVICE_HTTP_ADMIN_AUTH_TOKEN: ADMIN_TOKEN,
    SERVICE_STORAGE_WAL_ARCHIVE_DIR: archive,
    SERVICE_STORAGE_SEGMENT_BYTES: '4096',
  })

async function itemsIn(dir: string): Promise<number> {
  const server = await startServer({ env: persistentEnv(dir) })
  try {
    return (await countItems(server)) / 2
  } finally {
    await server.stop()
  }
}

describe('point-in-time recovery from the WAL archive', () => {
  it('restores to a time between two known writes, and to a sequence', async () => {
    const dir = join(scratch, 'live')
    const archive = join(scratch, 'archive')
    const server = await startServer({ env: env(dir, archive) })
    const out = join(scratch, 'base.tar')
    let between = ''
    let base = 0
    try {
      for (let i = 0; i < 10; i++)
        expect((await writePair(server, `before:${i}`, 'x'.repeat(300))).acknowledged).toBe(true)
      base = await backupOf(server, out)
      for (let i = 0; i < 15; i++)
        expect((await writePair(server, `early:${i}`, 'x'.repeat(300))).acknowledged).toBe(true)
      await new Promise((r) => setTimeout(r, 50))
      between = new Date().toISOString()
      await new Promise((r) => setTimeout(r, 50))
      for (let i = 0; i < 15; i++)
        expect((await writePair(server, `late:${i}`, 'x'.repeat(300))).acknowledged).toBe(true)
    } finally {
      await server.stop()
    }
    expect(base).toBe(10)
    expect(readdirSync(archive).filter((n) => n.endsWith('.jsonl.sha256')).length).toBeGreaterThan(2)

    const byTime = await cli([
      'restore',
      out,
      '--storage-dir',
      join(scratch, 'at-time'),
      '--wal-archive',
      archive,
      '--until-time',
      between,
    ])
    expect(byTime.code, byTime.stderr).toBe(0)
    expect(JSON.parse(byTime.stdout)).toMatchObject({
      point_in_time: { sequence: 25 },
      recovery: { durable_sequence: 25 },
    })
    expect(await itemsIn(join(scratch, 'at-time'))).toBe(25)

    const bySeq = await cli([
      'restore',
      out,
      '--storage-dir',
      join(scratch, 'at-seq'),
      '--wal-archive',
      archive,
      '--until-seq',
      '33',
    ])
    expect(bySeq.code, bySeq.stderr).toBe(0)
    expect(await itemsIn(join(scratch, 'at-seq'))).toBe(33)

    const past = await cli([
      'restore',
      out,
      '--storage-dir',
      join(scratch, 'past'),
      '--wal-archive',
      archive,
      '--until-seq',
      '400',
    ])
    expect(past.code).toBe(6)
    expect(past.stderr).toContain('WAL_ARCHIVE_GAP')
  })
})

/** A real full disk under the archive only: a 1 MiB tmpfs. */
const mountpoint = mountSmallTmpfs('1m', 'full-archive-')
const present = toolPresent('a mountable tmpfs (root)', mountpoint !== null)

describe.skipIf(!present)('a full WAL archive disk', () => {
  const mount = mountpoint as string
  afterAll(() => {
    execFileSync('umount', [mount])
    rmSync(mount, { recursive: true, force: true })
  })

  it('keeps acknowledging writes, keeps the unarchived segments, and catches up without a gap once space returns', async () => {
    const dir = join(scratch, 'full-live')
    const archive = join(mount, 'archive')
    const ballast = join(mount, 'ballast')
    writeFileSync(ballast, Buffer.alloc(900 * 1024, 1))
    const server = await startServer({
      env: {
        ...env(dir, archive),
        SERVICE_STORAGE_CHECKPOINT_EVERY_BYTES: '8192',
        SERVICE_LOG_LEVEL: 'warn',
      },
    })
    const out = join(scratch, 'full-base.tar')
    let total = 0
    try {
      await writePair(server, 'first', '')
      total++
      const base = await backupOf(server, out)
      expect(base).toBe(1)
      for (let i = 0; i < 60; i++) {
        expect((await writePair(server, `w:${i}`, 'z'.repeat(4000))).acknowledged).toBe(true)
        total++
      }
      expect(server.stdout() + server.stderr()).toContain('WAL archive')
      rmSync(ballast)
      for (let i = 0; i < 5; i++) {
        expect((await writePair(server, `after:${i}`, 'z'.repeat(4000))).acknowledged).toBe(true)
        total++
      }
    } finally {
      await server.stop()
    }
    const restored = await cli([
      'restore',
      out,
      '--storage-dir',
      join(scratch, 'full-restored'),
      '--wal-archive',
      archive,
      '--until-seq',
      String(total),
    ])
    expect(restored.code, restored.stderr).toBe(0)
    expect(await itemsIn(join(scratch, 'full-restored'))).toBe(total)
  })
})
