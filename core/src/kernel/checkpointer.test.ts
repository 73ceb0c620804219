import { describe, expect, it } from 'vitest'
import type { CheckpointPiece } from '../storage/checkpoint.js'
import type { DurableStore } from '../storage/durable-store.js'
import { Checkpointer } from './checkpointer.js'
import { VisibilityGate } from './visibility-gate.js'

/** A graph of numbered lines read lazily, as the kernel's image walks the live graph. */
function liveGraph(lines: string[]) {
  return function* (): Iterable<CheckpointPiece> {
    for (let i = 0; i < lines.length; i++) yield lines[i] as string
  }
}

const outcome = { failed: () => {}, succeeded: () => {} }

describe('checkpointer', () => {
  it('freezes the rest of an image when a commit is published while it is written', async () => {
    const graph = ['a', 'b', 'c', 'd']
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
            // A writer that was under way publishes between two slices: first the hook, then the change.
            checkpointer?.beforePublish()
            graph[2] = 'C (sequence 8)'
            graph.push('e (sequence 8)')
          }
          await pause()
        }
      },
    } as unknown as DurableStore
    const gate = new VisibilityGate()
    checkpointer = new Checkpointer(
      () => storage,
      gate,
      { graphLines: liveGraph(graph), stateLines: () => ['state'] },
      outcome,
    )
    await checkpointer.checkpoint()
    expect(written).toEqual(['a', 'b', 'c', 'd', 'state'])
  })

  it('waits for a writer under way before it starts, and holds new writers back until it is done', async () => {
    const events: string[] = []
    const storage = {
      failed: null,
      lastSeq: 1,
      async checkpoint(_s: number, lines: Iterable<CheckpointPiece>) {
        events.push('image')
        for (const _ of lines);
      },
    } as unknown as DurableStore
    const gate = new VisibilityGate()
    const checkpointer = new Checkpointer(
      () => storage,
      gate,
      { graphLines: liveGraph(['a']), stateLines: () => [] },
      outcome,
    )
    expect(gate.enterWrite()).toBeUndefined() // a writer under way
    const checkpoint = checkpointer.checkpoint()
    await new Promise((r) => setImmediate(r))
    const next = gate.enterWrite() // arrives while the image waits: it waits too
    expect(next).toBeInstanceOf(Promise)
    next?.then(() => events.push('next writer'))
    await new Promise((r) => setImmediate(r))
    expect(events).toEqual([])
    events.push('writer done')
    gate.exitWrite()
    await checkpoint
    await next
    expect(events).toEqual(['writer done', 'image', 'next writer'])
  })
})
