import type { Domain } from './domains.js'
import {
  type Capability,
  expectArray,
  expectBoolean,
  expectCapabilities,
  expectObject,
  expectPositiveInteger,
  expectString,
  isObject,
  type JsonObject,
  parseJson,
} from './strict-json.js'

/** The JSON documents exchanged with a provider (interface v1), and their strict readers. */

export const METADATA_REPLY_LIMIT = 64 * 1024
export const HEALTH_REPLY_LIMIT = 16 * 1024

export interface ProviderMetadata {
  schema_version: '1'
  provider_id: string
  provider_version: string
  domain: Domain
  thread_safe: boolean
  max_concurrency: number
  max_request_bytes: number
  max_response_bytes: number
  capabilities: Capability[]
}

/**
 * Reads a metadata reply: strict shape, the domain the manifest expects, non-blank ids, limits > 0 and
 * every capability the manifest requires declared.
 */
export function parseMetadata(
  text: string,
  domain: Domain,
  required: readonly Capability[],
): ProviderMetadata {
  const m = expectObject(parseJson(text, 'metadata'), 'metadata', [
    'schema_version',
    'provider_id',
    'provider_version',
    'domain',
    'thread_safe',
    'max_concurrency',
    'max_request_bytes',
    'max_response_bytes',
    'capabilities',
  ])
  if (m.schema_version !== '1') throw new TypeError('metadata schema_version must be "1"')
  if (m.domain !== domain)
    throw new TypeError(
      `metadata declares domain ${JSON.stringify(m.domain)}, the manifest entry is ${domain}`,
    )
  const capabilities = expectCapabilities(m.capabilities, 'metadata capabilities')
  for (const need of required) {
    if (!capabilities.some((c) => c.name === need.name && c.version === need.version))
      throw new TypeError(
        `metadata does not declare the capability ${need.name}/${need.version} the manifest requires`,
      )
  }
  return {
    schema_version: '1',
    provider_id: expectString(m.provider_id, 'metadata provider_id', { nonBlank: true }),
    provider_version: expectString(m.provider_version, 'metadata provider_version', { nonBlank: true }),
    domain,
    thread_safe: expectBoolean(m.thread_safe, 'metadata thread_safe'),
    max_concurrency: expectPositiveInteger(m.max_concurrency, 'metadata max_concurrency'),
    max_request_bytes: expectPositiveInteger(m.max_request_bytes, 'metadata max_request_bytes'),
    max_response_bytes: expectPositiveInteger(m.max_response_bytes, 'metadata max_response_bytes'),
    capabilities,
  }
}

/** Reads a health reply; anything but exactly `{"schema_version":"1","status":"ready"}` is a fault. */
export function parseHealth(text: string): void {
  const h = expectObject(parseJson(text, 'health'), 'health', ['schema_version', 'status'])
  if (h.schema_version !== '1') throw new TypeError('health schema_version must be "1"')
  if (h.status !== 'ready')
    throw new TypeError(`health reports status ${JSON.stringify(h.status)}, not "ready"`)
}

/** The configuration `create` receives. */
export const createConfig = (domain: Domain): Buffer =>
  Buffer.from(JSON.stringify({ schema_version: '1', domain }), 'utf8')

export interface InvokeRequest {
  schema_version: '1'
  request_id: string
  domain: Domain
  operation: 'node.validate'
  workspace_id: string | null
  snapshot_id: string | null
  payload: unknown
}

export interface ValidationIssue {
  code: string
  message: string
  field: string | null
  severity: 'error' | 'warning'
  node_id: string | null
}

export interface ValidationResponse {
  schema_version: '1'
  request_id: string
  status: 'accepted' | 'rejected' | 'failed'
  issues: ValidationIssue[]
  diagnostics: JsonObject | null
}

/** Compact JSON, as the providers scan the raw text (FACTS §11). */
export const encodeRequest = (request: InvokeRequest): Buffer => Buffer.from(JSON.stringify(request), 'utf8')

const STATUSES = new Set(['accepted', 'rejected', 'failed'])
const SEVERITIES = new Set(['error', 'warning'])

const nullableString = (value: unknown, what: string): string | null =>
  value === null || value === undefined ? null : expectString(value, what)

/** Reads an invoke reply; it must be well formed and echo schema_version "1" and the request's request_id. */
export function parseValidationResponse(text: string, requestId: string): ValidationResponse {
  const r = expectObject(
    parseJson(text, 'the response'),
    'the response',
    ['schema_version', 'request_id', 'status', 'issues'],
    ['diagnostics'],
  )
  if (r.schema_version !== '1') throw new TypeError('the response does not echo schema_version "1"')
  if (r.request_id !== requestId) throw new TypeError('the response does not echo the request_id')
  if (typeof r.status !== 'string' || !STATUSES.has(r.status))
    throw new TypeError('the response status is not accepted, rejected or failed')
  const issues = expectArray(r.issues, 'the response issues').map((item, i): ValidationIssue => {
    const where = `issues[${i}]`
    const issue = expectObject(item, where, ['code', 'message', 'severity'], ['field', 'node_id'])
    if (typeof issue.severity !== 'string' || !SEVERITIES.has(issue.severity))
      throw new TypeError(`${where}.severity is not error or warning`)
    return {
      code: expectString(issue.code, `${where}.code`, { nonBlank: true }),
      message: expectString(issue.message, `${where}.message`),
      field: nullableString(issue.field, `${where}.field`),
      severity: issue.severity as ValidationIssue['severity'],
      node_id: nullableString(issue.node_id, `${where}.node_id`),
    }
  })
  const diagnostics = r.diagnostics ?? null
  if (diagnostics !== null && !isObject(diagnostics))
    throw new TypeError('the response diagnostics is not an object')
  return {
    schema_version: '1',
    request_id: requestId,
    status: r.status as ValidationResponse['status'],
    issues,
    diagnostics,
  }
}
