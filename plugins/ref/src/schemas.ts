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
    writes: Type.Array(WriteBody, {
      minItems: 1,
      maxItems: batchMax,
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

export const ReconstructionResponse = Type.Object({
  ok: Type.Literal(true),
  result: Type.Object({
    high_water_sequence: Type.Integer(),
    records: Type.Array(Type.Record(Type.String(), Type.Unknown())),
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

/** Tagged file command; the core validates the descriptor (400 REF_FILE_ENQUEUE_FAILED). */
export const FilesBody = Type.Union([
  Type.Object({ operation: Type.Literal('enqueue'), descriptor: Type.Unknown() }),
  Type.Object({ operation: Type.Literal('delete'), file_ids: Type.Unknown() }),
])
export type FilesBody = Static<typeof FilesBody>

export const FilesEnqueued = Type.Object({
  ok: Type.Literal(true),
  result: StringEnum(['enqueued', 'duplicate']),
  job_id: Type.String(),
})
export const FilesDeleted = Type.Object({ ok: Type.Literal(true), result: Type.Literal('deleted') })
