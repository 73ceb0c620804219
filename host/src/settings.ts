import { isAbsolute, join, resolve } from 'node:path'
import { DEFAULT_CHECKPOINT_EVERY_BYTES, MEMORY_PERMISSIONS, type MemoryPermission } from '@service/core'
import { WorkspaceSelection } from '@service/core/taxii'
import { PackError, parseEnabledPacks } from '@service/plugin-provider-host'
import { type BoltSettings, readBoltSettings } from './bolt-settings.js'
import { type CypherImportSettings, readCypherImportSettings } from './cypher-import-settings.js'
import { EnvReader, SettingsError } from './env-reader.js'
import { type McpSettings, readMcpSettings } from './mcp-settings.js'
import { type PostgresSettings, readPostgresSettings, redactPostgresUrl } from './postgres-settings.js'
import { readSeedSettings, type SeedSettings } from './seed-settings.js'

export type AuthMode = 'required' | 'local-insecure'
export { MEMORY_PERMISSIONS, type MemoryPermission }

export interface Settings {
  http: {
    host: string
    port: number
    authMode: AuthMode
    /** Secret; never logged. Null only in local-insecure mode without a token. */
    authToken: string | null
    /** Secret; never logged. Null disables admin routes (403 ADMIN_AUTH_NOT_CONFIGURED). */
    adminToken: string | null
    requestTimeoutMs: number
    shutdownTimeoutMs: number
    sessionIdleTtlMs: number
    maxBodyBytes: number
    importMaxBodyBytes: number
    rateLimit: { perSecond: number; burst: number }
    refRateLimit: { perSecond: number; burst: number }
    sessionStoreDir: string
    logDir: string
    operationalPolicy: 'public' | 'authenticated'
  }
  tls: { certificateFile: string; privateKeyFile: string } | null
  storage: {
    mode: 'ephemeral' | 'persistent'
    dir: string | null
    requireFsync: boolean
    strictRecovery: boolean
    maxHotNodes: number
    maxHotRelationships: number
    maxWarmAdjacencyEntries: number
    /** WAL segment size and checkpoint cadence (advanced; small values make faults reachable in tests). */
    segmentBytes: number
    checkpointEveryBytes: number
    /** File store: strings of this many UTF-8 bytes or more go to the payload file at a checkpoint (0: none). */
    payloadMinBytes: number
    /** File store: bound of the payload file's read cache, in bytes. */
    payloadCacheBytes: number
    /** Where every sealed WAL segment is kept for point-in-time recovery (file store), or null. */
    walArchiveDir: string | null
    /** The durable store in PostgreSQL instead of `dir`, with this process's role. */
    postgres: PostgresSettings | null
    /** How long a read that asked for read-your-writes (x-service-min-seq) waits for its sequence. */
    readYourWritesTimeoutMs: number
  }
  providers: { dir: string; manifestFile: string } | null
  /**
   * The domain packs this deployment enables (the "build feature" gate of the enterprise domains): built-in
   * short names (`cti`) and pack package names (`@acme/service-pack-research`), resolved at start.
   */
  enabledPacks: string[]
  memory: {
    workspaceId: string
    actorId: string
    agentId: string | null
    sessionId: string
    permissions: ReadonlySet<MemoryPermission>
  }
  mcp: McpSettings
  /** The Bolt listener (Neo4j drivers and tools) on the HTTP bind host. */
  bolt: BoltSettings
  /** Where Cypher's LOAD CSV may read: a directory, allowed URL prefixes. */
  cypherImport: CypherImportSettings
  /** Seed search's embedding provider (the seed plugin reads the same variables when it starts it). */
  seed: SeedSettings
  ref: {
    syncMaxOperations: number
    syncMaxReplayIdentities: number
    shadowMaxConcurrency: number
    shadowTimeoutMs: number
    referenceEndpoint: string | null
    referenceVersion: string
    /** Secret; never logged. */
    referenceAuthToken: string | null
    /** Entries per projection batch request (and the most a batch request here may carry). */
    projectionBatchMax: number
    /** Projection retry backoff: first delay and ceiling (ms), doubling with jitter. */
    projectionRetryBaseMs: number
    projectionRetryMaxMs: number
    /** Receipts kept for replay: the newest `receiptRetentionCount`, none older than `receiptRetentionMs`. */
    receiptRetentionCount: number
    receiptRetentionMs: number
  }
  license: { pem: string | null; publicKeyPem: string | null; licensedModules: string | null }
  log: {
    level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
    /** `json` lines (the default), or `pretty` readable lines for a person at a terminal (the quickstart's). */
    format: 'json' | 'pretty'
  }
  /** TAXII 2.1: which workspaces are collections, which accept additions (`*` or ids), page sizes. */
  taxii: { published: string; writable: string; pageDefault: number; pageMax: number }
  /** Old-generation growth between full collections, percent of the live heap (0: V8's heuristic). */
  heapGrowingPercent: number
}

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|\[::1\]|localhost)$/i
export const isLoopback = (host: string): boolean => LOOPBACK.test(host)

const MAX_PORT = 65535
const ONE_DAY_MS = 86_400_000
const ONE_GIB = 1024 * 1024 * 1024

/**
 * Reads and validates every setting; throws SettingsError listing all problems. `stdio` is the MCP stdio
 * server, which serves no HTTP and so needs no bearer token of its own.
 */
export function loadSettings(
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
  door: 'http' | 'stdio' = 'http',
  observe?: (name: string, fallback: unknown) => void,
): Settings {
  const r = new EnvReader(env, observe)
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(cwd, p))

  const host = r.string('SERVICE_HTTP_HOST', '127.0.0.1')
  const authMode = r.oneOf<AuthMode>('SERVICE_HTTP_AUTH_MODE', ['required', 'local-insecure'], 'required', {
    local_insecure: 'local-insecure',
  })
  const authToken = r.secret('SERVICE_HTTP_AUTH_TOKEN')
  if (
    door === 'http' &&
    authMode === 'required' &&
    authToken === null &&
    !r.has('SERVICE_HTTP_AUTH_TOKEN_FILE') &&
    env.SERVICE_HTTP_AUTH_TOKEN === undefined
  ) {
    r.problem('SERVICE_HTTP_AUTH_TOKEN (or SERVICE_HTTP_AUTH_TOKEN_FILE) is required and must be non-empty')
  }
  if (authMode === 'local-insecure' && !isLoopback(host)) {
    r.problem(
      `SERVICE_HTTP_AUTH_MODE=local-insecure is only allowed on a loopback bind (SERVICE_HTTP_HOST is '${host}')`,
    )
  }
  const adminToken = r.secret('SERVICE_HTTP_ADMIN_AUTH_TOKEN')
  if (adminToken !== null && authToken !== null && adminToken === authToken) {
    r.problem('SERVICE_HTTP_ADMIN_AUTH_TOKEN must differ from SERVICE_HTTP_AUTH_TOKEN')
  }

  // TLS: the reference's *_FILE names, with the spec's *_SOURCE names accepted as aliases.
  const certificate = r.string('SERVICE_TLS_CERTIFICATE_FILE') ?? r.string('SERVICE_TLS_CERTIFICATE_SOURCE')
  const privateKey = r.string('SERVICE_TLS_PRIVATE_KEY_FILE') ?? r.string('SERVICE_TLS_PRIVATE_KEY_SOURCE')
  const tlsEnabled = r.boolean('SERVICE_TLS_ENABLED', certificate !== undefined || privateKey !== undefined)
  let tls: Settings['tls'] = null
  if (tlsEnabled) {
    if (certificate === undefined) r.problem('SERVICE_TLS_CERTIFICATE_FILE is required when TLS is enabled')
    if (privateKey === undefined) r.problem('SERVICE_TLS_PRIVATE_KEY_FILE is required when TLS is enabled')
    if (certificate !== undefined && privateKey !== undefined) {
      tls = { certificateFile: abs(certificate), privateKeyFile: abs(privateKey) }
    }
  } else if (!isLoopback(host)) {
    r.problem(
      `SERVICE_HTTP_HOST '${host}' is not loopback: a non-loopback bind requires TLS (SERVICE_TLS_CERTIFICATE_FILE and SERVICE_TLS_PRIVATE_KEY_FILE)`,
    )
  }

  const sessionStoreDir = abs(r.string('SERVICE_HTTP_SESSION_STORE_DIR', '.service-runtime'))
  const storageMode = r.oneOf('SERVICE_STORAGE_MODE', ['ephemeral', 'persistent'] as const, 'ephemeral')
  const storageDir = r.string('SERVICE_STORAGE_DIR')
  const persistent = storageMode === 'persistent'
  const postgres = readPostgresSettings(r, persistent)
  const walArchiveDir = r.string('SERVICE_STORAGE_WAL_ARCHIVE_DIR')
  if (walArchiveDir !== undefined && (storageDir === undefined || postgres !== null)) {
    r.problem('SERVICE_STORAGE_WAL_ARCHIVE_DIR needs the file store (SERVICE_STORAGE_DIR)')
  }
  if (persistent && storageDir === undefined && postgres === null) {
    r.problem(
      'SERVICE_STORAGE_DIR (or SERVICE_STORAGE_POSTGRES_URL) is required when SERVICE_STORAGE_MODE=persistent',
    )
  }

  const providerDir = r.string('SERVICE_DOMAIN_PROVIDER_DIR')
  const providerManifest = r.string('SERVICE_DOMAIN_PROVIDER_MANIFEST_FILE')
  if ((providerDir === undefined) !== (providerManifest === undefined)) {
    r.problem(
      'SERVICE_DOMAIN_PROVIDER_DIR and SERVICE_DOMAIN_PROVIDER_MANIFEST_FILE must be set together or not at all',
    )
  }

  let enabledPacks: string[] = []
  try {
    enabledPacks = parseEnabledPacks(r.string('SERVICE_ENABLED_PACKS'))
  } catch (error) {
    if (!(error instanceof PackError)) throw error
    r.problem(`SERVICE_ENABLED_PACKS: ${error.message}`)
  }

  const memorySessionId = r.string('SERVICE_MEMORY_SESSION_ID', 'session--standalone-api')
  if (memorySessionId.length > 256) r.problem('SERVICE_MEMORY_SESSION_ID must be 1..256 characters')
  const permissionWords = r
    .string('SERVICE_MEMORY_PERMISSIONS', MEMORY_PERMISSIONS.join(','))
    .split(',')
    .map((w) => w.trim().toLowerCase())
    .filter((w) => w !== '')
  const permissions = new Set<MemoryPermission>()
  for (const word of permissionWords) {
    if ((MEMORY_PERMISSIONS as readonly string[]).includes(word)) permissions.add(word as MemoryPermission)
    else
      r.problem(
        `SERVICE_MEMORY_PERMISSIONS has an unknown permission '${word}' (known: ${MEMORY_PERMISSIONS.join(', ')})`,
      )
  }

  const licensePem = r.pem('SERVICE_HTTP_LICENSE_PEM')
  const licenseKey = r.pem('SERVICE_HTTP_LICENSE_PUBLIC_KEY_PEM')
  const licensedModules = r.string('SERVICE_HTTP_LICENSED_MODULES') ?? null
  if (licensePem !== null && licenseKey === null) {
    r.problem('SERVICE_HTTP_LICENSE_PUBLIC_KEY_PEM (or _FILE) is required when a license is set')
  }
  if (licensedModules !== null && licensePem === null) {
    r.problem(
      'SERVICE_HTTP_LICENSED_MODULES without a signed license is not accepted; supply SERVICE_HTTP_LICENSE_PEM',
    )
  }

  const referenceEndpoint = r.string('SERVICE_REF_SHADOW_REFERENCE_ENDPOINT') ?? null
  if (referenceEndpoint !== null && !/^https?:\/\//.test(referenceEndpoint)) {
    r.problem('SERVICE_REF_SHADOW_REFERENCE_ENDPOINT must be an http(s) URL')
  }

  const projectionRetryBaseMs = r.integer('SERVICE_REF_PROJECTION_RETRY_BASE_MS', 1000, 1, ONE_DAY_MS)
  const projectionRetryMaxMs = r.integer('SERVICE_REF_PROJECTION_RETRY_MAX_MS', 30_000, 1, ONE_DAY_MS)
  if (projectionRetryMaxMs < projectionRetryBaseMs) {
    r.problem('SERVICE_REF_PROJECTION_RETRY_MAX_MS must be at least SERVICE_REF_PROJECTION_RETRY_BASE_MS')
  }

  const selection = (name: string, fallback: string): string => {
    const text = r.string(name, fallback)
    try {
      return WorkspaceSelection.parse(text).toString()
    } catch (error) {
      r.problem(`${name}: ${(error as Error).message}`)
      return fallback
    }
  }
  const taxiiPageMax = r.integer('SERVICE_TAXII_PAGE_MAX', 1000, 1, 100_000)
  // Unset, the default page follows a lower maximum; set, it must fit under it.
  const taxiiPageDefault = r.integer('SERVICE_TAXII_PAGE_DEFAULT', Math.min(100, taxiiPageMax), 1, 100_000)
  if (taxiiPageDefault > taxiiPageMax)
    r.problem('SERVICE_TAXII_PAGE_DEFAULT must not exceed SERVICE_TAXII_PAGE_MAX')

  const httpPort = r.integer('SERVICE_HTTP_PORT', 8080, 0, MAX_PORT)
  const settings: Settings = {
    http: {
      host,
      port: httpPort,
      authMode,
      authToken,
      adminToken,
      requestTimeoutMs: r.integer('SERVICE_HTTP_REQUEST_TIMEOUT_MS', 30_000, 1, ONE_DAY_MS),
      shutdownTimeoutMs: r.integer('SERVICE_HTTP_SHUTDOWN_TIMEOUT_MS', 5_000, 1, ONE_DAY_MS),
      sessionIdleTtlMs: r.integer('SERVICE_HTTP_SESSION_IDLE_TTL_MS', 0, 0, 365 * ONE_DAY_MS),
      maxBodyBytes: r.integer('SERVICE_HTTP_MAX_BODY_BYTES', 2_097_152, 1, ONE_GIB),
      importMaxBodyBytes: r.integer('SERVICE_HTTP_IMPORT_MAX_BODY_BYTES', 33_554_432, 1, 4 * ONE_GIB),
      rateLimit: {
        perSecond: r.integer('SERVICE_HTTP_RATE_LIMIT_PER_SECOND', 50, 1),
        burst: r.integer('SERVICE_HTTP_RATE_LIMIT_BURST', 200, 1),
      },
      refRateLimit: {
        perSecond: r.integer('SERVICE_REF_RATE_LIMIT_PER_SECOND', 50, 1),
        burst: r.integer('SERVICE_REF_RATE_LIMIT_BURST', 200, 1),
      },
      sessionStoreDir,
      logDir: abs(r.string('SERVICE_HTTP_LOG_DIR', join(sessionStoreDir, 'logs'))),
      operationalPolicy: r.oneOf(
        'SERVICE_OPERATIONAL_ENDPOINT_POLICY',
        ['public', 'authenticated'] as const,
        'public',
      ),
    },
    tls,
    storage: {
      mode: storageMode,
      dir: storageDir === undefined ? null : abs(storageDir),
      requireFsync: r.boolean('SERVICE_STORAGE_REQUIRE_FSYNC', persistent),
      strictRecovery: r.boolean('SERVICE_STORAGE_STRICT_RECOVERY', persistent),
      maxHotNodes: r.integer('SERVICE_STORAGE_MAX_HOT_NODES', 16_384, 1),
      maxHotRelationships: r.integer('SERVICE_STORAGE_MAX_HOT_RELATIONSHIPS', 32_768, 1),
      maxWarmAdjacencyEntries: r.integer('SERVICE_STORAGE_MAX_WARM_ADJACENCY_ENTRIES', 65_536, 1),
      segmentBytes: r.integer('SERVICE_STORAGE_SEGMENT_BYTES', 64 * 1024 * 1024, 4096),
      checkpointEveryBytes: r.integer(
        'SERVICE_STORAGE_CHECKPOINT_EVERY_BYTES',
        DEFAULT_CHECKPOINT_EVERY_BYTES,
        4096,
      ),
      payloadMinBytes: r.integer('SERVICE_STORAGE_PAYLOAD_MIN_BYTES', 64, 0),
      payloadCacheBytes: r.integer('SERVICE_STORAGE_PAYLOAD_CACHE_BYTES', 16 * 1024 * 1024, 0),
      walArchiveDir: walArchiveDir === undefined ? null : abs(walArchiveDir),
      postgres,
      readYourWritesTimeoutMs: r.integer('SERVICE_READ_YOUR_WRITES_TIMEOUT_MS', 5_000, 1, 60_000),
    },
    providers:
      providerDir !== undefined && providerManifest !== undefined
        ? { dir: abs(providerDir), manifestFile: abs(providerManifest) }
        : null,
    enabledPacks,
    memory: {
      workspaceId: r.string('SERVICE_MEMORY_WORKSPACE_ID', 'workspace--standalone-default'),
      actorId: r.string('SERVICE_MEMORY_ACTOR_ID', 'actor--standalone-client'),
      agentId: r.string('SERVICE_MEMORY_AGENT_ID') ?? null,
      sessionId: memorySessionId,
      permissions,
    },
    mcp: readMcpSettings(r, host, authToken),
    bolt: readBoltSettings(r, httpPort),
    cypherImport: readCypherImportSettings(r, abs),
    seed: readSeedSettings(r, env),
    ref: {
      syncMaxOperations: r.integer('SERVICE_OPENCTI_SYNC_MAX_OPERATIONS', 512, 1),
      syncMaxReplayIdentities: r.integer('SERVICE_REF_SYNC_MAX_REPLAY_IDENTITIES', 4096, 1),
      shadowMaxConcurrency: r.integer('SERVICE_REF_SHADOW_MAX_CONCURRENCY', 4, 1),
      shadowTimeoutMs: r.integer('SERVICE_REF_SHADOW_TIMEOUT_MS', 2000, 1, ONE_DAY_MS),
      referenceEndpoint,
      referenceVersion: r.string('SERVICE_REF_SHADOW_REFERENCE_VERSION', 'unconfigured'),
      referenceAuthToken: r.secret('SERVICE_REF_SHADOW_REFERENCE_AUTH_TOKEN'),
      projectionBatchMax: r.integer('SERVICE_REF_PROJECTION_BATCH_MAX', 64, 1, 4096),
      projectionRetryBaseMs,
      projectionRetryMaxMs,
      receiptRetentionCount: r.integer('SERVICE_REF_RECEIPT_RETENTION_COUNT', 100_000, 1),
      receiptRetentionMs: r.integer('SERVICE_REF_RECEIPT_RETENTION_MS', 7 * ONE_DAY_MS, 1),
    },
    license: { pem: licensePem, publicKeyPem: licenseKey, licensedModules },
    log: {
      level: r.oneOf(
        'SERVICE_LOG_LEVEL',
        ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
        'info',
      ),
      format: r.oneOf('SERVICE_LOG_FORMAT', ['json', 'pretty'] as const, 'json'),
    },
    taxii: {
      published: selection('SERVICE_TAXII_PUBLISHED_COLLECTIONS', '*'),
      writable: selection('SERVICE_TAXII_WRITABLE_COLLECTIONS', ''),
      pageDefault: taxiiPageDefault,
      pageMax: taxiiPageMax,
    },
    heapGrowingPercent: r.integer('SERVICE_HEAP_GROWING_PERCENT', 100, 0, 1000),
  }
  if (r.problems.length > 0) throw new SettingsError(r.problems)
  return settings
}

/** The effective settings with every secret replaced, for `check-config --print-effective` and start-up logs. */
export function redactedSettings(settings: Settings): unknown {
  const hidden = (v: string | null) => (v === null ? null : '<redacted>')
  return {
    ...settings,
    http: {
      ...settings.http,
      authToken: hidden(settings.http.authToken),
      adminToken: hidden(settings.http.adminToken),
    },
    ref: { ...settings.ref, referenceAuthToken: hidden(settings.ref.referenceAuthToken) },
    storage: {
      ...settings.storage,
      postgres:
        settings.storage.postgres === null
          ? null
          : { ...settings.storage.postgres, url: redactPostgresUrl(settings.storage.postgres.url) },
    },
    mcp: { ...settings.mcp, remoteToken: hidden(settings.mcp.remoteToken) },
    license: {
      pem: hidden(settings.license.pem),
      publicKeyPem: settings.license.publicKeyPem === null ? null : '<set>',
      licensedModules: settings.license.licensedModules,
    },
    memory: { ...settings.memory, permissions: [...settings.memory.permissions] },
  }
}

export { SettingsError }
