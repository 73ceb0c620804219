import { describe, expect, it } from 'vitest'
import { LabelIndex } from './indexes.js'

describe('LabelIndex', () => {
  it('lists ids in the order they gained the label, skips removed ones and counts exactly', () => {
    const index = new LabelIndex()
    for (const id of [5, 1, 9, 3]) index.add(7, id)
    index.add(8, 1)
    expect([...index.ids(7)]).toEqual([5, 1, 9, 3])
    index.remove(7, 1)
    expect([...index.ids(7)]).toEqual([5, 9, 3])
    expect(index.count(7)).toBe(3)
    index.add(7, 1) // re-added: back in its old place
    expect([...index.ids(7)]).toEqual([5, 1, 9, 3])
    expect([...index.ids(8)]).toEqual([1])
    expect([...index.ids(99)]).toEqual([])
    expect(index.count(99)).toBe(0)
  })

  it('compacts once removals pile up, and stays right through growth', () => {
    const index = new LabelIndex()
    const live = new Set<number>()
    for (let id = 0; id < 20_000; id++) {
      index.add(1, id)
      live.add(id)
    }
    for (let id = 0; id < 20_000; id += 3) {
      index.remove(1, id)
      live.delete(id)
    }
    expect(index.count(1)).toBe(live.size)
    expect([...index.ids(1)]).toEqual([...live])
    for (let id = 0; id < 20_000; id += 6) {
      index.add(1, id)
      live.add(id)
    }
    expect(index.count(1)).toBe(live.size)
    expect(new Set(index.ids(1))).toEqual(live)
  })
})
