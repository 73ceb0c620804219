import { describe, expect, it } from 'vitest'
import { mutateJson } from './json-mutation.js'

describe('mutateJson', () => {
  it('stretches once per value: a stretch inside a stretched array would multiply the JSON', () => {
    const value = { records: [{ a: [{ b: [{ c: 1 }] }] }] }
    let longest = 0
    // Every placement of three stretches of 200 (the generator's maximum) over the value's slots.
    for (let a = 0; a < 8; a++)
      for (let b = 0; b < 40; b++)
        for (let c = 0; c < 40; c += 3) {
          const stretched = mutateJson(value, [
            { op: 'stretch', at: a, times: 200 },
            { op: 'stretch', at: b, times: 200 },
            { op: 'stretch', at: c, times: 200 },
          ])
          longest = Math.max(longest, JSON.stringify(stretched).length)
        }
    // One stretch of 200 copies of the largest element is a few kilobytes; two nested ones were megabytes.
    expect(longest).toBeGreaterThan(200)
    expect(longest).toBeLessThan(20_000)
  })
})
