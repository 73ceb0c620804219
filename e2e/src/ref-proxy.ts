/**
 * A fault-injecting HTTP proxy between a primary and its reference platform, controlled by the test:
 * `pass` forwards (POST and GET: writes, and the readiness, parity and journal reads of the rollback); `outage` drops the connection; `timeout` never answers; `slow` forwards after `delayMs`;
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
  /** Projected writes that reached the proxy, by mode at arrival. */
  seen: { mode: ProxyMode; body: unknown }[]
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

/** Divergent on purpose: the revision the reference reports is off by 100. */
function diverge(body: unknown): unknown {
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
    if (req.method === 'POST' && req.url === '/v1/ref/writes') proxy.seen.push({ mode, body: parsed })
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
