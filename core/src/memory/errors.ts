import { EngineError, type EngineErrorCategory } from '../errors.js'

/** The memory contract's error codes (spec "Memory codes (v1)") and the category each maps to. */
const CATEGORY = {
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
  SEMANTIC_PROVIDER_UNAVAILABLE: 'unavailable',
  DURABILITY_FAILED: 'unavailable',
  POLICY_APPROVAL_REQUIRED: 'forbidden',
  INTERNAL: 'internal',
} as const satisfies Record<string, EngineErrorCategory>

export type MemoryErrorCode = keyof typeof CATEGORY

export const memoryError = (code: MemoryErrorCode, message: string): EngineError =>
  new EngineError(code, message, CATEGORY[code])

export const invalid = (message: string): EngineError => memoryError('INVALID_REQUEST', message)

/** One message for a missing and a hidden target: nothing about other workspaces leaks. */
export const notFound = (kind: string, id: string): EngineError =>
  memoryError('NOT_FOUND', `no ${kind} ${id} in this workspace`)
