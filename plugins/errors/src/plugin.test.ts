import { EngineError } from '@service/core'
import { describe, expect, it } from 'vitest'
import { HttpErrors } from './codes.js'
import { correlationIdOf } from './correlation.js'
import { mapError } from './plugin.js'

describe('mapError', () => {
  it('maps engine errors by category and hides internal messages', () => {
    expect(mapError(new EngineError('SESSION_NOT_FOUND', 'no session x'))).toEqual({
      status: 404,
      code: 'SESSION_NOT_FOUND',
      message: 'no session x',
    })
    expect(mapError(new EngineError('COMMIT_REPLAY_FAILED', 'stack details'))).toEqual({
      status: 500,
      code: 'COMMIT_REPLAY_FAILED',
      message: 'internal error',
    })
  })

  it("maps Fastify's own errors to the envelope codes", () => {
    expect(mapError({ code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }).code).toBe('PAYLOAD_TOO_LARGE')
    expect(mapError({ code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415, message: 'x' }).status).toBe(
      415,
    )
    expect(mapError({ code: 'FST_ERR_CTP_EMPTY_JSON_BODY', statusCode: 400 }).code).toBe('INVALID_JSON')
    // The router's own refusals, routed here through the host's `frameworkErrors` option.
    expect(mapError({ code: 'FST_ERR_BAD_URL', statusCode: 400 })).toMatchObject({
      status: 400,
      code: 'INVALID_REQUEST',
    })
    expect(mapError({ code: 'FST_ERR_MAX_PARAM_LENGTH', statusCode: 414 })).toMatchObject({
      status: 414,
      code: 'URI_TOO_LONG',
    })
    expect(
      mapError({
        validation: [],
        validationContext: 'body',
        message: 'body/query must be string',
        statusCode: 400,
      }),
    ).toEqual({
      status: 400,
      code: 'INVALID_REQUEST',
      message: 'invalid body: body/query must be string',
    })
  })

  it('keeps spec codes of our own errors and never leaks unknown 5xx causes', () => {
    expect(mapError(new HttpErrors.RequestTimeout(10))).toMatchObject({
      status: 504,
      code: 'REQUEST_TIMEOUT',
    })
    expect(mapError(new Error('db password is hunter2'))).toEqual({
      status: 500,
      code: 'INTERNAL',
      message: 'internal error',
    })
  })
})

describe('correlationIdOf', () => {
  it('keeps a valid id, prefers X-Request-Id and replaces an invalid one', () => {
    expect(correlationIdOf({ headers: { 'x-request-id': 'a-1', 'x-correlation-id': 'b-2' } })).toBe('a-1')
    expect(correlationIdOf({ headers: { 'x-correlation-id': 'b-2' } })).toBe('b-2')
    expect(correlationIdOf({ headers: { 'x-request-id': 'no spaces allowed' } })).toMatch(/^[0-9a-f-]{36}$/)
    expect(correlationIdOf({ headers: {} })).toMatch(/^[0-9a-f-]{36}$/)
  })
})
