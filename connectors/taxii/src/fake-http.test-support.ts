import type { HttpDeps } from './http.js'
import type { LogLevel } from './log.js'

export interface Call {
  url: URL
  init: RequestInit
}

export type Handler = (call: Call) => Response | Promise<Response>

/** HttpDeps over a scripted fetch: records calls and log events; sleeps are recorded, not waited. */
export function fakeHttp(handler: Handler) {
  const calls: Call[] = []
  const events: { level: LogLevel; event: string; fields: Record<string, unknown> }[] = []
  const sleeps: number[] = []
  const http: HttpDeps = {
    fetch: async (url, init) => {
      const call = { url: new URL(url), init }
      calls.push(call)
      return handler(call)
    },
    log: (level, event, fields = {}) => {
      events.push({ level, event, fields })
    },
    sleep: async (ms) => {
      sleeps.push(ms)
    },
    random: () => 0.5,
  }
  return { http, calls, events, sleeps }
}

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/taxii+json;version=2.1', ...headers },
  })

export const header = (call: Call, name: string): string | null => new Headers(call.init.headers).get(name)
