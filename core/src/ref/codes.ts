/** HTTP-level codes of reference writes (FACTS §8 with DECISIONS' `OPENCTI` -> `REF`). */
import { EngineError } from '../errors.js'

export const RefErrors = {
  invalidOperation: (name: string) =>
    new EngineError('INVALID_REF_WRITE_OPERATION', `${name} is not a write operation`),
  keyRequired: () =>
    new EngineError('REF_IDEMPOTENCY_KEY_REQUIRED', 'context.idempotency_key must not be blank'),
  backpressure: (permits: number) =>
    new EngineError(
      'REF_WRITE_BACKPRESSURE',
      `all ${permits} write permits are busy; retry with the same idempotency key`,
    ),
  suspended: (why: string) => new EngineError('REF_PRIMARY_WRITE_SUSPENDED', why),
  timeout: () =>
    new EngineError('REF_PRIMARY_WRITE_TIMEOUT', 'the write deadline passed before it committed'),
  writeFailed: (why: string) => new EngineError('REF_PRIMARY_WRITE_FAILED', why),
  stateFailed: (why: string) => new EngineError('REF_PROJECTION_STATE_FAILED', why),
  authorityFailed: (why: string) => new EngineError('REF_AUTHORITY_STATE_FAILED', why),
  gateFailed: (why: string) => new EngineError('REF_AUTHORITY_GATE_FAILED', why),
  reconstructionNeedsPersistence: () =>
    new EngineError('REF_RECONSTRUCTION_REQUIRES_PERSISTENCE', 'reconstruction needs persistent storage'),
  reconstructionFailed: (why: string) => new EngineError('REF_RECONSTRUCTION_FAILED', why),
  fileStorageRequired: () =>
    new EngineError('REF_FILE_STORAGE_REQUIRED', 'file jobs need persistent storage'),
  fileEnqueueFailed: (why: string) => new EngineError('REF_FILE_ENQUEUE_FAILED', why),
  fileDeleteInvalid: (why: string) => new EngineError('INVALID_REF_FILE_DELETE', why),
  fileDeleteFailed: (why: string) => new EngineError('REF_FILE_DELETE_FAILED', why),
  fileCommandInvalid: (why: string) => new EngineError('INVALID_REF_FILE_COMMAND', why),
  notReady: (why: string) => new EngineError('REF_RECOVERY_BLOCKED', why),
  // The rollback's evidence, reconstruction load and return path (issue 29).
  referenceNotConfigured: (what: string) =>
    new EngineError(
      'REF_REFERENCE_NOT_CONFIGURED',
      `${what} needs a reference platform (SERVICE_REF_SHADOW_REFERENCE_ENDPOINT is unset)`,
    ),
  referenceUnavailable: (why: string) => new EngineError('REF_REFERENCE_UNAVAILABLE', why),
  reconstructionInvalid: (why: string) => new EngineError('REF_RECONSTRUCTION_INVALID', why),
  reconstructionTargetNotEmpty: (count: number) =>
    new EngineError(
      'REF_RECONSTRUCTION_TARGET_NOT_EMPTY',
      `a reconstruction loads only into a clean reference: this store already holds ${count} canonical records`,
    ),
  returnFailed: (why: string) => new EngineError('REF_RETURN_FAILED', why),
} as const

/** The message of a caught error, for the `why` of the codes above. */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))
