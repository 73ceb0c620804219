import { randomUUID } from 'node:crypto'
import { type Engine, type MemoryPermission, summarizeSchema } from '@service/core'
import { exportStix, importStix } from '@service/core/stix'
import { type CallContext, type McpBackend, sessionMetadata } from './backend.js'

export interface EngineBackendOptions {
  engine: Engine
  /** The trusted memory context of the deployment (SERVICE_MEMORY_*): the workspace every tool works in. */
  workspaceId: string
  actorId: string
  /** Used when a call has no session of its own (none could be started). */
  fallbackSessionId: string
  permissions: Iterable<MemoryPermission>
  allowCypherWrite: boolean
  /** Each tool call's deadline (the HTTP handler budget). */
  requestTimeoutMs: number
}

/** The tools' backend on an engine in the same process: the /mcp route and the embedded stdio server. */
export function engineBackend(options: EngineBackendOptions): McpBackend {
  const { engine, workspaceId } = options
  const permissions = new Set(options.permissions)
  const session = (call: CallContext) => call.sessionId ?? undefined
  const requireSession = (call: CallContext) => {
    if (call.sessionId === null)
      throw Object.assign(new Error('this MCP session has no service session'), { code: 'SESSION_NOT_FOUND' })
    return call.sessionId
  }
  return {
    permissions,
    allowCypherWrite: options.allowCypherWrite,
    memory: (request, call) =>
      engine.memory.execute(
        request,
        {
          workspace_id: workspaceId,
          actor_id: options.actorId,
          agent_id: call.agentId,
          session_id: call.sessionId ?? options.fallbackSessionId,
          permissions,
          correlation_id: call.correlationId,
        },
        { signal: call.signal },
      ),
    seedSearch: (request) => engine.seed.search({ ...request, workspace_id: workspaceId }),
    cypher: (mode, query, params, call) =>
      engine.cypher({
        query,
        params,
        mode,
        forcedMode: mode,
        workspaceId,
        sessionId: session(call),
        correlationId: call.correlationId,
        signal: call.signal,
        deadline: Date.now() + options.requestTimeoutMs,
      }),
    graphSchema: () => engine.readGraph(workspaceId, summarizeSchema),
    stixImport: async (bundle, call) => {
      const report = await importStix(engine, { bundle, workspaceId, sessionId: session(call) })
      return report.result as unknown as Record<string, unknown>
    },
    stixExport: async (mode) => {
      const exported = await exportStix(engine, { workspaceId, mode })
      const bundle = exported.bundle as { id: string; objects: unknown[] }
      return { id: bundle.id, objects: bundle.objects }
    },
    timeline: async (call) =>
      engine.explorer.timeline(requireSession(call)) as unknown as Record<string, unknown>,
    graph: async (query, call) =>
      engine.explorer.graph(requireSession(call), query) as unknown as Record<string, unknown>,
    startSession: async (agentId, clientName) => {
      const started = await engine.sessions.start({
        workspace_id: workspaceId,
        actor_id: options.actorId,
        actor_kind: 'agent',
        metadata: sessionMetadata(agentId, clientName),
      })
      return started.session_id
    },
    stopSession: async (sessionId) => {
      await engine.sessions.stop(sessionId)
    },
    audit: (sessionId, event, fields) =>
      engine.sessions.record({
        timestamp: Date.now(),
        level: 'info',
        target: 'service::audit',
        fields: {
          message: event.replace(/_/g, ' '),
          event,
          audit_event_id: String(fields.audit_event_id ?? randomUUID()),
          session_id: sessionId,
          workspace_id: workspaceId,
          ...fields,
        },
      }),
  }
}
