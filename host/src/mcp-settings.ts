import type { EnvReader } from './env-reader.js'

export interface McpSettings {
  /** SERVICE_MCP_ALLOW_CYPHER_WRITE: the cypher_write tool is listed only when true. */
  allowCypherWrite: boolean
  /** Host names /mcp answers to (Host header); loopback names and the bind host by default. */
  allowedHosts: string[]
  /** Browser origins allowed besides those on an allowed host. */
  allowedOrigins: string[]
  maxSessions: number
  sessionIdleMs: number
  /** The stdio server forwards to this running server instead of opening the storage itself. */
  remoteUrl: string | null
  /** Secret; never logged. The bearer token for remoteUrl (defaults to SERVICE_HTTP_AUTH_TOKEN). */
  remoteToken: string | null
}

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')

/** SERVICE_MCP_* settings; problems join the others in the reader. */
export function readMcpSettings(r: EnvReader, bindHost: string, httpToken: string | null): McpSettings {
  const remoteUrl = r.string('SERVICE_MCP_REMOTE_URL') ?? null
  if (remoteUrl !== null && !/^https?:\/\/[^/]+/.test(remoteUrl))
    r.problem('SERVICE_MCP_REMOTE_URL must be an http(s) URL of a running server')
  const allowedOrigins = list(r.string('SERVICE_MCP_ALLOWED_ORIGINS'))
  for (const origin of allowedOrigins)
    if (!/^https?:\/\/[^/]+$/.test(origin))
      r.problem(`SERVICE_MCP_ALLOWED_ORIGINS entry '${origin}' must be scheme://host[:port] with no path`)
  const bind = bindHost.replace(/^\[|\]$/g, '')
  const defaults = ['127.0.0.1', 'localhost', '::1', ...(bind === '0.0.0.0' || bind === '::' ? [] : [bind])]
  return {
    allowCypherWrite: r.boolean('SERVICE_MCP_ALLOW_CYPHER_WRITE', false),
    allowedHosts: [...new Set(list(r.string('SERVICE_MCP_ALLOWED_HOSTS') ?? defaults.join(',')))],
    allowedOrigins,
    maxSessions: r.integer('SERVICE_MCP_MAX_SESSIONS', 64, 1, 10_000),
    sessionIdleMs: r.integer('SERVICE_MCP_SESSION_IDLE_MS', 1_800_000, 1_000, 86_400_000),
    remoteUrl,
    remoteToken: r.secret('SERVICE_MCP_REMOTE_AUTH_TOKEN') ?? httpToken,
  }
}
