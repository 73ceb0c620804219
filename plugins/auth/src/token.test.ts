import { describe, expect, it } from 'vitest'
import { routeAccess } from './access.js'
import { bearerMatches } from './token.js'
import { TokenBucket } from './token-bucket.js'

describe('bearerMatches', () => {
  it('accepts exactly "Bearer <token>"', () => {
    expect(bearerMatches('Bearer abc', 'abc')).toBe(true)
    expect(bearerMatches('bearer abc', 'abc')).toBe(false)
    expect(bearerMatches('Bearer abc ', 'abc')).toBe(false)
    expect(bearerMatches('Bearer ab', 'abc')).toBe(false)
    expect(bearerMatches('Bearer abcd', 'abc')).toBe(false)
    expect(bearerMatches(undefined, 'abc')).toBe(false)
  })
})

describe('routeAccess', () => {
  it('classifies by URL pattern', () => {
    expect(routeAccess('/v1/admin/license/status')).toBe('admin')
    expect(routeAccess('/v1/cypher/read')).toBe('bearer')
    expect(routeAccess('/v1/administrator')).toBe('bearer')
    expect(routeAccess('/health')).toBe('operational')
    expect(routeAccess('/metrics')).toBe('operational')
    expect(routeAccess('/something-else')).toBe('bearer')
  })
})

describe('TokenBucket', () => {
  it('allows a burst, then refills at the rate', () => {
    let now = 0
    const bucket = new TokenBucket(10, 3, () => now)
    expect(bucket.take().ok).toBe(true)
    expect(bucket.take().ok).toBe(true)
    expect(bucket.take().ok).toBe(true)
    const refused = bucket.take()
    expect(refused).toEqual({ ok: false, retryAfterMs: 100 })
    now = 100
    expect(bucket.take().ok).toBe(true)
    expect(bucket.take().ok).toBe(false)
    now = 10_000
    for (let i = 0; i < 3; i++) expect(bucket.take().ok).toBe(true)
    expect(bucket.take().ok).toBe(false)
  })
})
