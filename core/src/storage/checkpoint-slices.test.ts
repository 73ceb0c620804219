import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { closeWorkerPool } from '../workers/worker-pool.js'
import { CHECKPOINT_DIR, type CheckpointPiece, SLICE_POINT, writeCheckpoint } from './checkpoint.js'

afterAll(() => closeWorkerPool())

const at = new Date('2026-01-02T03:04:05Z')

/** Holds the thread for `ms`, as walking a few dozen records of a large batch does. */
function busy(ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until) {
    // spinning on purpose
  }
}

/**
 * A text line, then a column line whose walk takes ~40 ms and offers a slice point every ~2 ms, then a
 * last text line. The relationship-like columns share one buffer, as the graph walk's do.
 */
function* pieces(log: string[], withSlicePoints: boolean): Iterable<CheckpointPiece> {
  yield '{"kind":"first"}'
  for (let i = 0; i < 20; i++) {
    busy(2)
    if (withSlicePoints) yield SLICE_POINT
  }
  log.push('line')
  const columns = new Float64Array(6).map((_, i) => i * 10)
  yield {
    fields: [
      ['kind', '"cols"'],
      ['id', columns.subarray(0, 3)],
      ['end', columns.subarray(3, 6)],
    ],
  }
  yield '{"kind":"last"}'
}

describe('checkpoint slice points', () => {
  it('let the writer yield inside a line once its slice is spent, and leave no trace in the file', async () => {
    const sliced = mkdtempSync(join(tmpdir(), 'ck-sliced-'))
    const log: string[] = []
    const pause = async () => {
      log.push('pause')
    }
    const file = await writeCheckpoint(sliced, 5, pieces(log, true), at, pause, undefined, 'worker')
    // ~40 ms of walk with a 4 ms slice: several pauses come before the line is complete.
    expect(log.indexOf('line')).toBeGreaterThanOrEqual(5)

    const plain = mkdtempSync(join(tmpdir(), 'ck-plain-'))
    const same = await writeCheckpoint(plain, 5, pieces([], false), at, undefined, undefined, 'in-process')
    expect(file).toEqual(same)
    const bytes = (dir: string) => readFileSync(join(dir, CHECKPOINT_DIR, file.name), 'utf8')
    expect(bytes(sliced)).toBe(bytes(plain))
    expect(bytes(sliced).split('\n')[2]).toBe('{"kind":"cols","id":[0,10,20],"end":[30,40,50]}')
  })
})
