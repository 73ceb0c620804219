import { describe, expect, it } from 'vitest'
import { buildColumn, ColumnCache } from './columns.js'
import type { PropertyValue } from './types.js'

const maps = new Map<number, Map<number, PropertyValue>>([
  [
    3,
    new Map<number, PropertyValue>([
      [0, 'a'],
      [1, 1n],
    ]),
  ],
  [
    5,
    new Map<number, PropertyValue>([
      [0, 'b'],
      [1, 1.5],
    ]),
  ],
  [8, new Map<number, PropertyValue>([[0, 'a']])],
])
const read = (id: number) => maps.get(id)

describe('property columns', () => {
  it('lays a property out in id order, dictionary-coding an all-string column', () => {
    const names = buildColumn(Int32Array.from([3, 5, 8, 9]), read, 0)
    expect([...names.ids]).toEqual([3, 5, 8, 9])
    expect(names.values).toEqual(['a', 'b', 'a', null])
    expect([...(names.codes ?? [])]).toEqual([0, 1, 0, -1])
    expect(names.dictionary).toEqual(['a', 'b'])
    const numbers = buildColumn(Int32Array.from([3, 5, 8]), read, 1)
    expect(numbers.values).toEqual([1n, 1.5, null])
    expect(numbers.codes).toBeUndefined()
  })

  it('caches per label until the label is touched, and starts over past its cell budget', () => {
    const cache = new ColumnCache(8)
    let scans = 0
    const scan = () => {
      scans++
      return [3, 5, 8]
    }
    const first = cache.column(7, 0, scan, read)
    expect(cache.column(7, 0, scan, read)).toBe(first)
    expect(scans).toBe(1)
    cache.touched([7])
    expect(cache.column(7, 0, scan, read)).not.toBe(first)
    expect(scans).toBe(2)
    // Label 7 holds 3 ids + 3 cells; label 9 needs 6 more, past the budget of 8: label 7 is dropped.
    cache.column(9, 0, scan, read)
    expect(scans).toBe(3)
    cache.column(7, 0, scan, read)
    expect(scans).toBe(4)
  })
})
