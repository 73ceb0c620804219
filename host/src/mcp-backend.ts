import type { Engine } from '@service/core'
import { engineBackend, type McpBackend } from '@service/plugin-mcp'
import type { Settings } from './settings.js'

/** The MCP tools' backend on an engine of this process, under the deployment's trusted memory context. */
export function mcpEngineBackend(settings: Settings, engine: Engine): McpBackend {
  return engineBackend({
    engine,
    workspaceId: settings.memory.workspaceId,
    actorId: settings.memory.actorId,
    fallbackSessionId: settings.memory.sessionId,
    permissions: settings.memory.permissions,
    allowCypherWrite: settings.mcp.allowCypherWrite,
    requestTimeoutMs: settings.http.requestTimeoutMs,
  })
}
