import { type ServiceClient, unwrap } from '@service/client'
import type { GraphSchemaSummary, MemoryPermission, MemoryResponse } from '@service/core'
import { type CallContext, type CypherOutcome, type McpBackend, sessionMetadata } from './backend.js'

export interface RemoteBackendOptions {
  client: ServiceClient
  /** What this MCP server offers; the server still enforces its own SERVICE_MEMORY_PERMISSIONS. */
  permissions: Iterable<MemoryPermission>
  allowCypherWrite: boolean
  workspaceId: string
  actorId: string
}

/** Per-call request options: the correlation id travels as X-Request-Id, the MCP cancellation as the signal. */
const init = (call: CallContext) => ({
  headers: { 'x-request-id': call.correlationId },
  signal: call.signal ?? null,
})
const rowsOf = (outcome: CypherOutcome) => (outcome.data?.rows ?? []) as [string, number][]

/**
 * The tools' backend over a running server's HTTP API, through the typed @service/client. The server's
 * trusted memory context applies to memory operations (its SERVICE_MEMORY_* settings); Cypher, STIX and the
 * explorer name the service session this MCP session started there, so the server audits them under it.
 */
export function remoteBackend(options: RemoteBackendOptions): McpBackend {
  const { client, workspaceId } = options
  const cypher = async (
    mode: 'read' | 'write',
    query: string,
    params: Record<string, unknown>,
    call: CallContext,
  ) => {
    const body = {
      query,
      params,
      workspace_id: workspaceId,
      ...(call.sessionId === null ? {} : { session_id: call.sessionId }),
    }
    const answer = await unwrap(
      mode === 'read'
        ? client.POST('/v1/cypher/read', { body, ...init(call) })
        : client.POST('/v1/cypher/write', { body, ...init(call) }),
    )
    return answer.result as unknown as CypherOutcome
  }
  const sessionPath = (call: CallContext) => {
    if (call.sessionId === null)
      throw Object.assign(new Error('this MCP session has no service session'), { code: 'SESSION_NOT_FOUND' })
    return { session_id: call.sessionId }
  }
  return {
    permissions: new Set(options.permissions),
    allowCypherWrite: options.allowCypherWrite,
    memory: async (request, call) =>
      (await unwrap(
        client.POST('/v1/memory/operations', {
          body: request as never,
          ...init(call),
        }),
      )) as unknown as MemoryResponse,
    seedSearch: async (request, call) => {
      const answer = await unwrap(
        client.POST('/v1/seed/search', {
          body: { ...request, workspace_id: workspaceId } as never,
          ...init(call),
        }),
      )
      return answer.result as { candidates: unknown[] }
    },
    cypher,
    // No route of its own: four grouped Cypher reads give the same summary (bounded by the read budgets).
    graphSchema: async (call) => {
      const read = (query: string) => cypher('read', query, {}, call)
      const counted = async (query: string) =>
        rowsOf(await read(query))
          .map(([name, count]) => ({ name: String(name), count: Number(count) }))
          .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      const total = async (query: string) => Number(rowsOf(await read(query))[0]?.[0] ?? 0)
      const summary: GraphSchemaSummary = {
        node_count: await total('MATCH (n) RETURN count(n)'),
        relationship_count: await total('MATCH ()-[r]->() RETURN count(r)'),
        labels: (await counted('MATCH (n) UNWIND labels(n) AS l RETURN l, count(*)')).map((x) => ({
          label: x.name,
          count: x.count,
        })),
        relationship_types: (await counted('MATCH ()-[r]->() RETURN type(r), count(*)')).map((x) => ({
          type: x.name,
          count: x.count,
        })),
        node_property_keys: (await counted('MATCH (n) UNWIND keys(n) AS k RETURN k, count(*)')).map((x) => ({
          key: x.name,
          count: x.count,
        })),
        relationship_property_keys: (
          await counted('MATCH ()-[r]->() UNWIND keys(r) AS k RETURN k, count(*)')
        ).map((x) => ({ key: x.name, count: x.count })),
      }
      return summary
    },
    stixImport: async (bundle, call) => {
      const answer = await unwrap(
        client.POST('/v1/import/stix', {
          body: {
            bundle: bundle as never,
            workspace_id: workspaceId,
            ...(call.sessionId === null ? {} : { session_id: call.sessionId }),
          },
          ...init(call),
        }),
      )
      return answer.result as unknown as Record<string, unknown>
    },
    stixExport: async (mode, call) => {
      const bundle = (await unwrap(
        client.GET('/v1/export/stix', {
          params: { query: { mode, workspace_id: workspaceId } as never },
          ...init(call),
        }),
      )) as unknown as { id: string; objects: unknown[] }
      return { id: bundle.id, objects: bundle.objects }
    },
    timeline: async (call) =>
      (
        (await unwrap(
          client.GET('/v1/explorer/sessions/{session_id}/timeline', {
            params: { path: sessionPath(call) },
            ...init(call),
          }),
        )) as unknown as { result: Record<string, unknown> }
      ).result,
    graph: async (query, call) =>
      (
        (await unwrap(
          client.GET('/v1/explorer/sessions/{session_id}/graph', {
            params: { path: sessionPath(call), query: query as never },
            ...init(call),
          }),
        )) as unknown as { result: Record<string, unknown> }
      ).result,
    startSession: async (agentId, clientName) => {
      const answer = await unwrap(
        client.POST('/v1/sessions/start', {
          body: {
            workspace_id: workspaceId,
            actor_id: options.actorId,
            actor_kind: 'agent',
            metadata: sessionMetadata(agentId, clientName),
          } as never,
        }),
      )
      return (answer as unknown as { result: { session_id: string } }).result.session_id
    },
    stopSession: async (sessionId) => {
      await unwrap(
        client.POST('/v1/sessions/{session_id}/stop', { params: { path: { session_id: sessionId } } }),
      )
    },
    // The HTTP API has no route for a door's own audit events; the server audits the calls it receives.
    audit: async () => {},
  }
}
