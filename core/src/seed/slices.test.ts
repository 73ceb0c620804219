import { describe, expect, it } from 'vitest'
import { inSlices } from './slices.js'

describe('inSlices', () => {
  it('sizes slices from the measured rate so each takes about the target, and stops when the work is done', async () => {
    let clock = 0
    const sizes: number[] = []
    let left = 10_000
    // Each unit costs 0.05 ms on this clock: an 8 ms slice is 160 units.
    await inSlices(
      (units) => {
        sizes.push(units)
        const done = Math.min(units, left)
        left -= done
        clock += done * 0.05
        return left === 0
      },
      { targetMs: 8, first: 64, now: () => clock },
    )
    expect(left).toBe(0)
    expect(sizes[0]).toBe(64)
    expect(sizes.slice(2, -1).every((n) => n === 160)).toBe(true)
  })

  it('grows at most fourfold per slice after a cheap one', async () => {
    let clock = 0
    const sizes: number[] = []
    await inSlices(
      (units) => {
        sizes.push(units)
        clock += sizes.length === 1 ? 0 : units
        return sizes.length === 4
      },
      { targetMs: 8, first: 10, now: () => clock },
    )
    expect(sizes).toEqual([10, 40, 8, 8])
  })
})
