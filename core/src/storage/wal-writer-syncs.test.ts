import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { listSegments } from './wal-reader.js'

// Every fdatasync the writer starts is held here until the test returns it, in the order the test chooses.
const held: ((error: Error | null) => void)[] = []
/** The descriptor each held fdatasync was given. */
const heldFds: number[] = []
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>()
  const fdatasync = (fd: number, done: (error: Error | null) => void) => {
    held.push(done)
    heldFds.push(fd)
  }
  return { ...actual, fdatasync }
})

const { MAX_SYNCS_IN_FLIGHT, WalWriter } = await import('./wal-writer.js')

const tick = () => new Promise((resolve) => setImmediate(resolve))

async function openWriter(segmentBytes = 1 << 20) {
  const dir = mkdtempSync(join(tmpdir(), 'wal-syncs-'))
  const writer = await WalWriter.open({ dir, requireFsync: true, segmentBytes, now: () => 42 }, 0)
  const told: number[] = []
  const failed: string[] = []
  writer.listener = { durable: (seq) => told.push(seq), failed: (e) => failed.push(e.message) }
  const wave = (n: number) => {
    const appended = Array.from({ length: n }, () => writer.append('test', {}))
    const state = { done: false, error: null as unknown }
    const all = Promise.all(appended.map((a) => a.durable)).then(
      () => {
        state.done = true
      },
      (error) => {
        state.error = error
      },
    )
    return { appended, state, all }
  }
  const seqs = (path: string) =>
    readFileSync(path, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line).seq as number)
  return { dir, writer, told, failed, wave, seqs }
}

afterEach(() => {
  held.length = 0
  heldFds.length = 0
})

describe('WAL writer with fsyncs in flight', () => {
  it('starts a second fsync while one runs, collects past the cap, and acknowledges in write order', async () => {
    expect(MAX_SYNCS_IN_FLIGHT).toBe(2)
    const { dir, writer, told, wave, seqs } = await openWriter()
    const first = wave(3)
    await tick()
    const second = wave(4)
    await tick()
    expect(held).toHaveLength(2)
    // Two descriptors: Linux reports a writeback error once per open file, so each fsync needs its own.
    expect(heldFds[0]).not.toBe(heldFds[1])
    const third = wave(5)
    await tick()
    // At the cap: the third wave waits unwritten for an fsync to return.
    expect(held).toHaveLength(2)
    expect(seqs(listSegments(dir)[0]!.path)).toEqual([1, 2, 3, 4, 5, 6, 7])
    // The second fsync returns first: it covers the first batch too, so both are acknowledged, once.
    held[1]!(null)
    await Promise.all([first.all, second.all])
    expect([first.state.done, second.state.done, third.state.done]).toEqual([true, true, false])
    expect(told).toEqual([7])
    expect(writer.durableSeq).toBe(7)
    // The return freed a slot: the third wave is written and synced.
    await tick()
    expect(held).toHaveLength(3)
    held[0]!(null) // the first fsync returning late changes nothing
    await tick()
    expect(told).toEqual([7])
    expect(third.state.done).toBe(false)
    held[2]!(null)
    await third.all
    expect(told).toEqual([7, 12])
    expect(seqs(listSegments(dir)[0]!.path)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
    await writer.close()
  })

  it('fails every batch not known to be on disk when an fsync fails, even one whose fsync then succeeds', async () => {
    const { writer, told, failed, wave } = await openWriter()
    const first = wave(2)
    await tick()
    const second = wave(2)
    await tick()
    held[0]!(new Error('EIO: fsync failed'))
    await Promise.all([first.all, second.all])
    expect(first.state.error).toMatchObject({ code: 'DURABILITY_FAILED' })
    expect(second.state.error).toMatchObject({ code: 'DURABILITY_FAILED' })
    held[1]!(null)
    await tick()
    expect(told).toEqual([])
    expect(failed).toEqual(['EIO: fsync failed'])
    expect(writer.durableSeq).toBe(0)
    expect(() => writer.append('test', {})).toThrow(/unavailable after an earlier failure/)
    await writer.close()
  })

  it('starts the next segment only once every fsync on the full one has returned', async () => {
    // Each record's line is ~80 bytes: the segment is full after the first batch.
    const { dir, writer, wave, seqs } = await openWriter(100)
    const first = wave(2)
    await tick()
    const second = wave(3)
    await tick()
    expect(held).toHaveLength(1) // the second batch waits: the segment is full and an fsync runs on it
    expect(listSegments(dir)).toHaveLength(1)
    held[0]!(null)
    await first.all
    await tick()
    const segments = listSegments(dir)
    expect(segments).toHaveLength(2)
    expect(held).toHaveLength(2)
    held[1]!(null)
    await second.all
    expect(seqs(segments[0]!.path)).toEqual([1, 2])
    expect(seqs(segments[1]!.path)).toEqual([3, 4, 5])
    await writer.close()
  })

  it('writes a large cohort in parts, each synced as soon as it is complete', async () => {
    const { dir, writer, wave, seqs } = await openWriter()
    const first = wave(40)
    await tick()
    held[0]!(null)
    await first.all
    // 40 records were waiting: the next turn's appends are synced in parts of 20, without waiting for the turn to end.
    const a = wave(20)
    expect(held).toHaveLength(2)
    const b = wave(20)
    expect(held).toHaveLength(3)
    const c = wave(5) // both slots taken: these wait for a return
    await tick()
    expect(held).toHaveLength(3)
    expect(seqs(listSegments(dir)[0]!.path)).toHaveLength(80)
    held[1]!(null)
    await a.all
    expect([a.state.done, b.state.done, c.state.done]).toEqual([true, false, false])
    await tick()
    expect(held).toHaveLength(4)
    held[2]!(null)
    held[3]!(null)
    await Promise.all([b.all, c.all])
    expect(writer.durableSeq).toBe(85)
    await writer.close()
  })

  it('acknowledges nothing more once the log failed, even a batch whose fsync then succeeds', async () => {
    const { writer, told, failed, wave } = await openWriter()
    const first = wave(2)
    await tick()
    expect(held).toHaveLength(1)
    writer.injectFailure(new Error('EIO: the device went away'))
    held[0]!(null)
    await first.all
    expect(first.state.error).toMatchObject({ code: 'DURABILITY_FAILED' })
    expect(told).toEqual([])
    expect(failed).toEqual(['EIO: the device went away'])
    expect(writer.durableSeq).toBe(0)
    await writer.close()
  })

  it('fails the batch waiting for a rotation that cannot start the next segment', async () => {
    const { dir, writer, wave, failed } = await openWriter(100)
    const first = wave(2)
    await tick()
    const second = wave(3)
    await tick()
    // The next segment cannot be created: its directory is gone.
    rmSync(join(dir, 'wal'), { recursive: true, force: true })
    held[0]!(null)
    await Promise.all([first.all, second.all])
    expect(first.state.done).toBe(true)
    expect(second.state.error).toMatchObject({ code: 'DURABILITY_FAILED' })
    expect(failed).toHaveLength(1)
    expect(writer.durableSeq).toBe(2)
    await writer.close()
  })
})
