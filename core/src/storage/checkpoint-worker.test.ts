import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { closeWorkerPool, workerPoolAvailable } from '../workers/worker-pool.js'
import { CHECKPOINT_DIR, type CheckpointPiece, readCheckpoint, writeCheckpoint } from './checkpoint.js'

afterAll(() => closeWorkerPool())

/** Text lines, then relationship-like column lines, then more text: the order must survive. */
function pieces(): CheckpointPiece[] {
  const out: CheckpointPiece[] = ['{"kind":"first","v":"é ✓"}']
  for (let b = 0; b < 3; b++) {
    const n = 1000 + b
    const ids = new Float64Array(n).map((_, i) => b * 10_000 + i)
    out.push({
      fields: [
        ['kind', '"cols"'],
        ['types', JSON.stringify(['A', 'B'])],
        ['id', ids],
        ['big', new Float64Array([2 ** 53 - 1, 0, 7])],
        ['props', '{"3":{"w":{"f":1.5}}}'],
      ],
    })
    out.push(`{"kind":"between","b":${b}}`)
  }
  return out
}

const at = new Date('2026-01-02T03:04:05Z')

describe('checkpoint encoding in the worker pool', () => {
  it('writes the same bytes and digests as in-process, and the file reads back line for line', async () => {
    expect(workerPoolAvailable()).toBe(true) // the unit project runs after the build
    const inProcessDir = mkdtempSync(join(tmpdir(), 'ck-inproc-'))
    const workerDir = mkdtempSync(join(tmpdir(), 'ck-worker-'))
    const a = await writeCheckpoint(inProcessDir, 9, pieces(), at, undefined, undefined, 'in-process')
    const b = await writeCheckpoint(workerDir, 9, pieces(), at, undefined, undefined, 'worker')
    expect(b).toEqual(a)
    const bytes = (dir: string) => readFileSync(join(dir, CHECKPOINT_DIR, a.name))
    expect(bytes(workerDir).equals(bytes(inProcessDir))).toBe(true)
    const lines: unknown[] = []
    const read = readCheckpoint(workerDir, a.name, a.sha256, (line) => lines.push(JSON.parse(line)))
    expect(read).toEqual({ ok: true, sequence: 9, records: 7 })
    expect(lines[0]).toEqual({ kind: 'first', v: 'é ✓' })
    const cols = lines[1] as { id: number[]; big: number[]; props: unknown; types: string[] }
    expect(cols.id).toHaveLength(1000)
    expect(cols.id[999]).toBe(999)
    expect(cols.big).toEqual([2 ** 53 - 1, 0, 7])
    expect(cols.props).toEqual({ 3: { w: { f: 1.5 } } })
    expect(lines[6]).toEqual({ kind: 'between', b: 2 })
  })

  it('removes the temp file when the image fails half-way, and leaves no checkpoint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ck-fail-'))
    function* failing(): Iterable<CheckpointPiece> {
      yield* pieces()
      throw new Error('the state changed under the image')
    }
    await expect(writeCheckpoint(dir, 3, failing(), at, undefined, undefined, 'worker')).rejects.toThrow(
      'the state changed',
    )
    expect(readdirSync(join(dir, CHECKPOINT_DIR))).toEqual([])
  })

  it('removes the file the worker finished when the rename is abandoned', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ck-gone-'))
    const abandon = () => {
      throw new Error('abandoned before the rename')
    }
    await expect(writeCheckpoint(dir, 4, pieces(), at, undefined, abandon, 'worker')).rejects.toThrow(
      'abandoned before the rename',
    )
    expect(readdirSync(join(dir, CHECKPOINT_DIR))).toEqual([])
  })
})
