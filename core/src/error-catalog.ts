/**
 * Every error code core raises, with the category the doors map to a status (plugins/errors). One list, so a
 * code cannot drift between two features or gain a second meaning, and `EngineError` accepts no other code.
 * Spec codes keep the spec's spelling; the feature that raises each group is named above it.
 */
export const ERROR_CATALOG = {
  // Kernel, storage and the Cypher call shape
  INVALID_QUERY: 'invalid',
  INVALID_WORKSPACE_ID: 'invalid',
  INVALID_SESSION_ID: 'invalid',
  INVALID_BUDGET_REF: 'invalid',
  REQUEST_TIMEOUT: 'timeout',
  ENGINE_CLOSED: 'unavailable',
  DURABILITY_FAILED: 'unavailable',
  STORAGE_DIR_REQUIRED: 'invalid',
  STORAGE_UNAVAILABLE: 'unavailable',
  STORAGE_DIRECTORY_OWNED: 'unavailable',
  STORAGE_INCOMPATIBLE: 'unavailable',
  STORAGE_NOT_FOUND: 'not_found',
  STORAGE_RECOVERY_FAILED: 'unavailable',
  /** A payload read back from the payload file does not check out (length or checksum). */
  STORAGE_PAYLOAD_CORRUPT: 'unavailable',
  CHECKPOINT_ABANDONED: 'unavailable',
  // The PostgreSQL store: ownership, fencing, read followers and read-your-writes
  STORAGE_OWNED_BY_ANOTHER_PRIMARY: 'unavailable',
  STORAGE_FENCED: 'unavailable',
  STORAGE_READ_ONLY_FOLLOWER: 'unavailable',
  STORAGE_FOLLOWER_LAGGING: 'unavailable',
  COMMIT_REPLAY_FAILED: 'internal',
  SNAPSHOT_NOT_FOUND: 'not_found',
  SNAPSHOT_DESTINATION_EXISTS: 'conflict',
  SNAPSHOT_FAILED: 'unavailable',
  // Online backup, restore and verify
  BACKUP_IN_PROGRESS: 'conflict',
  BACKUP_UNAVAILABLE: 'unavailable',
  BACKUP_UNSUPPORTED: 'unavailable',
  BACKUP_CORRUPT: 'invalid',
  RESTORE_TARGET_NOT_EMPTY: 'conflict',
  RESTORE_POINT_BEFORE_BACKUP: 'invalid',
  // The offline CSV importer (import-csv)
  IMPORT_TARGET_NOT_EMPTY: 'conflict',
  IMPORT_INPUT_INVALID: 'invalid',
  IMPORT_TOO_MANY_BAD_ROWS: 'invalid',
  WAL_ARCHIVE_GAP: 'unavailable',
  WAL_ARCHIVE_CORRUPT: 'unavailable',
  INTERNAL: 'internal',

  // Graph transactions
  DELETE_CONNECTED_NODE: 'conflict',
  ENTITY_NOT_FOUND: 'not_found',
  // Explicit (multi-statement) transactions: ended by its idle or total time, used after its end, doomed
  TRANSACTION_TIMED_OUT: 'timeout',
  TRANSACTION_CLOSED: 'conflict',
  TRANSACTION_FAILED: 'conflict',
  WRITE_TURN_TIMEOUT: 'unavailable',

  // Domain gates (license modules and native providers)
  FEATURE_NOT_AVAILABLE: 'forbidden',
  DOMAIN_PROVIDER_ERROR: 'bad_gateway',

  // Sessions, audit and the timeline
  INVALID_ACTOR_KIND: 'invalid',
  INVALID_SESSION_REQUEST: 'invalid',
  INVALID_STATUS_TRANSITION: 'invalid',
  INVALID_TIME_RANGE: 'invalid',
  SESSION_NOT_FOUND: 'not_found',

  // Temporal explorer
  INVALID_TEMPORAL_BOUNDARY: 'invalid',
  INVALID_TEMPORAL_LINEAGE: 'internal',
  INVALID_VISUALIZATION_PROJECTION: 'invalid',
  TEMPORAL_BOUNDARY_NOT_FOUND: 'not_found',

  // Seed search: request shape (400) and the reference's 422 rules
  INVALID_DOMAIN_PROFILE: 'invalid',
  INVALID_RETRIEVAL_MODE: 'invalid',
  INVALID_SEED_REQUEST: 'invalid',
  NO_SEED: 'unprocessable',
  AMBIGUOUS_SEED: 'unprocessable',
  OVERBROAD_OBJECTIVE: 'unprocessable',
  SEMANTIC_PROVIDER_UNAVAILABLE: 'unavailable',

  // STIX import, evidence and export
  MISSING_BUNDLE: 'invalid',
  INVALID_SOURCE_MODE: 'invalid',
  INVALID_STIX_BUNDLE: 'invalid',
  INVALID_STIX_OBJECT: 'invalid',
  INVALID_STIX_CONFIDENCE: 'invalid',
  CONFLICTING_STIX_ID: 'invalid',
  TYPED_STIX_IMPORT_FAILED: 'invalid',
  INVALID_IMPORT_STATUS: 'invalid',
  INVALID_EVIDENCE_RECORD: 'invalid',
  INVALID_EVIDENCE_ID: 'invalid',
  INVALID_EVIDENCE_DIGEST: 'invalid',
  INVALID_EVIDENCE_LOCATOR: 'invalid',
  DUPLICATE_EVIDENCE_ID: 'invalid',
  EVIDENCE_NOT_FOUND: 'invalid',
  ANNOTATION_TARGET_NOT_FOUND: 'invalid',
  UNSUPPORTED_EVIDENCE_SCHEMA_VERSION: 'invalid',
  INVALID_EXPORT_MODE: 'invalid',
  INVALID_EXPORT_PROFILE: 'invalid',
  INVALID_TRANSACTION_ID: 'invalid',
  EXPORT_PLAN_FAILED: 'invalid',

  // TAXII 2.1 server (the door renders these in TAXII's own error shape)
  TAXII_FORBIDDEN: 'forbidden',
  TAXII_NOT_FOUND: 'not_found',
  TAXII_INVALID_ENVELOPE: 'invalid',
  TAXII_INVALID_FILTER: 'invalid',

  // Memory contract v1 (spec "Memory codes (v1)")
  INVALID_REQUEST: 'invalid',
  INVALID_BUDGET: 'unprocessable',
  PERMISSION_DENIED: 'forbidden',
  NOT_FOUND: 'not_found',
  VERSION_CONFLICT: 'conflict',
  IDEMPOTENCY_CONFLICT: 'conflict',
  IDEMPOTENCY_KEY_REQUIRED: 'invalid',
  BUDGET_EXCEEDED: 'unprocessable',
  CANCELLED: 'cancelled',
  OVERLOADED: 'unavailable',
  POLICY_APPROVAL_REQUIRED: 'forbidden',

  // Reference-platform writes (FACTS §8, `OPENCTI` spelled `REF`)
  INVALID_REF_WRITE_OPERATION: 'invalid',
  INVALID_REF_WRITE_BATCH: 'invalid',
  INVALID_REF_FILE_COMMAND: 'invalid',
  INVALID_REF_FILE_DELETE: 'invalid',
  REF_IDEMPOTENCY_KEY_REQUIRED: 'invalid',
  REF_WRITE_BACKPRESSURE: 'unavailable',
  REF_PRIMARY_WRITE_SUSPENDED: 'unavailable',
  REF_PRIMARY_WRITE_TIMEOUT: 'timeout',
  REF_PRIMARY_WRITE_FAILED: 'unavailable',
  REF_PROJECTION_STATE_FAILED: 'unavailable',
  REF_AUTHORITY_STATE_FAILED: 'unavailable',
  REF_AUTHORITY_GATE_FAILED: 'invalid',
  REF_RECONSTRUCTION_REQUIRES_PERSISTENCE: 'unavailable',
  REF_RECONSTRUCTION_FAILED: 'unavailable',
  REF_RECOVERY_BLOCKED: 'unavailable',
  REF_FILE_STORAGE_REQUIRED: 'unavailable',
  REF_FILE_ENQUEUE_FAILED: 'invalid',
  REF_FILE_DELETE_FAILED: 'unavailable',
  REF_REFERENCE_NOT_CONFIGURED: 'conflict',
  REF_REFERENCE_UNAVAILABLE: 'unavailable',
  REF_RECONSTRUCTION_INVALID: 'invalid',
  REF_RECONSTRUCTION_TARGET_NOT_EMPTY: 'conflict',
  REF_RETURN_FAILED: 'conflict',
} as const satisfies Record<string, EngineErrorCategory>

export type ErrorCode = keyof typeof ERROR_CATALOG

/** How a door should answer an error; plugins/errors maps each to an HTTP status. */
export type EngineErrorCategory =
  | 'invalid' // the caller's input is wrong (400)
  | 'not_found' // the named resource does not exist or is hidden (404)
  | 'conflict' // a version or idempotency conflict (409)
  | 'forbidden' // a gate or policy refused (403)
  | 'unprocessable' // well-formed but cannot be answered as asked (422)
  | 'unavailable' // a dependency or state prevents service now (503)
  | 'timeout' // the budget in time ran out (504)
  | 'cancelled' // the caller went away or cancelled before an answer (408)
  | 'too_large' // a size bound was exceeded (413)
  | 'bad_gateway' // a provider the request went through failed (502)
  | 'internal' // a defect or unexpected fault (500)
