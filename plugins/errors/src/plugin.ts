import { isEngineError } from '@service/core'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify'
import fp from 'fastify-plugin'
import FindMyWay, { type HTTPMethod } from 'find-my-way'
import { HttpErrors } from './codes.js'
import { errorEnvelope } from './envelope.js'
import { STATUS_OF_CATEGORY } from './status.js'

const SPEC_CODE = /^[A-Z][A-Z0-9_]*$/

interface Mapped {
  status: number
  code: string
  message: string
}

/** Turns any thrown value into the status, code and message of the envelope. Never leaks a 5xx cause. */
export function mapError(error: unknown): Mapped {
  if (isEngineError(error)) {
    const status = STATUS_OF_CATEGORY[error.category]
    return status >= 500 && error.category === 'internal'
      ? { status, code: error.code, message: 'internal error' }
      : { status, code: error.code, message: error.message }
  }
  const e = error as Partial<FastifyError> & { status?: number; type?: string }
  if (e.validation) {
    const context = e.validationContext ?? 'request'
    return {
      status: 400,
      code: 'INVALID_REQUEST',
      message: `invalid ${context}: ${e.message ?? 'validation failed'}`,
    }
  }
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
      return { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'request body exceeds the configured limit' }
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: e.message ?? 'unsupported content type' }
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, code: 'INVALID_JSON', message: 'request body is empty but content-type is JSON' }
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, code: 'INVALID_JSON', message: 'request body is not valid JSON' }
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, code: 'INVALID_REQUEST', message: 'content-length does not match the body' }
    case 'FST_ERR_BAD_URL':
      return { status: 400, code: 'INVALID_REQUEST', message: 'malformed URL' }
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { status: 414, code: 'URI_TOO_LONG', message: 'a path parameter exceeds the router limit' }
  }
  if (error instanceof SyntaxError && e.statusCode === 400) {
    return { status: 400, code: 'INVALID_JSON', message: 'request body is not valid JSON' }
  }
  const status =
    typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 600 ? e.statusCode : 500
  if (status >= 500 && !(e.code && SPEC_CODE.test(e.code))) {
    return { status: 500, code: 'INTERNAL', message: 'internal error' }
  }
  const code = e.code && SPEC_CODE.test(e.code) ? e.code : status === 500 ? 'INTERNAL' : 'INVALID_REQUEST'
  return { status, code, message: e.message ?? 'request failed' }
}

/**
 * Path parameters are bounded by the routes' own schemas (and Node's request-line limit), not by the
 * router: with Fastify's default of 100 the router refused long ids before auth ran, outside the envelope.
 */
export const MAX_PARAM_LENGTH = 16_384

/**
 * Fastify's `frameworkErrors` option: what the router refuses before any route or hook runs (a malformed
 * percent-encoding, a parameter over MAX_PARAM_LENGTH) gets the same envelope and correlation headers.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id)
  reply.header('x-correlation-id', request.id)
  sendError(request, reply, error)
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const mapped = mapError(error)
  if (mapped.status >= 500) request.log.error({ err: error, code: mapped.code }, 'request failed')
  else request.log.info({ code: mapped.code, status: mapped.status }, 'request refused')
  if (mapped.code === 'METHOD_NOT_ALLOWED') {
    const allow = (error as { allow?: string }).allow
    if (allow) reply.header('allow', allow)
  }
  return reply
    .code(mapped.status)
    .type('application/json; charset=utf-8')
    .send(errorEnvelope(mapped.code, mapped.message, request.id))
}

const METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

async function errorsPlugin(app: FastifyInstance): Promise<void> {
  // A shadow router of every registered route, to tell "no such path" (404) from "wrong method" (405).
  const shadow = FindMyWay()
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    for (const method of methods) {
      try {
        shadow.on(method.toUpperCase() as HTTPMethod, route.url, () => {})
      } catch {
        // duplicate registrations (HEAD for GET) are fine
      }
    }
  })

  // Callback-style hooks (here and on every hot path) skip a promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    reply.header('x-correlation-id', request.id)
    done()
  })

  app.setErrorHandler((error, request, reply) => sendError(request, reply, error))

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? request.url
    const allowed = METHODS.filter((m) => m !== request.method && shadow.find(m as HTTPMethod, path) !== null)
    if (allowed.length > 0) {
      const error = Object.assign(new HttpErrors.MethodNotAllowed(request.method, path, allowed.join(', ')), {
        allow: allowed.join(', '),
      })
      return sendError(request, reply, error)
    }
    return sendError(request, reply, new HttpErrors.NotFound(request.method, path))
  })
}

export default fp(errorsPlugin, { name: '@service/plugin-errors', fastify: '5.x' })
