import { describe, expect, it } from 'vitest'
import { fitItems } from './budget.js'
import { derivedKey } from './tools/memory-tools.js'

describe('derivedKey', () => {
  it('is the same for the same tool and canonical input (key order, null versus absent), else different', () => {
    const a = derivedKey('remember', { kind: 'k', tags: ['x'], confidence: null })
    expect(derivedKey('remember', { tags: ['x'], kind: 'k' })).toBe(a)
    expect(derivedKey('relate', { tags: ['x'], kind: 'k' })).not.toBe(a)
    expect(derivedKey('remember', { tags: ['y'], kind: 'k' })).not.toBe(a)
    expect(a).toMatch(/^mcp-[0-9a-f]{64}$/)
    expect(a.length).toBeLessThanOrEqual(256)
  })
})

describe('fitItems', () => {
  const items = Array.from({ length: 10 }, (_, i) => ({ i, pad: 'x'.repeat(90) }))
  const size = JSON.stringify(items[0]).length + 1

  it('takes whole items up to the budget and says where the next page starts', () => {
    const page = fitItems(items, 0, 3 * size + 100, 100)
    expect(page.page).toHaveLength(3)
    expect(page).toMatchObject({ end: 3, more: true })
    const last = fitItems(items, 9, 3 * size + 100, 100)
    expect(last).toMatchObject({ end: 10, more: false })
  })

  it('returns one item even when it alone is over the budget, so paging always moves on', () => {
    expect(fitItems(items, 4, 10, 0)).toMatchObject({ end: 5, more: true })
    expect(fitItems([], 0, 10, 0)).toMatchObject({ page: [], end: 0, more: false })
  })
})
