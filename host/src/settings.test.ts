import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { isLoopback, loadSettings, redactedSettings, SettingsError } from './settings.js'

const base = { SERVICE_HTTP_AUTH_TOKEN: 'token-1' }
const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadSettings(env, '/srv')
    return []
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError)
    return [...(error as SettingsError).problems]
  }
}

describe('loadSettings', () => {
  it('caps heap growth at 100% unless told otherwise (0 leaves V8 its heuristic)', () => {
    expect(loadSettings(base, '/srv').heapGrowingPercent).toBe(100)
    expect(loadSettings({ ...base, SERVICE_HEAP_GROWING_PERCENT: '0' }, '/srv').heapGrowingPercent).toBe(0)
    expect(problemsOf({ ...base, SERVICE_HEAP_GROWING_PERCENT: '-5' }).join()).toContain(
      'SERVICE_HEAP_GROWING_PERCENT',
    )
  })

  it('applies the documented defaults', () => {
    const s = loadSettings(base, '/srv')
    expect(s.http).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      authMode: 'required',
      adminToken: null,
      requestTimeoutMs: 30_000,
      shutdownTimeoutMs: 5_000,
      sessionIdleTtlMs: 0,
      maxBodyBytes: 2_097_152,
      importMaxBodyBytes: 33_554_432,
      rateLimit: { perSecond: 50, burst: 200 },
      sessionStoreDir: '/srv/.service-runtime',
      logDir: '/srv/.service-runtime/logs',
      operationalPolicy: 'public',
    })
    expect(s.storage).toEqual({
      mode: 'ephemeral',
      dir: null,
      requireFsync: false,
      strictRecovery: false,
      maxHotNodes: 16384,
      maxHotRelationships: 32768,
      maxWarmAdjacencyEntries: 65536,
      segmentBytes: 64 * 1024 * 1024,
      checkpointEveryBytes: 256 * 1024 * 1024,
      payloadMinBytes: 64,
      payloadCacheBytes: 16 * 1024 * 1024,
      walArchiveDir: null,
      postgres: null,
      readYourWritesTimeoutMs: 5_000,
    })
    expect(s.ref).toMatchObject({
      syncMaxOperations: 512,
      syncMaxReplayIdentities: 4096,
      shadowMaxConcurrency: 4,
      shadowTimeoutMs: 2000,
    })
    expect(s.memory.workspaceId).toBe('workspace--standalone-default')
    expect([...s.memory.permissions]).toEqual(['read', 'write', 'trace', 'forget', 'consolidate'])
    expect(s.tls).toBeNull()
    expect(s.providers).toBeNull()
  })

  it('turns fsync and strict recovery on by default in persistent mode', () => {
    const s = loadSettings(
      { ...base, SERVICE_STORAGE_MODE: 'persistent', SERVICE_STORAGE_DIR: 'data' },
      '/srv',
    )
    expect(s.storage).toMatchObject({
      mode: 'persistent',
      dir: '/srv/data',
      requireFsync: true,
      strictRecovery: true,
    })
  })

  it('checks integer bounds at their edges', () => {
    expect(problemsOf({ ...base, SERVICE_HTTP_PORT: '0' })).toEqual([])
    expect(problemsOf({ ...base, SERVICE_HTTP_PORT: '65535' })).toEqual([])
    expect(problemsOf({ ...base, SERVICE_HTTP_PORT: '65536' })[0]).toContain('SERVICE_HTTP_PORT')
    expect(problemsOf({ ...base, SERVICE_HTTP_PORT: '-1' })[0]).toContain('SERVICE_HTTP_PORT')
    expect(problemsOf({ ...base, SERVICE_HTTP_PORT: '80.5' })[0]).toContain('must be an integer')
    expect(problemsOf({ ...base, SERVICE_STORAGE_MAX_HOT_NODES: '1' })).toEqual([])
    expect(problemsOf({ ...base, SERVICE_STORAGE_MAX_HOT_NODES: '0' })[0]).toContain(
      'SERVICE_STORAGE_MAX_HOT_NODES',
    )
  })

  it('reads the projection batch, backoff and receipt window settings, at their edges', () => {
    const s = loadSettings(base, '/srv')
    expect(s.ref).toMatchObject({
      projectionBatchMax: 64,
      projectionRetryBaseMs: 1000,
      projectionRetryMaxMs: 30_000,
      receiptRetentionCount: 100_000,
      receiptRetentionMs: 604_800_000,
    })
    expect(problemsOf({ ...base, SERVICE_REF_PROJECTION_BATCH_MAX: '1' })).toEqual([])
    expect(problemsOf({ ...base, SERVICE_REF_PROJECTION_BATCH_MAX: '4096' })).toEqual([])
    expect(problemsOf({ ...base, SERVICE_REF_PROJECTION_BATCH_MAX: '0' })[0]).toContain(
      'SERVICE_REF_PROJECTION_BATCH_MAX',
    )
    expect(problemsOf({ ...base, SERVICE_REF_PROJECTION_BATCH_MAX: '4097' })[0]).toContain(
      'SERVICE_REF_PROJECTION_BATCH_MAX',
    )
    const retry = { SERVICE_REF_PROJECTION_RETRY_BASE_MS: '500', SERVICE_REF_PROJECTION_RETRY_MAX_MS: '500' }
    expect(problemsOf({ ...base, ...retry })).toEqual([])
    expect(problemsOf({ ...base, ...retry, SERVICE_REF_PROJECTION_RETRY_MAX_MS: '499' })[0]).toContain(
      'SERVICE_REF_PROJECTION_RETRY_MAX_MS must be at least',
    )
    expect(problemsOf({ ...base, SERVICE_REF_RECEIPT_RETENTION_COUNT: '1' })).toEqual([])
    expect(problemsOf({ ...base, SERVICE_REF_RECEIPT_RETENTION_COUNT: '0' })[0]).toContain(
      'SERVICE_REF_RECEIPT_RETENTION_COUNT',
    )
    expect(problemsOf({ ...base, SERVICE_REF_RECEIPT_RETENTION_MS: '0' })[0]).toContain(
      'SERVICE_REF_RECEIPT_RETENTION_MS',
    )
  })

  it('enables the built-in packs by default, and takes pack package names beside the short names', () => {
    expect(loadSettings(base, '/srv').enabledPacks).toEqual(['cti', 'fimi', 'crisis', 'medical', 'research'])
    expect(
      loadSettings({ ...base, SERVICE_ENABLED_PACKS: 'Medical, @acme/service-pack-research' }, '/srv')
        .enabledPacks,
    ).toEqual(['medical', '@acme/service-pack-research'])
    expect(problemsOf({ ...base, SERVICE_ENABLED_PACKS: 'cti,medcal' })).toEqual([
      'SERVICE_ENABLED_PACKS: unknown pack name(s) medcal (a built-in pack: cti, fimi, crisis, medical, research; or a pack package: @scope/name or service-pack-<name>)',
    ])
  })

  it('reads the TAXII collections and page bounds, at their edges', () => {
    expect(loadSettings(base, '/srv').taxii).toEqual({
      published: '*',
      writable: '',
      pageDefault: 100,
      pageMax: 1000,
    })
    const set = loadSettings(
      {
        ...base,
        SERVICE_TAXII_PUBLISHED_COLLECTIONS: ' ws-a , ws-b',
        SERVICE_TAXII_WRITABLE_COLLECTIONS: '*',
        SERVICE_TAXII_PAGE_MAX: '10',
      },
      '/srv',
    ).taxii
    expect(set).toEqual({ published: 'ws-a,ws-b', writable: '*', pageDefault: 10, pageMax: 10 })
    expect(
      problemsOf({ ...base, SERVICE_TAXII_PAGE_MAX: '100000', SERVICE_TAXII_PAGE_DEFAULT: '1' }),
    ).toEqual([])
    expect(problemsOf({ ...base, SERVICE_TAXII_PAGE_MAX: '100001' })[0]).toContain('SERVICE_TAXII_PAGE_MAX')
    expect(problemsOf({ ...base, SERVICE_TAXII_PAGE_DEFAULT: '0' })[0]).toContain(
      'SERVICE_TAXII_PAGE_DEFAULT',
    )
    expect(
      problemsOf({ ...base, SERVICE_TAXII_PAGE_MAX: '5', SERVICE_TAXII_PAGE_DEFAULT: '6' })[0],
    ).toContain('must not exceed')
    expect(problemsOf({ ...base, SERVICE_TAXII_WRITABLE_COLLECTIONS: '*,ws' })[0]).toContain(
      'SERVICE_TAXII_WRITABLE_COLLECTIONS',
    )
  })

  it('requires the provider settings together', () => {
    expect(problemsOf({ ...base, SERVICE_DOMAIN_PROVIDER_DIR: 'p' })[0]).toContain('set together')
    const s = loadSettings(
      { ...base, SERVICE_DOMAIN_PROVIDER_DIR: 'p', SERVICE_DOMAIN_PROVIDER_MANIFEST_FILE: 'p/m.json' },
      '/srv',
    )
    expect(s.providers).toEqual({ dir: '/srv/p', manifestFile: '/srv/p/m.json' })
  })

  it('reads secrets from files, refuses both forms, and never echoes them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'settings-'))
    writeFileSync(join(dir, 'admin'), 'admin-secret\n')
    const s = loadSettings({ ...base, SERVICE_HTTP_ADMIN_AUTH_TOKEN_FILE: join(dir, 'admin') })
    expect(s.http.adminToken).toBe('admin-secret')
    const both = problemsOf({ ...base, SERVICE_HTTP_AUTH_TOKEN_FILE: join(dir, 'admin') })
    expect(both[0]).toContain('both set')
    const same = problemsOf({ ...base, SERVICE_HTTP_ADMIN_AUTH_TOKEN: 'token-1' })
    expect(same.join()).not.toContain('token-1')
    expect(JSON.stringify(redactedSettings(s))).not.toContain('admin-secret')
  })

  it('accepts local-insecure only on loopback and needs no token there', () => {
    expect(loadSettings({ SERVICE_HTTP_AUTH_MODE: 'local-insecure' }).http.authToken).toBeNull()
    expect(
      problemsOf({ SERVICE_HTTP_AUTH_MODE: 'local-insecure', SERVICE_HTTP_HOST: '10.0.0.1' }).join(),
    ).toContain('loopback')
  })

  it('knows loopback addresses', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', 'localhost']) expect(isLoopback(host)).toBe(true)
    for (const host of ['0.0.0.0', '10.0.0.1', '::', 'example.com']) expect(isLoopback(host)).toBe(false)
  })
})

const pgBase = { ...base, SERVICE_STORAGE_MODE: 'persistent' }
const URL = 'postgres://service:s3cret-pw@db.internal:5432/graph'

describe('PostgreSQL store settings', () => {
  it('takes the store from SERVICE_STORAGE_POSTGRES_URL with no directory, as a primary by default', () => {
    const s = loadSettings({ ...pgBase, SERVICE_STORAGE_POSTGRES_URL: URL }, '/srv')
    expect(s.storage.dir).toBeNull()
    expect(s.storage.postgres).toEqual({
      url: URL,
      role: 'primary',
      promote: 'off',
      primaryUrl: null,
      leaseMs: 10_000,
      pollMs: 200,
    })
    expect(s.storage.readYourWritesTimeoutMs).toBe(5_000)
  })

  it('reads a follower with promotion and the primary address', () => {
    const s = loadSettings(
      {
        ...pgBase,
        SERVICE_STORAGE_POSTGRES_URL: URL,
        SERVICE_STORAGE_ROLE: 'follower',
        SERVICE_STORAGE_PROMOTE: 'auto',
        SERVICE_PRIMARY_URL: 'https://primary.internal:8443',
        SERVICE_STORAGE_POSTGRES_LEASE_MS: '300',
      },
      '/srv',
    )
    expect(s.storage.postgres).toMatchObject({
      role: 'follower',
      promote: 'auto',
      primaryUrl: 'https://primary.internal:8443',
      leaseMs: 300,
    })
  })

  it('names every bad combination and value', () => {
    const problems = (env: Record<string, string>) => problemsOf({ ...pgBase, ...env }).join('\n')
    expect(problems({})).toContain('SERVICE_STORAGE_DIR (or SERVICE_STORAGE_POSTGRES_URL) is required')
    expect(problems({ SERVICE_STORAGE_DIR: 'd', SERVICE_STORAGE_ROLE: 'follower' })).toContain(
      'SERVICE_STORAGE_ROLE=follower needs SERVICE_STORAGE_POSTGRES_URL',
    )
    expect(problems({ SERVICE_STORAGE_POSTGRES_URL: URL, SERVICE_STORAGE_PROMOTE: 'auto' })).toContain(
      'SERVICE_STORAGE_PROMOTE=auto applies to a follower',
    )
    expect(problems({ SERVICE_STORAGE_POSTGRES_URL: 'mysql://x' })).toContain(
      'SERVICE_STORAGE_POSTGRES_URL must be a postgres:// or postgresql:// URL',
    )
    expect(problems({ SERVICE_STORAGE_POSTGRES_URL: URL, SERVICE_PRIMARY_URL: 'primary:8080' })).toContain(
      'SERVICE_PRIMARY_URL must be an http(s) URL',
    )
    expect(problems({ SERVICE_STORAGE_POSTGRES_URL: URL, SERVICE_STORAGE_ROLE: 'replica' })).toContain(
      'SERVICE_STORAGE_ROLE',
    )
    expect(
      problemsOf({ SERVICE_HTTP_AUTH_TOKEN: 't', SERVICE_STORAGE_POSTGRES_URL: URL }).join('\n'),
    ).toContain('SERVICE_STORAGE_POSTGRES_URL needs SERVICE_STORAGE_MODE=persistent')
    // Lease bounds at their edges.
    expect(
      problems({ SERVICE_STORAGE_POSTGRES_URL: URL, SERVICE_STORAGE_POSTGRES_LEASE_MS: '299' }),
    ).toContain('SERVICE_STORAGE_POSTGRES_LEASE_MS')
    expect(problems({ SERVICE_STORAGE_POSTGRES_URL: URL, SERVICE_STORAGE_POSTGRES_LEASE_MS: '600000' })).toBe(
      '',
    )
    expect(
      problems({ SERVICE_STORAGE_POSTGRES_URL: URL, SERVICE_READ_YOUR_WRITES_TIMEOUT_MS: '0' }),
    ).toContain('SERVICE_READ_YOUR_WRITES_TIMEOUT_MS')
  })

  it('never shows the database password in the effective settings', () => {
    const s = loadSettings({ ...pgBase, SERVICE_STORAGE_POSTGRES_URL: URL }, '/srv')
    const shown = JSON.stringify(redactedSettings(s))
    expect(shown).not.toContain('s3cret-pw')
    expect(shown).toContain('postgres://service:<redacted>@db.internal:5432/graph')
    const bad = problemsOf({ ...pgBase, SERVICE_STORAGE_POSTGRES_URL: 'mysql://u:s3cret-pw@x' }).join()
    expect(bad).not.toContain('s3cret-pw')
  })
})

describe('Bolt settings', () => {
  it('listens on 7687 by default with the documented bounds', () => {
    expect(loadSettings(base, '/srv').bolt).toEqual({
      enabled: true,
      port: 7687,
      maxConnections: 256,
      idleTimeoutMs: 600_000,
      txIdleTimeoutMs: 60_000,
      maxMessageBytes: 16 * 1024 * 1024,
      readAddresses: [],
      maxStreamedRecords: 5_000_000,
    })
    expect(
      loadSettings({ ...base, SERVICE_BOLT_MAX_STREAMED_RECORDS: '1000000' }, '/srv').bolt.maxStreamedRecords,
    ).toBe(1_000_000)
    expect(() => loadSettings({ ...base, SERVICE_BOLT_MAX_STREAMED_RECORDS: '0' }, '/srv')).toThrow(
      /SERVICE_BOLT_MAX_STREAMED_RECORDS/,
    )
    const off = loadSettings({ ...base, SERVICE_BOLT_ENABLED: 'false' }, '/srv').bolt
    expect(off.enabled).toBe(false)
    const set = loadSettings(
      { ...base, SERVICE_BOLT_PORT: '0', SERVICE_BOLT_READ_ADDRESSES: 'f1:7687, [::1]:7688' },
      '/srv',
    ).bolt
    expect(set.port).toBe(0)
    expect(set.readAddresses).toEqual(['f1:7687', '[::1]:7688'])
  })

  it('reads where LOAD CSV may read: a directory made absolute, URL prefixes that must be http(s)', () => {
    expect(loadSettings(base, '/srv').cypherImport).toEqual({ importDir: null, allowedUrls: [] })
    const set = loadSettings(
      {
        ...base,
        SERVICE_CYPHER_IMPORT_DIR: 'import',
        SERVICE_CYPHER_IMPORT_ALLOWED_URLS: 'https://data.example.org/exports/, http://10.0.0.5:8080',
      },
      '/srv',
    ).cypherImport
    expect(set).toEqual({
      importDir: join('/srv', 'import'),
      allowedUrls: ['https://data.example.org/exports/', 'http://10.0.0.5:8080'],
    })
    const problems = problemsOf({ ...base, SERVICE_CYPHER_IMPORT_ALLOWED_URLS: 'file:///etc, nope' }).join(
      '\n',
    )
    expect(problems).toContain("SERVICE_CYPHER_IMPORT_ALLOWED_URLS entry 'file:///etc'")
    expect(problems).toContain("SERVICE_CYPHER_IMPORT_ALLOWED_URLS entry 'nope'")
  })

  it('names every bad value, and a Bolt port that is the HTTP port', () => {
    const problems = problemsOf({
      ...base,
      SERVICE_BOLT_ENABLED: 'perhaps',
      SERVICE_BOLT_PORT: '65536',
      SERVICE_BOLT_MAX_CONNECTIONS: '0',
      SERVICE_BOLT_IDLE_TIMEOUT_MS: '10',
      SERVICE_BOLT_READ_ADDRESSES: 'no-port',
    }).join('\n')
    for (const name of [
      'SERVICE_BOLT_ENABLED',
      'SERVICE_BOLT_PORT',
      'SERVICE_BOLT_MAX_CONNECTIONS',
      'SERVICE_BOLT_IDLE_TIMEOUT_MS',
      "SERVICE_BOLT_READ_ADDRESSES entry 'no-port'",
    ])
      expect(problems).toContain(name)
    expect(problemsOf({ ...base, SERVICE_HTTP_PORT: '9000', SERVICE_BOLT_PORT: '9000' }).join()).toContain(
      'SERVICE_BOLT_PORT 9000 is the HTTP port too',
    )
  })
})
