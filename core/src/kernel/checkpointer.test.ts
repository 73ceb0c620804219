import { describe, expect, it } from 'vitest'
import type { CommitOp } from '../graph/commit.js'
import type { CheckpointPiece } from '../storage/checkpoint.js'
import type { DurableStore } from '../storage/durable-store.js'
import { Checkpointer, type GraphImageWalk } from './checkpointer.js'
import { VisibilityGate } from './visibility-gate.js'

/** A graph walk of fixed lines that records what commits told it. */
function walk(lines: string[], told: string[]): GraphImageWalk {
  return {
    beforeCommit: (workspace: string, ops: readonly CommitOp[]) => told.push(`${workspace}:${ops.length}`),
    *[Symbol.iterator](): Iterator<CheckpointPiece> {
      yield* lines
    },
  }
}

const outcome = { failed: () => {}, succeeded: () => {} }
const turn = () => new Promise((r) => setImmediate(r))

describe('checkpointer', () => {
  it('lets writers publish while the image is written, telling its walk first', async () => {
    const gate = new VisibilityGate()
    const told: string[] = []
    const written: string[] = []
    let checkpointer: Checkpointer | null = null
    const storage = {
      failed: null,
      lastSeq: 7,
      async checkpoint(sequence: number, lines: Iterable<CheckpointPiece>, pause: () => Promise<void>) {
        expect(sequence).toBe(7)
        for (const line of lines) {
          written.push(line as string)
          if (line === 'b') {
            // A writer between two slices: let through at once, and the walk hears of its commit.
            expect(gate.enterWrite()).toBeUndefined()
            checkpointer?.beforePublish('ws', [{ op: 'deleteNode', id: 1 }])
            gate.published(8)
          }
          await pause()
        }
      },
    } as unknown as DurableStore
    checkpointer = new Checkpointer(
      () => storage,
      gate,
      { graphImage: () => walk(['a', 'b', 'c'], told), stateLines: () => ['state'] },
      outcome,
    )
    await checkpointer.checkpoint()
    expect(written).toEqual(['a', 'b', 'c', 'state'])
    expect(told).toEqual(['ws:1'])
    // Once the image is done, commits have no walk to tell.
    checkpointer.beforePublish('ws', [{ op: 'deleteNode', id: 2 }])
    expect(told).toEqual(['ws:1'])
  })

  it('starts at a moment when everything published is durable, at the log’s last sequence then', async () => {
    const gate = new VisibilityGate()
    const storage = { failed: null, lastSeq: 3, sequences: [] as number[] }
    Object.assign(storage, {
      async checkpoint(sequence: number, lines: Iterable<CheckpointPiece>) {
        storage.sequences.push(sequence)
        for (const _ of lines);
      },
    })
    const checkpointer = new Checkpointer(
      () => storage as unknown as DurableStore,
      gate,
      { graphImage: () => walk(['a'], []), stateLines: () => [] },
      outcome,
    )
    gate.published(3)
    const checkpoint = checkpointer.checkpoint()
    await turn()
    expect(storage.sequences).toEqual([]) // commit 3 is not durable yet
    gate.durable(3)
    await checkpoint
    expect(storage.sequences).toEqual([3])
  })
})
