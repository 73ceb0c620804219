/**
 * Property tests of the HTTP surface, generated from the served `/openapi.json` of a real server process:
 * for every operation, arbitrary and boundary inputs (path parameters of any length and characters, query
 * strings, bodies of the wrong shape, Content-Type mismatches) give a status the document lists for it and
 * the error envelope with a correlation id; no 5xx but a documented 502/503/504; auth comes first.
 */
import { fc, it } from '@fast-check/vitest'
import { fromSchema, jsonMutation, mutateJson } from '@service/tools/generators'
import { afterAll, describe, expect } from 'vitest'
import { ADMIN_TOKEN, type ErrorBody, type HttpResponse, startServer, TOKEN } from './harness.js'

interface Parameter {
  name: string
  in: 'path' | 'query' | 'header'
  schema?: Record<string, unknown>
}
interface Operation {
  method: string
  path: string
  parameters: Parameter[]
  body: Record<string, unknown> | undefined
  statuses: Set<number>
  security: 'none' | 'bearer' | 'admin'
}
interface OpenApi {
  openapi: string
  paths: Record<string, Record<string, Record<string, unknown>>>
}

const server = await startServer({ env: { SERVICE_HTTP_ADMIN_AUTH_TOKEN: ADMIN_TOKEN } })
afterAll(async () => {
  await server.stop()
})
const document = (await server.request<OpenApi>('/openapi.json', { token: null })).json

function operationsOf(doc: OpenApi): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const security = JSON.stringify(op.security ?? [])
      const content = (op.requestBody as { content?: Record<string, { schema?: Record<string, unknown> }> })
        ?.content
      return {
        method: method.toUpperCase(),
        path,
        parameters: (op.parameters as Parameter[] | undefined) ?? [],
        body: content?.['application/json']?.schema,
        statuses: new Set(Object.keys((op.responses as object) ?? {}).map(Number)),
        security: security.includes('adminToken')
          ? 'admin'
          : security.includes('bearerAuth')
            ? 'bearer'
            : 'none',
      } satisfies Operation
    }),
  )
}
const operations = operationsOf(document)

/** Statuses any operation may give whatever its document says: the framework's own refusals. */
const FRAMEWORK_STATUSES = new Set([400, 404, 405, 413, 415])

// Path parameters: empty-ish, short, of any characters, and far past the router's old 100-character limit.
// Dot segments ('.', '..', even encoded) are resolved by the client's URL parser and never reach the server.
const pathParameter = fc
  .oneof(
    fc.constantFrom('cti', 'medical', 'x', '%', '%zz', ' ', '00000000-0000-4000-8000-000000000000'),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
    fc.integer({ min: 99, max: 4000 }).map((n) => 'x'.repeat(n)),
  )
  .filter((value) => !/^\.+$/.test(value))
// '%' and '%zz' go raw (malformed on purpose).
const encodeParameter = (value: string): string =>
  value === '%zz' || value === '%' ? value : encodeURIComponent(value) || '%20'

const queryValue = fc.oneof(
  fc.constantFrom('', '0', '-1', '1', '1.5', 'true', 'false', 'null', '99999999999999999999', 'snapshot--x'),
  fc.string({ maxLength: 30 }),
  fc.integer({ min: 99, max: 3000 }).map((n) => '9'.repeat(n)),
)

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/xml',
  '',
] as const

/** Bodies: schema-shaped, schema-shaped then broken, any JSON, or not JSON at all. */
function bodyFor(op: Operation): fc.Arbitrary<string | undefined> {
  const shaped = op.body ? fromSchema(op.body) : fc.constant({})
  return fc.oneof(
    shaped.map((value) => JSON.stringify(value)),
    fc
      .tuple(shaped, fc.array(jsonMutation, { minLength: 1, maxLength: 3 }))
      .map(([value, mutations]) => JSON.stringify(mutateJson(value, mutations))),
    fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
    fc.constantFrom(
      '{',
      '[]',
      'null',
      '"x"',
      '{"a":1}{',
      '\u0000',
      '{"__proto__":{"x":1}}',
      `[${'['.repeat(500)}`,
    ),
    fc.string({ maxLength: 60 }),
    fc.constant(undefined),
  )
}

interface Input {
  params: string[]
  query: [string, string][]
  contentType: string
  body: string | undefined
}

function inputFor(op: Operation): fc.Arbitrary<Input> {
  const pathParams = op.parameters.filter((p) => p.in === 'path')
  const queryNames = op.parameters.filter((p) => p.in === 'query').map((p) => p.name)
  return fc.record({
    params: fc.tuple(...pathParams.map(() => pathParameter)),
    query: fc.array(
      fc.tuple(
        fc.oneof(fc.constantFrom(...queryNames, 'unknown', ''), fc.string({ maxLength: 8 })),
        queryValue,
      ),
      {
        maxLength: 4,
      },
    ),
    contentType: fc.constantFrom(...CONTENT_TYPES),
    body: op.method === 'GET' ? fc.constant(undefined) : bodyFor(op),
  })
}

function urlOf(op: Operation, input: Input): string {
  let i = 0
  const path = op.path.replace(/\{[^}]+\}/g, () => encodeParameter(input.params[i++] ?? ''))
  const query = input.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')
  return query === '' ? path : `${path}?${query}`
}

function send(op: Operation, input: Input, token: string | null): Promise<HttpResponse<ErrorBody>> {
  return server.request<ErrorBody>(urlOf(op, input), {
    method: op.method,
    token,
    headers: input.contentType === '' ? {} : { 'content-type': input.contentType },
    ...(input.body === undefined ? {} : { rawBody: input.body }),
  })
}

/**
 * The envelope every refusal carries, with the correlation id echoed in the headers; TAXII routes answer
 * TAXII 2.1 error messages instead, the correlation id as their error_id.
 */
function expectEnvelope(response: HttpResponse<ErrorBody>, path = ''): void {
  if (path.startsWith('/taxii2')) {
    expect(response.headers['content-type']).toBe('application/taxii+json;version=2.1')
    const body = response.json as unknown as { title: string; http_status: string; error_id: string }
    expect(body.title).toEqual(expect.any(String))
    expect(body.http_status).toBe(String(response.status))
    expect(body.error_id).toBe(response.headers['x-request-id'])
    return
  }
  expect(response.headers['content-type']).toMatch(/^application\/json/)
  expect(response.json).toMatchObject({
    ok: false,
    error: { code: expect.any(String), message: expect.any(String) },
  })
  expect(response.json.error.code).toMatch(/^[A-Z][A-Z0-9_]*$/)
  expect(response.json.correlation_id).toBe(response.headers['x-request-id'])
}

const tokenOf = (op: Operation) => (op.security === 'admin' ? ADMIN_TOKEN : TOKEN)
const label = (op: Operation) => `${op.method} ${op.path}`
const RUNS = Number(process.env.HTTP_PROPERTY_RUNS ?? 40)

describe('the served OpenAPI document', () => {
  it('is OpenAPI 3.1 and lists the operations the properties run over', () => {
    expect(document.openapi).toBe('3.1.0')
    expect(operations.length).toBeGreaterThanOrEqual(20)
    expect(operations.some((op) => op.parameters.some((p) => p.in === 'path'))).toBe(true)
  })
})

describe.each(operations.map((op) => [label(op), op] as const))('%s', (_label, op) => {
  it.prop([inputFor(op)], { numRuns: RUNS })(
    'answers arbitrary input with a documented status, and refusals in the envelope',
    async (input) => {
      const response = await send(op, input, tokenOf(op))
      const documented = op.statuses.has(response.status) || FRAMEWORK_STATUSES.has(response.status)
      expect(documented, `status ${response.status} for ${op.method} ${urlOf(op, input).slice(0, 200)}`).toBe(
        true,
      )
      expect([500, 501]).not.toContain(response.status)
      if (response.status >= 400) expectEnvelope(response, op.path)
    },
  )

  if (op.security !== 'none') {
    // A malformed percent-encoding is refused by the router before any route runs (400, also in the envelope).
    const wellEncoded = inputFor(op).filter((input) => !input.params.some((p) => p === '%' || p === '%zz'))
    it.prop([wellEncoded], { numRuns: Math.ceil(RUNS / 2) })(
      'checks the token before anything else: no token is 401 whatever the path, query or body',
      async (input) => {
        const response = await send(op, input, null)
        expect(response.status, `${urlOf(op, input).slice(0, 200)}`).toBe(401)
        expectEnvelope(response, op.path)
      },
    )
  }
})

describe('the 414 bypass the random-input run found', () => {
  it('a long bad path parameter without a token is 401 in the envelope, with a token 404 in it', async () => {
    const path = `/v1/sessions/${'x'.repeat(101)}/health`
    const anonymous = await server.request<ErrorBody>(path, { token: null })
    expect(anonymous.status).toBe(401)
    expectEnvelope(anonymous)
    const known = await server.request<ErrorBody>(path)
    expect(known.status).toBe(404)
    expectEnvelope(known)
  })

  it('a malformed percent-encoding is 400 INVALID_REQUEST in the envelope', async () => {
    const response = await server.request<ErrorBody>('/v1/sessions/%E0%A4%A/health', { token: null })
    expect(response.status).toBe(400)
    expectEnvelope(response)
    expect(response.json.error.code).toBe('INVALID_REQUEST')
  })
})
