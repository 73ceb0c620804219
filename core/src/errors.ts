import { type EngineErrorCategory, ERROR_CATALOG, type ErrorCode } from './error-catalog.js'

export type { EngineErrorCategory, ErrorCode } from './error-catalog.js'

/**
 * Errors raised by the engine. They carry a stable code from the catalog (the spec's own where it names one)
 * and the catalog's category, which the doors map to a status; the engine itself knows nothing of HTTP.
 */
export class EngineError extends Error {
  override readonly name = 'EngineError'
  readonly category: EngineErrorCategory
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.category = ERROR_CATALOG[code]
  }
}

export const isEngineError = (error: unknown): error is EngineError => error instanceof EngineError
