import { readFileSync } from 'node:fs'

/** Settings that failed validation. Messages name the variable and never carry a secret or a URL. */
export class SettingsError extends Error {
  override readonly name = 'SettingsError'
  constructor(readonly problems: readonly string[]) {
    super(`invalid settings:\n  - ${problems.join('\n  - ')}`)
  }
}

export type TaxiiAuth =
  | { kind: 'none' }
  | { kind: 'bearer'; token: string }
  | { kind: 'basic'; username: string; password: string }

export interface ConnectorSettings {
  /** API root URL, always ending in `/` so relative paths resolve beneath it. */
  taxiiRootUrl: string
  collectionId: string
  taxiiAuth: TaxiiAuth
  /** Service base URL without a trailing `/`. */
  serviceBaseUrl: string
  serviceAuthToken: string
  workspaceId: string
  pollIntervalMs: number
  pageLimit: number
  stateDir: string
  maxRetries: number
  retryBaseMs: number
  retryMaxMs: number
  readyTimeoutMs: number
  /** Serialized size above which one cycle's objects are split into several import requests. */
  maxBundleBytes: number
  taxiiTimeoutMs: number
  serviceTimeoutMs: number
}

export const DEFAULTS = {
  serviceBaseUrl: 'http://127.0.0.1:8080',
  workspaceId: 'workspace--ingest-taxii',
  pollIntervalMs: 300_000,
  pageLimit: 100,
  stateDir: '.service-runtime/ingest',
  maxRetries: 5,
  retryBaseMs: 500,
  retryMaxMs: 30_000,
  readyTimeoutMs: 300_000,
  // Half the server's default import body limit (32 MiB), leaving room for the envelope.
  maxBundleBytes: 16 * 1024 * 1024,
  taxiiTimeoutMs: 60_000,
  serviceTimeoutMs: 120_000,
} as const

const P = 'SERVICE_INGEST_'

/** Reads and validates every setting, reporting all problems at once. */
export function loadSettings(env: NodeJS.ProcessEnv): ConnectorSettings {
  const problems: string[] = []
  const raw = (name: string): string | undefined => {
    const value = env[name]?.trim()
    return value === undefined || value === '' ? undefined : value
  }
  const required = (name: string): string => {
    const value = raw(name)
    if (value === undefined) problems.push(`${name} is required`)
    return value ?? ''
  }
  const url = (name: string, value: string): URL | undefined => {
    let parsed: URL
    try {
      parsed = new URL(value)
    } catch {
      problems.push(`${name} must be an absolute http or https URL`)
      return undefined
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      problems.push(`${name} must use http or https`)
    } else if (parsed.username !== '' || parsed.password !== '') {
      problems.push(`${name} must not embed credentials; use the token or username/password settings`)
    } else if (parsed.search !== '' || parsed.hash !== '') {
      problems.push(`${name} must not carry a query or fragment`)
    } else return parsed
    return undefined
  }
  const integer = (name: string, fallback: number, min: number): number => {
    const value = raw(name)
    if (value === undefined) return fallback
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < min) {
      problems.push(`${name} must be an integer >= ${min} (got '${value}')`)
      return fallback
    }
    return Number(value)
  }
  // A secret inline (`NAME`) or in a file (`NAME_FILE`), never both; blank is refused once present.
  const secret = (name: string): string | undefined => {
    const inline = env[name]
    const file = env[`${name}_FILE`]?.trim()
    if (inline !== undefined && file !== undefined && file !== '') {
      problems.push(`${name} and ${name}_FILE are both set; set exactly one`)
      return undefined
    }
    if (file !== undefined && file !== '') {
      let content: string
      try {
        content = readFileSync(file, 'utf8').trim()
      } catch (error) {
        problems.push(
          `${name}_FILE names a file that cannot be read (${(error as NodeJS.ErrnoException).code})`,
        )
        return undefined
      }
      if (content === '') problems.push(`${name}_FILE names an empty file`)
      return content === '' ? undefined : content
    }
    if (inline === undefined) return undefined
    if (inline.trim() === '') problems.push(`${name} is set but blank`)
    return inline.trim() === '' ? undefined : inline.trim()
  }

  const rootValue = required(`${P}TAXII_ROOT_URL`)
  const root = rootValue === '' ? undefined : url(`${P}TAXII_ROOT_URL`, rootValue)
  const collectionId = required(`${P}TAXII_COLLECTION_ID`)
  if (/[/?#]/.test(collectionId)) problems.push(`${P}TAXII_COLLECTION_ID must not contain '/', '?' or '#'`)
  const base = url(`${P}SERVICE_BASE_URL`, raw(`${P}SERVICE_BASE_URL`) ?? DEFAULTS.serviceBaseUrl)

  const serviceAuthToken = secret(`${P}SERVICE_AUTH_TOKEN`)
  // Unset altogether is reported here; blank or unreadable values were reported by `secret`.
  const tokenGiven =
    env[`${P}SERVICE_AUTH_TOKEN`] !== undefined || raw(`${P}SERVICE_AUTH_TOKEN_FILE`) !== undefined
  if (!tokenGiven) problems.push(`${P}SERVICE_AUTH_TOKEN is required`)

  const taxiiToken = secret(`${P}TAXII_TOKEN`)
  const username = raw(`${P}TAXII_USERNAME`)
  const password = secret(`${P}TAXII_PASSWORD`)
  let taxiiAuth: TaxiiAuth = { kind: 'none' }
  if (taxiiToken !== undefined && (username !== undefined || password !== undefined)) {
    problems.push(`${P}TAXII_TOKEN and ${P}TAXII_USERNAME/${P}TAXII_PASSWORD are exclusive; set one kind`)
  } else if ((username === undefined) !== (password === undefined)) {
    problems.push(`${P}TAXII_USERNAME and ${P}TAXII_PASSWORD must be set together`)
  } else if (taxiiToken !== undefined) taxiiAuth = { kind: 'bearer', token: taxiiToken }
  else if (username !== undefined && password !== undefined) taxiiAuth = { kind: 'basic', username, password }
  if (username?.includes(':')) problems.push(`${P}TAXII_USERNAME must not contain ':'`)

  const retryBaseMs = integer(`${P}RETRY_BASE_MS`, DEFAULTS.retryBaseMs, 1)
  const retryMaxMs = integer(`${P}RETRY_MAX_MS`, DEFAULTS.retryMaxMs, 1)
  if (retryMaxMs < retryBaseMs) problems.push(`${P}RETRY_MAX_MS must be >= ${P}RETRY_BASE_MS`)

  const settings: ConnectorSettings = {
    taxiiRootUrl: root === undefined ? '' : withTrailingSlash(root.href),
    collectionId,
    taxiiAuth,
    serviceBaseUrl: base === undefined ? '' : base.href.replace(/\/+$/, ''),
    serviceAuthToken: serviceAuthToken ?? '',
    workspaceId: raw(`${P}WORKSPACE_ID`) ?? DEFAULTS.workspaceId,
    pollIntervalMs: integer(`${P}POLL_INTERVAL_MS`, DEFAULTS.pollIntervalMs, 1),
    pageLimit: integer(`${P}PAGE_LIMIT`, DEFAULTS.pageLimit, 1),
    stateDir: raw(`${P}STATE_DIR`) ?? DEFAULTS.stateDir,
    maxRetries: integer(`${P}MAX_RETRIES`, DEFAULTS.maxRetries, 0),
    retryBaseMs,
    retryMaxMs,
    readyTimeoutMs: integer(`${P}READY_TIMEOUT_MS`, DEFAULTS.readyTimeoutMs, 1),
    maxBundleBytes: integer(`${P}MAX_BUNDLE_BYTES`, DEFAULTS.maxBundleBytes, 1024),
    taxiiTimeoutMs: integer(`${P}TAXII_TIMEOUT_MS`, DEFAULTS.taxiiTimeoutMs, 1),
    serviceTimeoutMs: integer(`${P}SERVICE_TIMEOUT_MS`, DEFAULTS.serviceTimeoutMs, 1),
  }
  if (problems.length > 0) throw new SettingsError(problems)
  return settings
}

const withTrailingSlash = (href: string): string => (href.endsWith('/') ? href : `${href}/`)

/** The settings as they may be logged: secrets replaced by whether they are set. */
export function redactedSettings(settings: ConnectorSettings): Record<string, unknown> {
  const { serviceAuthToken: _token, taxiiAuth, ...rest } = settings
  return { ...rest, serviceAuthToken: '[set]', taxiiAuth: taxiiAuth.kind }
}
