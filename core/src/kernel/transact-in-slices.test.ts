import { describe, expect, it } from 'vitest'
import { openEngine } from '../runtime/index.js'

const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('a write done in slices', () => {
  it('keeps its nodes private until it commits, lets reads through meanwhile, and holds the write turn', async () => {
    const engine = await openEngine({})
    try {
      let release: () => void = () => {}
      const released = new Promise<void>((resolve) => {
        release = resolve
      })
      const sliced = engine.transactInSlices('ws', async (tx, store) => {
        const label = [store.names.id('Slice')]
        tx.createNode(label, new Map())
        await released // an import between two of its slices
        tx.createNode(label, new Map())
        return 'done'
      })
      await turn()
      const during = await engine.read('MATCH (n:Slice) RETURN count(n) AS n', {}, { workspaceId: 'ws' })
      expect(during.data?.rows).toEqual([[0]])
      // A write queued behind it runs after it, in order.
      const after = engine.write('CREATE (:After)', {}, { workspaceId: 'ws' })
      await turn()
      const stillNone = await engine.read('MATCH (n:After) RETURN count(n) AS n', {}, { workspaceId: 'ws' })
      expect(stillNone.data?.rows).toEqual([[0]])
      release()
      const done = await sliced
      expect(done.value).toBe('done')
      expect((await after).status).toBe('Success')
      const both = await engine.read(
        'MATCH (n:Slice) WITH count(n) AS s MATCH (a:After) RETURN s, count(a) AS a',
        {},
        { workspaceId: 'ws' },
      )
      expect(both.data?.rows).toEqual([[2, 1]])
    } finally {
      await engine.close()
    }
  })

  it('commits nothing when it throws after a slice', async () => {
    const engine = await openEngine({})
    try {
      await expect(
        engine.transactInSlices('ws', async (tx, store) => {
          tx.createNode([store.names.id('Gone')], new Map())
          await turn()
          throw new Error('unresolved reference')
        }),
      ).rejects.toThrow('unresolved reference')
      const none = await engine.read('MATCH (n:Gone) RETURN count(n) AS n', {}, { workspaceId: 'ws' })
      expect(none.data?.rows).toEqual([[0]])
      expect((await engine.write('CREATE (:Next)', {}, { workspaceId: 'ws' })).status).toBe('Success')
    } finally {
      await engine.close()
    }
  })
})
