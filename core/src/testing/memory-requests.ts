import type { MemoryContext, MemoryPermission, MemoryResponse } from '../memory/types.js'
import { PERMISSIONS } from '../memory/types.js'
import type { Engine } from '../runtime/index.js'

/** Memory requests for tests: a context with every permission, limits, and operation envelopes. */

export const context = (overrides: Partial<MemoryContext> = {}): MemoryContext => ({
  workspace_id: 'workspace--a',
  actor_id: 'actor--tester',
  agent_id: 'agent--unit',
  session_id: 'session--standalone-api',
  permissions: [...PERMISSIONS] as MemoryPermission[],
  correlation_id: `corr-${Math.random().toString(36).slice(2)}`,
  ...overrides,
})

export const limits = (overrides: Record<string, number> = {}) => ({
  max_items: 50,
  max_depth: 2,
  max_payload_bytes: 1_000_000,
  max_cost: 10_000,
  timeout_ms: 5_000,
  supernode_threshold: 100,
  ...overrides,
})

export const memoryInput = (text: string, extra: Record<string, unknown> = {}) => ({
  kind: 'note',
  schema_version: '1',
  content: { format: 'text_and_properties', value: { text, properties: { n: 1 } } },
  provenance: [{ source_id: 'src-1', locator: 'p1', observed_at: '2026-01-01T00:00:00Z' }],
  tags: ['t'],
  ...extra,
})

let keys = 0

/** One operation through the embedded door; mutations get a fresh key unless one is given. */
export async function op(
  engine: Engine,
  ctx: MemoryContext,
  operation: string,
  input: unknown,
  key: string | null | undefined = undefined,
): Promise<MemoryResponse> {
  const request: Record<string, unknown> = { contract_version: 'v1', operation, input }
  const k = key === undefined ? `key-${++keys}` : key
  if (k !== null) request.idempotency_key = k
  return engine.memory.execute(request, ctx)
}

/** The inner result of a response, loosely typed for assertions. */
// biome-ignore lint/suspicious/noExplicitAny: assertions walk arbitrary JSON
export const inner = (response: MemoryResponse): any => response.result.result

/**
 * A small memory graph to recall over: `remember` a note (its first line is its title), `relate` two memories
 * with evidence, `recall` with optional seeds and limits, `trace` a recall.
 */
export function memoryGraph(engine: Engine, ctx: MemoryContext = context()) {
  const remember = async (text: string, extra: Record<string, unknown> = {}) =>
    inner(
      await op(engine, ctx, 'remember', {
        kind: 'note',
        schema_version: '1',
        content: { format: 'text', value: text },
        provenance: [],
        tags: [],
        ...extra,
      }),
    ).record.id as string
  const relate = async (a: string, b: string, kind: string, properties: Record<string, unknown> = {}) =>
    inner(
      await op(engine, ctx, 'relate', {
        source_id: a,
        target_id: b,
        kind,
        properties,
        provenance: [{ source_id: `evidence-${kind}`, locator: 'report page 4' }],
        lifecycle: 'active',
      }),
    ).relationship.id as string
  const recall = async (objective: string, seed_ids: string[] = [], l: Record<string, number> = {}) =>
    inner(await op(engine, ctx, 'recall', { objective, seed_ids, limits: limits(l) }))
  const trace = async (recallId: string) =>
    inner(await op(engine, ctx, 'trace', { target: { kind: 'recall', id: recallId } }))
  return { engine, ctx, remember, relate, recall, trace }
}
