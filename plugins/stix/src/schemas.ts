import { Nullable, okEnvelope, StringEnum } from '@service/plugin-errors'
import { type Static, Type } from 'typebox'

const Context = {
  workspace_id: Type.Optional(Type.String()),
  session_id: Type.Optional(Type.String()),
  budget_ref: Type.Optional(Type.String()),
}

/** `bundle` is checked by the handler so a bad shape gets INVALID_STIX_BUNDLE, not a generic 400. */
export const ImportBody = Type.Object(
  {
    bundle: Type.Optional(
      Type.Unknown({ description: 'Required. A STIX 2.1 bundle {type:"bundle", objects:[…]}.' }),
    ),
    evidence: Type.Optional(Type.Unknown({ description: 'StixEvidenceEnvelopeV1 (schema_version "1.0").' })),
    ...Context,
  },
  { $id: 'StixImportRequest' },
)
export type ImportBody = Static<typeof ImportBody>

const Counter = Type.Integer({ minimum: 0 })

export const ImportResultSchema = Type.Object(
  {
    processed_objects: Counter,
    applied_mutations: Counter,
    rejected_mutations: Counter,
    errors: Type.Array(Type.String()),
    outcomes: Type.Array(
      Type.Object({
        id: Type.String(),
        record_type: Type.String(),
        status: StringEnum(['created', 'updated', 'duplicate', 'rejected', 'unresolved_reference', 'failed']),
        reference: Type.Optional(Type.String()),
        error_code: Type.Optional(Type.String()),
      }),
    ),
    metrics: Type.Object({
      requested: Counter,
      created: Counter,
      updated: Counter,
      duplicate: Counter,
      rejected: Counter,
      unresolved_reference: Counter,
      failed: Counter,
    }),
  },
  { $id: 'StixImportResult' },
)

export const ImportResponse = okEnvelope(ImportResultSchema)

export const ValidateBody = Type.Object(
  {
    source: Type.Optional(Type.String({ description: 'bundle (default) or graph' })),
    bundle: Type.Optional(Type.Unknown()),
    snapshot_id: Type.Optional(Type.String()),
    ...Context,
  },
  { $id: 'StixValidateRequest' },
)
export type ValidateBody = Static<typeof ValidateBody>

const Counts = Type.Record(Type.String(), Counter)

export const ValidationResultSchema = Type.Object(
  {
    source_mode: StringEnum(['bundle', 'graph']),
    valid: Type.Boolean(),
    issues: Type.Array(
      Type.Object({
        code: Type.String(),
        message: Type.String(),
        field: Nullable(Type.String()),
        severity: StringEnum(['error', 'warning']),
        node_id: Nullable(Type.String()),
      }),
    ),
    playbooks_applied: Type.Array(
      Type.Object({ id: Type.String(), description: Type.String(), node_id: Nullable(Type.String()) }),
    ),
    corrections_summary: Nullable(
      Type.Object({
        total_corrections: Counter,
        by_field: Counts,
        by_strategy: Counts,
        by_playbook_id: Counts,
      }),
    ),
    persistence: Nullable(ImportResultSchema),
    errors: Type.Array(Type.String()),
  },
  { $id: 'StixValidationResult' },
)

export const ValidateResponse = okEnvelope(ValidationResultSchema)

export const ExportQuery = Type.Object(
  {
    snapshot_id: Type.Optional(Type.String({ default: 'snapshot--current' })),
    transaction_id: Type.Optional(Type.String({ default: 'transaction--http-export' })),
    exporter_version: Type.Optional(Type.String({ default: 'service-http-server-v0' })),
    mode: Type.Optional(Type.String({ default: 'strict', description: 'strict | permissive' })),
    profile: Type.Optional(Type.String({ default: 'stix-mvp' })),
    workspace_id: Type.Optional(
      Type.String({ description: 'Extension: the workspace to export (default workspace--http-default).' }),
    ),
  },
  { $id: 'StixExportQuery' },
)
export type ExportQuery = Static<typeof ExportQuery>

/**
 * The export answers the raw canonical bundle (no envelope), sent as text so its bytes are exactly the
 * canonical form; the schema documents the 200 and is never used to re-serialize it.
 */
export const ExportResponse = Type.Object(
  {
    type: Type.Literal('bundle'),
    id: Type.String(),
    objects: Type.Array(Type.Object({}, { additionalProperties: true })),
  },
  {
    additionalProperties: true,
    description: 'STIX 2.1 bundle, RFC 8785 canonical JSON, objects in id order.',
  },
)
