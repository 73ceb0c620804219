export { MEMORY_CODES } from './errors.js'
export { MEMORY_LABEL, MEMORY_RELATION } from './layout.js'
export type { RecallItem } from './recall.js'
export { canonicalJson } from './request.js'
export { memoryResponseBody } from './response-json.js'
export { IdempotencyKeySchema, MEMORY_INPUT_SCHEMAS, type MemoryInputSchemas } from './schemas.js'
export { type ExecuteOptions, type MemoryApi, MemoryService } from './service.js'
export {
  CONTRACT_VERSION,
  type MemoryContext,
  type MemoryPermission,
  type MemoryRecord,
  type MemoryResponse,
  OPERATIONS,
  PERMISSION_OF,
  PERMISSIONS,
  RECALL_LIMITS,
  RECALL_OUTCOMES,
  type RecallLimits,
  type RelationshipRecord,
} from './types.js'
export { assertSchema } from './validation.js'
