import { createHash, randomUUID } from 'node:crypto'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js'
import { assertMemorySchema, SERVICE_VERSION } from '@service/core'
import type { CallContext, McpBackend } from './backend.js'
import { failureOf, permissionDenied, type ToolFailure } from './errors.js'
import { outputSchemaOf, plainSchema, type ToolDefinition } from './tool.js'
import { ALL_TOOLS, grantedTools } from './tools/index.js'

export interface McpServerOptions {
  backend: McpBackend
  /** The x-agent-id header of the HTTP session, when given; it wins over the client's name. */
  agentHeader?: string | null
}

/** An MCP server bound to one MCP session, and the service session that session maps to. */
export interface BoundMcpServer {
  server: Server
  /** The service session (started on initialize, or at the first tool call). */
  serviceSession(): Promise<string | null>
  /** Stops the service session; the MCP session is over. */
  close(): Promise<void>
}

const AUDITED_ARGUMENT_BYTES = 4096

/** What the audit log keeps of a call's arguments: never the idempotency key, and large inputs as a digest. */
function auditedArguments(args: Record<string, unknown>): Record<string, unknown> {
  const { idempotency_key: _key, ...rest } = args
  const text = JSON.stringify(rest)
  if (text.length <= AUDITED_ARGUMENT_BYTES) return { arguments: rest }
  return { arguments_sha256: createHash('sha256').update(text).digest('hex'), arguments_bytes: text.length }
}

const errorResult = (failure: ToolFailure): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: `${failure.code}: ${failure.message}` }],
  structuredContent: { error: failure },
})

/**
 * Builds the MCP server of one session: tools/list shows the granted tools with their schemas and hints;
 * tools/call checks permission, then the arguments against the tool's schema (a malformed call is a protocol
 * error), runs the tool under the session's service session, and reports a contract error as a tool result
 * with isError and its code. Every call is an mcp_tool_input/mcp_tool_output pair in the session's audit log.
 */
export function createMcpServer({ backend, agentHeader = null }: McpServerOptions): BoundMcpServer {
  const server = new Server(
    { name: 'graph-memory-service', version: SERVICE_VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        'Graph memory: remember facts with provenance, relate them, recall bounded working sets (page with page.next), trace, update, forget and consolidate. Results are sized for a prompt; every bounded result says whether it is complete.',
    },
  )
  const agentId = () => agentHeader ?? server.getClientVersion()?.name ?? null
  let started: Promise<string | null> | null = null
  const serviceSession = () => {
    started ??= backend.startSession(agentId(), server.getClientVersion()?.name ?? null).catch(() => null)
    return started
  }
  server.oninitialized = () => void serviceSession()

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: grantedTools(backend).map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: plainSchema(tool.input) as { type: 'object' },
      outputSchema: plainSchema(outputSchemaOf(tool) as never) as { type: 'object' },
      annotations: { title: tool.title, ...tool.annotations },
    })),
  }))

  const known = new Map(ALL_TOOLS.map((t) => [t.name, t]))
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = known.get(request.params.name)
    if (tool === undefined || !(tool.enabled?.(backend) ?? true))
      throw new McpError(ErrorCode.InvalidParams, `unknown tool ${request.params.name}`)
    const args = (request.params.arguments ?? {}) as Record<string, unknown>
    if (!backend.permissions.has(tool.permission))
      return errorResult(permissionDenied(tool.name, tool.permission))
    const refusal = checkArguments(tool, args)
    if (refusal !== null) return errorResult(refusal)
    const sessionId = await serviceSession()
    const call: CallContext = {
      sessionId,
      agentId: agentId(),
      correlationId: `mcp-${randomUUID()}`,
      signal: extra.signal,
    }
    return run(tool, args, call)
  })

  async function run(tool: ToolDefinition, args: Record<string, unknown>, call: CallContext) {
    const auditEventId = randomUUID()
    const audit = (event: 'mcp_tool_input' | 'mcp_tool_output', fields: Record<string, unknown>) =>
      call.sessionId === null
        ? Promise.resolve()
        : backend.audit(call.sessionId, event, {
            audit_event_id: auditEventId,
            tool: tool.name,
            agent_id: call.agentId,
            correlation_id: call.correlationId,
            ...fields,
          })
    await audit('mcp_tool_input', auditedArguments(args))
    try {
      const out = await tool.run(args, { backend, call })
      await audit('mcp_tool_output', { outcome: 'ok' })
      return {
        content: [{ type: 'text', text: out.text }],
        structuredContent: out.structured,
      } as CallToolResult
    } catch (error) {
      const failure = failureOf(error)
      await audit('mcp_tool_output', { outcome: failure.code })
      return errorResult(failure)
    }
  }

  return {
    server,
    serviceSession,
    async close() {
      const id = started === null ? null : await started
      if (id !== null) await backend.stopSession(id).catch(() => {})
    },
  }
}

/**
 * Arguments against the tool's schema. A malformed call is a protocol error (thrown); a budget out of its
 * range is the contract's INVALID_BUDGET, reported as a tool result.
 */
function checkArguments(tool: ToolDefinition, args: Record<string, unknown>): ToolFailure | null {
  try {
    assertMemorySchema(tool.input, args, 'arguments')
    return null
  } catch (error) {
    const failure = failureOf(error)
    if (failure.code === 'INVALID_BUDGET') return failure
    throw new McpError(ErrorCode.InvalidParams, `${tool.name}: ${failure.message}`)
  }
}
