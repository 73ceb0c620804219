import type { McpBackend } from '../backend.js'
import type { ToolDefinition } from '../tool.js'
import { EXPLORER_TOOLS } from './explorer-tools.js'
import { GRAPH_TOOLS } from './graph-tools.js'
import { MEMORY_TOOLS } from './memory-tools.js'
import { STIX_TOOLS } from './stix-tools.js'

export const ALL_TOOLS: readonly ToolDefinition[] = [
  ...MEMORY_TOOLS,
  ...GRAPH_TOOLS,
  ...STIX_TOOLS,
  ...EXPLORER_TOOLS,
]

/** The tools a deployment offers: those its memory permissions grant and its settings enable. */
export function grantedTools(backend: McpBackend): ToolDefinition[] {
  return ALL_TOOLS.filter((t) => backend.permissions.has(t.permission) && (t.enabled?.(backend) ?? true))
}
