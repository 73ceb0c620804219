import { describe, expect, it } from 'vitest'
import { memoize } from './memo.js'

describe('memoize', () => {
  it('computes a key once, and forgets everything past its bound', () => {
    let calls = 0
    const length = memoize((key) => {
      calls++
      return key.length
    }, 2)
    expect([length('a'), length('bb'), length('a')]).toEqual([1, 2, 1])
    expect(calls).toBe(2)
    length('ccc') // third key: the table starts over
    length('a')
    expect(calls).toBe(4)
  })
})
