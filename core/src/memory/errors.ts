import { EngineError, type ErrorCode } from '../errors.js'

/** The memory contract's error codes (spec "Memory codes (v1)"); their categories are in the catalog. */
export const MEMORY_CODES = [
  'INVALID_REQUEST',
  'INVALID_BUDGET',
  'PERMISSION_DENIED',
  'NOT_FOUND',
  'VERSION_CONFLICT',
  'IDEMPOTENCY_CONFLICT',
  'IDEMPOTENCY_KEY_REQUIRED',
  'BUDGET_EXCEEDED',
  'CANCELLED',
  'OVERLOADED',
  'SEMANTIC_PROVIDER_UNAVAILABLE',
  'DURABILITY_FAILED',
  'POLICY_APPROVAL_REQUIRED',
  'INTERNAL',
] as const satisfies readonly ErrorCode[]

export type MemoryErrorCode = (typeof MEMORY_CODES)[number]

export const memoryError = (code: MemoryErrorCode, message: string): EngineError =>
  new EngineError(code, message)

export const invalid = (message: string): EngineError => memoryError('INVALID_REQUEST', message)

/** One message for a missing and a hidden target: nothing about other workspaces leaks. */
export const notFound = (kind: string, id: string): EngineError =>
  memoryError('NOT_FOUND', `no ${kind} ${id} in this workspace`)
