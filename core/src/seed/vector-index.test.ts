import { describe, expect, it } from 'vitest'
import { VectorIndex } from './vector-index.js'

const v = (...x: number[]) => Float32Array.from(x)

describe('VectorIndex', () => {
  it('finds exact nearest neighbours by cosine, ties by node id', () => {
    const index = new VectorIndex(2, 1)
    index.set(5, v(1, 0))
    index.set(3, v(2, 0))
    index.set(7, v(0, 1))
    index.set(9, v(1, 1))
    index.set(11, v(-1, 0))
    const q = v(1, 0)
    expect(index.nearest(q, 3).map((n) => n.id)).toEqual([3, 5, 9])
    expect(index.nearest(q, 10).map((n) => n.id)).toEqual([3, 5, 9]) // 7 (cos 0) and 11 (cos -1) are out
    expect(index.similarity(9, q)).toBeCloseTo(Math.SQRT1_2, 6)
  })
  it('updates, removes and reuses slots', () => {
    const index = new VectorIndex(2, 1)
    index.set(1, v(1, 0))
    index.set(2, v(0, 1))
    index.remove(1)
    index.set(3, v(1, 0.1))
    index.set(2, v(1, 0))
    index.set(4, v(0, 0)) // zero vector: not stored
    expect(index.size).toBe(2)
    expect(index.nearest(v(1, 0), 5).map((n) => n.id)).toEqual([2, 3])
  })
})
