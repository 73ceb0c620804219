import { invalid } from './errors.js'
import type { RecallFilters } from './recall-filters.js'
import { MEMORY_INPUT_SCHEMAS, MemoryEnvelopeSchema, type RawInputOf } from './schemas.js'
import {
  CONSOLIDATE_MIN_IDS,
  type Content,
  type ForgetMode,
  type Lifecycle,
  OPERATIONS,
  type OperationName,
  type Provenance,
  type RecallLimits,
  type TargetKind,
} from './types.js'
import { assertSchema } from './validation.js'

/**
 * A memory operation request, checked against its TypeBox schema (schemas.ts: unknown fields anywhere are
 * INVALID_REQUEST, so a payload can never smuggle in workspace, actor, agent, session, permissions or
 * correlation identity), then normalised: absent and null optional fields become null or an empty list. The
 * rules a schema cannot say (valid_until after valid_from, expire needs expires_at, consolidation's id set)
 * are checked here.
 */

type Json = Record<string, unknown>

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

const provenance = (list: readonly RawProvenance[] | null | undefined): Provenance[] =>
  (list ?? []).map((p) => ({
    source_id: p.source_id,
    locator: p.locator ?? null,
    observed_at: p.observed_at ?? null,
  }))

type RawProvenance = RawInputOf['remember']['provenance'][number]

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
  filters: RecallFilters
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

interface RawTemporal {
  confidence?: number | null
  valid_from?: string | null
  valid_until?: string | null
  expires_at?: string | null
}

function temporal(o: RawTemporal) {
  const from = o.valid_from ?? null
  const until = o.valid_until ?? null
  if (from !== null && until !== null && Date.parse(until) < Date.parse(from))
    throw invalid('input.valid_until is before valid_from')
  return {
    confidence: o.confidence ?? null,
    valid_from: from,
    valid_until: until,
    expires_at: o.expires_at ?? null,
  }
}

/** Checks `v` against the operation's schema; the result is typed by it. */
function checked<K extends OperationName>(operation: K, v: unknown): RawInputOf[K] {
  assertSchema(MEMORY_INPUT_SCHEMAS[operation], v, 'input')
  return v as RawInputOf[K]
}

function remember(v: unknown): RememberInput {
  const o = checked('remember', v)
  return {
    identity_key: o.identity_key ?? null,
    kind: o.kind,
    schema_version: o.schema_version,
    content: o.content as Content,
    provenance: provenance(o.provenance),
    ...temporal(o),
    tags: o.tags ?? [],
  }
}

function relate(v: unknown): RelateInput {
  const o = checked('relate', v)
  return {
    identity_key: o.identity_key ?? null,
    source_id: o.source_id,
    target_id: o.target_id,
    kind: o.kind,
    properties: o.properties ?? {},
    provenance: provenance(o.provenance),
    ...temporal(o),
    lifecycle: o.lifecycle,
  }
}

function recall(v: unknown): RecallInput {
  const o = checked('recall', v)
  const f = o.filters
  return {
    objective: o.objective,
    seed_ids: o.seed_ids ?? [],
    limits: { ...o.limits },
    page_token: o.page_token ?? null,
    filters: {
      kinds: f?.kinds ?? null,
      tags_any: f?.tags_any ?? null,
      tags_all: f?.tags_all ?? null,
      min_confidence: f?.min_confidence ?? null,
      relationship_kinds: f?.relationship_kinds ?? null,
      valid_at: f?.valid_at ?? null,
      as_of: f?.as_of ?? null,
    },
  }
}

function update(v: unknown): UpdateInput {
  const o = checked('update', v)
  const patch = o.patch
  return {
    target: { ...o.target },
    expected_version: o.expected_version ?? null,
    patch: {
      content: (patch.content ?? null) as Content | null,
      confidence: patch.confidence ?? null,
      add_provenance: provenance(patch.add_provenance),
      lifecycle: patch.lifecycle ?? null,
      expires_at: patch.expires_at ?? null,
      add_tags: patch.add_tags ?? [],
    },
  }
}

function forget(v: unknown): ForgetInput {
  const o = checked('forget', v)
  const expiresAt = o.expires_at ?? null
  if (o.mode === 'expire' && expiresAt === null)
    throw invalid('input.expires_at is required when mode is expire')
  return { memory_id: o.memory_id, mode: o.mode, expires_at: expiresAt, reason: o.reason }
}

function consolidate(v: unknown): ConsolidateInput {
  const o = checked('consolidate', v)
  const unique = [...new Set(o.memory_ids)].sort()
  if (unique.length < CONSOLIDATE_MIN_IDS)
    throw invalid('input.memory_ids must name at least two distinct memories')
  const canonical = o.canonical_id ?? null
  if (canonical !== null && !unique.includes(canonical))
    throw invalid('input.canonical_id must be one of memory_ids')
  return {
    mode: { ...o.mode },
    memory_ids: unique,
    canonical_id: canonical ?? (unique[0] as string),
    reason: o.reason,
    preserve_disagreements: o.preserve_disagreements,
  }
}

function trace(v: unknown): TraceInput {
  const o = checked('trace', v)
  return { target: { ...o.target } }
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
  assertSchema(MemoryEnvelopeSchema, body, 'request')
  const o = body as Json
  if (o.input === undefined) throw invalid('input is required')
  return {
    operation,
    idempotencyKey: (o.idempotency_key as string | null | undefined) ?? null,
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
