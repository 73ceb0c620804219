import { type Engine, isEngineError, MEMORY_ERROR_CODES, type MemoryContext, openEngine } from '@service/core'
import * as fc from 'fast-check'
import { describe, graphDigest } from '../invariants.js'
import { type FuzzTarget, InvariantViolation, invariant } from '../target.js'

/** The codes the contract lists; INTERNAL among them is still a defect when a fuzzed request produces it. */
const CONTRACT_CODES = new Set<string>(MEMORY_ERROR_CODES.filter((code) => code !== 'INTERNAL'))
const MUTATIONS = new Set(['remember', 'relate', 'update', 'forget', 'consolidate'])
const WORKSPACE = 'workspace--standalone-default'

/** `{ref: n}` stands for the n-th id an earlier operation of the same case returned (modulo their count). */
type Ref = { ref: number }
const ref = fc.nat({ max: 7 }).map((n): Ref => ({ ref: n }))
const id = fc.oneof(
  { arbitrary: ref, weight: 5 },
  fc.constantFrom('node--0', 'node--999', 'relationship--0', '', 'x'),
)
const odd = fc.constantFrom(
  null,
  0,
  -1,
  1.5,
  1e308,
  Number.NaN,
  '',
  ' ',
  'constructor',
  [],
  {},
  { __proto__: 1 },
)
const mostly = <T>(usual: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: usual, weight: 40 }, odd as fc.Arbitrary<T>)
const word = fc.constantFrom('emotet', 'loader', 'phishing', 'word', 'macro', 'apt1', 'zürich', '🙂', 'the')
const text = fc.array(word, { minLength: 1, maxLength: 6 }).map((w) => w.join(' '))
const time = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      '2026-01-05T00:00:00Z',
      '2030-01-01T00:00:00.123Z',
      '2020-06-01T12:00:00+02:00',
    ),
    weight: 20,
  },
  fc.constantFrom('2026-02-30T00:00:00Z', 'yesterday', ''),
)
const provenance = fc.array(
  fc.record({
    source_id: mostly(fc.constantFrom('report-1', 'report-2')),
    locator: mostly(fc.constant('p. 3')),
    observed_at: mostly(time),
  }),
  { maxLength: 3 },
)
const limit = (max: number) =>
  mostly(fc.oneof(fc.integer({ min: 1, max: Math.min(max, 50) }), fc.constantFrom(0, max, max + 1)))

const inputs: Record<string, fc.Arbitrary<unknown>> = {
  remember: fc.record(
    {
      identity_key: mostly(fc.constantFrom('k1', 'k2', 'k3')),
      kind: mostly(fc.constantFrom('note', 'fact')),
      schema_version: mostly(fc.constant('1')),
      content: mostly(
        fc.oneof(
          text.map((value) => ({ format: 'text', value })),
          text.map((t) => ({ format: 'text_and_properties', value: { text: t, properties: { n: 1, t } } })),
          fc.constant({ format: 'properties', value: { a: [1, 2] } }),
        ),
      ),
      provenance,
      confidence: mostly(fc.double({ min: 0, max: 1, noNaN: true })),
      valid_from: time,
      expires_at: fc.oneof(time, fc.constant(null)),
      tags: mostly(fc.array(word, { maxLength: 3 })),
    },
    { requiredKeys: ['kind', 'schema_version', 'content', 'provenance', 'tags'] },
  ),
  relate: fc.record({
    source_id: id,
    target_id: id,
    kind: mostly(fc.constantFrom('supports', 'contradicts')),
    properties: mostly(fc.constant({ weight: 1 })),
    provenance,
    lifecycle: mostly(fc.constantFrom('active', 'expired', 'nope')),
  }),
  recall: fc.record({
    objective: mostly(text),
    seed_ids: mostly(fc.array(id, { maxLength: 3 })),
    limits: mostly(
      fc.record({
        max_items: limit(10_000),
        max_depth: limit(16),
        max_payload_bytes: limit(16 * 1024 * 1024),
        max_cost: limit(1_000_000),
        timeout_ms: limit(60_000),
        supernode_threshold: limit(1_000),
      }),
    ),
  }),
  update: fc.record(
    {
      target: fc.record({ kind: fc.constantFrom('memory', 'relationship', 'recall'), id }),
      expected_version: mostly(fc.integer({ min: 0, max: 4 })),
      patch: fc.record(
        {
          content: fc.constant({ format: 'text', value: 'patched' }),
          add_provenance: provenance,
          add_tags: fc.array(word, { maxLength: 2 }),
          lifecycle: fc.constantFrom('active', 'superseded'),
        },
        { requiredKeys: ['add_provenance', 'add_tags'] },
      ),
    },
    { requiredKeys: ['target', 'patch'] },
  ),
  forget: fc.record({
    memory_id: id,
    mode: mostly(fc.constantFrom('expire', 'tombstone', 'application_delete')),
    expires_at: time,
    reason: mostly(text),
  }),
  consolidate: fc.record({
    mode: fc.oneof(
      fc.constant({ mode: 'propose' }),
      fc.record({
        mode: fc.constant('apply_approved'),
        proposal_id: fc.constantFrom('consolidation--0', 'x'),
        approval_policy: fc.constant('p'),
      }),
    ),
    memory_ids: fc.array(id, { minLength: 0, maxLength: 4 }),
    reason: text,
    preserve_disagreements: mostly(fc.boolean()),
  }),
  trace: fc.record({
    target: fc.record({ kind: fc.constantFrom('memory', 'relationship', 'recall', 'mutation'), id }),
  }),
}

const request = fc
  .record(
    {
      contract_version: mostly(fc.constant('v1')),
      operation: fc.oneof(
        { arbitrary: fc.constantFrom(...Object.keys(inputs)), weight: 12 },
        fc.constantFrom('erase', 'constructor'),
      ),
      idempotency_key: fc.oneof(
        { arbitrary: fc.constantFrom('a', 'b', 'c', 'd'), weight: 6 },
        fc.constantFrom('', 'x'.repeat(257)),
      ),
      extra: fc.oneof(
        { arbitrary: fc.constant(undefined), weight: 15 },
        fc.constant({ workspace_id: 'other' }),
      ),
    },
    { requiredKeys: ['contract_version', 'operation'] },
  )
  .chain((r) =>
    (Object.hasOwn(inputs, String(r.operation))
      ? (inputs[String(r.operation)] as fc.Arbitrary<unknown>)
      : fc.anything()
    ).map((input) => {
      const { extra, ...rest } = r
      return { ...rest, ...(extra ?? {}), input }
    }),
  )

export type MemoryCase = unknown[]

/** Replaces `{ref: n}` placeholders by ids earlier operations returned (or a never-issued id when none). */
function resolve(value: unknown, ids: string[]): unknown {
  if (Array.isArray(value)) return value.map((v) => resolve(v, ids))
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value)
    if (keys.length === 1 && keys[0] === 'ref')
      return ids.length === 0 ? 'node--12345' : ids[(value as Ref).ref % ids.length]
    return Object.fromEntries(keys.map((k) => [k, resolve((value as Record<string, unknown>)[k], ids)]))
  }
  return value
}

function collectIds(value: unknown, into: string[]): void {
  if (
    typeof value === 'string' &&
    /^(node|relationship|recall|consolidation)--/.test(value) &&
    !into.includes(value)
  )
    into.push(value)
  else if (Array.isArray(value)) for (const v of value) collectIds(v, into)
  else if (value !== null && typeof value === 'object')
    for (const v of Object.values(value)) collectIds(v, into)
}

const context = (permissions: MemoryContext['permissions']): MemoryContext => ({
  workspace_id: WORKSPACE,
  actor_id: 'actor--fuzz',
  agent_id: null,
  session_id: 'session--fuzz',
  permissions,
  correlation_id: 'fuzz',
})

/**
 * A sequence of memory operations on one engine. Invariants: every refusal is an EngineError with one of the
 * contract's codes (never INTERNAL or a JavaScript error); a refused operation changes nothing; a reads-only
 * operation changes nothing; a mutation repeated with its key answers the same with `replayed: true` and
 * changes nothing; recall stays within max_items and max_payload_bytes.
 */
export async function checkMemoryCase(steps: MemoryCase): Promise<void> {
  const engine: Engine = await openEngine({ storage: { mode: 'ephemeral' } })
  const ids: string[] = []
  const full = context(['read', 'write', 'trace', 'forget', 'consolidate'])
  try {
    for (const step of steps) {
      const req = resolve(step, ids) as { operation?: unknown; input?: { limits?: Record<string, unknown> } }
      const before = await graphDigest(engine, WORKSPACE)
      let response: unknown
      try {
        response = await engine.memory.execute(req, full)
      } catch (error) {
        if (error instanceof InvariantViolation) throw error
        invariant(isEngineError(error), `non-engine failure: ${describe(error)}`)
        invariant(
          CONTRACT_CODES.has(error.code),
          `code ${error.code} is not a contract code: ${error.message}`,
        )
        invariant(
          (await graphDigest(engine, WORKSPACE)) === before,
          `a refused ${String(req.operation)} changed the graph`,
        )
        continue
      }
      collectIds(response, ids)
      const operation = String(req.operation)
      const result = (response as { result: { result: Record<string, unknown> } }).result.result
      if (!MUTATIONS.has(operation) || (operation === 'consolidate' && result.applied !== true)) {
        // trace, recall and proposals write no graph records (recall may keep a page key in a ledger).
        invariant((await graphDigest(engine, WORKSPACE)) === before, `${operation} changed the graph`)
      } else {
        const after = await graphDigest(engine, WORKSPACE)
        const again = (await engine.memory.execute(req, full)) as {
          result: { result: { receipt?: { replayed?: boolean } } }
        }
        invariant(again.result.result.receipt?.replayed === true, `${operation} replay not marked replayed`)
        invariant((await graphDigest(engine, WORKSPACE)) === after, `${operation} replay changed the graph`)
      }
      if (operation === 'recall') {
        const limits = req.input?.limits ?? {}
        const items = result.items as unknown[]
        const usage = result.usage as { payload_bytes: number }
        invariant(items.length <= Number(limits.max_items), `${items.length} items over max_items`)
        invariant(usage.payload_bytes <= Number(limits.max_payload_bytes), 'payload over max_payload_bytes')
      }
    }
    // Denied alone: a context without the operation's permission is refused before anything else.
    const denied = await engine.memory
      .execute(
        { contract_version: 'v1', operation: 'trace', input: { target: { kind: 'memory', id: 'node--0' } } },
        context(['read']),
      )
      .then(
        () => 'answered',
        (e: unknown) => (isEngineError(e) ? e.code : 'other'),
      )
    invariant(denied === 'PERMISSION_DENIED', `trace without its permission gave ${denied}`)
  } finally {
    await engine.close()
  }
}

export const memoryTarget: FuzzTarget<MemoryCase> = {
  name: 'memory',
  description:
    'sequences of memory-contract v1 operations (near-valid inputs with odd values, ids from earlier answers, limits at their edges, unknown operations and fields)',
  async prepare() {
    return {
      arbitrary: fc.array(request, { minLength: 1, maxLength: 8 }),
      check: checkMemoryCase,
      corpus: 'generated; ids chained from earlier answers',
    }
  },
}
