import pino, { type Logger } from 'pino'

/**
 * Every place a secret could surface in a log record is censored: request headers that carry credentials,
 * and any field named like a token, key or license, at any of the first levels of nesting.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'authorization',
  'authToken',
  'adminToken',
  'token',
  'idempotency_key',
  'license',
  'pem',
  '*.authorization',
  '*.authToken',
  '*.adminToken',
  '*.token',
  '*.idempotency_key',
  '*.license',
  '*.pem',
  '*.*.authToken',
  '*.*.adminToken',
  '*.*.idempotency_key',
]

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'service-http-server' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  )
}
