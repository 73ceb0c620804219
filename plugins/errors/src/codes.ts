import createError from '@fastify/error'

/**
 * HTTP-level errors the framework layer throws itself. Fastify's own failures (INVALID_JSON, INVALID_REQUEST,
 * PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE, INTERNAL) get their codes in `mapError`; feature plugins raise
 * the spec's codes; all of them end up in the same envelope through the one error handler.
 */
export const HttpErrors = {
  NotFound: createError('NOT_FOUND', 'no route %s %s', 404),
  MethodNotAllowed: createError('METHOD_NOT_ALLOWED', 'method %s is not allowed on %s (allowed: %s)', 405),
  RateLimited: createError('RATE_LIMITED', 'rate limit exceeded; retry after %s ms', 429),
  RequestTimeout: createError('REQUEST_TIMEOUT', 'the request exceeded the handler timeout of %s ms', 504),
  ServiceDraining: createError(
    'SERVICE_DRAINING',
    'the service is shutting down and accepts no new work',
    503,
  ),
  AuthRequired: createError('AUTH_REQUIRED', 'missing bearer token', 401),
  AuthInvalid: createError('AUTH_INVALID', 'invalid bearer token', 401),
  AdminAuthNotConfigured: createError(
    'ADMIN_AUTH_NOT_CONFIGURED',
    'admin routes are disabled: no admin token is configured',
    403,
  ),
} as const

/** An error with one of the spec's codes and a status, for request-shape checks in route plugins. */
export class HttpError extends Error {
  constructor(
    readonly code: string,
    readonly statusCode: number,
    message: string,
  ) {
    super(message)
  }
}

export const badRequest = (code: string, message: string) => new HttpError(code, 400, message)
