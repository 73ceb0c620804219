import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { listSegments, scanWal } from './wal-reader.js'
import { encodeWalRecord, type WalRecord } from './wal-record.js'
import { WalWriter } from './wal-writer.js'

const openWriter = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wal-writer-'))
  const writer = await WalWriter.open({ dir, requireFsync: true, segmentBytes: 1 << 20, now: () => 42 }, 0)
  const text = () => readFileSync(listSegments(dir)[0]!.path, 'utf8')
  return { writer, text }
}

describe('WAL record encoding', () => {
  it('is exactly the JSON of {seq, tx, at, kind, body} (the JsonLinesV1 line main writes)', () => {
    const records: WalRecord[] = [
      {
        seq: 1,
        tx: 'tx--a"b\\c\u2028',
        at: 1795558943691,
        kind: 'graph',
        body: { ops: [{ p: { w: { i: '1' } } }] },
      },
      { seq: 2, tx: 't', at: 1.5, kind: 'k\n', body: undefined },
      { seq: 3, tx: 't', at: Number.NaN, kind: 'k', body: null },
      { seq: 4, tx: 't', at: -0, kind: 'k', body: 'é\ud800' },
      { seq: 5, tx: 't', at: 5, kind: 'k', body: { toJSON: () => [1] } },
    ]
    for (const r of records) {
      const reference = JSON.stringify({ seq: r.seq, tx: r.tx, at: r.at, kind: r.kind, body: r.body })
      const line = encodeWalRecord(r)
      expect(line.slice(0, reference.length - 1)).toBe(reference.slice(0, -1))
      expect(line.slice(reference.length - 1)).toMatch(/^,"sha256":"[0-9a-f]{64}"\}\n$/)
    }
  })
})

describe('WAL writer group commit', () => {
  it('acknowledges a record only once its line is in the segment', async () => {
    const { writer, text } = await openWriter()
    const seen: boolean[] = []
    const appended = Array.from({ length: 5 }, (_, n) => writer.append('test', { n }))
    await Promise.all(
      appended.map((a) => a.durable.then(() => seen.push(text().includes(`"seq":${a.seq},`)))),
    )
    expect(seen).toEqual([true, true, true, true, true])
    expect(writer.durableSeq).toBe(5)
    await writer.close()
  })

  it('writes the appends made during an fsync as a batch of their own, and tells the listener once per batch', async () => {
    const { writer, text } = await openWriter()
    const told: number[] = []
    writer.listener = { durable: (seq) => told.push(seq), failed: () => {} }
    const first = Array.from({ length: 3 }, () => writer.append('test', {}))
    // Wait until the first batch is written and its fsync is in flight, then append a second wave.
    await new Promise((resolve) => setImmediate(resolve))
    const second = Array.from({ length: 4 }, () => writer.append('test', {}))
    await Promise.all([...first, ...second].map((a) => a.durable))
    // Once per settled batch, ascending: [3, 7], or [7] when the second fsync returned first (it covers both).
    expect([[3, 7], [7]]).toContainEqual(told)
    expect(
      text()
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line).seq),
    ).toEqual([1, 2, 3, 4, 5, 6, 7])
    await writer.close() // the first fsync may still be in flight after the second acknowledged both
    expect(writer.fsyncs).toBe(2)
  })

  it('tells the listener and rejects every waiting record when the log fails', async () => {
    const { writer } = await openWriter()
    const failures: string[] = []
    writer.listener = { durable: () => {}, failed: (e) => failures.push(e.message) }
    const a = writer.append('test', {})
    writer.injectFailure(new Error('EIO: disk on fire'))
    await expect(a.durable).rejects.toMatchObject({ code: 'DURABILITY_FAILED' })
    expect(failures).toEqual(['EIO: disk on fire'])
    expect(() => writer.append('test', {})).toThrow(/unavailable after an earlier failure/)
    await writer.close()
  })
})

describe('WAL writer refusals', () => {
  it('leaves no hole in the sequence when a record cannot be encoded or its gate throws', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wal-writer-'))
    let refuse = false
    const writer = await WalWriter.open(
      {
        dir,
        requireFsync: true,
        segmentBytes: 1 << 20,
        now: () => 42,
        beforeLine: () => {
          if (refuse) throw new Error('ENOSPC: manifest not written')
        },
      },
      0,
    )
    await writer.append('test', { n: 1 }).durable
    expect(() => writer.append('test', { n: 2n })).toThrow(TypeError) // JSON cannot encode a BigInt
    refuse = true
    expect(() => writer.append('test', { n: 3 })).toThrow(/ENOSPC/)
    refuse = false
    const last = writer.append('test', { n: 4 })
    expect(last.seq).toBe(2)
    await last.durable
    await writer.close()
    const seen: number[] = []
    const scan = scanWal(dir, 0, (record) => seen.push(record.seq))
    expect(scan.damage).toBeNull()
    expect(seen).toEqual([1, 2])
  })
})
