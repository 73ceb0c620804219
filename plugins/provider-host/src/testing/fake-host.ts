import type { Domain } from '../domains.js'
import { createDomainGates, createDomainProviders, type DomainGates, type DomainProviders } from '../gates.js'
import { type VerifiedLicense, verifyLicense } from '../license.js'
import { generateLicenseKeyPair, issueLicense } from '../license-issuer.js'
import { loadProviderSources } from '../loader.js'
import type { ProviderSource } from '../pack-packages.js'
import { definePack, type PackDescriptor, type PackVocabulary } from '../packs.js'
import type { DomainProvider } from '../provider.js'
import { createRegistry, type ProviderRegistry } from '../registry.js'
import { type FakeProviderOptions, type FakeProviderProbe, fakeProvider } from './fake-provider.js'

export interface TestLicense {
  pem: string
  publicKeyPem: string
}

/** A freshly signed license for `modules` (with a throw-away key pair), valid for a day unless told. */
export function testLicense(
  modules: readonly string[],
  options: { validUntil?: string; tags?: readonly string[]; email?: string } = {},
): TestLicense {
  const keys = generateLicenseKeyPair()
  const pem = issueLicense(
    {
      client_uuid: '6f1c1e2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b',
      client_email: options.email ?? 'pack-tests@example.com',
      modules,
      valid_until: options.validUntil ?? new Date(Date.now() + 86_400_000).toISOString(),
      ...(options.tags === undefined ? {} : { tags: options.tags }),
    },
    keys.privateKeyPem,
  )
  return { pem, publicKeyPem: keys.publicKeyPem }
}

/** A pack with an empty vocabulary, for tests that only care about gating. */
export const testPack = (domain: Domain, vocabulary?: PackVocabulary): PackDescriptor =>
  definePack({ domain, vocabulary: vocabulary ?? { nodes: [], relationships: [] } })

export interface FakeHostOptions {
  /** License modules the fake deployment is licensed for; null (default) runs without a license. */
  licensedModules?: readonly string[] | null
  /** Bound on each provider call (default 5000 ms). */
  requestTimeoutMs?: number
}

/**
 * The host, minus HTTP and native code, for testing a pack: register the pack and an in-process provider
 * standing in for its library, then exercise the same gates and call path the server uses.
 */
export interface FakeHost {
  /** Enables `pack` in the fake deployment; with `provider`, also loads an in-process provider for it. */
  register(
    pack: PackDescriptor,
    provider?: Omit<FakeProviderOptions, 'domain'>,
  ): FakeProviderProbe | undefined
  /** Loads a provider without enabling its pack (an enterprise domain then fails FEATURE_NOT_AVAILABLE). */
  load(provider: FakeProviderOptions): FakeProviderProbe
  /**
   * Enables `pack` with its real native provider, loaded from `source` by the server's own loader (digest,
   * confinement, ABI, metadata, health); the manifest must list the pack's domain only.
   */
  registerNative(pack: PackDescriptor, source: ProviderSource): Promise<void>
  /** Replaces the license: a list of modules signs a fresh one, null removes it. */
  setLicense(modules: readonly string[] | null): void
  readonly gates: DomainGates
  readonly providers: DomainProviders
  readonly registry: ProviderRegistry
  vocabulary(domain: Domain): PackVocabulary | undefined
  /** Labels in `labels` that the domain's registered pack does not define. */
  unknownLabels(domain: Domain, labels: readonly string[]): string[]
  close(): Promise<void>
}

export function createFakeHost(options: FakeHostOptions = {}): FakeHost {
  const packs = new Map<Domain, PackDescriptor>()
  const loaded = new Map<Domain, DomainProvider>()
  let license: VerifiedLicense | null = null
  const setLicense = (modules: readonly string[] | null) => {
    if (modules === null) license = null
    else {
      const signed = testLicense(modules)
      license = verifyLicense(signed.pem, signed.publicKeyPem)
    }
  }
  setLicense(options.licensedModules ?? null)

  const registry = (): ProviderRegistry => createRegistry([...loaded.values()])
  const gates: DomainGates = {
    check: (domain, checkOptions) =>
      createDomainGates({
        registry: registry(),
        enabledPacks: [...packs.values()],
        license: () => license,
      }).check(domain, checkOptions),
  }
  const timeoutMs = options.requestTimeoutMs ?? 5000
  const load = (provider: FakeProviderOptions): FakeProviderProbe => {
    if (loaded.has(provider.domain)) throw new Error(`a ${provider.domain} provider is already loaded`)
    const fake = fakeProvider(provider)
    loaded.set(provider.domain, fake.provider)
    return fake.probe
  }

  return {
    register(pack, provider) {
      packs.set(pack.domain, pack)
      return provider === undefined ? undefined : load({ ...provider, domain: pack.domain })
    },
    load,
    async registerNative(pack, source) {
      if (loaded.has(pack.domain)) throw new Error(`a ${pack.domain} provider is already loaded`)
      const native = await loadProviderSources([{ ...source, domain: pack.domain }])
      const provider = native.get(pack.domain)
      if (provider === undefined) {
        await native.close()
        throw new Error(`the ${pack.domain} provider library listed in ${source.manifestFile} is absent`)
      }
      packs.set(pack.domain, pack)
      loaded.set(pack.domain, provider)
    },
    setLicense,
    gates,
    get registry() {
      return registry()
    },
    get providers() {
      return createDomainProviders(gates, registry(), timeoutMs)
    },
    vocabulary: (domain) => packs.get(domain)?.vocabulary,
    unknownLabels(domain, labels) {
      const known = new Set(packs.get(domain)?.vocabulary.nodes ?? [])
      return labels.filter((l) => !known.has(l))
    },
    close: () => registry().close(),
  }
}
