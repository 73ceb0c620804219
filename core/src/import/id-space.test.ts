import { describe, expect, it } from 'vitest'
import { IdSpace } from './id-space.js'

describe('an import id space', () => {
  it('finds what a Map would, for dense, sparse, negative and text keys', () => {
    const space = new IdSpace()
    const reference = new Map<string | number, number>()
    const keys: (string | number)[] = [0, 1, 5, 70_000, 1 << 27, -3, 2 ** 60, 'a', '0', 1.5]
    for (let i = 0; i < 5000; i++) keys.push(i * 3 + 10)
    keys.forEach((key, node) => {
      expect(space.has(key)).toBe(false)
      space.set(key, node)
      reference.set(key, node)
    })
    for (const key of [...keys, 2, 4, 9, 100_000, 1 << 26, 'b', -1, 7.5])
      expect(space.get(key)).toBe(reference.get(key))
  })

  it('treats -0 and 0 as one key, as a Map does', () => {
    const space = new IdSpace()
    space.set(-0, 7)
    expect(space.get(0)).toBe(7)
    expect(space.has(-0)).toBe(true)
  })

  it('still finds a key that went to the map before the table grew past it', () => {
    const space = new IdSpace()
    space.set(10, 0)
    // far beyond what two keys justify: kept in the map
    space.set(500_000, 1)
    // many keys in a run grow the table past 500 000
    for (let i = 11; i < 200_000; i++) space.set(i, i + 2)
    // below the table's start: the map again
    space.set(3, 9)
    expect(space.get(500_000)).toBe(1)
    expect(space.get(10)).toBe(0)
    expect(space.get(3)).toBe(9)
    expect(space.get(199_999)).toBe(200_001)
    expect(space.get(300_000)).toBeUndefined()
    expect(space.get(4)).toBeUndefined()
  })
})
