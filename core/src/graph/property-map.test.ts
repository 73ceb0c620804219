import { describe, expect, it } from 'vitest'
import { PropertyMap } from './property-map.js'
import type { PropertyValue } from './types.js'

/** Random set/delete/clear sequences against a real Map: same answers, same order. */
function parity(keySpace: number, steps: number, seed: number): void {
  let s = seed
  const rand = (n: number) => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0
    return s % n
  }
  const map = new Map<number, PropertyValue>()
  const compact = new PropertyMap()
  for (let i = 0; i < steps; i++) {
    const key = rand(keySpace)
    const roll = rand(100)
    if (roll < 60) {
      const value: PropertyValue = roll % 2 === 0 ? BigInt(i) : `v${i}`
      expect(compact.set(key, value)).toBe(compact)
      map.set(key, value)
    } else if (roll < 98) expect(compact.delete(key)).toBe(map.delete(key))
    else {
      compact.clear()
      map.clear()
    }
    expect(compact.get(key)).toBe(map.get(key))
    expect(compact.has(key)).toBe(map.has(key))
    expect(compact.size).toBe(map.size)
  }
  expect([...compact]).toEqual([...map])
  expect([...compact.keys()]).toEqual([...map.keys()])
  expect([...compact.values()]).toEqual([...map.values()])
  const seen: [number, PropertyValue][] = []
  compact.forEach((value, key, self) => {
    expect(self).toBe(compact)
    seen.push([key, value])
  })
  expect(seen).toEqual([...map.entries()])
}

describe('PropertyMap', () => {
  it('answers as a Map for a handful of keys (the flat form)', () => parity(8, 2000, 1))
  it('answers as a Map past the scan limit (the hashed form) and through the switch', () => {
    parity(200, 5000, 7)
    const many = new PropertyMap(Array.from({ length: 100 }, (_, i) => [i, BigInt(i)] as const))
    expect(many.size).toBe(100)
    expect(many.get(99)).toBe(99n)
    expect([...many.keys()]).toEqual(Array.from({ length: 100 }, (_, i) => i))
  })
  it('keeps a key in place when it is set again, and moves it to the end when re-added', () => {
    const m = PropertyMap.fromDistinct([3, 1, 2], ['a', 'b', 'c'])
    m.set(1, 'B')
    expect([...m]).toEqual([
      [3, 'a'],
      [1, 'B'],
      [2, 'c'],
    ])
    m.delete(3)
    m.set(3, 'z')
    expect([...m.keys()]).toEqual([1, 2, 3])
    expect(new Map(m)).toEqual(new Map([...m]))
  })
  it('builds the hashed form straight away from many distinct keys', () => {
    const keys = Array.from({ length: 40 }, (_, i) => 40 - i)
    const m = PropertyMap.fromDistinct(
      keys,
      keys.map((k) => `v${k}`),
    )
    expect(m.get(1)).toBe('v1')
    expect([...m.keys()]).toEqual(keys)
  })
  it('keeps maps of the same keys independent though they share one shape', () => {
    const a = PropertyMap.fromDistinct([5, 6], ['a5', 'a6'])
    const b = PropertyMap.fromDistinct([5, 6], ['b5', 'b6'])
    const c = PropertyMap.copyOf(a)
    a.set(7, 'a7')
    b.delete(5)
    c.set(6, ['list'])
    expect([...a]).toEqual([
      [5, 'a5'],
      [6, 'a6'],
      [7, 'a7'],
    ])
    expect([...b]).toEqual([[6, 'b6']])
    expect([...c]).toEqual([
      [5, 'a5'],
      [6, ['list']],
    ])
    const d = PropertyMap.fromDistinct([5, 6], ['d5', 'd6'])
    d.set(7, 'd7')
    expect(a.get(7)).toBe('a7')
    expect(d.get(7)).toBe('d7')
  })
})
