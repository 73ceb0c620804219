import { describe, expect, it } from 'vitest'
import { grown, IdList } from './id-list.js'

describe('IdList', () => {
  it('grows, reads, edits, drops its front and hands its ids over', () => {
    const list = new IdList(2)
    for (let id = 0; id < 100; id++) list.push(id * 3)
    expect(list.length).toBe(100)
    expect(list.at(99)).toBe(297)
    list.set(0, -1)
    expect([...list.view(0).subarray(0, 2)]).toEqual([-1, 3])
    list.dropFront(98)
    expect([...list.view()]).toEqual([294, 297])
    list.truncate(1)
    list.push(7)
    expect([...list.take()]).toEqual([294, 7])
    expect(list.length).toBe(0)
    expect(grown(new Uint8Array([1, 2]), 40)).toEqual(
      Uint8Array.from({ length: 64 }, (_, i) => (i < 2 ? i + 1 : 0)),
    )
  })
})
