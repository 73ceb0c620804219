/**
 * The native path with the real test providers (build/test-providers, built by
 * `node packs/provider-sdk/scripts/build-test-providers.mjs`). Skipped, with a note, when they are absent.
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync } from 'node:fs'
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Domain } from './domains.js'
import { ProviderStartupError } from './errors.js'
import { loadProviders } from './loader.js'
import { openNativeLibrary } from './native-library.js'
import type { ProviderRegistry } from './registry.js'
import { testPack } from './testing/fake-host.js'
import { buildProviderHostTestApp } from './testing/test-app.js'

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
// Overridable so the tests can run against providers built elsewhere.
const testProvidersDir = process.env.SERVICE_TEST_PROVIDERS_DIR ?? join(repoRoot, 'build', 'test-providers')
const LIBRARY = /\.(so|dylib|dll)$/

function findLibraries(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && LIBRARY.test(e.name))
    .map((e) => join(e.parentPath, e.name))
}
const libraries = findLibraries(testProvidersDir)
const libraryOf = (kind: string): string => {
  const found = libraries.find((path) => basename(path).replace(/-/g, '_').includes(kind))
  if (found === undefined) throw new Error(`no ${kind} test provider in ${testProvidersDir}`)
  return found
}
const present = ['noop', 'slow', 'bad_abi', 'unhealthy', 'no_capability', 'failing'].every((kind) =>
  libraries.some((path) => basename(path).replace(/-/g, '_').includes(kind)),
)
if (!present)
  console.warn(
    `native provider tests skipped: test providers not found under ${testProvidersDir} (build them with node packs/provider-sdk/scripts/build-test-providers.mjs)`,
  )

/** The domain a library's metadata declares (bad_abi still answers metadata). */
async function domainOf(path: string): Promise<Domain> {
  const library = await openNativeLibrary(path)
  try {
    return (JSON.parse(library.metadata(65536).toString('utf8')) as { domain: Domain }).domain
  } finally {
    library.close()
  }
}

let work: string
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'provider-host-native-'))
})
afterAll(async () => {
  await rm(work, { recursive: true, force: true })
})

let fixtureCount = 0
/** A fresh trusted root holding a copy of the test provider and a manifest pinning its digest. */
async function fixture(kind: string, options: { capabilities?: { name: string; version: string }[] } = {}) {
  const source = libraryOf(kind)
  const dir = join(work, `root-${fixtureCount++}`)
  await mkdir(dir)
  const library = basename(source)
  await copyFile(source, join(dir, library))
  const domain = await domainOf(source)
  const sha256 = createHash('sha256')
    .update(await readFile(source))
    .digest('hex')
  const manifestFile = join(dir, 'manifest.json')
  const capabilities = options.capabilities ?? [{ name: 'node.validate', version: '1' }]
  await writeFile(
    manifestFile,
    JSON.stringify({
      schema_version: '1',
      providers: [{ domain, library, sha256, required: true, capabilities }],
    }),
  )
  return { dir, manifestFile, domain }
}

describe.skipIf(!present)('native test providers', () => {
  it('refuses a provider reporting interface version 2', async () => {
    const f = await fixture('bad_abi')
    const error = await loadProviders(f).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ProviderStartupError)
    expect((error as Error).message).toMatch(/provider interface version 2\.\d+ is not supported/)
  })

  it('refuses a provider whose health is not ready', async () => {
    const f = await fixture('unhealthy')
    await expect(loadProviders(f)).rejects.toThrow(/not healthy: health reports status "degraded"/)
  })

  it('refuses a provider that does not declare a capability the manifest requires', async () => {
    const f = await fixture('no_capability')
    await expect(loadProviders(f)).rejects.toThrow(/does not declare the capability node\.validate\/1/)
  })

  describe('slow provider', () => {
    let registry: ProviderRegistry
    let domain: Domain
    beforeAll(async () => {
      const f = await fixture('slow')
      domain = f.domain
      registry = await loadProviders(f)
    })
    afterAll(async () => {
      await registry.close()
    })

    it('runs calls off the event loop, one at a time', async () => {
      const provider = registry.get(domain)!
      let ticks = 0
      const timer = setInterval(() => {
        ticks += 1
      }, 10)
      const started = Date.now()
      const finished: number[] = []
      await Promise.all(
        [1, 2, 3].map((i) =>
          provider
            .validate({ payload: { sleep_ms: 150 }, requestId: `r${i}` }, { timeoutMs: 5000 })
            .then(() => finished.push(Date.now() - started)),
        ),
      )
      clearInterval(timer)
      // Serialised: the third ends after three sleeps, not one.
      expect(Math.max(...finished)).toBeGreaterThanOrEqual(440)
      // The event loop kept turning while the native calls slept.
      expect(ticks).toBeGreaterThan(20)
    })

    it('times out with 504, and the next call waits for the late one', async () => {
      const provider = registry.get(domain)!
      const started = Date.now()
      await expect(
        provider.validate({ payload: { sleep_ms: 400 } }, { timeoutMs: 100 }),
      ).rejects.toMatchObject({ code: 'REQUEST_TIMEOUT', statusCode: 504 })
      expect(Date.now() - started).toBeLessThan(300)
      const next = await provider.validate({ payload: {}, requestId: 'after' }, { timeoutMs: 5000 })
      expect(next.request_id).toBe('after')
      expect(Date.now() - started).toBeGreaterThanOrEqual(390)
    })

    it('refuses a request above max_request_bytes before calling', async () => {
      const provider = registry.get(domain)!
      const limit = provider.metadata.max_request_bytes
      await expect(
        provider.validate({ payload: { text: 'x'.repeat(limit) } }, { timeoutMs: 5000 }),
      ).rejects.toMatchObject({ code: 'DOMAIN_PROVIDER_ERROR', statusCode: 502 })
    })

    it('waits for a late call before destroying the instance', async () => {
      const f = await fixture('slow')
      const own = await loadProviders(f)
      const provider = own.get(f.domain)!
      await expect(
        provider.validate({ payload: { sleep_ms: 300 } }, { timeoutMs: 50 }),
      ).rejects.toMatchObject({
        code: 'REQUEST_TIMEOUT',
      })
      const started = Date.now()
      await own.close()
      expect(Date.now() - started).toBeGreaterThanOrEqual(200)
      await own.close()
    })
  })

  it('serves the route with real libraries: ok, capability missing, provider error', async () => {
    const noop = await fixture('noop')
    const app = await buildProviderHostTestApp({
      native: noop,
      packs: [testPack(noop.domain)],
      license: [noop.domain],
    })
    try {
      const ok = await app.inject({
        method: 'POST',
        url: `/v1/domains/${noop.domain}/validate`,
        payload: { payload: { labels: ['X'] }, request_id: 'native-1' },
      })
      expect(ok.statusCode).toBe(200)
      expect(ok.json()).toMatchObject({ ok: true, result: { request_id: 'native-1', schema_version: '1' } })
      const status = await app.inject({ method: 'GET', url: '/v1/admin/domain-providers/status' })
      expect(status.json().result.providers[0]).toMatchObject({ domain: noop.domain, ready: true })
    } finally {
      await app.close()
    }

    for (const [kind, capabilities, expected] of [
      ['no_capability', [], '503 DOMAIN_PROVIDER_CAPABILITY_MISSING'],
      ['failing', undefined, '502 DOMAIN_PROVIDER_ERROR'],
    ] as const) {
      const f = await fixture(kind, capabilities === undefined ? {} : { capabilities: [...capabilities] })
      const other = await buildProviderHostTestApp({
        native: f,
        packs: [testPack(f.domain)],
        license: [f.domain],
      })
      try {
        const r = await other.inject({
          method: 'POST',
          url: `/v1/domains/${f.domain}/validate`,
          payload: { payload: {} },
        })
        expect(`${r.statusCode} ${r.json().error.code}`).toBe(expected)
      } finally {
        await other.close()
      }
    }
  })
})
