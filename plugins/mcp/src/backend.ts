import type { GraphSchemaSummary, MemoryPermission, MemoryResponse } from '@service/core'

/** Who is calling, as the MCP session knows it: the service session, the agent and the request's id. */
export interface CallContext {
  /** The service session this MCP session maps to; null when none could be started (remote without one). */
  sessionId: string | null
  agentId: string | null
  correlationId: string
  signal?: AbortSignal | undefined
}

export interface CypherOutcome {
  status: string
  data: { columns: string[]; rows: unknown[][] } | null
  mutation_summary?: unknown
  validation_errors?: { code: string; message: string; neo4j_code?: string }[]
  warnings?: unknown
}

export interface SeedSearchRequest {
  objective: string
  mode?: string | undefined
  top_k?: number | undefined
  score_threshold?: number | undefined
}

export interface ExplorerGraphQuery {
  boundary_kind?: string | undefined
  boundary_id?: string | undefined
  max_nodes: number
  max_relationships: number
  max_properties_per_record: number
  max_payload_bytes: number
  max_computation_units: number
}

/**
 * What the tools need from the service. Two implementations: the engine in-process (the /mcp route and the
 * embedded stdio server) and the HTTP API through @service/client (the stdio server in remote mode). Every
 * method throws an error with a `code` for a contract failure.
 */
export interface McpBackend {
  /** The memory permissions the deployment grants; tools needing others are neither listed nor run. */
  readonly permissions: ReadonlySet<MemoryPermission>
  readonly allowCypherWrite: boolean
  memory(request: Record<string, unknown>, call: CallContext): Promise<MemoryResponse>
  seedSearch(request: SeedSearchRequest, call: CallContext): Promise<{ candidates: unknown[] }>
  cypher(
    mode: 'read' | 'write',
    query: string,
    params: Record<string, unknown>,
    call: CallContext,
  ): Promise<CypherOutcome>
  graphSchema(call: CallContext): Promise<GraphSchemaSummary>
  stixImport(bundle: Record<string, unknown>, call: CallContext): Promise<Record<string, unknown>>
  /** The whole export bundle's objects, in the export's deterministic order. */
  stixExport(mode: 'strict' | 'permissive', call: CallContext): Promise<{ id: string; objects: unknown[] }>
  timeline(call: CallContext): Promise<Record<string, unknown>>
  graph(query: ExplorerGraphQuery, call: CallContext): Promise<Record<string, unknown>>
  /** Starts the service session an MCP session maps to (actor kind agent). */
  startSession(agentId: string | null, clientName: string | null): Promise<string | null>
  stopSession(sessionId: string): Promise<void>
  /** Appends a tool call's input or output event to the session's audit log, where the backend can. */
  audit(
    sessionId: string,
    event: 'mcp_tool_input' | 'mcp_tool_output',
    fields: Record<string, unknown>,
  ): Promise<void>
}

/** The metadata of the service session an MCP session starts: which door, which agent, which client. */
export function sessionMetadata(agentId: string | null, clientName: string | null): Record<string, string> {
  return {
    door: 'mcp',
    ...(agentId === null ? {} : { agent_id: agentId }),
    ...(clientName === null ? {} : { client_name: clientName }),
  }
}
