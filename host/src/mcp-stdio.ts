import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { createServiceClient } from '@service/client'
import { createMcpServer, type McpBackend, remoteBackend } from '@service/plugin-mcp'
import pino from 'pino'
import { createLogger } from './logger.js'
import { mcpEngineBackend } from './mcp-backend.js'
import { openEngineOrExit } from './run.js'
import type { Settings } from './settings.js'

/**
 * `service-http-server mcp`: MCP over stdin/stdout for one agent. Embedded, it opens the engine on the
 * configured storage (a persistent directory has one owner: not while a server holds it); with
 * SERVICE_MCP_REMOTE_URL it forwards every tool call to that server through @service/client. stdout carries
 * the protocol only, so logs go to stderr.
 */
export async function serveMcpStdio(settings: Settings): Promise<void> {
  const logger = createLogger(settings.log.level, pino.destination(2))
  let backend: McpBackend
  let closeEngine = async () => {}
  if (settings.mcp.remoteUrl !== null) {
    backend = remoteBackend({
      client: createServiceClient({ baseUrl: settings.mcp.remoteUrl, token: settings.mcp.remoteToken }),
      permissions: settings.memory.permissions,
      allowCypherWrite: settings.mcp.allowCypherWrite,
      actorId: settings.memory.actorId,
      workspaceId: settings.memory.workspaceId,
    })
  } else {
    const engine = await openEngineOrExit(settings, logger)
    closeEngine = () => engine.close()
    backend = mcpEngineBackend(settings, engine)
  }
  const bound = createMcpServer({ backend, agentHeader: settings.memory.agentId })
  const transport = new StdioServerTransport()
  let closing = false
  const shutdown = async () => {
    if (closing) return
    closing = true
    await bound.close()
    await transport.close().catch(() => {})
    await closeEngine()
    process.exit(0)
  }
  // The client ends the session by closing our stdin (or by a signal).
  process.stdin.once('end', shutdown)
  process.once('SIGTERM', shutdown)
  process.once('SIGINT', shutdown)
  await bound.server.connect(transport)
  logger.info(
    { event: 'mcp_stdio_ready', mode: settings.mcp.remoteUrl === null ? 'embedded' : 'remote' },
    'MCP on stdio',
  )
}
