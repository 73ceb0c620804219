import { describe, expect, it } from 'vitest'
import { DomainGateError } from './errors.js'
import type { ProviderMetadata } from './protocol.js'
import { DomainProvider, type ProviderBackend } from './provider.js'
import { fakeProvider } from './testing/fake-provider.js'

const metadata = (overrides: Partial<ProviderMetadata> = {}): ProviderMetadata => ({
  schema_version: '1',
  provider_id: 'test.backend',
  provider_version: '1',
  domain: 'medical',
  thread_safe: false,
  max_concurrency: 1,
  max_request_bytes: 1024,
  max_response_bytes: 1024,
  capabilities: [{ name: 'node.validate', version: '1' }],
  ...overrides,
})

/** A backend whose calls finish only when the test says so. */
function manualBackend(meta = metadata()) {
  const calls: { request: unknown; finish: (reply: string | Error) => void }[] = []
  let destroyed = 0
  const backend: ProviderBackend = {
    metadata: meta,
    invoke: (bytes) =>
      new Promise<Buffer>((resolve, reject) => {
        calls.push({
          request: JSON.parse(bytes.toString('utf8')),
          finish: (reply) => (reply instanceof Error ? reject(reply) : resolve(Buffer.from(reply))),
        })
      }),
    destroy: () => {
      destroyed += 1
    },
  }
  return { backend, calls, destroyed: () => destroyed }
}

const reply = (requestId: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    schema_version: '1',
    request_id: requestId,
    status: 'accepted',
    issues: [],
    diagnostics: null,
    ...extra,
  })

const tick = () => new Promise((r) => setTimeout(r, 5))

const gateCode = async (promise: Promise<unknown>) => {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(DomainGateError)
    return {
      code: (error as DomainGateError).code,
      status: (error as DomainGateError).statusCode,
      message: (error as Error).message,
    }
  }
  throw new Error('expected a gate error')
}

describe('DomainProvider', () => {
  it('sends the v1 envelope and returns the checked response', async () => {
    const { provider, probe } = fakeProvider({
      domain: 'research',
      validate: (req) => ({
        status: 'rejected',
        issues: [{ code: 'X', message: 'm', field: 'labels', severity: 'error', node_id: null }],
        diagnostics: { seen: (req.payload as { n: number }).n },
      }),
    })
    const result = await provider.validate(
      { payload: { n: 3 }, requestId: 'req-1', workspaceId: 'ws', snapshotId: null },
      { timeoutMs: 1000 },
    )
    expect(probe.requests[0]).toEqual({
      schema_version: '1',
      request_id: 'req-1',
      domain: 'research',
      operation: 'node.validate',
      workspace_id: 'ws',
      snapshot_id: null,
      payload: { n: 3 },
    })
    expect(result).toEqual({
      schema_version: '1',
      request_id: 'req-1',
      status: 'rejected',
      issues: [{ code: 'X', message: 'm', field: 'labels', severity: 'error', node_id: null }],
      diagnostics: { seen: 3 },
    })
  })

  it('gives a request without request_id (or a blank one) a new UUID', async () => {
    const { provider, probe } = fakeProvider({ domain: 'medical' })
    const a = await provider.validate({ payload: null }, { timeoutMs: 1000 })
    const b = await provider.validate({ payload: null, requestId: '  ' }, { timeoutMs: 1000 })
    expect(a.request_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(b.request_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(a.request_id).not.toBe(b.request_id)
    expect(probe.requests.map((r) => r.request_id)).toEqual([a.request_id, b.request_id])
  })

  it('serialises calls: the second waits for the first', async () => {
    const { backend, calls } = manualBackend()
    const provider = new DomainProvider(backend)
    const first = provider.validate({ payload: 1, requestId: 'a' }, { timeoutMs: 1000 })
    const second = provider.validate({ payload: 2, requestId: 'b' }, { timeoutMs: 1000 })
    await tick()
    expect(calls).toHaveLength(1)
    calls[0]?.finish(reply('a'))
    expect((await first).request_id).toBe('a')
    await tick()
    expect(calls).toHaveLength(2)
    calls[1]?.finish(reply('b'))
    expect((await second).request_id).toBe('b')
  })

  it('never runs two fake calls at once under load', async () => {
    const { provider, probe } = fakeProvider({ domain: 'medical', delayMs: 2 })
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => provider.validate({ payload: i }, { timeoutMs: 5000 })),
    )
    expect(probe.requests).toHaveLength(10)
    expect(probe.maxConcurrent).toBe(1)
  })

  it('times out with 504, holds the queue until the late call returns, and drops a queued call', async () => {
    const { backend, calls } = manualBackend()
    const provider = new DomainProvider(backend)
    const slow = provider.validate({ payload: 1, requestId: 'slow' }, { timeoutMs: 30 })
    const queued = provider.validate({ payload: 2, requestId: 'queued' }, { timeoutMs: 30 })
    expect(await gateCode(slow)).toMatchObject({ code: 'REQUEST_TIMEOUT', status: 504 })
    expect(await gateCode(queued)).toMatchObject({ code: 'REQUEST_TIMEOUT', status: 504 })
    // A new call must wait: the instance is still busy with the late one.
    const next = provider.validate({ payload: 3, requestId: 'next' }, { timeoutMs: 1000 })
    await tick()
    expect(calls).toHaveLength(1)
    expect(provider.pendingCalls).toBe(3)
    calls[0]?.finish(reply('slow'))
    await tick()
    // The queued call whose caller gave up never reached the provider.
    expect(calls).toHaveLength(2)
    expect(calls[1]?.request).toMatchObject({ request_id: 'next' })
    calls[1]?.finish(reply('next'))
    expect((await next).request_id).toBe('next')
  })

  it('turns an abort of the request signal with REQUEST_TIMEOUT into 504', async () => {
    const { backend } = manualBackend()
    const provider = new DomainProvider(backend)
    const controller = new AbortController()
    const call = provider.validate({ payload: 1 }, { timeoutMs: 10_000, signal: controller.signal })
    controller.abort(Object.assign(new Error('handler timeout'), { code: 'REQUEST_TIMEOUT' }))
    expect(await gateCode(call)).toMatchObject({ code: 'REQUEST_TIMEOUT' })
  })

  it('refuses a request above max_request_bytes before calling the provider', async () => {
    const { backend, calls } = manualBackend(metadata({ max_request_bytes: 200 }))
    const provider = new DomainProvider(backend)
    const error = await gateCode(provider.validate({ payload: 'x'.repeat(300) }, { timeoutMs: 1000 }))
    expect(error).toMatchObject({ code: 'DOMAIN_PROVIDER_ERROR', status: 502 })
    expect(error.message).toMatch(/exceeds the provider's max_request_bytes of 200/)
    expect(calls).toHaveLength(0)
  })

  it('fails a reply above max_response_bytes, an empty reply and a failed call with 502', async () => {
    const { backend, calls } = manualBackend(metadata({ max_response_bytes: 150 }))
    const provider = new DomainProvider(backend)
    const big = provider.validate({ payload: 1, requestId: 'a' }, { timeoutMs: 1000 })
    await tick()
    calls[0]?.finish(reply('a', { diagnostics: { pad: 'x'.repeat(200) } }))
    expect((await gateCode(big)).message).toMatch(/exceeds the provider's max_response_bytes of 150/)
    const empty = provider.validate({ payload: 1, requestId: 'b' }, { timeoutMs: 1000 })
    await tick()
    calls[1]?.finish('')
    expect((await gateCode(empty)).message).toMatch(/empty reply/)
    const failed = provider.validate({ payload: 1, requestId: 'c' }, { timeoutMs: 1000 })
    await tick()
    calls[2]?.finish(new Error('invoke returned status 4 (PROVIDER_ERROR)'))
    expect(await gateCode(failed)).toMatchObject({ code: 'DOMAIN_PROVIDER_ERROR', status: 502 })
  })

  it.each([
    ['another request_id', { request_id: 'other' }, /does not echo the request_id/],
    ['schema_version 2', { schema_version: '2' }, /schema_version/],
    ['an unknown status', { status: 'ok' }, /status is not/],
    ['issues not a list', { issues: {} }, /must be an array/],
    ['an issue with a bad severity', { issues: [{ code: 'A', message: 'b', severity: 'info' }] }, /severity/],
    ['diagnostics a string', { diagnostics: 'x' }, /diagnostics is not an object/],
    ['an unknown field', { extra: true }, /unknown field 'extra'/],
  ])('fails a reply with %s with 502', async (_what, change, message) => {
    const { backend, calls } = manualBackend()
    const provider = new DomainProvider(backend)
    const call = provider.validate({ payload: 1, requestId: 'r' }, { timeoutMs: 1000 })
    await tick()
    calls[0]?.finish(reply('r', change))
    const error = await gateCode(call)
    expect(error.code).toBe('DOMAIN_PROVIDER_ERROR')
    expect(error.message).toMatch(message)
  })

  it('passes a failed status through (the generic route answers it as is)', async () => {
    const { provider } = fakeProvider({
      domain: 'fimi',
      validate: () => ({ status: 'failed', issues: [], diagnostics: null }),
    })
    expect((await provider.validate({ payload: {} }, { timeoutMs: 1000 })).status).toBe('failed')
  })

  it('destroys once, after the running call returns', async () => {
    const { backend, calls, destroyed } = manualBackend()
    const provider = new DomainProvider(backend)
    const call = provider.validate({ payload: 1, requestId: 'a' }, { timeoutMs: 1000 })
    await tick()
    const closing = provider.close()
    expect(provider.ready).toBe(false)
    await tick()
    expect(destroyed()).toBe(0)
    calls[0]?.finish(reply('a'))
    await call
    await closing
    await provider.close()
    expect(destroyed()).toBe(1)
    expect((await gateCode(provider.validate({ payload: 1 }, { timeoutMs: 100 }))).code).toBe(
      'DOMAIN_PROVIDER_NOT_READY',
    )
  })
})
