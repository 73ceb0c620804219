import createClient, { type Client } from 'openapi-fetch'
import type { paths } from './openapi.js'

export interface ServiceClientOptions {
  /** The server's base URL, e.g. http://127.0.0.1:8080. */
  baseUrl: string
  /** The bearer token (SERVICE_HTTP_AUTH_TOKEN of the server). Sent on every request, never logged. */
  token: string | null
  /** A fetch to use instead of the global one (tests, proxies, custom TLS). */
  fetch?: (request: Request) => Promise<Response>
  /** Extra headers on every request (e.g. X-Request-Id is better set per call). */
  headers?: Record<string, string>
}

export type ServiceClient = Client<paths>

/** A refused call: the service envelope's code and message, and the HTTP status. */
export class ServiceClientError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message)
    this.name = 'ServiceClientError'
  }
}

/**
 * A client typed by the server's own OpenAPI document: paths, parameters, bodies and answers are checked at
 * compile time (`client.POST('/v1/cypher/read', { body: { query } })`).
 */
export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/$/, ''),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    headers: options.headers ?? {},
  })
  const token = options.token
  if (token !== null)
    client.use({
      onRequest({ request }) {
        request.headers.set('authorization', `Bearer ${token}`)
        return request
      },
    })
  return client
}

interface Answer<T> {
  data?: T
  error?: unknown
  response: Response
}

/**
 * The data of a successful answer, or a ServiceClientError with the envelope's code. A body that is not the
 * envelope (a proxy's page, say) becomes HTTP_<status>.
 */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<NonNullable<T>> {
  const { data, error, response } = await call
  if (response.ok && data !== undefined && data !== null) return data as NonNullable<T>
  const envelope = (error ?? data) as { error?: { code?: unknown; message?: unknown } } | undefined
  const code = typeof envelope?.error?.code === 'string' ? envelope.error.code : `HTTP_${response.status}`
  const message =
    typeof envelope?.error?.message === 'string'
      ? envelope.error.message
      : `the server answered ${response.status}`
  throw new ServiceClientError(code, message, response.status)
}
