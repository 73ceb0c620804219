import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openEngine } from '../runtime/index.js'

const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('a checkpoint racing a write already under way', () => {
  it('writes the image at its own sequence, so recovery replays the write exactly once', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'ckpt-race-')), 'graph')
    const engine = await openEngine({
      storage: { mode: 'persistent', dir, requireFsync: false, checkpointOnClose: false },
    })
    // Enough nodes that the image is written over many event-loop turns.
    await engine.transact('ws', (tx, store) => {
      const label = [store.names.id('Bulk')]
      for (let i = 0; i < 60_000; i++) tx.createNode(label, new Map([[store.names.id('i'), i]]))
    })
    let release: () => void = () => {}
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    // A write that passed the gate before the checkpoint starts, and publishes while the image is written.
    const late = engine.transactInSlices('ws', async (tx, store) => {
      await released
      tx.createNode([store.names.id('Late')], new Map())
    })
    // And a Cypher write queued behind it in the workspace's turn.
    const queued = engine.write('CREATE (:Queued)', {}, { workspaceId: 'ws' })
    await turn()
    const checkpoint = engine.checkpoint()
    await turn()
    release()
    await Promise.all([late, queued, checkpoint])
    await engine.close()

    const reopened = await openEngine({ storage: { mode: 'persistent', dir, requireFsync: false } })
    try {
      const counts = await reopened.read(
        'MATCH (n) RETURN sum(CASE WHEN n:Bulk THEN 1 ELSE 0 END), sum(CASE WHEN n:Late THEN 1 ELSE 0 END), sum(CASE WHEN n:Queued THEN 1 ELSE 0 END)',
        {},
        { workspaceId: 'ws' },
      )
      expect(counts.status).toBe('Success')
      expect(counts.data?.rows).toEqual([[60_000, 1, 1]])
    } finally {
      await reopened.close()
    }
  }, 60_000)
})
