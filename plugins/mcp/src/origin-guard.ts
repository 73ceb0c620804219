import type { FastifyRequest } from 'fastify'
import { McpHttpErrors } from './errors.js'

export interface OriginPolicy {
  /** Host names (no port) this server answers to; a Host header naming another is refused. */
  allowedHosts: readonly string[]
  /** Origins (scheme://host[:port]) that may call from a browser, besides those on an allowed host. */
  allowedOrigins: readonly string[]
}

export const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '::1'] as const

/** `example.org:8080` -> `example.org`; `[::1]:8080` -> `::1`. */
function hostname(host: string): string {
  const h = host.trim().toLowerCase()
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']'))
  const colon = h.lastIndexOf(':')
  return colon > 0 && h.indexOf(':') === colon ? h.slice(0, colon) : h
}

/**
 * Against DNS rebinding: a page on another site that resolves its own name to this server sends that name as
 * Host and its own origin as Origin. Both are checked before any MCP message is read. A request with no
 * Origin (any non-browser client) passes the origin check.
 */
export function originGuard(policy: OriginPolicy) {
  const hosts = new Set(policy.allowedHosts.map((h) => h.toLowerCase()))
  const origins = new Set(policy.allowedOrigins.map((o) => o.toLowerCase().replace(/\/$/, '')))
  return async (request: FastifyRequest): Promise<void> => {
    const host = request.headers.host ?? ''
    if (!hosts.has(hostname(host))) throw new McpHttpErrors.HostNotAllowed(host.slice(0, 200))
    const origin = request.headers.origin
    if (origin === undefined) return
    let name: string
    try {
      name = new URL(origin).hostname.replace(/^\[|\]$/g, '')
    } catch {
      throw new McpHttpErrors.OriginNotAllowed(origin.slice(0, 200))
    }
    if (!origins.has(origin.toLowerCase()) && !hosts.has(name.toLowerCase()))
      throw new McpHttpErrors.OriginNotAllowed(origin.slice(0, 200))
  }
}
