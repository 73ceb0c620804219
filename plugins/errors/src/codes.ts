import createError from '@fastify/error'

/**
 * HTTP-level error codes the framework layer itself produces. Feature plugins add their own (the spec's
 * names) next to their routes; all of them end up in the same envelope through the one error handler.
 */
export const HttpErrors = {
  NotFound: createError('NOT_FOUND', 'no route %s %s', 404),
  MethodNotAllowed: createError('METHOD_NOT_ALLOWED', 'method %s is not allowed on %s (allowed: %s)', 405),
  InvalidJson: createError('INVALID_JSON', 'request body is not valid JSON: %s', 400),
  InvalidRequest: createError('INVALID_REQUEST', '%s', 400),
  PayloadTooLarge: createError('PAYLOAD_TOO_LARGE', 'request body exceeds the limit of %s bytes', 413),
  UnsupportedMediaType: createError('UNSUPPORTED_MEDIA_TYPE', 'unsupported content type: %s', 415),
  RateLimited: createError('RATE_LIMITED', 'rate limit exceeded; retry after %s ms', 429),
  RequestTimeout: createError('REQUEST_TIMEOUT', 'the request exceeded the handler timeout of %s ms', 504),
  ServiceDraining: createError(
    'SERVICE_DRAINING',
    'the service is shutting down and accepts no new work',
    503,
  ),
  Internal: createError('INTERNAL', 'internal error', 500),
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
