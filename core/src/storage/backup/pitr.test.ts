import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { CollectingSink as Collect } from '../__fixtures__/collecting-sink.js'
import { PersistentStorage } from '../persistent-storage.js'
import { listArchive } from '../wal-archive.js'
import { listSegments } from '../wal-reader.js'
import { backupArchive } from './backup-archive.js'
import { type RestorePoint, replayArchive } from './pitr.js'
import { restoreFileArchive } from './restore.js'

const clock = { now: 1_000 }
const open = (dir: string, walArchiveDir?: string) =>
  PersistentStorage.open(
    {
      dir,
      requireFsync: true,
      strictRecovery: true,
      version: 'test',
      segmentBytes: 1024,
      now: () => clock.now,
      ...(walArchiveDir === undefined ? {} : { walArchiveDir }),
    },
    new Collect(),
  )

async function writeN(storage: PersistentStorage, n: number) {
  for (let i = 0; i < n; i++) await storage.append('test', { pad: 'p'.repeat(100) }).durable
}

async function bytesOf(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = []
  for await (const c of chunks) parts.push(c)
  return Buffer.concat(parts)
}

/** A store with a backup at 20 and an archive reaching 60: 21–40 committed at t=2000, 41–60 at t=3000. */
async function scenario() {
  const root = mkdtempSync(join(tmpdir(), 'pitr-'))
  const archive = join(root, 'archive')
  clock.now = 1_000
  const s = await open(join(root, 'live'), archive)
  await writeN(s, 20)
  const backup = await bytesOf(backupArchive(s.backupSource(), () => clock.now))
  clock.now = 2_000
  await writeN(s, 20)
  clock.now = 3_000
  await writeN(s, 20)
  await s.close()
  return { root, archive, backup }
}

async function restoreTo(root: string, backup: Buffer, archive: string, point: RestorePoint, name: string) {
  const target = join(root, name)
  let replayed = null as ReturnType<typeof replayArchive> | null
  await restoreFileArchive(Readable.from([backup]), target, (staging, m) => {
    replayed = replayArchive(archive, staging, m.sequence, point)
  })
  const sink = new Collect()
  const s = await PersistentStorage.open(
    { dir: target, requireFsync: true, strictRecovery: true, version: 't' },
    sink,
  )
  const lastSeq = s.lastSeq
  await s.close()
  return { replayed, lastSeq, seqs: sink.records.map((r) => r.seq) }
}

describe('point-in-time recovery from the WAL archive', () => {
  it('archives every sealed segment and the tail on close, each with its digest', async () => {
    const { archive } = await scenario()
    const names = listArchive(archive).map((s) => s.name)
    expect(names.length).toBeGreaterThan(3)
    expect(readdirSync(archive).filter((n) => n.endsWith('.sha256'))).toHaveLength(names.length)
  })

  it('replays past the backup to a sequence or to a time, and nothing further', async () => {
    const { root, archive, backup } = await scenario()
    const bySeq = await restoreTo(root, backup, archive, { untilSeq: 50 }, 'seq')
    expect(bySeq.lastSeq).toBe(50)
    expect(bySeq.seqs).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
    const byTime = await restoreTo(root, backup, archive, { untilTime: 2_500 }, 'time')
    expect(byTime.lastSeq).toBe(40)
    expect(byTime.replayed).toMatchObject({ sequence: 40, at: 2_000, records: 20 })
  })

  it('reports a gap, damage and a point before the backup, never skipping', async () => {
    const { root, archive, backup } = await scenario()
    await expect(restoreTo(root, backup, archive, { untilSeq: 99 }, 'far')).rejects.toThrow(
      /archive ends at sequence 60, before the requested 99/,
    )
    await expect(restoreTo(root, backup, archive, { untilSeq: 10 }, 'early')).rejects.toThrow(
      /restore an older/,
    )
    const segments = listArchive(archive)
    const middle = segments[Math.floor(segments.length / 2)]!
    writeFileSync(middle.path, 'x', { flag: 'a' })
    await expect(restoreTo(root, backup, archive, { untilSeq: 60 }, 'damaged')).rejects.toThrow(
      new RegExp(`${middle.name} fails its checksum`),
    )
    rmSync(middle.path)
    await expect(restoreTo(root, backup, archive, { untilSeq: 60 }, 'gap')).rejects.toThrow(
      /WAL|no segment|skips/,
    )
    // Nothing was left behind by the refused restores.
    expect(readdirSync(root).sort()).toEqual(['archive', 'live'])
  })

  it('keeps a segment the archive failed to take until it does (compaction waits)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'pitr-'))
    const archive = join(root, 'archive')
    const first = 'segment-00000000000000000001.jsonl'
    // A directory where the copy's temporary file goes: the archive fails for that segment.
    mkdirSync(join(archive, `${first}.partial`), { recursive: true })
    const s = await open(join(root, 'live'), archive)
    await writeN(s, 30)
    await s.checkpoint(s.lastSeq, [])
    await writeN(s, 30)
    await s.checkpoint(s.lastSeq, [])
    expect(listSegments(join(root, 'live')).map((x) => x.name)).toContain(first)
    rmSync(join(archive, `${first}.partial`), { recursive: true })
    await writeN(s, 30)
    await s.close()
    expect(listArchive(archive).map((x) => x.name)).toContain(first)
  })
})
