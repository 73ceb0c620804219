import { openTestEngine } from '@service/core/testing'
import { engineDecorator } from '@service/plugin-engine'
import { errorsPlugin, validatorCompiler } from '@service/plugin-errors'
import { Lifecycle, operationsPlugin } from '@service/plugin-operations'
import Fastify, { type FastifyInstance } from 'fastify'
import { DOMAINS } from '../domains.js'
import type { PackDescriptor } from '../packs.js'
import providerHostPlugin from '../plugin.js'
import type { DomainProvider } from '../provider.js'
import { createRegistry } from '../registry.js'
import { type TestLicense, testLicense, testPack } from './fake-host.js'

export interface TestAppOptions {
  /** In-process providers (see `fakeProvider`); ignored when `native` is given. */
  providers?: readonly DomainProvider[]
  /** A real provider directory and manifest, loaded through ffi-rs. */
  native?: { dir: string; manifestFile: string }
  /** Enabled packs; default all five with empty vocabularies. */
  packs?: readonly PackDescriptor[]
  /** Modules to license (a fresh signed license), or a ready license, or null (default) for none. */
  license?: readonly string[] | TestLicense | null
  /** Default 5000 ms. */
  requestTimeoutMs?: number
}

/**
 * A Fastify app with the errors, operations and provider-host plugins (no auth: tests call routes
 * directly with `app.inject`). Close it when done; that destroys every provider instance.
 */
export async function buildProviderHostTestApp(options: TestAppOptions = {}): Promise<FastifyInstance> {
  const engine = await openTestEngine()
  const app = Fastify({ logger: false })
  // The host's own body validation (strict JSON bodies), so route tests see what the server does.
  app.setValidatorCompiler(validatorCompiler())
  app.addHook('onClose', async () => engine.close())
  const requestTimeoutMs = options.requestTimeoutMs ?? 5000
  await app.register(errorsPlugin)
  await app.register(engineDecorator, { engine })
  await app.register(operationsPlugin, { lifecycle: new Lifecycle(), requestTimeoutMs })
  const license =
    options.license === undefined || options.license === null
      ? null
      : Array.isArray(options.license)
        ? testLicense(options.license as readonly string[])
        : (options.license as TestLicense)
  await app.register(providerHostPlugin, {
    providers: options.native ?? null,
    license: { pem: license?.pem ?? null, publicKeyPem: license?.publicKeyPem ?? null },
    enabledPacks: options.packs ?? DOMAINS.map((d) => testPack(d)),
    requestTimeoutMs,
    ...(options.native === undefined ? { registry: createRegistry(options.providers ?? []) } : {}),
  })
  await app.ready()
  return app
}
