import { describe, expect, it } from 'vitest'
import { fakeHttp } from './fake-http.test-support.js'
import { backoffDelay, RequestFailedError, requestWithRetry, retryAfterMs } from './http.js'

const policy = { maxRetries: 3, baseMs: 100, maxMs: 1000 }
const init = { method: 'GET', timeoutMs: 1000 }

describe('retries', () => {
  it('backs off exponentially with jitter, capped', () => {
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffDelay(policy, n, () => 0))).toEqual([
      50, 100, 200, 400, 500, 500,
    ])
    expect(backoffDelay(policy, 2, () => 0.999999)).toBe(400)
  })

  it('reads Retry-After as seconds or as a date', () => {
    expect(retryAfterMs('3')).toBe(3000)
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4000)).toBe(6000)
    expect(retryAfterMs('soon')).toBeUndefined()
    expect(retryAfterMs(null)).toBeUndefined()
  })

  it('retries 5xx and 429 (honouring Retry-After) and returns the first final answer', async () => {
    const answers = [
      new Response('', { status: 503 }),
      new Response('', { status: 429, headers: { 'retry-after': '2' } }),
      new Response('done', { status: 200 }),
    ]
    const { http, calls, sleeps, events } = fakeHttp(() => answers.shift()!)
    const result = await requestWithRetry(http, policy, 'x', 'http://h/', init)
    expect(result.text).toBe('done')
    expect(calls).toHaveLength(3)
    expect(sleeps).toEqual([75, 2000])
    expect(events.map((e) => e.fields.status)).toEqual([503, 429])
  })

  it('does not retry other 4xx', async () => {
    const { http, calls } = fakeHttp(() => new Response('no', { status: 400 }))
    expect((await requestWithRetry(http, policy, 'x', 'http://h/', init)).status).toBe(400)
    expect(calls).toHaveLength(1)
  })

  it('gives up on network errors after the retries', async () => {
    const { http, calls } = fakeHttp(() => {
      throw new TypeError('fetch failed')
    })
    await expect(requestWithRetry(http, policy, 'x', 'http://h/', init)).rejects.toBeInstanceOf(
      RequestFailedError,
    )
    expect(calls).toHaveLength(4)
  })

  it('returns the last retryable status once the retries are spent', async () => {
    const { http, calls } = fakeHttp(() => new Response('', { status: 502 }))
    expect((await requestWithRetry(http, { ...policy, maxRetries: 0 }, 'x', 'http://h/', init)).status).toBe(
      502,
    )
    expect(calls).toHaveLength(1)
  })
})
