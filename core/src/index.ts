export {
  type CypherBudgets,
  type CypherMode,
  type CypherResult,
  type CypherValidationError,
  DateTimeValue,
  DateValue,
  DEFAULT_BUDGETS,
  DurationValue,
  decodeTemporalTag,
  encodeTemporalTag,
  formatTemporal,
  isPoint,
  isTemporal,
  LocalDateTimeValue,
  LocalTimeValue,
  type MutationSummary,
  PointValue,
  TEMPORAL_TAGS,
  type TemporalValue,
  TimeValue,
} from './cypher/index.js'
export { ERROR_CATALOG } from './error-catalog.js'
export { EngineError, type EngineErrorCategory, type ErrorCode, isEngineError } from './errors.js'
export { PROJECTION_LIMITS, type ProjectionBudget, parseBudget } from './explorer/budget.js'
export type { BoundaryView, Projection } from './explorer/projection.js'
export { type DomainGatePort, DomainGates, GATED_DOMAINS } from './gates/domain-gates.js'
export { DEFAULT_DATABASE_NAME, DEFAULT_WORKSPACE_ID } from './graph/catalog.js'
export type {
  CommitOp,
  CommitRecord,
  EncodedValue,
  GraphReader,
  NodeRecord,
  PropertyValue,
  ScalarProperty,
} from './graph/index.js'
export { decodeValue, encodeValue, GraphCatalog, GraphStore, Transaction } from './graph/index.js'
export { type GraphSchemaSummary, summarizeSchema } from './graph/schema-summary.js'
export type { Boundary, TimelineNode } from './history/timeline.js'
export {
  type CsvImportOptions,
  type CsvImportSummary,
  DEFAULT_BAD_TOLERANCE,
  type InputGroup,
  importCsv,
} from './import/csv-import.js'
export type {
  BeginOptions,
  ExplicitTransaction,
  TransactionState,
  TransactionStatement,
} from './kernel/explicit-transaction.js'
export type { Ledger, LedgerWriter } from './kernel/ledger.js'
export type { StorageFaultReport } from './kernel/storage-fault-recovery.js'
export type {
  CallOptions,
  CommittedWrite,
  CypherBatchProgress,
  CypherCall,
  DerivedIndex,
  EngineState,
  GraphAccess,
  JournaledState,
  PayloadFigures,
  PostgresStoreOptions,
  StorageMode,
  StorageOptions,
  TransactOptions,
  TransactResult,
} from './kernel/types.js'
export {
  assertSchema as assertMemorySchema,
  CONTRACT_VERSION as MEMORY_CONTRACT_VERSION,
  canonicalJson,
  type ExecuteOptions as MemoryExecuteOptions,
  IdempotencyKeySchema as MemoryIdempotencyKeySchema,
  MEMORY_CODES as MEMORY_ERROR_CODES,
  MEMORY_INPUT_SCHEMAS,
  MEMORY_LABEL,
  MEMORY_RELATION,
  type MemoryApi,
  type MemoryContext,
  type MemoryInputSchemas,
  type MemoryPermission,
  type MemoryRecord,
  type MemoryResponse,
  memoryResponseBody,
  OPERATIONS as MEMORY_OPERATIONS,
  PERMISSION_OF as MEMORY_PERMISSION_OF,
  PERMISSIONS as MEMORY_PERMISSIONS,
  RECALL_LIMITS,
  RECALL_OUTCOMES,
  type RecallItem as MemoryRecallItem,
  type RecallLimits,
  type RelationshipRecord as MemoryRelationshipRecord,
} from './memory/index.js'
export {
  type RestoreReport,
  recoverStore,
  restoreBackup,
  restoreBackupToPostgres,
  type StoreRecovery,
  verifyBackup,
} from './runtime/backup-restore.js'
export { type Engine, type EngineOptions, type ExplorerApi, openEngine } from './runtime/index.js'
export {
  ACTOR_KINDS,
  type ActorKind,
  type AuditEntry,
  LOG_PAGE_LIMIT,
  SESSION_STATUSES,
  type SessionStatus,
} from './sessions/index.js'
export type { SessionsApi } from './sessions/sessions-api.js'
export { BACKUP_MANIFEST, type BackupManifest } from './storage/backup/backup-archive.js'
export type { OnlineBackup } from './storage/backup/online-backup.js'
export type { ArchiveReplay, RestorePoint } from './storage/backup/pitr.js'
export type { DurabilityReport, RecoveryReport } from './storage/durability.js'
export { DEFAULT_CHECKPOINT_EVERY_BYTES, type ReplicationReport } from './storage/durable-store.js'
export { inspectStorage, type StorageInspection, snapshotStorage } from './storage/inspect.js'
export { redactPostgresUrl } from './storage/postgres/pg-connect.js'
export {
  READABLE_RECORD_FORMATS,
  RECORD_FORMAT,
  SERVICE_NAME,
  SERVICE_VERSION,
  STORAGE_VERSION,
} from './version.js'
