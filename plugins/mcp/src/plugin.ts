import { randomUUID } from 'node:crypto'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'
import { errorResponses, HttpErrors } from '@service/plugin-errors'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { Type } from 'typebox'
import type { McpBackend } from './backend.js'
import { McpHttpErrors } from './errors.js'
import { type OriginPolicy, originGuard } from './origin-guard.js'
import { type BoundMcpServer, createMcpServer } from './server.js'

export interface McpPluginOptions extends OriginPolicy {
  backend: McpBackend
  /** Open MCP sessions at most; idle ones are closed first to make room. */
  maxSessions: number
  /** An MCP session unused this long is closed (its service session stopped) when room is needed. */
  sessionIdleMs: number
  /** Body limit of /mcp (a stix_import carries a bundle). */
  bodyLimit: number
}

interface OpenSession {
  bound: BoundMcpServer
  transport: StreamableHTTPServerTransport
  lastUsedMs: number
}

const AGENT_ID = /^[A-Za-z0-9._:/@-]{1,128}$/

const JsonRpcMessage = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Optional(Type.Union([Type.String(), Type.Integer()])),
    method: Type.Optional(Type.String()),
    params: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    result: Type.Optional(Type.Unknown()),
    error: Type.Optional(Type.Unknown()),
  },
  { $id: 'McpJsonRpcMessage', additionalProperties: true },
)

/**
 * MCP Streamable HTTP at /mcp, behind the bearer token (the auth plugin guards every non-operational route)
 * and the Host/Origin check. Each MCP session (Mcp-Session-Id) has its own MCP server and maps to one service
 * session of actor kind agent; the agent is the x-agent-id header or the client's name. Answers are JSON
 * (no SSE): the tools send no server-initiated messages, so GET has nothing to stream and answers 405.
 */
async function mcpPlugin(app: FastifyInstance, options: McpPluginOptions): Promise<void> {
  const sessions = new Map<string, OpenSession>()
  const guard = originGuard(options)

  const close = async (id: string) => {
    const open = sessions.get(id)
    if (open === undefined) return
    sessions.delete(id)
    await open.bound.close()
    await open.transport.close().catch(() => {})
  }

  const makeRoom = async () => {
    const now = Date.now()
    for (const [id, open] of sessions) if (now - open.lastUsedMs >= options.sessionIdleMs) await close(id)
    if (sessions.size >= options.maxSessions) throw new McpHttpErrors.SessionLimit(options.maxSessions)
  }

  const open = async (request: FastifyRequest): Promise<OpenSession> => {
    const agent = request.headers['x-agent-id']
    if (agent !== undefined && (typeof agent !== 'string' || !AGENT_ID.test(agent)))
      throw new McpHttpErrors.AgentIdInvalid()
    await makeRoom()
    const bound = createMcpServer({ backend: options.backend, agentHeader: agent ?? null })
    const entry: OpenSession = { bound, transport: undefined as never, lastUsedMs: Date.now() }
    entry.transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        sessions.set(id, entry)
      },
      onsessionclosed: (id) => close(id),
    })
    await bound.server.connect(entry.transport)
    return entry
  }

  const sessionOf = (request: FastifyRequest): OpenSession | null => {
    const id = request.headers['mcp-session-id']
    if (id === undefined) return null
    const found = typeof id === 'string' ? sessions.get(id) : undefined
    if (found === undefined) throw new McpHttpErrors.SessionNotFound(String(id).slice(0, 64))
    found.lastUsedMs = Date.now()
    return found
  }

  const hand = async (entry: OpenSession, request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack()
    await entry.transport.handleRequest(request.raw, reply.raw, request.body)
  }

  // Documented (every route is in /openapi.json), validated by the SDK: JSON-RPC is its business.
  const routeBase = { validatorCompiler: () => () => true, onRequest: guard }
  const describe = (summary: string, responses: Record<number, unknown>, body = false) => ({
    tags: ['mcp'],
    summary,
    description:
      'MCP Streamable HTTP (docs/agents.md). Mcp-Session-Id names the session after initialize; x-agent-id names the agent.',
    ...(body ? { body: JsonRpcMessage } : {}),
    response: responses,
  })
  app.post(
    '/mcp',
    {
      ...routeBase,
      bodyLimit: options.bodyLimit,
      schema: describe(
        'One MCP JSON-RPC message (initialize starts a session)',
        {
          200: JsonRpcMessage,
          202: Type.Null(),
          ...errorResponses(400, 401, 403, 404, 413, 415, 429, 503, 504),
        },
        true,
      ),
    },
    async (request, reply) => {
      let entry = sessionOf(request)
      if (entry === null) {
        if (!isInitializeRequest(request.body)) throw new McpHttpErrors.SessionRequired()
        entry = await open(request)
      }
      await hand(entry, request, reply)
    },
  )
  app.get(
    '/mcp',
    {
      ...routeBase,
      schema: describe('No server-initiated stream: 405', errorResponses(400, 401, 403, 404, 405, 429)),
    },
    async (request) => {
      sessionOf(request)
      throw new HttpErrors.MethodNotAllowed('GET', '/mcp', 'POST, DELETE')
    },
  )
  app.delete(
    '/mcp',
    {
      ...routeBase,
      schema: describe('End the MCP session (and its service session)', {
        200: Type.Null(),
        ...errorResponses(400, 401, 403, 404, 429),
      }),
    },
    async (request, reply) => {
      const entry = sessionOf(request)
      if (entry === null) throw new McpHttpErrors.SessionRequired()
      await hand(entry, request, reply)
    },
  )

  app.addHook('onClose', async () => {
    await Promise.all([...sessions.keys()].map(close))
  })
}

export default fp(mcpPlugin, {
  name: '@service/plugin-mcp',
  fastify: '5.x',
  dependencies: ['@service/plugin-errors'],
})
