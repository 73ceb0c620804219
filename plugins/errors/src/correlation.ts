import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

const VALID_CORRELATION_ID = /^[A-Za-z0-9\-_.:/]{1,128}$/

/**
 * Correlation id of a request: `X-Request-Id`, else `X-Correlation-Id`, kept only when it is 1..128 chars
 * of a safe alphabet (it is echoed into headers and logs); otherwise a new UUID.
 */
export function correlationIdOf(req: Pick<IncomingMessage, 'headers'>): string {
  for (const name of ['x-request-id', 'x-correlation-id']) {
    const value = req.headers[name]
    if (typeof value === 'string' && VALID_CORRELATION_ID.test(value)) return value
  }
  return randomUUID()
}
