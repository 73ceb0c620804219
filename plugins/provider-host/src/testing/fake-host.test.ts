import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { definePack } from '../packs.js'
import { createFakeHost, testPack } from './fake-host.js'

const testProviders = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../build/test-providers')
const noopBuilt = existsSync(join(testProviders, 'manifest.noop.json'))

/** How a third-party pack would test itself against the fake host. */
const influencePack = definePack({
  domain: 'fimi',
  module: 'fimi',
  vocabulary: { nodes: ['Actor', 'Narrative', 'Claim'], relationships: ['Amplifies'] },
})

describe('the fake host', () => {
  it('applies the enterprise gates to a registered pack in order', async () => {
    const host = createFakeHost()
    expect(() => host.gates.check('fimi')).toThrow(expect.objectContaining({ code: 'FEATURE_NOT_AVAILABLE' }))
    const probe = host.register(influencePack, {
      validate: (request) => {
        const labels = (request.payload as { labels?: string[] }).labels ?? []
        const unknown = host.unknownLabels('fimi', labels)
        return unknown.length === 0
          ? { status: 'accepted', issues: [], diagnostics: null }
          : {
              status: 'rejected',
              issues: unknown.map((label) => ({
                code: 'FIMI_NODE_TYPE_REQUIRED',
                message: `unknown label ${label}`,
                field: 'labels',
                severity: 'error' as const,
                node_id: null,
              })),
              diagnostics: null,
            }
      },
    })
    expect(() => host.gates.check('fimi')).toThrow(
      expect.objectContaining({ code: 'LICENSE_MODULE_MISSING' }),
    )
    host.setLicense(['fimi'])
    expect(host.gates.check('fimi').domain).toBe('fimi')

    const accepted = await host.providers.validate('fimi', { labels: ['Narrative'] }, { requestId: 'r-1' })
    expect(accepted).toMatchObject({ request_id: 'r-1', status: 'accepted' })
    const rejected = await host.providers.validate('fimi', { labels: ['Author'] })
    expect(rejected.issues.map((i) => i.code)).toEqual(['FIMI_NODE_TYPE_REQUIRED'])
    expect(probe?.requests).toHaveLength(2)

    host.setLicense(null)
    await expect(host.providers.validate('fimi', {})).rejects.toMatchObject({
      code: 'LICENSE_MODULE_MISSING',
    })
    await host.close()
    expect(probe?.destroyed).toBe(1)
  })

  it('exposes the vocabulary and reports a missing provider as not ready', () => {
    const host = createFakeHost({ licensedModules: ['fimi'] })
    host.register(influencePack)
    expect(host.vocabulary('fimi')?.nodes).toContain('Claim')
    expect(() => host.gates.check('fimi')).toThrow(
      expect.objectContaining({ code: 'DOMAIN_PROVIDER_NOT_READY' }),
    )
  })

  it('applies only readiness and capability to open domains', async () => {
    const host = createFakeHost()
    host.load({ domain: 'medical', metadata: { capabilities: [] } })
    expect(() => host.gates.check('medical')).toThrow(
      expect.objectContaining({ code: 'DOMAIN_PROVIDER_CAPABILITY_MISSING' }),
    )
    host.load({ domain: 'research' })
    await expect(host.providers.validate('research', { labels: ['Claim'] })).resolves.toMatchObject({
      status: 'accepted',
    })
    expect(() => host.load({ domain: 'research' })).toThrow(/already loaded/)
  })

  it('times out a slow provider with the host timeout', async () => {
    const host = createFakeHost({ requestTimeoutMs: 30 })
    host.load({ domain: 'research', delayMs: 200 })
    await expect(host.providers.validate('research', {})).rejects.toMatchObject({
      code: 'REQUEST_TIMEOUT',
      statusCode: 504,
    })
  })
})

describe.skipIf(!noopBuilt)('the fake host with a real provider library', () => {
  it("loads it with the server's loader and gates, for the pack's domain only", async () => {
    const host = createFakeHost({ licensedModules: ['cti'] })
    const source = { dir: testProviders, manifestFile: join(testProviders, 'manifest.noop.json') }
    await expect(host.registerNative(testPack('medical'), source)).rejects.toThrow(
      /must list exactly the medical provider \(it lists cti\)/,
    )
    await host.registerNative(testPack('cti'), source)
    const response = await host.providers.validate('cti', { labels: ['Malware'] })
    expect(response.status).toBe('accepted')
    await expect(host.registerNative(testPack('cti'), source)).rejects.toThrow(/already loaded/)
    host.setLicense(null)
    await expect(host.providers.validate('cti', {})).rejects.toMatchObject({ code: 'LICENSE_MODULE_MISSING' })
    await host.close()
  })
})
