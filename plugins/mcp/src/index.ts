export type {
  CallContext,
  CypherOutcome,
  ExplorerGraphQuery,
  McpBackend,
  SeedSearchRequest,
} from './backend.js'
export { DEFAULT_PAYLOAD_BYTES } from './budget.js'
export { type EngineBackendOptions, engineBackend } from './engine-backend.js'
export { failureOf } from './errors.js'
export { LOOPBACK_HOSTS, type OriginPolicy } from './origin-guard.js'
export { default as mcpPlugin, type McpPluginOptions } from './plugin.js'
export { type RemoteBackendOptions, remoteBackend } from './remote-backend.js'
export { type BoundMcpServer, createMcpServer, type McpServerOptions } from './server.js'
export { ALL_TOOLS, grantedTools } from './tools/index.js'
export { derivedKey, MCP_RECALL_DEFAULTS } from './tools/memory-tools.js'
