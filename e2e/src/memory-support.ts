/** Memory-operation requests for the e2e tests: the route and recall limits sized for a test. */

// biome-ignore lint/suspicious/noExplicitAny: response bodies are walked as JSON
export type Body = any

export const MEMORY_PATH = '/v1/memory/operations'

export const recallLimits = (overrides: Record<string, number> = {}) => ({
  max_items: 20,
  max_depth: 2,
  max_payload_bytes: 100000,
  max_cost: 1000,
  timeout_ms: 5000,
  supernode_threshold: 50,
  ...overrides,
})
