export {
  type CypherBudgets,
  type CypherMode,
  type CypherResult,
  type CypherValidationError,
  DEFAULT_BUDGETS,
  type MutationSummary,
} from './cypher/index.js'
export type { DurabilityReport, RecoveryReport } from './engine/durability.js'
export {
  type CallOptions,
  type CypherCall,
  type DerivedIndex,
  type Engine,
  type EngineOptions,
  type EngineState,
  type ExplorerApi,
  openEngine,
  type StorageMode,
  type StorageOptions,
  type TransactOptions,
  type TransactResult,
} from './engine/engine.js'
export type { Ledger, LedgerWriter } from './engine/ledger.js'
export type { SessionsApi } from './engine/sessions-api.js'
export { EngineError, type EngineErrorCategory, isEngineError } from './errors.js'
export { PROJECTION_LIMITS, type ProjectionBudget, parseBudget } from './explorer/budget.js'
export type { BoundaryView, Projection } from './explorer/projection.js'
export { DEFAULT_WORKSPACE_ID } from './graph/catalog.js'
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
  assertSchema as assertMemorySchema,
  CONTRACT_VERSION as MEMORY_CONTRACT_VERSION,
  canonicalJson,
  type ExecuteOptions as MemoryExecuteOptions,
  IdempotencyKeySchema as MemoryIdempotencyKeySchema,
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
  type RecallLimits,
  type RelationshipRecord as MemoryRelationshipRecord,
} from './memory/index.js'
export {
  ACTOR_KINDS,
  type ActorKind,
  type AuditEntry,
  LOG_PAGE_LIMIT,
  SESSION_STATUSES,
  type SessionStatus,
} from './sessions/index.js'
export { inspectStorage, type StorageInspection, snapshotStorage } from './storage/inspect.js'
export { RECORD_FORMAT, SERVICE_NAME, SERVICE_VERSION, STORAGE_VERSION } from './version.js'
