import { describe, expect, it } from 'vitest'
import { openEngine } from '../runtime/index.js'

describe('one id space per engine', () => {
  it('never hands the same node or relationship id to two workspaces (old directories: storage/main-format-compat.test.ts)', async () => {
    const engine = await openEngine()
    try {
      const create = (ws: string) =>
        engine.transact(ws, (tx) => {
          const a = tx.createNode([], new Map())
          const b = tx.createNode([], new Map())
          return { a, b, rel: tx.createRelationship(tx.names.id('R'), a, b, new Map()) }
        })
      const one = (await create('workspace--one')).value
      const two = (await create('workspace--two')).value
      const again = (await create('workspace--one')).value
      const nodes = [one.a, one.b, two.a, two.b, again.a, again.b]
      expect(new Set(nodes).size).toBe(6)
      expect(new Set([one.rel, two.rel, again.rel]).size).toBe(3)
      // Each workspace reads only its own records under those ids.
      const seen = await engine.readGraph('workspace--two', (store) => [
        store.node(two.a) !== undefined,
        store.node(one.a) !== undefined,
      ])
      expect(seen).toEqual([true, false])
    } finally {
      await engine.close()
    }
  })
})
