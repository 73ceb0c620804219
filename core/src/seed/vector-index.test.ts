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

describe('VectorIndex int8 codes', () => {
  it('keeps every cosine within 0.01 of the float one, and the ranking of well-separated neighbours', () => {
    // A deterministic pseudo-random set of 100-d vectors.
    let seed = 42
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed / 2147483648 - 0.5
    }
    const dims = 100
    const vectors = Array.from({ length: 300 }, () => Float32Array.from({ length: dims }, random))
    const index = new VectorIndex(dims, 4) // grows on the way
    for (const [id, vector] of vectors.entries()) index.set(id * 3, vector) // sparse node ids
    const unit = (x: Float32Array) => {
      const norm = Math.hypot(...x)
      return Float32Array.from(x, (c) => c / norm)
    }
    const query = unit(Float32Array.from({ length: dims }, random))
    const exact = vectors.map((vector, id) => {
      const u = unit(vector)
      let dot = 0
      for (let i = 0; i < dims; i++) dot += (u[i] as number) * (query[i] as number)
      return { id: id * 3, similarity: dot }
    })
    for (const e of exact)
      expect(Math.abs((index.similarity(e.id, query) as number) - e.similarity)).toBeLessThan(0.01)
    const best = exact.filter((e) => e.similarity > 0).sort((a, b) => b.similarity - a.similarity)
    const found = index.nearest(query, best.length).map((n) => n.id)
    // Neighbours whose exact cosines differ by more than twice the error bound keep their order.
    for (let i = 0; i + 1 < best.length; i++) {
      const [a, b] = [best[i], best[i + 1]] as [(typeof best)[0], (typeof best)[0]]
      if (a.similarity - b.similarity > 0.02) expect(found.indexOf(a.id)).toBeLessThan(found.indexOf(b.id))
    }
    expect(index.size).toBe(300)
    expect(index.has(3)).toBe(true)
    expect(index.has(4)).toBe(false)
    expect(index.similarity(10_000, query)).toBeUndefined()
  })
})
