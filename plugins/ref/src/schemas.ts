import { ROLLBACK_TRIGGERS, WRITE_AUTHORITIES } from '@service/core/ref'
import { Nullable, StringEnum } from '@service/plugin-errors'
import { type Static, Type } from 'typebox'

/**
 * The write body is validated by the core (FACTS §8: a non-write operation is 400
 * INVALID_REF_WRITE_OPERATION, a blank key 400 REF_IDEMPOTENCY_KEY_REQUIRED, any other shape fault a
 * 200 failure outcome INVALID_REQUEST), so the route only requires a JSON object; the documented shape is
 * the reference's `OpenCtiWriteRequest` with `/opencti/` read as `/ref/`.
 */
export const WriteBody = Type.Object(
  {
    contract_version: Type.Optional(Type.Unknown()),
    context: Type.Optional(Type.Unknown()),
    operation: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: true, description: 'OpenCtiWriteRequest: {contract_version, context, operation}' },
)
export type WriteBody = Static<typeof WriteBody>

const Outcome = Type.Union([
  Type.Object({ status: Type.Literal('success'), response: Type.Unknown() }),
  Type.Object({
    status: Type.Literal('failure'),
    error: Type.Object({ code: Type.String(), message: Type.String(), retryable: Type.Boolean() }),
  }),
])

export const WriteResponse = Type.Object({
  ok: Type.Literal(true),
  contract_version: Type.Object({ major: Type.Integer(), minor: Type.Integer() }),
  correlation_id: Type.String(),
  outcome: Outcome,
})

/** The projection batch form: a run of write requests applied in order, each answered on its own. */
export const batchBody = (batchMax: number) =>
  Type.Object({
    // The bound is the core's rule (INVALID_REF_WRITE_BATCH), so the embedded door and HTTP answer alike.
    writes: Type.Array(WriteBody, {
      description: `1 to ${batchMax} write requests (SERVICE_REF_PROJECTION_BATCH_MAX), applied in order`,
    }),
  })
export type BatchBody = Static<ReturnType<typeof batchBody>>

export const BatchResponse = Type.Object({
  ok: Type.Literal(true),
  results: Type.Array(
    Type.Union([
      Type.Object({
        result: Type.Literal('answered'),
        status: Type.Integer({ description: 'the status POST /v1/ref/writes would have answered' }),
        body: Type.Unknown({ description: 'its body: the write response or the error envelope' }),
      }),
      Type.Object({
        result: Type.Literal('skipped'),
        reason: Type.String(),
      }),
    ]),
  ),
})

const Counters = Type.Object({
  pending_reconciliation: Type.Integer(),
  fully_reconciled: Type.Boolean(),
  applied_operations: Type.Integer(),
  failed_operations: Type.Integer(),
  idempotent_replays: Type.Integer(),
  quarantined_reconciliation: Type.Integer(),
  projection_outbox_depth: Type.Integer(),
  projection_lag: Type.Integer(),
  projection_retries: Type.Integer(),
  projection_quarantined: Type.Integer(),
  write_authority: StringEnum([...WRITE_AUTHORITIES]),
  write_authority_trigger: Nullable(Type.String()),
  fully_synchronized: Type.Boolean(),
  reconstruction_runs: Type.Integer(),
  ref_mode: StringEnum(['elastic_free', 'reversible_reference']),
  high_water_sequence: Type.Integer(),
})

export const StatusResponse = Type.Object({
  ok: Type.Literal(true),
  result: Counters,
  reconciliations: Type.Array(
    Type.Object({
      idempotency_key_hash: Type.String(),
      correlation_id: Type.String(),
      status: StringEnum(['pending', 'reconciled', 'quarantined']),
      attempts: Type.Integer(),
      diagnostic: Nullable(Type.String()),
    }),
  ),
  projections: Type.Array(
    Type.Object({
      sequence: Type.Integer(),
      ordering_key_hash: Type.String(),
      status: StringEnum(['prepared', 'pending', 'delivered', 'quarantined']),
      attempts: Type.Integer(),
      diagnostic: Nullable(Type.String()),
    }),
  ),
  audits: Type.Array(
    Type.Object({
      idempotency_key_hash: Type.String(),
      correlation_id: Type.String(),
      source_offset: Nullable(Type.String()),
      before_revision: Nullable(Type.Integer()),
      after_revision: Nullable(Type.Integer()),
      outcome: Type.String(),
    }),
  ),
})

const StoredAnswer = Type.Object({
  contract_version: Type.Object({ major: Type.Integer(), minor: Type.Integer() }),
  correlation_id: Type.String(),
  outcome: Outcome,
})

/** The reconstruction corpus: what a clean reference is rebuilt from so it answers as the primary does. */
export const Corpus = Type.Object(
  {
    high_water_sequence: Type.Integer({ minimum: 0 }),
    records: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
      description: 'Raw canonical records sorted by id (access metadata and merge tombstones included)',
    }),
    revisions: Type.Record(Type.String(), Type.Integer({ minimum: 1 }), {
      description: 'ref_revision of each record, by id',
    }),
    receipts: Type.Array(
      Type.Object({
        key: Type.String({ pattern: '^sha256:[0-9a-f]{64}$' }),
        fingerprint: Type.String(),
        response: StoredAnswer,
      }),
      {
        description:
          'Receipts of the writes the outbox still lists (hashed keys): answered from them on replay',
      },
    ),
  },
  { $id: 'RefCorpus' },
)
export type Corpus = Static<typeof Corpus>

export const ReconstructionResponse = Type.Object({ ok: Type.Literal(true), result: Corpus })

export const LoadResponse = Type.Object({
  ok: Type.Literal(true),
  result: Type.Object({ records: Type.Integer(), receipts: Type.Integer() }),
})

/** Bounds of the stated parity inputs (each side runs every query and decision). */
const MAX_QUERIES = 64
const MAX_SUBJECTS = 64
const MAX_ACCESS_RECORDS = 4096
const MAX_KEYS = 8192

const Subject = Type.Object({
  subject_id: Type.String({ minLength: 1 }),
  organization_ids: Type.Array(Type.String()),
  marking_ids: Type.Array(Type.String()),
})

export const ParityBody = Type.Object({
  queries: Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), {
    maxItems: MAX_QUERIES,
    description: 'Full-text objectives compared on the canonical workspace',
  }),
  subjects: Type.Array(Subject, { maxItems: MAX_SUBJECTS }),
  record_ids: Type.Array(Type.String({ minLength: 1 }), {
    maxItems: MAX_ACCESS_RECORDS,
    description: 'Records whose access decisions are compared for every subject',
  }),
})
export type ParityBody = Static<typeof ParityBody>

export const SnapshotBody = Type.Object({
  ...ParityBody.properties,
  keys: Type.Array(Type.String(), {
    maxItems: MAX_KEYS,
    description: 'Hashed keys whose receipts are asked for',
  }),
})
export type SnapshotBody = Static<typeof SnapshotBody>

const Dimension = Type.Object({
  ok: Type.Boolean(),
  compared: Type.Integer(),
  mismatches: Type.Array(Type.String()),
})

export const ParityReport = Type.Object(
  {
    verified: Type.Boolean(),
    high_water_sequence: Type.Integer(),
    reference_high_water_sequence: Type.Integer(),
    computed_at: Type.String(),
    dimensions: Type.Object({
      records: Dimension,
      relationships: Dimension,
      full_text: Dimension,
      access: Dimension,
      index_generations: Dimension,
      replay_receipts: Dimension,
    }),
  },
  { $id: 'RefParityReport' },
)

export const ParityResponse = Type.Object({ ok: Type.Literal(true), result: ParityReport })
export const LastParityResponse = Type.Object({
  ok: Type.Literal(true),
  result: Nullable(ParityReport),
})

export const SnapshotResponse = Type.Object({
  ok: Type.Literal(true),
  result: Type.Object({
    high_water_sequence: Type.Integer(),
    records: Type.Record(Type.String(), Type.String()),
    relationships: Type.Record(Type.String(), Type.String()),
    full_text: Type.Array(
      Type.Object({ query: Type.String(), hits: Type.Array(Type.Tuple([Type.String(), Type.String()])) }),
    ),
    access: Type.Array(Type.Tuple([Type.String(), Type.String(), Type.Boolean()])),
    index_generations: Type.Object({
      records: Type.Integer(),
      relationships: Type.Integer(),
      full_text_documents: Type.Integer(),
    }),
    receipts_missing: Type.Array(Type.String()),
  }),
})

/** Journal page size at the most. */
export const JOURNAL_PAGE_MAX = 1024

export const JournalQuery = Type.Object({
  after: Type.Integer({ minimum: 0, description: 'Writes with a sequence above this one' }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: JOURNAL_PAGE_MAX, default: 256 })),
})
export type JournalQuery = Static<typeof JournalQuery>

export const JournalResponse = Type.Object({
  ok: Type.Literal(true),
  result: Type.Object({
    high_water_sequence: Type.Integer(),
    complete: Type.Boolean({ description: 'false when writes above `after` were already dropped' }),
    entries: Type.Array(
      Type.Object({
        sequence: Type.Integer(),
        key: Type.String(),
        request: Type.Unknown(),
        response: StoredAnswer,
      }),
    ),
  }),
})

export const ReturnResponse = Type.Object({
  ok: Type.Literal(true),
  result: Type.Object({
    returned_through: Type.Integer(),
    replayed: Type.Integer(),
    reference_high_water_sequence: Type.Integer(),
  }),
})

export const SuspendBody = Type.Object({ trigger: StringEnum([...ROLLBACK_TRIGGERS]) })
export type SuspendBody = Static<typeof SuspendBody>

export const AuthorityBody = Type.Object({
  target: StringEnum([...WRITE_AUTHORITIES]),
  reference_healthy: Type.Boolean(),
  replay_complete: Type.Boolean(),
  parity_verified: Type.Boolean(),
})
export type AuthorityBody = Static<typeof AuthorityBody>

export const AuthorityResponse = Type.Object({
  ok: Type.Literal(true),
  authority: StringEnum([...WRITE_AUTHORITIES]),
})

/**
 * Tagged file command `{operation:'enqueue', descriptor}` or `{operation:'delete', file_ids}`. The core checks
 * the tag and the rest (400 INVALID_REF_FILE_COMMAND, REF_FILE_ENQUEUE_FAILED, INVALID_REF_FILE_DELETE), so
 * each fault gets its own code; the route only requires an object with an operation.
 */
export const FilesBody = Type.Object(
  {
    operation: Type.String({ description: "'enqueue' or 'delete'" }),
    descriptor: Type.Optional(Type.Unknown({ description: 'with enqueue: the file version to extract' })),
    file_ids: Type.Optional(Type.Unknown({ description: 'with delete: non-empty list of file ids' })),
  },
  { additionalProperties: true },
)
export type FilesBody = Static<typeof FilesBody>

export const FilesEnqueued = Type.Object({
  ok: Type.Literal(true),
  result: StringEnum(['enqueued', 'duplicate']),
  job_id: Type.String(),
})
export const FilesDeleted = Type.Object({ ok: Type.Literal(true), result: Type.Literal('deleted') })
