import type { FastifyInstance } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { testLicense, testPack } from './testing/fake-host.js'
import { fakeProvider } from './testing/fake-provider.js'
import { buildProviderHostTestApp } from './testing/test-app.js'

let app: FastifyInstance | undefined
afterEach(async () => {
  await app?.close()
  app = undefined
})

const validate = (a: FastifyInstance, domain: string, body: unknown) =>
  a.inject({ method: 'POST', url: `/v1/domains/${domain}/validate`, payload: body as object })

describe('POST /v1/domains/:domain/validate', () => {
  it('answers the provider response in the success envelope', async () => {
    const medical = fakeProvider({
      domain: 'medical',
      validate: () => ({
        status: 'rejected',
        issues: [
          {
            code: 'EVIDENCE_REQUIRED',
            message: 'needs evidence',
            field: 'evidence_refs',
            severity: 'error',
            node_id: null,
          },
        ],
        diagnostics: null,
      }),
    })
    app = await buildProviderHostTestApp({ providers: [medical.provider] })
    const response = await validate(app, 'medical', {
      payload: { labels: ['Finding'] },
      request_id: 'req-42',
      workspace_id: 'ws-1',
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      ok: true,
      result: {
        schema_version: '1',
        request_id: 'req-42',
        status: 'rejected',
        issues: [
          {
            code: 'EVIDENCE_REQUIRED',
            message: 'needs evidence',
            field: 'evidence_refs',
            severity: 'error',
            node_id: null,
          },
        ],
        diagnostics: null,
      },
    })
    expect(medical.probe.requests[0]).toMatchObject({
      workspace_id: 'ws-1',
      snapshot_id: null,
      domain: 'medical',
    })
  })

  it('forwards any JSON payload untouched, null and arrays included', async () => {
    const research = fakeProvider({ domain: 'research' })
    app = await buildProviderHostTestApp({ providers: [research.provider] })
    for (const payload of [null, [1, 'two', { three: 3 }], 'text', 0, { nested: { deep: [true] } }]) {
      expect((await validate(app, 'research', { payload })).statusCode).toBe(200)
    }
    expect(research.probe.requests.map((r) => r.payload)).toEqual([
      null,
      [1, 'two', { three: 3 }],
      'text',
      0,
      { nested: { deep: [true] } },
    ])
  })

  it('requires payload (400 INVALID_REQUEST) and reads the domain in any case', async () => {
    app = await buildProviderHostTestApp({ providers: [fakeProvider({ domain: 'medical' }).provider] })
    const missing = await validate(app, 'medical', { request_id: 'x' })
    expect(missing.statusCode).toBe(400)
    expect(missing.json().error.code).toBe('INVALID_REQUEST')
    expect((await validate(app, 'MEDICAL', { payload: {} })).statusCode).toBe(200)
    expect((await validate(app, '%20medical%20', { payload: {} })).statusCode).toBe(200)
  })

  it('answers each gate in order with its envelope', async () => {
    const cti = fakeProvider({
      domain: 'cti',
      validate: () => ({ status: 'accepted', issues: [], diagnostics: null }),
    })
    const fimi = fakeProvider({ domain: 'fimi', metadata: { capabilities: [] } })
    const crisis = fakeProvider({
      domain: 'crisis',
      validate: () => {
        throw new Error('invoke returned status 4 (PROVIDER_ERROR)')
      },
    })
    app = await buildProviderHostTestApp({
      providers: [cti.provider, fimi.provider, crisis.provider],
      packs: [testPack('cti'), testPack('fimi'), testPack('crisis')],
      license: ['cti', 'fimi', 'crisis'],
    })
    const code = async (domain: string) => {
      const r = await validate(app as FastifyInstance, domain, { payload: {} })
      return `${r.statusCode} ${r.json().ok === true ? 'OK' : r.json().error.code}`
    }
    expect(await code('finance')).toBe('400 INVALID_DOMAIN')
    expect(await code('cti')).toBe('200 OK')
    expect(await code('fimi')).toBe('503 DOMAIN_PROVIDER_CAPABILITY_MISSING')
    expect(await code('crisis')).toBe('502 DOMAIN_PROVIDER_ERROR')
    expect(await code('medical')).toBe('503 DOMAIN_PROVIDER_NOT_READY')
  })

  it('answers 403 FEATURE_NOT_AVAILABLE and LICENSE_MODULE_MISSING', async () => {
    app = await buildProviderHostTestApp({
      providers: [fakeProvider({ domain: 'cti' }).provider, fakeProvider({ domain: 'fimi' }).provider],
      packs: [testPack('fimi')],
      license: ['crisis'],
    })
    const cti = await validate(app, 'cti', { payload: {} })
    expect(cti.statusCode).toBe(403)
    expect(cti.json()).toMatchObject({ ok: false, error: { code: 'FEATURE_NOT_AVAILABLE' } })
    const fimi = await validate(app, 'fimi', { payload: {} })
    expect(fimi.statusCode).toBe(403)
    expect(fimi.json().error.code).toBe('LICENSE_MODULE_MISSING')
  })

  it('answers 504 REQUEST_TIMEOUT when the provider is slower than the request timeout', async () => {
    const slow = fakeProvider({ domain: 'medical', delayMs: 300 })
    app = await buildProviderHostTestApp({ providers: [slow.provider], requestTimeoutMs: 100 })
    const response = await validate(app, 'medical', { payload: {} })
    expect(response.statusCode).toBe(504)
    expect(response.json().error.code).toBe('REQUEST_TIMEOUT')
  })

  it('answers 502 when the request exceeds the provider max_request_bytes', async () => {
    const small = fakeProvider({ domain: 'research', metadata: { max_request_bytes: 256 } })
    app = await buildProviderHostTestApp({ providers: [small.provider] })
    const response = await validate(app, 'research', { payload: { text: 'x'.repeat(512) } })
    expect(response.statusCode).toBe(502)
    expect(response.json().error).toMatchObject({ code: 'DOMAIN_PROVIDER_ERROR' })
    expect(small.probe.requests).toHaveLength(0)
  })
})

describe('license and provider status routes', () => {
  it('report no license and no providers', async () => {
    app = await buildProviderHostTestApp()
    for (const url of ['/v1/license/status', '/v1/admin/license/status']) {
      const response = await app.inject({ method: 'GET', url })
      expect(response.json()).toEqual({
        ok: true,
        result: {
          source: 'none',
          client_uuid: null,
          client_email: null,
          modules: [],
          valid_until: null,
          is_nfr: false,
        },
      })
    }
    expect((await app.inject({ method: 'GET', url: '/v1/admin/domain-providers/status' })).json()).toEqual({
      ok: true,
      result: { providers: [] },
    })
  })

  it('report the signed license summary', async () => {
    const license = testLicense(['CTI', 'fimi'], {
      validUntil: '2099-01-01T00:00:00Z',
      tags: ['nfr'],
      email: 'A@B.example',
    })
    app = await buildProviderHostTestApp({ license })
    const response = await app.inject({ method: 'GET', url: '/v1/license/status' })
    expect(response.json()).toEqual({
      ok: true,
      result: {
        source: 'signed_pem',
        client_uuid: '6f1c1e2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b',
        client_email: 'a@b.example',
        modules: ['cti', 'fimi'],
        valid_until: '2099-01-01T00:00:00Z',
        is_nfr: true,
      },
    })
  })

  it('list loaded providers of all five domains', async () => {
    app = await buildProviderHostTestApp({
      providers: [fakeProvider({ domain: 'cti' }).provider, fakeProvider({ domain: 'research' }).provider],
    })
    const response = await app.inject({ method: 'GET', url: '/v1/admin/domain-providers/status' })
    expect(response.json().result.providers).toEqual([
      {
        provider_id: 'test.fake.cti',
        provider_version: '0.0.0-test',
        domain: 'cti',
        capabilities: [{ name: 'node.validate', version: '1' }],
        ready: true,
      },
      {
        provider_id: 'test.fake.research',
        provider_version: '0.0.0-test',
        domain: 'research',
        capabilities: [{ name: 'node.validate', version: '1' }],
        ready: true,
      },
    ])
  })

  it('feed the operations figures', async () => {
    app = await buildProviderHostTestApp({ providers: [fakeProvider({ domain: 'medical' }).provider] })
    expect(app.operations.sources.domainProviders()).toEqual({
      configured: 1,
      ready: 1,
      all_required_ready: true,
    })
    const metrics = await app.inject({ method: 'GET', url: '/metrics' })
    expect(metrics.body).toMatch(/service_domain_providers_ready 1/)
  })

  it('refuse to register with an invalid license', async () => {
    const license = testLicense(['cti'])
    const other = testLicense(['cti'])
    await expect(
      buildProviderHostTestApp({ license: { pem: license.pem, publicKeyPem: other.publicKeyPem } }),
    ).rejects.toThrow(/signature does not verify/)
  })
})
