/**
 * The projector's view of the reference platform: it POSTs a stored write request and reads back the same
 * envelope `POST /v1/ref/writes` answers, or a run of them to the batch form `POST /v1/ref/writes/batch`
 * (projection-batch.ts). The HTTP client is an undici pool of keep-alive connections (one per request the
 * projector may have in flight): cheaper per request than the global fetch. undici is loaded on the first
 * request: ~12 MB of resident code that a server without a reference never needs.
 */
import type { Pool } from 'undici'

export interface ReferenceAnswer {
  status: number
  body: unknown
}

export interface ReferenceClient {
  post(request: unknown, signal: AbortSignal): Promise<ReferenceAnswer>
  /** The batch form, when the client can try it (the reference may still answer 404/405). */
  postBatch?(requests: unknown[], signal: AbortSignal): Promise<ReferenceAnswer>
}

/** Where the batch form of a write route lives. */
export const BATCH_SUFFIX = '/batch'

/**
 * `endpoint` is the reference's write URL (e.g. `http://reference:8080/v1/ref/writes`); `connections` is
 * the most requests in flight at once (SERVICE_REF_SHADOW_MAX_CONCURRENCY).
 */
export function httpReference(endpoint: string, token: string | null, connections = 16): ReferenceClient {
  const url = new URL(endpoint)
  let pool: Promise<Pool> | null = null
  const connect = () => {
    pool ??= import('undici').then((undici) => new undici.Pool(url.origin, { connections, pipelining: 1 }))
    return pool
  }
  const path = url.pathname
  const batchPath = `${url.pathname.replace(/\/$/, '')}${BATCH_SUFFIX}`
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token !== null) headers.authorization = `Bearer ${token}`
  const send = async (target: string, body: string, signal: AbortSignal): Promise<ReferenceAnswer> => {
    const response = await (await connect()).request({ method: 'POST', path: target, headers, body, signal })
    const text = await response.body.text()
    let parsed: unknown = null
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = null
    }
    return { status: response.statusCode, body: parsed }
  }
  return {
    post: (request, signal) => send(`${path}${url.search}`, JSON.stringify(request), signal),
    postBatch: (requests, signal) =>
      send(`${batchPath}${url.search}`, JSON.stringify({ writes: requests }), signal),
  }
}
