import { invalid, memoryError } from './errors.js'
import {
  CONSOLIDATE_MAX_IDS,
  CONSOLIDATE_MIN_IDS,
  CONTRACT_VERSION,
  type Content,
  FORGET_MODES,
  type ForgetMode,
  LIFECYCLES,
  type Lifecycle,
  MAX_IDEMPOTENCY_KEY_CHARS,
  OPERATIONS,
  type OperationName,
  type Provenance,
  RECALL_LIMITS,
  type RecallLimits,
  TARGET_KINDS,
  type TargetKind,
} from './types.js'

/**
 * Strict parsing of a memory operation request. Unknown fields anywhere are INVALID_REQUEST, so a payload
 * can never smuggle in workspace, actor, agent, session, permissions or correlation identity: none of those
 * names is a known field. Nullable fields may be omitted; absent and null mean the same.
 */

type Json = Record<string, unknown>

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

function object(v: unknown, path: string, known: readonly string[]): Json {
  if (!isObject(v)) throw invalid(`${path} must be an object`)
  for (const key of Object.keys(v))
    if (!known.includes(key)) throw invalid(`${path}.${key} is not a field of this contract`)
  return v
}

function text(o: Json, key: string, path: string): string {
  const v = o[key]
  if (typeof v !== 'string' || v.trim() === '') throw invalid(`${path}.${key} must be a non-empty string`)
  return v
}

function optionalText(o: Json, key: string, path: string): string | null {
  return o[key] === undefined || o[key] === null ? null : text(o, key, path)
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/

function timestamp(o: Json, key: string, path: string): string | null {
  const v = o[key]
  if (v === undefined || v === null) return null
  if (typeof v !== 'string' || !RFC3339.test(v) || Number.isNaN(Date.parse(v)))
    throw invalid(`${path}.${key} must be an RFC 3339 timestamp`)
  return v
}

function confidence(o: Json, key: string, path: string): number | null {
  const v = o[key]
  if (v === undefined || v === null) return null
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1)
    throw invalid(`${path}.${key} must be a number from 0 to 1`)
  return v
}

function strings(o: Json, key: string, path: string, required: boolean): string[] {
  const v = o[key]
  if (v === undefined || v === null) {
    if (required) throw invalid(`${path}.${key} is required`)
    return []
  }
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string'))
    throw invalid(`${path}.${key} must be an array of strings`)
  return v as string[]
}

function oneOf<const T extends readonly string[]>(o: Json, key: string, path: string, values: T): T[number] {
  const v = o[key]
  if (typeof v !== 'string' || !values.includes(v))
    throw invalid(`${path}.${key} must be one of ${values.join(', ')}`)
  return v
}

function plainObject(v: unknown, path: string): Json {
  if (!isObject(v)) throw invalid(`${path} must be an object`)
  return v
}

function content(v: unknown, path: string): Content {
  const o = object(v, path, ['format', 'value'])
  const format = oneOf(o, 'format', path, ['text', 'properties', 'text_and_properties'] as const)
  if (format === 'text') return { format, value: text(o, 'value', path) }
  if (format === 'properties') return { format, value: plainObject(o.value, `${path}.value`) }
  const value = object(o.value, `${path}.value`, ['text', 'properties'])
  return {
    format,
    value: {
      text: text(value, 'text', `${path}.value`),
      properties: plainObject(value.properties, `${path}.value.properties`),
    },
  }
}

function provenance(o: Json, key: string, path: string, required: boolean): Provenance[] {
  const v = o[key]
  if (v === undefined || v === null) {
    if (required) throw invalid(`${path}.${key} is required`)
    return []
  }
  if (!Array.isArray(v)) throw invalid(`${path}.${key} must be an array`)
  return v.map((item, i) => {
    const p = object(item, `${path}.${key}[${i}]`, ['source_id', 'locator', 'observed_at'])
    const at = `${path}.${key}[${i}]`
    const locator = p.locator
    if (locator !== undefined && locator !== null && typeof locator !== 'string')
      throw invalid(`${at}.locator must be a string or null`)
    return {
      source_id: text(p, 'source_id', at),
      locator: (locator as string | null | undefined) ?? null,
      observed_at: timestamp(p, 'observed_at', at),
    }
  })
}

function integer(o: Json, key: string, path: string): number | null {
  const v = o[key]
  if (v === undefined || v === null) return null
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1)
    throw invalid(`${path}.${key} must be a positive integer`)
  return v
}

export interface RememberInput {
  identity_key: string | null
  kind: string
  schema_version: string
  content: Content
  provenance: Provenance[]
  confidence: number | null
  valid_from: string | null
  valid_until: string | null
  expires_at: string | null
  tags: string[]
}

export interface RelateInput {
  identity_key: string | null
  source_id: string
  target_id: string
  kind: string
  properties: Json
  provenance: Provenance[]
  confidence: number | null
  valid_from: string | null
  valid_until: string | null
  expires_at: string | null
  lifecycle: Lifecycle
}

export interface RecallInput {
  objective: string
  seed_ids: string[]
  limits: RecallLimits
  page_token: string | null
}

export interface Target {
  kind: TargetKind
  id: string
}

export interface UpdateInput {
  target: Target
  expected_version: number | null
  patch: {
    content: Content | null
    confidence: number | null
    add_provenance: Provenance[]
    lifecycle: Lifecycle | null
    expires_at: string | null
    add_tags: string[]
  }
}

export interface ForgetInput {
  memory_id: string
  mode: ForgetMode
  expires_at: string | null
  reason: string
}

export interface ConsolidateInput {
  mode: { mode: 'propose' } | { mode: 'apply_approved'; proposal_id: string; approval_policy: string }
  memory_ids: string[]
  canonical_id: string | null
  reason: string
  preserve_disagreements: boolean
}

export interface TraceInput {
  target: Target
}

const TEMPORAL_FIELDS = ['confidence', 'valid_from', 'valid_until', 'expires_at'] as const

function temporal(o: Json, path: string) {
  const from = timestamp(o, 'valid_from', path)
  const until = timestamp(o, 'valid_until', path)
  if (from !== null && until !== null && Date.parse(until) < Date.parse(from))
    throw invalid(`${path}.valid_until is before valid_from`)
  return {
    confidence: confidence(o, 'confidence', path),
    valid_from: from,
    valid_until: until,
    expires_at: timestamp(o, 'expires_at', path),
  }
}

function remember(v: unknown): RememberInput {
  const p = 'input'
  const o = object(v, p, [
    'identity_key',
    'kind',
    'schema_version',
    'content',
    'provenance',
    'tags',
    ...TEMPORAL_FIELDS,
  ])
  return {
    identity_key: optionalText(o, 'identity_key', p),
    kind: text(o, 'kind', p),
    schema_version: text(o, 'schema_version', p),
    content: content(o.content, `${p}.content`),
    provenance: provenance(o, 'provenance', p, true),
    ...temporal(o, p),
    tags: strings(o, 'tags', p, false),
  }
}

function relate(v: unknown): RelateInput {
  const p = 'input'
  const o = object(v, p, [
    'identity_key',
    'source_id',
    'target_id',
    'kind',
    'properties',
    'provenance',
    'lifecycle',
    ...TEMPORAL_FIELDS,
  ])
  return {
    identity_key: optionalText(o, 'identity_key', p),
    source_id: text(o, 'source_id', p),
    target_id: text(o, 'target_id', p),
    kind: text(o, 'kind', p),
    properties:
      o.properties === undefined || o.properties === null ? {} : plainObject(o.properties, `${p}.properties`),
    provenance: provenance(o, 'provenance', p, true),
    ...temporal(o, p),
    lifecycle: oneOf(o, 'lifecycle', p, LIFECYCLES),
  }
}

function limits(v: unknown): RecallLimits {
  const p = 'input.limits'
  const o = object(v, p, Object.keys(RECALL_LIMITS))
  const out = {} as RecallLimits
  for (const [key, max] of Object.entries(RECALL_LIMITS) as [keyof RecallLimits, number][]) {
    const n = o[key]
    if (n === undefined || n === null) throw invalid(`${p}.${key} is required`)
    if (typeof n !== 'number' || !Number.isInteger(n)) throw invalid(`${p}.${key} must be an integer`)
    if (n < 1 || n > max)
      throw memoryError(
        'INVALID_BUDGET',
        `${p}.${key} is ${n}; it must be from 1${max === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${max}`}`,
      )
    out[key] = n
  }
  return out
}

function recall(v: unknown): RecallInput {
  const p = 'input'
  const o = object(v, p, ['objective', 'seed_ids', 'limits', 'page_token'])
  if (o.limits === undefined) throw invalid(`${p}.limits is required`)
  return {
    objective: text(o, 'objective', p),
    seed_ids: strings(o, 'seed_ids', p, false),
    limits: limits(o.limits),
    page_token: optionalText(o, 'page_token', p),
  }
}

function target(v: unknown, path: string): Target {
  const o = object(v, path, ['kind', 'id'])
  return { kind: oneOf(o, 'kind', path, TARGET_KINDS), id: text(o, 'id', path) }
}

function update(v: unknown): UpdateInput {
  const p = 'input'
  const o = object(v, p, ['target', 'expected_version', 'patch'])
  const t = target(o.target, `${p}.target`)
  if (t.kind !== 'memory' && t.kind !== 'relationship')
    throw invalid(`${p}.target.kind must be memory or relationship for update`)
  const pp = `${p}.patch`
  const patch = object(o.patch, pp, [
    'content',
    'confidence',
    'add_provenance',
    'lifecycle',
    'expires_at',
    'add_tags',
  ])
  return {
    target: t,
    expected_version: integer(o, 'expected_version', p),
    patch: {
      content:
        patch.content === undefined || patch.content === null
          ? null
          : content(patch.content, `${pp}.content`),
      confidence: confidence(patch, 'confidence', pp),
      add_provenance: provenance(patch, 'add_provenance', pp, false),
      lifecycle:
        patch.lifecycle === undefined || patch.lifecycle === null
          ? null
          : oneOf(patch, 'lifecycle', pp, LIFECYCLES),
      expires_at: timestamp(patch, 'expires_at', pp),
      add_tags: strings(patch, 'add_tags', pp, false),
    },
  }
}

function forget(v: unknown): ForgetInput {
  const p = 'input'
  const o = object(v, p, ['memory_id', 'mode', 'expires_at', 'reason'])
  const mode = oneOf(o, 'mode', p, FORGET_MODES)
  const expiresAt = timestamp(o, 'expires_at', p)
  if (mode === 'expire' && expiresAt === null)
    throw invalid(`${p}.expires_at is required when mode is expire`)
  return { memory_id: text(o, 'memory_id', p), mode, expires_at: expiresAt, reason: text(o, 'reason', p) }
}

function consolidate(v: unknown): ConsolidateInput {
  const p = 'input'
  const o = object(v, p, ['mode', 'memory_ids', 'canonical_id', 'reason', 'preserve_disagreements'])
  const m = object(o.mode, `${p}.mode`, ['mode', 'proposal_id', 'approval_policy'])
  const name = oneOf(m, 'mode', `${p}.mode`, ['propose', 'apply_approved'] as const)
  let mode: ConsolidateInput['mode']
  if (name === 'propose') {
    if (m.proposal_id !== undefined || m.approval_policy !== undefined)
      throw invalid(`${p}.mode: propose takes no proposal_id or approval_policy`)
    mode = { mode: 'propose' }
  } else {
    mode = {
      mode: 'apply_approved',
      proposal_id: text(m, 'proposal_id', `${p}.mode`),
      approval_policy: text(m, 'approval_policy', `${p}.mode`),
    }
  }
  const ids = strings(o, 'memory_ids', p, true)
  if (ids.length < CONSOLIDATE_MIN_IDS || ids.length > CONSOLIDATE_MAX_IDS)
    throw invalid(`${p}.memory_ids must list ${CONSOLIDATE_MIN_IDS} to ${CONSOLIDATE_MAX_IDS} ids`)
  const unique = [...new Set(ids)].sort()
  if (unique.length < CONSOLIDATE_MIN_IDS)
    throw invalid(`${p}.memory_ids must name at least two distinct memories`)
  const canonical = optionalText(o, 'canonical_id', p)
  if (canonical !== null && !unique.includes(canonical))
    throw invalid(`${p}.canonical_id must be one of memory_ids`)
  if (typeof o.preserve_disagreements !== 'boolean')
    throw invalid(`${p}.preserve_disagreements must be a boolean`)
  return {
    mode,
    memory_ids: unique,
    canonical_id: canonical ?? (unique[0] as string),
    reason: text(o, 'reason', p),
    preserve_disagreements: o.preserve_disagreements,
  }
}

function trace(v: unknown): TraceInput {
  const o = object(v, 'input', ['target'])
  return { target: target(o.target, 'input.target') }
}

const PARSERS = { remember, relate, recall, update, forget, consolidate, trace } as const

export type InputOf = { [K in OperationName]: ReturnType<(typeof PARSERS)[K]> }

/** The operation name alone: permission is checked before the rest of the request is read. */
export function operationOf(body: unknown): OperationName {
  if (!isObject(body)) throw invalid('the request must be a JSON object')
  const op = body.operation
  if (typeof op !== 'string' || !(OPERATIONS as readonly string[]).includes(op))
    throw invalid(`operation must be one of ${OPERATIONS.join(', ')}`)
  return op as OperationName
}

export interface ParsedRequest<K extends OperationName = OperationName> {
  operation: K
  idempotencyKey: string | null
  input: InputOf[K]
  /** The raw input, for the canonical request hash. */
  rawInput: unknown
}

export function parseRequest(body: unknown): ParsedRequest {
  const operation = operationOf(body)
  const o = object(body, 'request', ['contract_version', 'idempotency_key', 'operation', 'input'])
  if (o.contract_version !== CONTRACT_VERSION) throw invalid(`contract_version must be '${CONTRACT_VERSION}'`)
  const key = o.idempotency_key
  if (key !== undefined && key !== null) {
    if (typeof key !== 'string' || key.trim() === '' || key.length > MAX_IDEMPOTENCY_KEY_CHARS)
      throw invalid(`idempotency_key must be 1..${MAX_IDEMPOTENCY_KEY_CHARS} characters`)
  }
  if (o.input === undefined) throw invalid('input is required')
  return {
    operation,
    idempotencyKey: (key as string | null | undefined) ?? null,
    input: PARSERS[operation](o.input),
    rawInput: o.input,
  }
}

/** JSON with sorted keys and null members dropped: layout and null-versus-absent do not change a hash. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (isObject(value)) {
    const keys = Object.keys(value)
      .filter((k) => value[k] !== null && value[k] !== undefined)
      .sort()
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`
  }
  return JSON.stringify(value)
}
