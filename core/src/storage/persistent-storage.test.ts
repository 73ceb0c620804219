import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { EngineError } from '../errors.js'
import { CollectingSink as Collect } from './__fixtures__/collecting-sink.js'
import { lockPathOf, writeLockFile } from './lock.js'
import { PersistentStorage } from './persistent-storage.js'
import { listSegments } from './wal-reader.js'
import { decodeWalRecord, encodeWalRecord } from './wal-record.js'

const freshDir = () => join(mkdtempSync(join(tmpdir(), 'storage-')), 'graph')

const open = (
  dir: string,
  sink = new Collect(),
  strict = true,
  extra: Partial<Parameters<typeof PersistentStorage.open>[0]> = {},
) =>
  PersistentStorage.open(
    { dir, requireFsync: true, strictRecovery: strict, version: 'test', ...extra },
    sink,
  ).then((s) => ({ s, sink }))

async function writeN(storage: PersistentStorage, n: number, from = 0) {
  const appended = Array.from({ length: n }, (_, i) => storage.append('test', { n: from + i }))
  await Promise.all(appended.map((a) => a.durable))
  return appended.map((a) => a.seq)
}

const expectCode = async (promise: Promise<unknown>, code: string) => {
  const error = await promise.then(() => null).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(EngineError)
  expect((error as EngineError).code).toBe(code)
}

describe('WAL record encoding', () => {
  it('round-trips and detects a flipped byte', () => {
    const line = encodeWalRecord({ seq: 7, tx: 'tx--1', at: 5, kind: 'graph', body: { ops: [1, 'é'] } })
    const ok = decodeWalRecord(line.trimEnd())
    expect(ok).toEqual({
      ok: true,
      record: { seq: 7, tx: 'tx--1', at: 5, kind: 'graph', body: { ops: [1, 'é'] } },
    })
    const flipped = line.replace('graph', 'grapH').trimEnd()
    expect(decodeWalRecord(flipped)).toEqual({ ok: false, reason: 'checksum' })
    expect(decodeWalRecord(line.slice(0, 20))).toEqual({ ok: false, reason: 'malformed' })
  })
})

describe('PersistentStorage', () => {
  it('waits for half its checkpoint image of log before the next checkpoint, when that is more than the setting', async () => {
    const dir = freshDir()
    const { s } = await open(dir, new Collect(), true, { checkpointEveryBytes: 4096 })
    try {
      await writeN(s, 10)
      // An image of ~200 KB: the next checkpoint waits for ~100 KB of log, not 4 KB.
      const line = JSON.stringify({ pad: 'x'.repeat(1000) })
      await s.checkpoint(
        s.lastSeq,
        Array.from({ length: 200 }, () => line),
      )
      expect(s.shouldCheckpoint()).toBe(false)
      const padded = (n: number) => ({ pad: 'y'.repeat(1000), n })
      for (let i = 0; i < 20; i++) await s.append('test', padded(i)).durable // ~20 KB: past 4 KB
      expect(s.shouldCheckpoint()).toBe(false)
      for (let i = 0; i < 100; i++) await s.append('test', padded(i)).durable // past ~100 KB
      expect(s.shouldCheckpoint()).toBe(true)
    } finally {
      await s.close()
    }
  })

  it('keeps record format JsonLinesV1 until a line holds a temporal value, then raises it before writing it', async () => {
    const dir = freshDir()
    const format = () => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).record_format
    const { s } = await open(dir)
    // The same text inside a string (a payload) is escaped: no temporal value, no change.
    await s.append('test', { raw: '{"$date":"2024-01-01"}' }).durable
    expect(format()).toBe('JsonLinesV1')
    const appended = s.append('test', { props: { d: { $date: '2024-01-01' } } })
    expect(format()).toBe('JsonLinesV2') // before the line is even written
    await appended.durable
    await s.checkpoint(1, [])
    expect(format()).toBe('JsonLinesV2') // a checkpoint's manifest keeps it
    await s.close()
    const again = await open(dir)
    expect(again.sink.records.map((r) => r.seq)).toEqual([2])
    await again.s.close()
    writeFileSync(
      join(dir, 'manifest.json'),
      readFileSync(join(dir, 'manifest.json'), 'utf8').replace('JsonLinesV2', 'JsonLinesV9'),
    )
    await expectCode(open(dir), 'STORAGE_INCOMPATIBLE')
  })

  it('initialises a manifest V1 and recovers every acknowledged record after reopen', async () => {
    const dir = freshDir()
    const { s } = await open(dir)
    expect(await writeN(s, 50)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
    await s.close()
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))
    expect(manifest).toMatchObject({ storage_version: 'V1', record_format: 'JsonLinesV1' })
    expect(manifest.graph_id.value).toMatch(/^graph--runtime-/)
    const again = await open(dir)
    expect(again.sink.records.map((r) => (r.body as { n: number }).n)).toEqual(
      Array.from({ length: 50 }, (_, i) => i),
    )
    expect(again.s.recovery.report).toMatchObject({
      outcome: 'recovered',
      manifest_validated: true,
      warning_count: 0,
    })
    expect(again.s.lastSeq).toBe(50)
    await again.s.close()
  })

  it('groups concurrent appends into shared fsyncs', async () => {
    const { s } = await open(freshDir())
    await writeN(s, 200)
    // 200 concurrent appends in one tick: one write and one fsync, not 200.
    expect((s as unknown as { wal: { fsyncs: number } }).wal.fsyncs).toBeLessThanOrEqual(2)
    await s.close()
  })

  it('refuses a second owner and takes over a stale lock from a dead process', async () => {
    const dir = freshDir()
    const { s } = await open(dir)
    await expectCode(open(dir), 'STORAGE_DIRECTORY_OWNED')
    await s.close()
    writeLockFile(lockPathOf(dir), 2 ** 22 + 12345, '0.0.1') // no such pid
    const taken = await open(dir)
    expect(readFileSync(lockPathOf(dir), 'utf8')).toContain(`pid=${process.pid}`)
    await taken.s.close()
    expect(existsSync(lockPathOf(dir))).toBe(false)
  })

  it('refuses an incompatible manifest and a corrupt one', async () => {
    const dir = freshDir()
    const { s } = await open(dir)
    await s.close()
    const path = join(dir, 'manifest.json')
    const manifest = JSON.parse(readFileSync(path, 'utf8'))
    writeFileSync(path, JSON.stringify({ ...manifest, storage_version: 'V2' }))
    await expectCode(open(dir), 'STORAGE_INCOMPATIBLE')
    writeFileSync(path, JSON.stringify({ ...manifest, record_format: 'Binary' }))
    await expectCode(open(dir), 'STORAGE_INCOMPATIBLE')
    writeFileSync(path, '{"storage_version":')
    await expectCode(open(dir), 'STORAGE_RECOVERY_FAILED')
    expect(existsSync(lockPathOf(dir))).toBe(false)
  })

  it('truncates a torn final line with a warning, in strict mode too', async () => {
    const dir = freshDir()
    const { s } = await open(dir)
    await writeN(s, 10)
    await s.close()
    const last = listSegments(dir).at(-1)!
    appendFileSync(last.path, '{"seq":11,"tx":"tx--x","at":1,"ki')
    const again = await open(dir)
    expect(again.sink.records).toHaveLength(10)
    expect(again.s.recovery.report.warning_count).toBe(1)
    expect(again.s.recovery.warnings[0]).toContain('torn')
    expect(await writeN(again.s, 1)).toEqual([11])
    await again.s.close()
    expect((await open(dir)).sink.records).toHaveLength(11)
  })

  it('stops on a flipped byte in the middle when strict, and recovers the valid prefix when not', async () => {
    const dir = freshDir()
    const { s } = await open(dir)
    await writeN(s, 5)
    await writeN(s, 5, 5) // second flush: a later line in the same segment
    await s.close()
    const seg = listSegments(dir).at(-1)!
    const text = readFileSync(seg.path, 'utf8')
    const lines = text.split('\n')
    lines[3] = lines[3]!.replace('"n":3', '"n":9')
    writeFileSync(seg.path, lines.join('\n'))
    await expectCode(open(dir), 'STORAGE_RECOVERY_FAILED')
    const lenient = await open(dir, new Collect(), false)
    expect(lenient.sink.records.map((r) => r.seq)).toEqual([1, 2, 3])
    expect(lenient.s.recovery.report.warning_count).toBe(1)
    expect(readdirSync(join(dir, 'wal', 'quarantine')).length).toBe(1)
    await lenient.s.close()
  })

  it('checkpoints, compacts old segments, and recovers from checkpoint plus the WAL above it', async () => {
    const dir = freshDir()
    const { s } = await open(dir, new Collect(), true, { segmentBytes: 200 })
    await writeN(s, 20)
    await s.checkpoint(20, ['{"state":"at-20"}'])
    await writeN(s, 5, 20)
    await s.checkpoint(25, ['{"state":"at-25"}'])
    await writeN(s, 3, 25)
    const d = s.durability()
    expect(d.checkpoint_sequence).toBe(25)
    expect(d.wal_lag_sequences).toBe(3)
    await s.close()
    // Segments wholly at or below the previous checkpoint (20) are gone.
    expect(listSegments(dir).every((seg) => seg.firstSeq > 1)).toBe(true)
    const again = await open(dir)
    expect(again.sink.checkpoint).toEqual(['{"state":"at-25"}'])
    expect(again.sink.records.map((r) => r.seq)).toEqual([26, 27, 28])
    expect(again.s.recovery.recoveryPath).toBe('checkpoint_and_bounded_replay')
    await again.s.close()
  })

  it('falls back to the previous checkpoint when the newest is missing', async () => {
    const dir = freshDir()
    const { s } = await open(dir)
    await writeN(s, 4)
    await s.checkpoint(4, ['{"state":4}'])
    await writeN(s, 4, 4)
    await s.checkpoint(8, ['{"state":8}'])
    await writeN(s, 1, 8)
    await s.close()
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))
    const newest = manifest.components.find((c: { name: string }) => c.name === 'checkpoint').path
    writeFileSync(join(dir, 'checkpoints', newest), 'garbage')
    const again = await open(dir)
    expect(again.sink.checkpoint).toEqual(['{"state":4}'])
    expect(again.sink.records.map((r) => r.seq)).toEqual([5, 6, 7, 8, 9])
    expect(again.s.recovery.report.required_components_validated).toBe(false)
    expect(again.s.recovery.warnings.join()).toContain('digest')
    await again.s.close()
  })

  it('fails every waiting writer with DURABILITY_FAILED after a write failure, and refuses later appends', async () => {
    const { s } = await open(freshDir())
    await writeN(s, 1)
    s.injectFailure(new Error('EIO: disk on fire'))
    expect(() => s.append('test', {})).toThrow(/DURABILITY|unavailable/)
    expect(s.durability().recovery.outcome).toBe('unavailable')
    await s.close()
  })

  it('reloads what is durable and resumes on a fresh log without the failed batch', async () => {
    const dir = freshDir()
    const { s } = await open(dir)
    await writeN(s, 3)
    // A batch in flight when the log fails is refused with it.
    const lost = s.append('test', { n: 'lost' })
    s.injectFailure(new Error('EIO: disk on fire'))
    await expectCode(lost.durable, 'DURABILITY_FAILED')
    expect(s.lastSeq).toBe(3)
    const reloaded = new Collect()
    expect(s.reloadDurable(reloaded)).toBe(3)
    expect(reloaded.records.map((r) => r.seq)).toEqual([1, 2, 3])
    // The injected storage keeps failing until it is cleared: the resume refuses meanwhile.
    await expect(s.resumeLog()).rejects.toThrow(/disk on fire/)
    s.clearInjectedFailure()
    await s.resumeLog()
    expect(s.failed).toBeNull()
    expect(await writeN(s, 2, 10)).toEqual([4, 5])
    await s.close()
    const { s: again, sink } = await open(dir)
    expect(sink.records.map((r) => r.body)).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }, { n: 10 }, { n: 11 }])
    await again.close()
  })
})
