import { describe, expect, it } from 'vitest'
import { GraphStore } from './store.js'

/** A deterministic generator: the same edges on every run. */
function lcg(seed: number) {
  let s = seed
  return (n: number) => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0
    return s % n
  }
}

describe('edges added to stored nodes in a transaction', () => {
  it('read as if the lists were copied, whether read before, between or after the adds, and publish the same', () => {
    const store = new GraphStore()
    const type = store.names.id('R')
    const seedTx = store.begin()
    const nodes = Array.from({ length: 8 }, () => seedTx.createNode([], new Map()))
    for (let i = 0; i < 12; i++)
      seedTx.createRelationship(type, nodes[i % 8]!, nodes[(i * 3) % 8]!, new Map())
    store.publish(seedTx.prepare(), 1)
    const rand = lcg(5)
    for (let round = 0; round < 30; round++) {
      const tx = store.begin()
      // The lists as a copy-on-write overlay would hold them, kept by hand.
      const out = new Map(nodes.map((id) => [id, [...store.node(id)!.out]]))
      const into = new Map(nodes.map((id) => [id, [...store.node(id)!.in]]))
      const storeBefore = nodes.map((id) => [[...store.node(id)!.out], [...store.node(id)!.in]])
      for (let i = 0; i < 10; i++) {
        const roll = rand(5)
        const a = nodes[rand(8)]!
        const b = nodes[rand(8)]!
        if (roll < 3) {
          const rel = tx.createRelationship(type, a, b, new Map())
          out.get(a)!.push(rel)
          into.get(b)!.push(rel)
        } else if (roll === 3) {
          expect(tx.node(a)?.out).toEqual(out.get(a))
          expect(tx.node(b)?.in).toEqual(into.get(b))
        } else {
          const rel = tx.node(a)?.out[0]
          if (rel === undefined) continue
          const end = tx.relEnd(rel)
          tx.deleteRelationship(rel)
          out.get(a)!.splice(out.get(a)!.indexOf(rel), 1)
          into.get(end)!.splice(into.get(end)!.indexOf(rel), 1)
        }
      }
      for (const id of nodes) {
        expect(tx.node(id)?.out).toEqual(out.get(id))
        expect(tx.node(id)?.in).toEqual(into.get(id))
      }
      // The store is untouched until publish, then holds the same edges (in any order: it applies the ops).
      expect(nodes.map((id) => [[...store.node(id)!.out], [...store.node(id)!.in]])).toEqual(storeBefore)
      store.publish(tx.prepare(), round + 2)
      for (const id of nodes) {
        expect([...store.node(id)!.out].sort()).toEqual([...out.get(id)!].sort())
        expect([...store.node(id)!.in].sort()).toEqual([...into.get(id)!].sort())
      }
    }
  })
})
