/**
 * TAXII routes answer errors as TAXII 2.1 error messages (section 3.6.1: title, description, http_status),
 * not the service envelope. The status and code come from the same mapping as every other route.
 */
import { HttpError, mapError } from '@service/plugin-errors'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { TAXII_MEDIA_TYPE } from './media-types.js'

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Authentication required',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  406: 'Not acceptable',
  408: 'Request timeout',
  413: 'Request entity too large',
  415: 'Unsupported media type',
  422: 'Unprocessable entity',
  429: 'Too many requests',
  500: 'Internal server error',
  503: 'Service unavailable',
  504: 'Gateway timeout',
}

export const notAcceptable = () =>
  new HttpError('NOT_ACCEPTABLE', 406, `the server answers only ${TAXII_MEDIA_TYPE}`)
export const unsupportedMediaType = () =>
  new HttpError('UNSUPPORTED_MEDIA_TYPE', 415, `the request body must be ${TAXII_MEDIA_TYPE}`)

export function sendTaxiiError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const mapped = mapError(error)
  if (mapped.status >= 500) request.log.error({ err: error, code: mapped.code }, 'request failed')
  else request.log.info({ code: mapped.code, status: mapped.status }, 'request refused')
  const allow = (error as { allow?: string }).allow
  if (mapped.status === 405 && allow !== undefined) reply.header('allow', allow)
  const body = {
    title: TITLES[mapped.status] ?? 'Error',
    description: mapped.message,
    // The correlation id, also in X-Request-Id: what an operator greps the logs for.
    error_id: request.id,
    error_code: mapped.code,
    http_status: String(mapped.status),
  }
  return reply
    .code(mapped.status)
    .header('content-type', TAXII_MEDIA_TYPE)
    .send(Buffer.from(JSON.stringify(body), 'utf8'))
}

/** True for URLs the TAXII routes own. */
export const isTaxiiUrl = (url: string): boolean => url === '/taxii2' || url.startsWith('/taxii2/')

/**
 * For Fastify's `frameworkErrors` (what the router refuses before any route runs, e.g. a malformed
 * percent-encoding): on TAXII URLs the TAXII error message, with the correlation headers.
 */
export function taxiiFrameworkErrors(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id)
  reply.header('x-correlation-id', request.id)
  sendTaxiiError(error, request, reply)
}
