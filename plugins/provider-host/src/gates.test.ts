import { describe, expect, it } from 'vitest'
import { DOMAINS, type Domain } from './domains.js'
import { DomainGateError } from './errors.js'
import { createDomainGates, createDomainProviders } from './gates.js'
import { type VerifiedLicense, verifyLicense } from './license.js'
import type { PackDescriptor } from './packs.js'
import { createRegistry } from './registry.js'
import { testLicense, testPack } from './testing/fake-host.js'
import { type FakeProviderOptions, fakeProvider } from './testing/fake-provider.js'

const licensed = (modules: string[]): VerifiedLicense => {
  const { pem, publicKeyPem } = testLicense(modules)
  return verifyLicense(pem, publicKeyPem)
}

function gates(options: {
  packs?: PackDescriptor[]
  license?: VerifiedLicense | null
  providers?: FakeProviderOptions[]
}) {
  const registry = createRegistry((options.providers ?? []).map((p) => fakeProvider(p).provider))
  const g = createDomainGates({
    registry,
    enabledPacks: options.packs ?? DOMAINS.map((d) => testPack(d)),
    license: () => options.license ?? null,
  })
  return { gates: g, providers: createDomainProviders(g, registry, 1000) }
}

const refusal = (fn: () => unknown) => {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(DomainGateError)
    return `${(error as DomainGateError).statusCode} ${(error as DomainGateError).code}`
  }
  return 'passed'
}

const all = (domain: Domain): FakeProviderOptions => ({ domain })

describe('domain gates', () => {
  it('refuses an unknown domain with 400 INVALID_DOMAIN before anything else', () => {
    const { gates: g } = gates({ packs: [], license: null })
    expect(refusal(() => g.check('finance'))).toBe('400 INVALID_DOMAIN')
    expect(refusal(() => g.check(''))).toBe('400 INVALID_DOMAIN')
  })

  it('reads the domain trimmed and in any case', () => {
    const { gates: g } = gates({ providers: [all('medical')] })
    expect(g.check('  MeDiCaL ').domain).toBe('medical')
  })

  it('checks enterprise domains in order: feature, license, loaded, capability', () => {
    const noPack = gates({ packs: [], license: null })
    expect(refusal(() => noPack.gates.check('cti'))).toBe('403 FEATURE_NOT_AVAILABLE')

    const noClaim = gates({ license: licensed(['fimi']) })
    expect(refusal(() => noClaim.gates.check('cti'))).toBe('403 LICENSE_MODULE_MISSING')
    const noLicense = gates({ license: null })
    expect(refusal(() => noLicense.gates.check('crisis'))).toBe('403 LICENSE_MODULE_MISSING')

    const notLoaded = gates({ license: licensed(['cti']) })
    expect(refusal(() => notLoaded.gates.check('cti'))).toBe('503 DOMAIN_PROVIDER_NOT_READY')

    const noCapability = gates({
      license: licensed(['cti']),
      providers: [{ domain: 'cti', metadata: { capabilities: [{ name: 'node.validate', version: '2' }] } }],
    })
    expect(refusal(() => noCapability.gates.check('cti'))).toBe('503 DOMAIN_PROVIDER_CAPABILITY_MISSING')

    const notReady = gates({ license: licensed(['cti']), providers: [{ domain: 'cti', ready: false }] })
    expect(refusal(() => notReady.gates.check('cti'))).toBe('503 DOMAIN_PROVIDER_CAPABILITY_MISSING')

    const open = gates({ license: licensed(['cti']), providers: [all('cti')] })
    expect(open.gates.check('CTI').domain).toBe('cti')
  })

  it('uses the pack module name for the license claim', () => {
    const pack = { ...testPack('fimi'), module: 'influence' }
    expect(
      refusal(() =>
        gates({ packs: [pack], license: licensed(['fimi']), providers: [all('fimi')] }).gates.check('fimi'),
      ),
    ).toBe('403 LICENSE_MODULE_MISSING')
    expect(
      gates({ packs: [pack], license: licensed(['influence']), providers: [all('fimi')] }).gates.check('fimi')
        .domain,
    ).toBe('fimi')
  })

  it('gates medical and research only on readiness and capability', () => {
    const { gates: g } = gates({ packs: [], license: null, providers: [all('research')] })
    expect(g.check('research').domain).toBe('research')
    expect(refusal(() => g.check('medical'))).toBe('503 DOMAIN_PROVIDER_NOT_READY')
  })

  it('lets a caller skip the capability gate (seed-search profiles)', () => {
    const { gates: g } = gates({
      license: licensed(['cti']),
      providers: [{ domain: 'cti', metadata: { capabilities: [] } }],
    })
    expect(refusal(() => g.check('cti'))).toBe('503 DOMAIN_PROVIDER_CAPABILITY_MISSING')
    expect(g.check('cti', { capability: null }).domain).toBe('cti')
  })

  it('validate gates first and never calls a refused provider', async () => {
    const fake = fakeProvider({ domain: 'cti' })
    const registry = createRegistry([fake.provider])
    const g = createDomainGates({ registry, enabledPacks: [testPack('cti')], license: () => null })
    const providers = createDomainProviders(g, registry, 1000)
    await expect(providers.validate('cti', {})).rejects.toMatchObject({ code: 'LICENSE_MODULE_MISSING' })
    expect(fake.probe.requests).toHaveLength(0)
  })

  it('validate forwards ids and payload', async () => {
    const fake = fakeProvider({ domain: 'medical' })
    const registry = createRegistry([fake.provider])
    const providers = createDomainProviders(
      createDomainGates({ registry, enabledPacks: [], license: () => null }),
      registry,
      1000,
    )
    const result = await providers.validate(
      'medical',
      { labels: ['Study'] },
      { requestId: 'r1', workspaceId: 'w', snapshotId: 's' },
    )
    expect(result.request_id).toBe('r1')
    expect(fake.probe.requests[0]).toMatchObject({
      workspace_id: 'w',
      snapshot_id: 's',
      payload: { labels: ['Study'] },
    })
  })
})
