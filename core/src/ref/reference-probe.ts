/**
 * What the service asks the reference platform beyond projected writes, to establish the rollback's
 * evidence itself: its readiness, its parity snapshot over stated inputs, and the writes it accepted
 * (its journal) above a sequence. When the reference is another instance of this service these are its
 * `GET /health/ready`, `POST /v1/ref/parity/snapshot` and `GET /v1/ref/writes/journal`, found beside the
 * write endpoint (`…/v1/ref/writes`); another platform needs an adapter that answers the same three.
 */
import type { JournalEntry } from './journal.js'
import type { ParityInputs, ParitySnapshot } from './parity.js'

export interface ReferenceHealth {
  healthy: boolean
  detail: string
}

export interface JournalPage {
  high_water_sequence: number
  complete: boolean
  entries: JournalEntry[]
}

export interface ReferenceProbe {
  health(): Promise<ReferenceHealth>
  snapshot(inputs: ParityInputs): Promise<ParitySnapshot>
  journal(after: number, limit: number): Promise<JournalPage>
}

/** Bounds of one probe call: readiness is quick; a snapshot or a journal page may carry a large store. */
const HEALTH_TIMEOUT_MS = 5_000
const READ_TIMEOUT_MS = 60_000

export function httpReferenceProbe(writeEndpoint: string, token: string | null): ReferenceProbe {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token !== null) headers.authorization = `Bearer ${token}`
  const at = (path: string) => new URL(path, writeEndpoint)
  /** A JSON answer, or an error naming the URL path and what went wrong (never the token). */
  const call = async (url: URL, init: { method: 'GET' | 'POST'; body?: unknown }, timeoutMs: number) => {
    // Loaded on first use, as the write client does (reference-client.ts).
    const { request } = await import('undici')
    const response = await request(url, {
      method: init.method,
      headers,
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      signal: AbortSignal.timeout(timeoutMs),
    })
    const text = await response.body.text()
    let body: unknown = null
    try {
      body = JSON.parse(text)
    } catch {}
    return { status: response.statusCode, body }
  }
  const expectOk = (path: string, answer: { status: number; body: unknown }) => {
    const result = (answer.body as { ok?: boolean; result?: unknown } | null)?.result
    if (answer.status !== 200 || result === undefined) {
      const code = (answer.body as { error?: { code?: string } } | null)?.error?.code ?? 'no envelope'
      throw new Error(`${path} answered HTTP ${answer.status} (${code})`)
    }
    return result
  }
  return {
    async health() {
      const url = at('/health/ready')
      try {
        const answer = await call(url, { method: 'GET' }, HEALTH_TIMEOUT_MS)
        const ready = (answer.body as { ready?: boolean } | null)?.ready
        return answer.status === 200 && ready !== false
          ? { healthy: true, detail: `${url.pathname} answered HTTP 200` }
          : { healthy: false, detail: `${url.pathname} answered HTTP ${answer.status}` }
      } catch (error) {
        return { healthy: false, detail: `${url.pathname} did not answer: ${(error as Error).message}` }
      }
    },
    async snapshot(inputs) {
      const url = at('parity/snapshot')
      return expectOk(
        url.pathname,
        await call(url, { method: 'POST', body: inputs }, READ_TIMEOUT_MS),
      ) as ParitySnapshot
    },
    async journal(after, limit) {
      const url = at(`writes/journal?after=${after}&limit=${limit}`)
      return expectOk(url.pathname, await call(url, { method: 'GET' }, READ_TIMEOUT_MS)) as JournalPage
    },
  }
}
