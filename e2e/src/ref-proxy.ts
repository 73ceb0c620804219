/**
 * A fault-injecting HTTP proxy between a primary and its reference platform (its write route, the batch form
 * beside it, and the readiness, parity and journal reads of the rollback), controlled by the test:
 * `pass` forwards; `outage` drops the connection; `timeout` never answers; `slow` forwards after `delayMs`;
 * `divergent` forwards and changes the successful answer; `lost_answer` forwards (the reference applies the
 * write) but drops the reply, as a crash or network cut right after the reference committed would.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { request as undiciRequest } from 'undici'

export type ProxyMode = 'pass' | 'outage' | 'timeout' | 'slow' | 'divergent' | 'lost_answer'

export interface FaultProxy {
  url: string
  /** Where requests are forwarded; a test may point it at another reference (a rebuilt one). */
  target: string
  mode: ProxyMode
  delayMs: number
  /** Write requests that reached the proxy, by mode at arrival (each entry of a batch on its own). */
  seen: { mode: ProxyMode; body: unknown }[]
  /** Write requests (single or batch) that reached the proxy: a batch counts once. */
  requests: number
  /** Requests to the batch form. */
  batchRequests: number
  /** Plays a reference without the batch form: its route answers 404. */
  noBatch: boolean
  close(): Promise<void>
}

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let text = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => {
      text += chunk
    })
    req.on('end', () => resolve(text))
    req.on('error', reject)
  })

/** Divergent on purpose: a successful answer gains a field; in a batch answer, every answered entry. */
function diverge(body: unknown): unknown {
  const results = (body as { results?: { result?: string; body?: unknown }[] } | null)?.results
  if (Array.isArray(results)) {
    for (const result of results) if (result.result === 'answered') diverge(result.body)
    return body
  }
  const outcome = (body as { outcome?: { status?: string; response?: { data?: Record<string, unknown> } } })
    .outcome
  const data = outcome?.response?.data
  if (outcome?.status === 'success' && data !== undefined) data.diverged_by_proxy = true
  return body
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const hanging = new Set<ServerResponse>()
  const proxy: FaultProxy = {
    url: '',
    target,
    mode: 'pass',
    delayMs: 0,
    seen: [],
    requests: 0,
    noBatch: false,
    batchRequests: 0,
    close: async () => {
      for (const res of hanging) res.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  const server: Server = createServer(async (req, res) => {
    const mode = proxy.mode
    const text = await readBody(req)
    let parsed: unknown = null
    try {
      parsed = JSON.parse(text)
    } catch {}
    const url = req.url ?? ''
    const write = req.method === 'POST' && (url === '/v1/ref/writes' || url === '/v1/ref/writes/batch')
    if (write) {
      proxy.requests += 1
      if (url.endsWith('/batch')) proxy.batchRequests += 1
    }
    if (proxy.noBatch && url.endsWith('/batch')) {
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ ok: false, error: { code: 'NOT_FOUND', message: 'no such route' } }))
      return
    }
    const writes = (parsed as { writes?: unknown } | null)?.writes
    if (write) for (const body of Array.isArray(writes) ? writes : [parsed]) proxy.seen.push({ mode, body })
    if (mode === 'outage') {
      req.socket.destroy()
      return
    }
    if (mode === 'timeout') {
      hanging.add(res)
      return
    }
    if (mode === 'slow') await new Promise((r) => setTimeout(r, proxy.delayMs))
    const method = req.method === 'GET' ? 'GET' : 'POST'
    const upstream = await undiciRequest(`${proxy.target}${req.url ?? ''}`, {
      method,
      headers: {
        'content-type': 'application/json',
        authorization: String(req.headers.authorization ?? ''),
      },
      ...(method === 'GET' ? {} : { body: text }),
    })
    const answer = await upstream.body.text()
    if (mode === 'lost_answer') {
      req.socket.destroy()
      return
    }
    const out = mode === 'divergent' ? JSON.stringify(diverge(JSON.parse(answer))) : answer
    res.writeHead(upstream.statusCode, { 'content-type': 'application/json' })
    res.end(out)
  })
  server.keepAliveTimeout = 1
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return proxy
}
