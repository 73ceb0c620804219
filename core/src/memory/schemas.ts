/**
 * The memory contract v1's operation inputs as TypeBox schemas: one per operation, with the contract's exact
 * field names and limits. They validate every door's requests (request.ts), publish the input shapes in
 * /openapi.json and are the MCP tools' input schemas. Unknown fields are refused everywhere
 * (`additionalProperties: false`), so a payload cannot name workspace, actor, agent, session, permissions or
 * correlation identity. Optional fields accept null: absent and null mean the same.
 */
import { type Static, type TSchema, Type } from 'typebox'
import {
  CONSOLIDATE_MAX_IDS,
  CONSOLIDATE_MIN_IDS,
  FORGET_MODES,
  LIFECYCLES,
  MAX_IDEMPOTENCY_KEY_CHARS,
  OPERATIONS,
  type OperationName,
  RECALL_LIMITS,
  TARGET_KINDS,
} from './types.js'

const closed = { additionalProperties: false } as const

const Maybe = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]))
const OneOf = <const T extends readonly string[]>(values: T, description?: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    description ? { description } : {},
  )

/** A string with at least one non-blank character. */
export const NonEmptyText = Type.String({ minLength: 1, pattern: '\\S' })
const Timestamp = Type.String({ format: 'date-time', description: 'RFC 3339 timestamp' })
const Confidence = Type.Number({ minimum: 0, maximum: 1 })
const Strings = Type.Array(Type.String())
const JsonObject = Type.Record(Type.String(), Type.Unknown())

export const ProvenanceSchema = Type.Object(
  { source_id: NonEmptyText, locator: Maybe(Type.String()), observed_at: Maybe(Timestamp) },
  closed,
)

export const ContentSchema = Type.Union([
  Type.Object({ format: Type.Literal('text'), value: NonEmptyText }, closed),
  Type.Object({ format: Type.Literal('properties'), value: JsonObject }, closed),
  Type.Object(
    {
      format: Type.Literal('text_and_properties'),
      value: Type.Object({ text: NonEmptyText, properties: JsonObject }, closed),
    },
    closed,
  ),
])

const temporal = {
  confidence: Maybe(Confidence),
  valid_from: Maybe(Timestamp),
  valid_until: Maybe(Timestamp),
  expires_at: Maybe(Timestamp),
}

export const RememberInputSchema = Type.Object(
  {
    identity_key: Maybe(NonEmptyText),
    kind: NonEmptyText,
    schema_version: NonEmptyText,
    content: ContentSchema,
    provenance: Type.Array(ProvenanceSchema),
    ...temporal,
    tags: Maybe(Strings),
  },
  { ...closed, description: 'Create a memory, or upsert the one with the same identity_key.' },
)

export const RelateInputSchema = Type.Object(
  {
    identity_key: Maybe(NonEmptyText),
    source_id: NonEmptyText,
    target_id: NonEmptyText,
    kind: NonEmptyText,
    properties: Maybe(JsonObject),
    provenance: Type.Array(ProvenanceSchema),
    ...temporal,
    lifecycle: OneOf(LIFECYCLES),
  },
  { ...closed, description: 'Create or version an evidence-bearing relationship between two memories.' },
)

/** Every limit is required and 1..max; a number out of range is INVALID_BUDGET, a missing one INVALID_REQUEST. */
export const RecallLimitsSchema = Type.Object(
  Object.fromEntries(
    Object.entries(RECALL_LIMITS).map(([key, max]) => [key, Type.Integer({ minimum: 1, maximum: max })]),
  ) as { [K in keyof typeof RECALL_LIMITS]: ReturnType<typeof Type.Integer> },
  closed,
)

/** Up to this many values in one recall filter list. */
export const MAX_FILTER_VALUES = 100
const FilterValues = (description: string) =>
  Maybe(Type.Array(NonEmptyText, { maxItems: MAX_FILTER_VALUES, description }))

export const RecallFiltersSchema = Type.Object(
  {
    kinds: FilterValues('Only memories of one of these kinds.'),
    tags_any: FilterValues('Only memories with at least one of these tags.'),
    tags_all: FilterValues('Only memories with every one of these tags.'),
    min_confidence: Maybe({
      ...Confidence,
      description: 'Only memories and relationships at least this confident (an absent confidence passes).',
    }),
    relationship_kinds: FilterValues('Only relationships of these kinds are walked.'),
    valid_at: Maybe({
      ...Timestamp,
      description:
        'Only memories and relationships valid at this instant (valid_from included, valid_until excluded).',
    }),
    as_of: Maybe({
      ...Timestamp,
      description:
        'The workspace as recorded at this instant: versions recorded after it are not seen, a memory forgotten after it is still there.',
    }),
  },
  {
    ...closed,
    description:
      'Narrows seeds and walk alike; a filter that excludes everything gives an empty, complete result.',
  },
)

export const RecallInputSchema = Type.Object(
  {
    objective: NonEmptyText,
    seed_ids: Maybe(Strings),
    limits: RecallLimitsSchema,
    page_token: Maybe(NonEmptyText),
    filters: Maybe(RecallFiltersSchema),
  },
  { ...closed, description: 'A bounded working set around explicit and objective seeds.' },
)

const targetOf = <const T extends readonly string[]>(kinds: T) =>
  Type.Object({ kind: OneOf(kinds), id: NonEmptyText }, closed)

export const UpdateInputSchema = Type.Object(
  {
    target: targetOf(['memory', 'relationship'] as const),
    expected_version: Maybe(Type.Integer({ minimum: 1 })),
    patch: Type.Object(
      {
        content: Maybe(ContentSchema),
        confidence: Maybe(Confidence),
        add_provenance: Maybe(Type.Array(ProvenanceSchema)),
        lifecycle: Maybe(OneOf(LIFECYCLES)),
        expires_at: Maybe(Timestamp),
        add_tags: Maybe(Strings),
      },
      closed,
    ),
  },
  { ...closed, description: 'An optimistic patch as a new version; a stale expected_version conflicts.' },
)

export const ForgetInputSchema = Type.Object(
  {
    memory_id: NonEmptyText,
    mode: OneOf(FORGET_MODES),
    expires_at: Maybe(Timestamp),
    reason: NonEmptyText,
  },
  { ...closed, description: 'Expire, tombstone or application-delete a memory (history stays for trace).' },
)

export const ConsolidateInputSchema = Type.Object(
  {
    mode: Type.Union([
      Type.Object({ mode: Type.Literal('propose') }, closed),
      Type.Object(
        { mode: Type.Literal('apply_approved'), proposal_id: NonEmptyText, approval_policy: NonEmptyText },
        closed,
      ),
    ]),
    memory_ids: Type.Array(Type.String(), { minItems: CONSOLIDATE_MIN_IDS, maxItems: CONSOLIDATE_MAX_IDS }),
    canonical_id: Maybe(NonEmptyText),
    reason: NonEmptyText,
    preserve_disagreements: Type.Boolean(),
  },
  { ...closed, description: 'Propose a consolidation (changes nothing), or apply an approved proposal.' },
)

export const TraceInputSchema = Type.Object(
  { target: targetOf(TARGET_KINDS) },
  { ...closed, description: 'Explain versions, evidence, attribution and policy of a record or mutation.' },
)

export const MEMORY_INPUT_SCHEMAS = {
  remember: RememberInputSchema,
  relate: RelateInputSchema,
  recall: RecallInputSchema,
  update: UpdateInputSchema,
  trace: TraceInputSchema,
  forget: ForgetInputSchema,
  consolidate: ConsolidateInputSchema,
} as const satisfies Record<OperationName, TSchema>

export type MemoryInputSchemas = typeof MEMORY_INPUT_SCHEMAS
export type RawInputOf = { [K in OperationName]: Static<MemoryInputSchemas[K]> }

export const IdempotencyKeySchema = Type.String({
  minLength: 1,
  maxLength: MAX_IDEMPOTENCY_KEY_CHARS,
  pattern: '\\S',
})

/** The request envelope around an input; `operation` is checked first (permission comes before shape). */
export const MemoryEnvelopeSchema = Type.Object(
  {
    contract_version: Type.Literal('v1'),
    idempotency_key: Maybe(IdempotencyKeySchema),
    operation: OneOf(OPERATIONS),
    input: Type.Unknown(),
  },
  closed,
)
