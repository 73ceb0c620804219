/**
 * Domain providers end to end, with the real built libraries:
 *   build/providers/        the five domain providers and their manifest.json
 *   build/test-providers/   noop, slow, bad_abi, unhealthy, no_capability, failing
 * (node packs/provider-sdk/scripts/build-provider.mjs <domain>, write-manifest.mjs, build-test-providers.mjs).
 * Skipped with a note when they are not built.
 *
 * Host settings used: SERVICE_DOMAIN_PROVIDER_DIR, SERVICE_DOMAIN_PROVIDER_MANIFEST_FILE,
 * SERVICE_ENABLED_PACKS, SERVICE_HTTP_LICENSE_PEM, SERVICE_HTTP_LICENSE_PUBLIC_KEY_PEM,
 * SERVICE_HTTP_REQUEST_TIMEOUT_MS, SERVICE_HTTP_ADMIN_AUTH_TOKEN.
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ADMIN_TOKEN,
  type ErrorBody,
  type RunningServer,
  repoRoot,
  startExpectingFailure,
  startServer,
} from './harness.js'

const DOMAINS = ['cti', 'fimi', 'crisis', 'medical', 'research'] as const
type Domain = (typeof DOMAINS)[number]

const providersDir = join(repoRoot, 'build', 'providers')
const testProvidersDir = join(repoRoot, 'build', 'test-providers')
const issuer = join(repoRoot, 'plugins', 'provider-host', 'scripts', 'issue-test-license.mjs')
const LIBRARY = /\.(so|dylib|dll)$/

interface ManifestEntry {
  domain: Domain
  library: string
  sha256: string
  required: boolean
  capabilities: { name: string; version: string }[]
}

const builtManifest = (): ManifestEntry[] =>
  (JSON.parse(readFileSync(join(providersDir, 'manifest.json'), 'utf8')) as { providers: ManifestEntry[] })
    .providers
const testLibraries = existsSync(testProvidersDir)
  ? readdirSync(testProvidersDir, { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && LIBRARY.test(e.name))
      .map((e) => join(e.parentPath, e.name))
  : []
const testLibrary = (kind: string): string => {
  const found = testLibraries.find((p) => basename(p).replace(/-/g, '_').includes(kind))
  if (found === undefined) throw new Error(`no ${kind} test provider under ${testProvidersDir}`)
  return found
}
const built =
  existsSync(join(providersDir, 'manifest.json')) &&
  ['noop', 'slow', 'bad_abi', 'unhealthy', 'no_capability', 'failing'].every((k) =>
    testLibraries.some((p) => basename(p).replace(/-/g, '_').includes(k)),
  )
if (!built)
  console.warn(`provider e2e tests skipped: build the providers first (${providersDir}, ${testProvidersDir})`)

/** The domain a test provider serves, read from its metadata through the host's own binding. */
async function domainOf(library: string): Promise<Domain> {
  const { openNativeLibrary } = await import('../../plugins/provider-host/dist/native-library.js')
  const opened = await openNativeLibrary(library)
  try {
    return (JSON.parse(opened.metadata(65536).toString('utf8')) as { domain: Domain }).domain
  } finally {
    opened.close()
  }
}

const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex')

let work: string
let rootCount = 0

/** A fresh provider root: each library copied in, the manifest written with their digests. */
async function providerRoot(
  entries: {
    source: string | null
    domain: Domain
    required?: boolean
    capabilities?: ManifestEntry['capabilities']
    library?: string
    sha256?: string
  }[],
): Promise<Record<string, string>> {
  const dir = join(work, `providers-${rootCount++}`)
  await mkdir(dir)
  const providers: ManifestEntry[] = []
  for (const entry of entries) {
    const library =
      entry.library ?? (entry.source === null ? `lib-missing-${entry.domain}.so` : basename(entry.source))
    if (entry.source !== null) await copyFile(entry.source, join(dir, library))
    providers.push({
      domain: entry.domain,
      library,
      sha256: entry.sha256 ?? (entry.source === null ? '0'.repeat(64) : await sha256(entry.source)),
      required: entry.required ?? true,
      capabilities: entry.capabilities ?? [{ name: 'node.validate', version: '1' }],
    })
  }
  const manifestFile = join(dir, 'manifest.json')
  await writeFile(manifestFile, JSON.stringify({ schema_version: '1', providers }, null, 2))
  return { SERVICE_DOMAIN_PROVIDER_DIR: dir, SERVICE_DOMAIN_PROVIDER_MANIFEST_FILE: manifestFile }
}

const realProviders = (domains: readonly Domain[] = DOMAINS) =>
  builtManifest()
    .filter((e) => domains.includes(e.domain))
    .map((e) => ({ source: join(providersDir, e.library), domain: e.domain, library: e.library }))

function license(modules: readonly string[]): Record<string, string> {
  const issued = JSON.parse(
    execFileSync(process.execPath, [issuer, '--json', '--modules', modules.join(','), '--days', '1'], {
      encoding: 'utf8',
    }),
  ) as { license_pem: string; public_key_pem: string }
  return {
    SERVICE_HTTP_LICENSE_PEM: issued.license_pem,
    SERVICE_HTTP_LICENSE_PUBLIC_KEY_PEM: issued.public_key_pem,
  }
}

interface Validation {
  ok: true
  result: {
    schema_version: '1'
    request_id: string
    status: 'accepted' | 'rejected' | 'failed'
    issues: {
      code: string
      message: string
      field: string | null
      severity: string
      node_id: string | null
    }[]
    diagnostics: unknown
  }
}

/** Either envelope; a test reads the half the status code says is there. */
interface ValidationBody {
  ok: boolean
  result: Validation['result']
  error: ErrorBody['error']
}

const validate = (server: RunningServer, domain: string, body: unknown) =>
  server.request<ValidationBody>(`/v1/domains/${domain}/validate`, { body })

const outcome = async (server: RunningServer, domain: string, payload: unknown = {}) => {
  const r = await validate(server, domain, { payload })
  return `${r.status} ${r.json.ok === true ? r.json.result.status : r.json.error.code}`
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'e2e-providers-'))
})
afterAll(async () => {
  await rm(work, { recursive: true, force: true })
})

describe.skipIf(!built)('the five domain providers', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({
      env: {
        ...(await providerRoot(realProviders())),
        ...license(['cti', 'fimi', 'crisis']),
        SERVICE_HTTP_ADMIN_AUTH_TOKEN: ADMIN_TOKEN,
      },
    })
  })
  afterAll(async () => {
    await server.stop()
  })

  // Realistic records: the first of each pair passes the domain's rules, the second breaks them.
  const cases: [Domain, unknown, unknown, string[]][] = [
    [
      'cti',
      {
        labels: ['ThreatActor'],
        name: 'APT28',
        confidence: 0.9,
        evidence_refs: ['evidence--report-2024-17'],
      },
      { labels: ['ThreatActor'], name: 'APT28', confidence: 0.5, evidence_refs: [] },
      ['CTI_CONFIDENCE_TOO_LOW', 'CTI_EVIDENCE_REQUIRED'],
    ],
    [
      'fimi',
      { labels: ['Account'], platform: 'x.com', handle: '@example_outlet' },
      { labels: ['CoordinationCluster'], members: ['account--1'] },
      ['FIMI_COORDINATION_MEMBERS_REQUIRED', 'FIMI_COORDINATION_EVIDENCE_REQUIRED'],
    ],
    [
      'crisis',
      { labels: ['HumanitarianNeed'], sector: 'health', people_in_need: 12000, people_targeted: 8000 },
      { labels: ['HumanitarianNeed'], sector: 'health', people_in_need: 100, people_targeted: 500 },
      ['CRISIS_NEED_TARGETED_EXCEEDS_IN_NEED'],
    ],
    [
      'medical',
      { labels: ['Finding'], evidence_refs: ['evidence--trial-registry-1'], intended_status: 'validated' },
      { labels: ['EffectEstimate'], study_refs: ['study--1', 'study--2'] },
      ['MEDICAL_EFFECT_ESTIMATE_STUDY_REF'],
    ],
    [
      'research',
      {
        labels: ['Claim'],
        asserting_work: 'doi:10.1000/example.1',
        credited_actor: 'orcid:0000-0002-1825-0097',
        evidence_refs: ['evidence--paper-fig-2'],
        intended_status: 'validated',
      },
      { labels: ['Claim'], intended_status: 'validated' },
      ['RESEARCH_CLAIM_ATTRIBUTION_REQUIRED', 'EVIDENCE_REQUIRED'],
    ],
  ]

  it.each(cases)('%s accepts a valid record and rejects a broken one', async (domain, good, bad, codes) => {
    const accepted = await validate(server, domain, { payload: good, request_id: `${domain}-good` })
    expect(accepted.status).toBe(200)
    expect(accepted.json).toMatchObject({
      ok: true,
      result: { schema_version: '1', request_id: `${domain}-good`, status: 'accepted', issues: [] },
    })
    const { diagnostics } = accepted.json.result
    expect(diagnostics === null || typeof diagnostics === 'object').toBe(true)
    const rejected = await validate(server, domain, { payload: bad, workspace_id: 'workspace--e2e' })
    expect(rejected.status).toBe(200)
    expect(rejected.json.result.status).toBe('rejected')
    expect(rejected.json.result.request_id).toMatch(/^[0-9a-f-]{36}$/)
    const found = rejected.json.result.issues.map((i) => i.code)
    for (const code of codes) expect(found).toContain(code)
    for (const issue of rejected.json.result.issues) expect(['error', 'warning']).toContain(issue.severity)
  })

  it('reads the domain trimmed and in any case, and refuses an unknown one', async () => {
    expect(await outcome(server, 'MEDICAL', { labels: ['Study'] })).toBe('200 accepted')
    expect(await outcome(server, '%20Research%20', { labels: ['Study'] })).toBe('200 accepted')
    expect(await outcome(server, 'finance')).toBe('400 INVALID_DOMAIN')
  })

  it('requires payload', async () => {
    const r = await validate(server, 'medical', { request_id: 'no-payload' })
    expect(r.status).toBe(400)
  })

  it('lists all five providers on the admin status route and in the metrics', async () => {
    const status = await server.request<{
      ok: true
      result: { providers: { domain: string; ready: boolean; capabilities: unknown[] }[] }
    }>('/v1/admin/domain-providers/status', { token: ADMIN_TOKEN })
    expect(status.status).toBe(200)
    expect(status.json.result.providers.map((p) => p.domain).sort()).toEqual([...DOMAINS].sort())
    for (const p of status.json.result.providers) {
      expect(p.ready).toBe(true)
      expect(p.capabilities).toContainEqual({ name: 'node.validate', version: '1' })
    }
    const metrics = await server.request('/metrics', { token: null })
    expect(metrics.text).toMatch(/^service_domain_providers_configured 5$/m)
    expect(metrics.text).toMatch(/^service_domain_providers_ready 5$/m)
    const health = await server.request<{ domain_providers: unknown }>('/health', { token: null })
    expect(health.json.domain_providers).toEqual({ configured: 5, ready: 5 })
  })

  it('refuses a request above the provider max_request_bytes (502) and a body above the server limit (413)', async () => {
    // Over the providers' 1 MiB but under the 2 MiB body limit: the host refuses it before the call.
    const overProvider = await validate(server, 'medical', {
      payload: { labels: ['Study'], note: 'x'.repeat(1_100_000) },
    })
    expect(overProvider.status).toBe(502)
    expect(overProvider.json.error.code).toBe('DOMAIN_PROVIDER_ERROR')
    expect(overProvider.json.error.message).toMatch(/max_request_bytes/)
    const overBody = await validate(server, 'medical', { payload: { note: 'x'.repeat(2_200_000) } })
    expect(overBody.status).toBe(413)
    // The provider is still healthy afterwards.
    expect(await outcome(server, 'medical', { labels: ['Study'] })).toBe('200 accepted')
  })
})

describe.skipIf(!built)('the gates, in order', () => {
  it('feature, license claim and provider readiness for enterprise domains; readiness only for the others', async () => {
    const server = await startServer({
      env: {
        // crisis is enabled and licensed but has no provider; cti is loaded and licensed but not enabled.
        ...(await providerRoot(realProviders(['cti', 'fimi', 'medical', 'research']))),
        SERVICE_ENABLED_PACKS: 'fimi,crisis,medical,research',
        ...license(['cti', 'crisis']),
      },
    })
    try {
      expect(await outcome(server, 'unknown')).toBe('400 INVALID_DOMAIN')
      expect(await outcome(server, 'cti')).toBe('403 FEATURE_NOT_AVAILABLE')
      expect(await outcome(server, 'fimi')).toBe('403 LICENSE_MODULE_MISSING')
      expect(await outcome(server, 'crisis')).toBe('503 DOMAIN_PROVIDER_NOT_READY')
      // Medical and research need no license.
      expect(await outcome(server, 'medical', { labels: ['Study'] })).toBe('200 accepted')
    } finally {
      await server.stop()
    }
  })

  it('without any license, enterprise domains are refused and open ones served', async () => {
    const server = await startServer({ env: await providerRoot(realProviders()) })
    try {
      for (const domain of ['cti', 'fimi', 'crisis'])
        expect(await outcome(server, domain)).toBe('403 LICENSE_MODULE_MISSING')
      expect(await outcome(server, 'research', { labels: ['Study'] })).toBe('200 accepted')
    } finally {
      await server.stop()
    }
  })

  it('503 DOMAIN_PROVIDER_CAPABILITY_MISSING for a provider without node.validate/1', async () => {
    const source = testLibrary('no_capability')
    const domain = await domainOf(source)
    const server = await startServer({
      env: { ...(await providerRoot([{ source, domain, capabilities: [] }])), ...license([domain]) },
    })
    try {
      expect(await outcome(server, domain)).toBe('503 DOMAIN_PROVIDER_CAPABILITY_MISSING')
    } finally {
      await server.stop()
    }
  })

  it('502 DOMAIN_PROVIDER_ERROR when the call fails', async () => {
    const source = testLibrary('failing')
    const domain = await domainOf(source)
    const server = await startServer({
      env: { ...(await providerRoot([{ source, domain }])), ...license([domain]) },
    })
    try {
      expect(await outcome(server, domain, { labels: ['X'] })).toBe('502 DOMAIN_PROVIDER_ERROR')
    } finally {
      await server.stop()
    }
  })

  it('504 REQUEST_TIMEOUT for a provider slower than the request timeout; the next call waits its turn', async () => {
    const source = testLibrary('slow')
    const domain = await domainOf(source)
    const server = await startServer({
      env: {
        ...(await providerRoot([{ source, domain }])),
        ...license([domain]),
        SERVICE_HTTP_REQUEST_TIMEOUT_MS: '400',
      },
    })
    try {
      const started = Date.now()
      expect(await outcome(server, domain, { sleep_ms: 1200 })).toBe('504 REQUEST_TIMEOUT')
      expect(Date.now() - started).toBeLessThan(1100)
      // The instance is single-threaded: this call queues behind the late one and its budget runs out too.
      expect(await outcome(server, domain, { sleep_ms: 0 })).toBe('504 REQUEST_TIMEOUT')
      await new Promise((r) => setTimeout(r, 900))
      expect(await outcome(server, domain, { sleep_ms: 10 })).toBe('200 accepted')
    } finally {
      await server.stop()
    }
  })
})

describe.skipIf(!built)('start-up', () => {
  const refuses = async (env: Record<string, string>, message: RegExp) => {
    const { code, stderr } = await startExpectingFailure(env)
    expect(code).not.toBe(0)
    expect(code).not.toBeNull()
    expect(stderr).toMatch(message)
  }

  it('refuses a library whose digest does not match the manifest', async () => {
    const [medical] = realProviders(['medical'])
    await refuses(
      await providerRoot([{ ...medical!, sha256: 'f'.repeat(64) }]),
      /medical domain provider .*SHA-256 digest mismatch/,
    )
  })

  it('refuses a tampered library', async () => {
    const [research] = realProviders(['research'])
    const env = await providerRoot([research!])
    const path = join(env.SERVICE_DOMAIN_PROVIDER_DIR!, research!.library)
    await writeFile(path, Buffer.concat([await readFile(path), Buffer.from([0])]))
    await refuses(env, /research domain provider .*SHA-256 digest mismatch/)
  })

  it('refuses a library path that escapes the provider directory through a symlink', async () => {
    const [cti] = realProviders(['cti'])
    const env = await providerRoot([])
    const outside = join(work, `outside-${rootCount}.so`)
    await copyFile(cti!.source, outside)
    await symlink(outside, join(env.SERVICE_DOMAIN_PROVIDER_DIR!, 'libcti-link.so'))
    await writeFile(
      env.SERVICE_DOMAIN_PROVIDER_MANIFEST_FILE!,
      JSON.stringify({
        schema_version: '1',
        providers: [
          {
            domain: 'cti',
            library: 'libcti-link.so',
            sha256: await sha256(outside),
            required: true,
            capabilities: [{ name: 'node.validate', version: '1' }],
          },
        ],
      }),
    )
    await refuses(env, /cti domain provider .*outside the provider directory/)
  })

  it('refuses a manifest path with ..', async () => {
    const env = await providerRoot([])
    await writeFile(
      env.SERVICE_DOMAIN_PROVIDER_MANIFEST_FILE!,
      JSON.stringify({
        schema_version: '1',
        providers: [
          { domain: 'cti', library: '../x.so', sha256: '0'.repeat(64), required: true, capabilities: [] },
        ],
      }),
    )
    await refuses(env, /invalid provider manifest .*'\.\.' component/)
  })

  it('refuses a missing required library', async () => {
    await refuses(
      await providerRoot([{ source: null, domain: 'fimi' }]),
      /required fimi domain provider .*does not exist/,
    )
  })

  it('refuses a provider of another interface version', async () => {
    const source = testLibrary('bad_abi')
    await refuses(
      await providerRoot([{ source, domain: await domainOf(source) }]),
      /provider interface version 2\.\d+ is not supported/,
    )
  })

  it('refuses a provider whose health is not ready', async () => {
    const source = testLibrary('unhealthy')
    await refuses(
      await providerRoot([{ source, domain: await domainOf(source) }]),
      /not healthy: health reports status "degraded"/,
    )
  })

  it('refuses only one of the two provider settings', async () => {
    const env = await providerRoot(realProviders(['medical']))
    await refuses({ SERVICE_DOMAIN_PROVIDER_DIR: env.SERVICE_DOMAIN_PROVIDER_DIR! }, /set together/)
  })

  it('skips an optional provider whose library is missing', async () => {
    const server = await startServer({
      env: {
        ...(await providerRoot([
          ...realProviders(['medical']),
          { source: null, domain: 'research', required: false },
        ])),
        SERVICE_HTTP_ADMIN_AUTH_TOKEN: ADMIN_TOKEN,
      },
    })
    try {
      const status = await server.request<{ result: { providers: { domain: string }[] } }>(
        '/v1/admin/domain-providers/status',
        { token: ADMIN_TOKEN },
      )
      expect(status.status, status.text).toBe(200)
      expect(status.json.result.providers.map((p) => p.domain)).toEqual(['medical'])
      const health = await server.request<{ domain_providers: unknown }>('/health', { token: null })
      expect(health.json.domain_providers).toEqual({ configured: 2, ready: 1 })
      expect(await outcome(server, 'research')).toBe('503 DOMAIN_PROVIDER_NOT_READY')
      expect(await outcome(server, 'medical', { labels: ['Study'] })).toBe('200 accepted')
    } finally {
      await server.stop()
    }
  })
})
