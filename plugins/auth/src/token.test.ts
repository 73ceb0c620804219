import { describe, expect, it } from 'vitest'
import { routeAccess } from './access.js'
import { basicMatches, bearerMatches } from './token.js'
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

describe('basicMatches', () => {
  const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`
  it('takes any user name with the token as password', () => {
    expect(basicMatches(basic('alice:abc'), 'abc')).toBe(true)
    expect(basicMatches(basic(':abc'), 'abc')).toBe(true)
    expect(basicMatches(basic('a:b:abc'), 'abc')).toBe(false)
    expect(basicMatches(`basic ${Buffer.from('u:abc').toString('base64')}`, 'abc')).toBe(true)
    expect(basicMatches(basic('abc'), 'abc')).toBe(false)
    expect(basicMatches(basic('u:abcd'), 'abc')).toBe(false)
    expect(basicMatches('Bearer abc', 'abc')).toBe(false)
    expect(basicMatches(undefined, 'abc')).toBe(false)
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
    expect(routeAccess('/taxii2/')).toBe('taxii')
    expect(routeAccess('/taxii2/root/collections/:collectionId/objects/')).toBe('taxii')
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
