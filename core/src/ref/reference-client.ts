/**
 * The projector's view of the reference platform: it POSTs a stored write request and reads back the same
 * envelope `POST /v1/ref/writes` answers. The HTTP client is an undici pool of keep-alive connections (one
 * per request the projector may have in flight): cheaper per request than the global fetch.
 */
import { Pool } from 'undici'

export interface ReferenceAnswer {
  status: number
  body: unknown
}

export interface ReferenceClient {
  post(request: unknown, signal: AbortSignal): Promise<ReferenceAnswer>
}

/**
 * `endpoint` is the reference's write URL (e.g. `http://reference:8080/v1/ref/writes`); `connections` is
 * the most requests in flight at once (SERVICE_REF_SHADOW_MAX_CONCURRENCY).
 */
export function httpReference(endpoint: string, token: string | null, connections = 16): ReferenceClient {
  const url = new URL(endpoint)
  const pool = new Pool(url.origin, { connections, pipelining: 1 })
  const path = `${url.pathname}${url.search}`
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token !== null) headers.authorization = `Bearer ${token}`
  return {
    async post(request, signal) {
      const response = await pool.request({
        method: 'POST',
        path,
        headers,
        body: JSON.stringify(request),
        signal,
      })
      const text = await response.body.text()
      let body: unknown = null
      try {
        body = JSON.parse(text)
      } catch {
        body = null
      }
      return { status: response.statusCode, body }
    },
  }
}
