import type { Operations } from '@service/plugin-operations'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Domain } from './domains.js'
import { createDomainGates, createDomainProviders, type DomainGates, type DomainProviders } from './gates.js'
import {
  type LicenseSettings,
  type LicenseSummary,
  licenseClaims,
  licenseSummary,
  loadLicense,
} from './license.js'
import { loadProviderSources, type ProviderSourceOptions } from './loader.js'
import type { PackDescriptor } from './packs.js'
import { createRegistry, type ProviderRegistry } from './registry.js'
import { registerProviderRoutes } from './routes.js'

export interface ProviderHostOptions {
  /** SERVICE_DOMAIN_PROVIDER_DIR + SERVICE_DOMAIN_PROVIDER_MANIFEST_FILE, or null for no providers. */
  providers: { dir: string; manifestFile: string } | null
  /** SERVICE_HTTP_LICENSE_PEM and SERVICE_HTTP_LICENSE_PUBLIC_KEY_PEM (or their _FILE forms), read. */
  license: LicenseSettings
  /** The packs this deployment enables (SERVICE_ENABLED_PACKS); see `loadPacks`. */
  enabledPacks: readonly PackDescriptor[]
  /**
   * Providers that pack packages built at install (each its own manifest, limited to its pack's domain),
   * loaded after `providers`; a domain supplied twice stops start-up.
   */
  packProviders?: readonly ProviderSourceOptions[]
  /** The server request timeout; bounds every provider call, queue wait included. */
  requestTimeoutMs: number
  /** In-process providers instead of the manifest (tests, the fake host); wins over `providers`. */
  registry?: ProviderRegistry
  /** Clock for license expiry; tests inject it. */
  now?: () => number
}

export interface LicenseState {
  summary(): LicenseSummary
  /** True while the license is valid and claims `module`. */
  claims(module: string): boolean
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The domain gates, for other features that call providers (seed search, STIX export). */
    domainGates: DomainGates
    /** Gated provider calls and the loaded providers. */
    domainProviders: DomainProviders
    license: LicenseState
  }
}

/**
 * Verifies the license and loads every provider at registration, so any fault stops the server before it
 * listens (LicenseError, ProviderStartupError). No hot reload: changes need a restart.
 */
async function providerHostPlugin(app: FastifyInstance, options: ProviderHostOptions): Promise<void> {
  const now = options.now ?? Date.now
  const license = loadLicense(options.license, now())
  const sources: ProviderSourceOptions[] = [
    ...(options.providers === null ? [] : [options.providers]),
    ...(options.packProviders ?? []),
  ]
  const registry =
    options.registry ??
    (sources.length === 0
      ? createRegistry([])
      : await loadProviderSources(sources, ({ event, domain, message }) =>
          app.log.info({ event, domain }, message),
        ))
  app.addHook('onClose', async () => registry.close())

  const gates = createDomainGates({
    registry,
    enabledPacks: options.enabledPacks,
    license: () => license,
    now,
  })
  app.decorate('domainGates', gates)
  app.decorate('domainProviders', createDomainProviders(gates, registry, options.requestTimeoutMs))
  app.decorate('license', {
    summary: () => licenseSummary(license),
    claims: (module: string) => licenseClaims(license, module, now()),
  } satisfies LicenseState)

  const operations: Operations = app.operations
  operations.sources.domainProviders = () => registry.figures()

  const enabled: Domain[] = options.enabledPacks.map((p) => p.domain)
  app.log.info(
    {
      event: 'provider_host_ready',
      enabled_packs: enabled,
      license_source: license === null ? 'none' : 'signed_pem',
      domain_providers: registry.list().map((p) => p.domain),
    },
    'domain providers and license ready',
  )
  registerProviderRoutes(app)
}

export default fp(providerHostPlugin, {
  name: '@service/plugin-provider-host',
  fastify: '5.x',
  dependencies: ['@service/plugin-errors', '@service/plugin-operations'],
  decorators: { fastify: ['operations'] },
})
