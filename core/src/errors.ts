/**
 * Errors raised by the engine. They carry a stable code (the spec's own where it names one) and a
 * category that the HTTP layer maps to a status; the engine itself knows nothing of HTTP.
 */
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

export class EngineError extends Error {
  override readonly name = 'EngineError'
  constructor(
    readonly code: string,
    message: string,
    readonly category: EngineErrorCategory = 'invalid',
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

export const isEngineError = (error: unknown): error is EngineError => error instanceof EngineError
