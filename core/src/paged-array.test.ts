import { describe, expect, it } from 'vitest'
import { PAGE_IDS, PagedArray } from './paged-array.js'

describe('PagedArray', () => {
  it('reads the empty value for ids never written, negative ids included', () => {
    const column = new PagedArray(Int32Array, 1, -1)
    expect(column.get(0)).toBe(-1)
    expect(column.get(-5)).toBe(-1)
    expect(column.get(10 * PAGE_IDS)).toBe(-1)
    column.set(3, 7)
    expect(column.get(3)).toBe(7)
    // The rest of a page made by a write holds the empty value too.
    expect(column.get(4)).toBe(-1)
  })

  it('makes pages only for the ids written: a few ids far from 0 cost one page', () => {
    const column = new PagedArray(Float64Array)
    const first = 2_000_000
    for (let id = first; id < first + 100; id++) column.set(id, id * 1.5)
    expect(column.bytes).toBe(PAGE_IDS * 8)
    expect(column.limit).toBeGreaterThan(first + 99)
    expect([...column.pageStarts()]).toEqual([Math.floor(first / PAGE_IDS) * PAGE_IDS])
    for (let id = first; id < first + 100; id++) expect(column.get(id)).toBe(id * 1.5)
    expect(column.get(first - 1)).toBe(0)
  })

  it('keeps `width` numbers per id side by side, across page edges', () => {
    const column = new PagedArray(Uint16Array, 3)
    const ids = [0, PAGE_IDS - 1, PAGE_IDS, 5 * PAGE_IDS + 17]
    for (const id of ids) for (let f = 0; f < 3; f++) column.set(id, (id % 1000) + f, f)
    for (const id of ids) for (let f = 0; f < 3; f++) expect(column.get(id, f)).toBe((id % 1000) + f)
    const page = column.pageOf(PAGE_IDS) as Uint16Array
    expect(page[column.offset(PAGE_IDS) + 2]).toBe((PAGE_IDS % 1000) + 2)
    expect([...column.pageStarts()]).toEqual([0, PAGE_IDS, 5 * PAGE_IDS])
  })

  it('agrees with a plain map over random writes', () => {
    let seed = 7
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      return seed
    }
    const column = new PagedArray(Int32Array)
    const expected = new Map<number, number>()
    for (let i = 0; i < 5000; i++) {
      const id = random() % (40 * PAGE_IDS)
      const value = random() - 0x40000000
      column.set(id, value)
      expected.set(id, value)
    }
    for (const [id, value] of expected) expect(column.get(id)).toBe(value)
    let written = 0
    for (const first of column.pageStarts())
      for (let id = first; id < first + PAGE_IDS; id++) if (expected.has(id)) written++
    expect(written).toBe(expected.size)
    column.clear()
    expect(column.bytes).toBe(0)
  })

  it('refuses to write an id that is not a record id', () => {
    const column = new PagedArray(Uint8Array)
    expect(() => column.set(-1, 1)).toThrow(RangeError)
    expect(() => column.set(1.5, 1)).toThrow(RangeError)
  })
})
