import createError from '@fastify/error'

/**
 * The MCP door's errors. HTTP-level refusals (before any MCP message is read) use the service envelope;
 * everything inside MCP is either a tool result with `isError` (contract errors, with the code in
 * structuredContent) or a JSON-RPC protocol error (unknown tool, malformed arguments).
 */
export const McpHttpErrors = {
  OriginNotAllowed: createError('ORIGIN_NOT_ALLOWED', 'origin %s may not call /mcp', 403),
  HostNotAllowed: createError('HOST_NOT_ALLOWED', 'host %s is not a name of this server', 403),
  SessionNotFound: createError('MCP_SESSION_NOT_FOUND', 'no MCP session %s (closed or expired)', 404),
  SessionRequired: createError(
    'MCP_SESSION_REQUIRED',
    'an Mcp-Session-Id header is required (start with an initialize request)',
    400,
  ),
  SessionLimit: createError('MCP_SESSION_LIMIT', 'at most %s MCP sessions may be open at once', 503),
  AgentIdInvalid: createError(
    'INVALID_REQUEST',
    'x-agent-id must be 1..128 characters of [A-Za-z0-9._:/@-]',
    400,
  ),
} as const

/** A contract error as a tool reports it. */
export interface ToolFailure {
  code: string
  message: string
}

/** The code and message of anything a backend throws: engine and client errors carry a code. */
export function failureOf(error: unknown): ToolFailure {
  const e = error as { code?: unknown; message?: unknown }
  if (typeof e?.code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(e.code))
    return { code: e.code, message: String(e.message ?? e.code) }
  return { code: 'INTERNAL', message: 'the tool failed unexpectedly' }
}

export const permissionDenied = (tool: string, permission: string): ToolFailure => ({
  code: 'PERMISSION_DENIED',
  message: `tool ${tool} needs the ${permission} permission, which this deployment does not grant`,
})
