/**
 * Every environment variable the server reads, with its default and meaning: the one source of
 * `docs/configuration.md` (`node host/dist/main.js settings-doc > docs/configuration.md`). A unit test fails when a
 * variable read anywhere in the server is missing here, when one listed here is read nowhere, when a default
 * here differs from the fallback the reader applies, or when the committed document differs from this catalog.
 */
export interface SettingGroup {
  section: string
  /** Full variable names, each with its default as shown: a literal in backquotes, or words. */
  vars: readonly (readonly [name: string, defaultText: string])[]
  meaning: string
  /** Secret: also accepted as `<NAME>_FILE` (a file holding it); never logged or echoed. */
  secret?: boolean
}

const UNSET = 'unset'

export const SETTINGS_CATALOG: readonly SettingGroup[] = [
  // HTTP and auth
  {
    section: 'HTTP and authentication',
    vars: [['SERVICE_HTTP_AUTH_TOKEN', 'required']],
    meaning: 'Bearer token for every `/v1/*` route (exactly one of the two forms; trimmed; non-blank).',
    secret: true,
  },
  {
    section: 'HTTP and authentication',
    vars: [['SERVICE_HTTP_AUTH_MODE', '`required`']],
    meaning: '`local-insecure` skips the bearer check; allowed on a loopback bind only.',
  },
  {
    section: 'HTTP and authentication',
    vars: [['SERVICE_HTTP_ADMIN_AUTH_TOKEN', UNSET]],
    meaning: 'Separate token for `/v1/admin/*`; unset → those routes answer 403 `ADMIN_AUTH_NOT_CONFIGURED`.',
    secret: true,
  },
  {
    section: 'HTTP and authentication',
    vars: [
      ['SERVICE_HTTP_HOST', '`127.0.0.1`'],
      ['SERVICE_HTTP_PORT', '`8080`'],
    ],
    meaning: 'Bind address (the Bolt listener binds the same host). A non-loopback host requires TLS.',
  },
  {
    section: 'HTTP and authentication',
    vars: [['SERVICE_HTTP_REQUEST_TIMEOUT_MS', '`30000`']],
    meaning: 'Handler budget; past it the answer is 504 `REQUEST_TIMEOUT`.',
  },
  {
    section: 'HTTP and authentication',
    vars: [['SERVICE_HTTP_SHUTDOWN_TIMEOUT_MS', '`5000`']],
    meaning: 'Drain deadline on SIGTERM/SIGINT.',
  },
  {
    section: 'HTTP and authentication',
    vars: [
      ['SERVICE_HTTP_MAX_BODY_BYTES', '`2097152`'],
      ['SERVICE_HTTP_IMPORT_MAX_BODY_BYTES', '`33554432`'],
    ],
    meaning: 'JSON body limit (413 `PAYLOAD_TOO_LARGE`), and the body limit of imports and `/v1/ref/*`.',
  },
  {
    section: 'HTTP and authentication',
    vars: [
      ['SERVICE_HTTP_RATE_LIMIT_PER_SECOND', '`50`'],
      ['SERVICE_HTTP_RATE_LIMIT_BURST', '`200`'],
    ],
    meaning:
      'One token bucket for bearer routes and Bolt requests (RUN, BEGIN): 429 `RATE_LIMITED` with `Retry-After`, on Bolt the transient `Neo.TransientError.Request.ResourceExhaustion` drivers retry.',
  },
  {
    section: 'HTTP and authentication',
    vars: [
      ['SERVICE_REF_RATE_LIMIT_PER_SECOND', '`50`'],
      ['SERVICE_REF_RATE_LIMIT_BURST', '`200`'],
    ],
    meaning: 'Its own bucket for `/v1/ref/*`.',
  },
  {
    section: 'HTTP and authentication',
    vars: [['SERVICE_OPERATIONAL_ENDPOINT_POLICY', '`public`']],
    meaning: '`authenticated` puts `/health*`, `/version`, `/metrics` behind the bearer token.',
  },
  {
    section: 'HTTP and authentication',
    vars: [['SERVICE_HTTP_SESSION_IDLE_TTL_MS', '`0`']],
    meaning: 'Idle time-to-live of sessions; 0 disables.',
  },
  {
    section: 'HTTP and authentication',
    vars: [
      ['SERVICE_HTTP_SESSION_STORE_DIR', '`.service-runtime`'],
      ['SERVICE_HTTP_LOG_DIR', '`logs` in the session store'],
    ],
    meaning: 'Runtime directories (sessions, request logs).',
  },
  // TLS
  {
    section: 'TLS',
    vars: [
      ['SERVICE_TLS_CERTIFICATE_FILE', UNSET],
      ['SERVICE_TLS_PRIVATE_KEY_FILE', UNSET],
    ],
    meaning: 'Serve https (and Bolt over TLS) when both are set.',
  },
  {
    section: 'TLS',
    vars: [
      ['SERVICE_TLS_CERTIFICATE_SOURCE', UNSET],
      ['SERVICE_TLS_PRIVATE_KEY_SOURCE', UNSET],
    ],
    meaning: "The spec's names for the two files, accepted as aliases.",
  },
  {
    section: 'TLS',
    vars: [['SERVICE_TLS_ENABLED', 'true when a certificate or key is set']],
    meaning: '`true` demands both files; `false` serves plain http on a loopback bind.',
  },
  // Storage
  {
    section: 'Storage',
    vars: [['SERVICE_STORAGE_MODE', '`ephemeral`']],
    meaning: '`ephemeral` (in memory, gone on restart) or `persistent`.',
  },
  {
    section: 'Storage',
    vars: [['SERVICE_STORAGE_DIR', UNSET]],
    meaning: 'Graph directory; required when persistent (unless the PostgreSQL store is set).',
  },
  {
    section: 'Storage',
    vars: [
      ['SERVICE_STORAGE_REQUIRE_FSYNC', 'true when persistent'],
      ['SERVICE_STORAGE_STRICT_RECOVERY', 'true when persistent'],
    ],
    meaning:
      'Durability controls, shown in `/health`: fsync before acknowledging; refuse to start on corruption.',
  },
  {
    section: 'Storage',
    vars: [
      ['SERVICE_STORAGE_SEGMENT_BYTES', '`67108864`'],
      ['SERVICE_STORAGE_CHECKPOINT_EVERY_BYTES', '`268435456`'],
    ],
    meaning:
      'WAL segment size and the log growth that starts a checkpoint (minimum 4096); a store whose checkpoint image is larger than twice this waits for half its image of log instead.',
  },
  {
    section: 'Storage',
    vars: [
      ['SERVICE_STORAGE_PAYLOAD_MIN_BYTES', '`64`'],
      ['SERVICE_STORAGE_PAYLOAD_CACHE_BYTES', '`16777216`'],
    ],
    meaning:
      'File store: a checkpoint moves string values of at least this many UTF-8 bytes to the payload file (`payloads.dat`) and keeps a reference in memory (0 keeps every value resident); reads go through a cache bounded by the second setting (the heap its entries take, the text of each value and ~100 bytes of bookkeeping); a scan of every value (the seed index rebuilt after a restart) reads past it. The first payload raises the directory to record format JsonLinesV3.',
  },
  {
    section: 'Storage',
    vars: [['SERVICE_STORAGE_WAL_ARCHIVE_DIR', UNSET]],
    meaning:
      'File store: keep every sealed WAL segment (and the tail on close) here, with a SHA-256 sidecar, for point-in-time recovery (`restore … --until-seq/--until-time`); compaction waits for it (docs/operations.md).',
  },
  {
    section: 'Storage',
    vars: [
      ['SERVICE_STORAGE_MAX_HOT_NODES', '`16384`'],
      ['SERVICE_STORAGE_MAX_HOT_RELATIONSHIPS', '`32768`'],
      ['SERVICE_STORAGE_MAX_WARM_ADJACENCY_ENTRIES', '`65536`'],
    ],
    meaning: 'Bounds of one request projection.',
  },
  // PostgreSQL
  {
    section: 'PostgreSQL store and followers',
    vars: [['SERVICE_STORAGE_POSTGRES_URL', UNSET]],
    meaning:
      'The durable store in PostgreSQL (`postgres://…`) instead of `SERVICE_STORAGE_DIR`; its password never reaches a log.',
    secret: true,
  },
  {
    section: 'PostgreSQL store and followers',
    vars: [
      ['SERVICE_STORAGE_ROLE', '`primary`'],
      ['SERVICE_STORAGE_PROMOTE', '`off`'],
    ],
    meaning:
      "`follower` serves reads and tails the log (needs the PostgreSQL store); `auto` lets a follower take over once the primary's session ends.",
  },
  {
    section: 'PostgreSQL store and followers',
    vars: [['SERVICE_PRIMARY_URL', UNSET]],
    meaning: "The primary's address, named in a follower's 503 `STORAGE_READ_ONLY_FOLLOWER`.",
  },
  {
    section: 'PostgreSQL store and followers',
    vars: [
      ['SERVICE_STORAGE_POSTGRES_LEASE_MS', '`10000`'],
      ['SERVICE_STORAGE_FOLLOWER_POLL_MS', '`200`'],
    ],
    meaning:
      "How long a silent primary keeps ownership (300–600000), and a follower's poll by sequence (notifications wake it sooner).",
  },
  {
    section: 'PostgreSQL store and followers',
    vars: [['SERVICE_READ_YOUR_WRITES_TIMEOUT_MS', '`5000`']],
    meaning:
      'How long a read with `x-service-min-seq` (or a Bolt bookmark) waits for that sequence (1–60000); then 503 `STORAGE_FOLLOWER_LAGGING`.',
  },
  // Packs and licenses
  {
    section: 'Domain packs and licenses',
    vars: [
      ['SERVICE_DOMAIN_PROVIDER_DIR', UNSET],
      ['SERVICE_DOMAIN_PROVIDER_MANIFEST_FILE', UNSET],
    ],
    meaning: 'Trusted provider directory and manifest; set both or neither.',
  },
  {
    section: 'Domain packs and licenses',
    vars: [['SERVICE_ENABLED_PACKS', '`cti,fimi,crisis,medical,research`']],
    meaning:
      "Domain packs of this deployment: built-in short names and pack package names (`@acme/service-pack-research`), found with Node's module resolution from the working directory; see `docs/packs.md`.",
  },
  {
    section: 'Domain packs and licenses',
    vars: [
      ['SERVICE_HTTP_LICENSE_PEM', UNSET],
      ['SERVICE_HTTP_LICENSE_PUBLIC_KEY_PEM', UNSET],
    ],
    meaning: 'Signed license and its verification key, supplied at run time only.',
    secret: true,
  },
  {
    section: 'Domain packs and licenses',
    vars: [['SERVICE_HTTP_LICENSED_MODULES', UNSET]],
    meaning: 'Refused without a signed license (modules come from the license, never from a plain variable).',
  },
  // Memory door
  {
    section: 'Memory operations (HTTP door)',
    vars: [
      ['SERVICE_MEMORY_WORKSPACE_ID', '`workspace--standalone-default`'],
      ['SERVICE_MEMORY_ACTOR_ID', '`actor--standalone-client`'],
      ['SERVICE_MEMORY_AGENT_ID', UNSET],
      ['SERVICE_MEMORY_SESSION_ID', '`session--standalone-api`'],
      ['SERVICE_MEMORY_PERMISSIONS', '`read,write,trace,forget,consolidate`'],
    ],
    meaning: 'The trusted memory context of `POST /v1/memory/operations` and the MCP memory tools.',
  },
  // Reference platform
  {
    section: 'Reference-platform writes',
    vars: [
      ['SERVICE_OPENCTI_SYNC_MAX_OPERATIONS', '`512`'],
      ['SERVICE_REF_SYNC_MAX_REPLAY_IDENTITIES', '`4096`'],
      ['SERVICE_REF_SHADOW_MAX_CONCURRENCY', '`4`'],
      ['SERVICE_REF_SHADOW_TIMEOUT_MS', '`2000`'],
    ],
    meaning: 'Reference-platform write bounds.',
  },
  {
    section: 'Reference-platform writes',
    vars: [
      ['SERVICE_REF_SHADOW_REFERENCE_ENDPOINT', UNSET],
      ['SERVICE_REF_SHADOW_REFERENCE_VERSION', '`unconfigured`'],
    ],
    meaning:
      "The reference platform's write URL (e.g. `http://ref:8080/v1/ref/writes`) and its version; unset → a service-only store.",
  },
  {
    section: 'Reference-platform writes',
    vars: [['SERVICE_REF_SHADOW_REFERENCE_AUTH_TOKEN', UNSET]],
    meaning: "The reference platform's bearer token.",
    secret: true,
  },
  {
    section: 'Reference-platform writes',
    vars: [['SERVICE_REF_PROJECTION_BATCH_MAX', '`64`']],
    meaning:
      'Entries per projection batch request, and the most `POST /v1/ref/writes/batch` takes (`docs/ref-projection.md`).',
  },
  {
    section: 'Reference-platform writes',
    vars: [
      ['SERVICE_REF_PROJECTION_RETRY_BASE_MS', '`1000`'],
      ['SERVICE_REF_PROJECTION_RETRY_MAX_MS', '`30000`'],
    ],
    meaning: 'Projection retry backoff: first delay and ceiling, doubling with jitter.',
  },
  {
    section: 'Reference-platform writes',
    vars: [
      ['SERVICE_REF_RECEIPT_RETENTION_COUNT', '`100000`'],
      ['SERVICE_REF_RECEIPT_RETENTION_MS', '`604800000`'],
    ],
    meaning: 'The receipt window: replay inside it, `CONFLICT` outside it.',
  },
  // TAXII
  {
    section: 'TAXII 2.1',
    vars: [['SERVICE_TAXII_PUBLISHED_COLLECTIONS', '`*`']],
    meaning:
      'Workspaces readable as TAXII 2.1 collections: `*` (every workspace holding STIX objects) or a comma list of workspace ids.',
  },
  {
    section: 'TAXII 2.1',
    vars: [['SERVICE_TAXII_WRITABLE_COLLECTIONS', 'none']],
    meaning: 'Workspaces that accept TAXII additions (`POST …/objects/`): `*` or a comma list.',
  },
  {
    section: 'TAXII 2.1',
    vars: [
      ['SERVICE_TAXII_PAGE_DEFAULT', '`100`'],
      ['SERVICE_TAXII_PAGE_MAX', '`1000`'],
    ],
    meaning:
      'TAXII page size without `limit` (at most the maximum), and the largest page served (a larger `limit` is lowered to it); 1–100000.',
  },
  // MCP
  {
    section: 'MCP',
    vars: [['SERVICE_MCP_ALLOW_CYPHER_WRITE', '`false`']],
    meaning: 'Lists the `cypher_write` MCP tool (it also needs the `write` permission).',
  },
  {
    section: 'MCP',
    vars: [
      ['SERVICE_MCP_ALLOWED_HOSTS', 'loopback names and the bind host'],
      ['SERVICE_MCP_ALLOWED_ORIGINS', 'none'],
    ],
    meaning:
      'Host names `/mcp` answers to, and browser origins allowed besides those on an allowed host (403 `HOST_NOT_ALLOWED` / `ORIGIN_NOT_ALLOWED`).',
  },
  {
    section: 'MCP',
    vars: [
      ['SERVICE_MCP_MAX_SESSIONS', '`64`'],
      ['SERVICE_MCP_SESSION_IDLE_MS', '`1800000`'],
    ],
    meaning: 'Open MCP sessions at most (503 `MCP_SESSION_LIMIT`); idle ones are closed first to make room.',
  },
  {
    section: 'MCP',
    vars: [['SERVICE_MCP_REMOTE_URL', UNSET]],
    meaning: '`service-http-server mcp` forwards to this running server instead of opening the storage.',
  },
  {
    section: 'MCP',
    vars: [['SERVICE_MCP_REMOTE_AUTH_TOKEN', '`SERVICE_HTTP_AUTH_TOKEN`']],
    meaning: 'The token `service-http-server mcp` presents to that server.',
    secret: true,
  },
  // Bolt
  {
    section: 'Bolt (Neo4j drivers and tools)',
    vars: [
      ['SERVICE_BOLT_ENABLED', '`true`'],
      ['SERVICE_BOLT_PORT', '`7687`'],
    ],
    meaning: 'The Bolt listener on the HTTP bind host (`0`: any free port, reported in `/health`).',
  },
  {
    section: 'Bolt (Neo4j drivers and tools)',
    vars: [
      ['SERVICE_BOLT_MAX_CONNECTIONS', '`256`'],
      ['SERVICE_BOLT_IDLE_TIMEOUT_MS', '`600000`'],
      ['SERVICE_BOLT_TX_IDLE_TIMEOUT_MS', '`60000`'],
      ['SERVICE_BOLT_MAX_MESSAGE_BYTES', '`16777216`'],
    ],
    meaning:
      'Open connections at most (a clear refusal past it), idle connection close, idle explicit transaction rollback, and the largest message accepted.',
  },
  {
    section: 'Bolt (Neo4j drivers and tools)',
    vars: [['SERVICE_BOLT_MAX_STREAMED_RECORDS', '`5000000`']],
    meaning:
      'Records one streamed Bolt result may deliver (`QUERY_BUDGET_EXCEEDED`, `streamed_records`, past it). A read whose rows pass through one by one is computed as the client pulls, holding one slice; its loaded-records and adjacency bounds scale with this in the proportion HTTP keeps to its 10,000-row budget; the time budget stays. HTTP keeps its own limits.',
  },
  {
    section: 'Bolt (Neo4j drivers and tools)',
    vars: [['SERVICE_BOLT_READ_ADDRESSES', UNSET]],
    meaning: '`host:port` list of read followers that `ROUTE` names as `READ` on a PostgreSQL primary.',
  },
  // Cypher import
  {
    section: 'Cypher import (LOAD CSV)',
    vars: [['SERVICE_CYPHER_IMPORT_DIR', UNSET]],
    meaning:
      "The directory `LOAD CSV FROM 'file:///name.csv'` reads from (`name.csv` in it, as Neo4j's import directory); `..` and symbolic links that lead out of it are refused. Unset: every file URL is refused (`LOAD_CSV_NOT_ALLOWED`). gzip files are read as such.",
  },
  {
    section: 'Cypher import (LOAD CSV)',
    vars: [['SERVICE_CYPHER_IMPORT_ALLOWED_URLS', UNSET]],
    meaning:
      'Comma-separated http(s) URL prefixes `LOAD CSV` may fetch (same scheme, host and port, path under the prefix); no request goes to any other address and redirects are not followed. Unset: every URL is refused.',
  },
  // Seed search embeddings
  {
    section: 'Seed search embeddings',
    vars: [['SERVICE_SEED_EMBEDDING_PROVIDER', '`local`, or `http` when a URL is set']],
    meaning:
      '`local` (GloVe word vectors shipped by an npm package), `http` (an OpenAI-compatible embeddings endpoint) or `none` (semantic and vector search answer 503 `SEMANTIC_PROVIDER_UNAVAILABLE`).',
  },
  {
    section: 'Seed search embeddings',
    vars: [
      ['SERVICE_SEED_EMBEDDING_URL', UNSET],
      ['SERVICE_SEED_EMBEDDING_MODEL', '`default`'],
      ['SERVICE_SEED_EMBEDDING_TIMEOUT_MS', '`10000`'],
      ['SERVICE_SEED_EMBEDDING_BATCH_SIZE', '`64`'],
    ],
    meaning:
      'The `http` provider: endpoint (`…/v1/embeddings`), model name, per-request timeout and texts per request.',
  },
  {
    section: 'Seed search embeddings',
    vars: [['SERVICE_SEED_EMBEDDING_API_KEY', UNSET]],
    meaning: "The `http` provider's bearer key.",
  },
  {
    section: 'Seed search embeddings',
    vars: [['SERVICE_SEED_EMBEDDING_CACHE_DIR', 'beside the model']],
    meaning: 'Where the `local` model keeps its converted cache (the first start converts it, ~10 s).',
  },
  // Logs and runtime
  {
    section: 'Logs and runtime',
    vars: [
      ['SERVICE_LOG_LEVEL', '`info`'],
      ['SERVICE_LOG_FORMAT', '`json`'],
    ],
    meaning:
      'pino level and format; logs are JSON on stdout with credentials redacted. Probes are logged at `debug`.',
  },
  {
    section: 'Logs and runtime',
    vars: [['SERVICE_HEAP_GROWING_PERCENT', '`100`']],
    meaning:
      "How far the JS heap may grow past its live size before a full collection (percent); above `0` the server also collects once it is idle after bulk work (a restart, a large import), giving that memory back; `0` leaves V8's heuristic (up to 4x, i.e. more RSS after bulk imports).",
  },
  {
    section: 'Logs and runtime',
    vars: [['SERVICE_BUILD_COMMIT', '`unknown`']],
    meaning: 'The commit `/version` reports (set by a release build).',
  },
  {
    section: 'Logs and runtime',
    vars: [['SERVICE_DEV_LICENSE_DIR', '`.service-runtime/dev-license`']],
    meaning:
      'Where `service-http-server dev-license` keeps its generated key pair and license (development only).',
  },
]

/** docs/configuration.md: every setting by section, generated from the catalog. */
export function renderConfigurationDoc(catalog: readonly SettingGroup[] = SETTINGS_CATALOG): string {
  const out = [
    '# Configuration',
    '',
    '<!-- Generated from host/src/settings-catalog.ts by `node host/dist/main.js settings-doc`; do not edit. -->',
    '',
    'Every setting is an environment variable, validated at start: all problems are reported at once, each naming',
    'its variable and never showing a secret (exit code 2). A secret is given inline or as `<NAME>_FILE`, the path',
    'of a file holding it (exactly one of the two). `service-http-server check-config --print-effective` prints the',
    'effective settings with secrets redacted.',
  ]
  const sections = [...new Set(catalog.map((g) => g.section))]
  for (const section of sections) {
    out.push('', `## ${section}`, '', '| Variable | Default | Meaning |', '| --- | --- | --- |')
    for (const group of catalog.filter((g) => g.section === section)) {
      const names = group.vars.map(([name]) => `\`${name}\`${group.secret ? ' / `_FILE`' : ''}`).join(', ')
      const defaults = group.vars.map(([, text]) => text).join(', ')
      out.push(`| ${names} | ${defaults} | ${group.meaning} |`)
    }
  }
  return `${out.join('\n')}\n`
}
