import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Engine, isEngineError, openEngine } from '@service/core'
import { REF_WORKSPACE_ID } from '@service/core/ref'
import * as fc from 'fast-check'
import { describe, graphDigest } from '../invariants.js'
import { type FuzzTarget, InvariantViolation, invariant } from '../target.js'

/** Domain failures answer inside the envelope (HTTP 200); these are the only codes they may carry. */
const OUTCOME_CODES = new Set(['CONFLICT', 'INVALID_REQUEST', 'BACKEND_UNAVAILABLE'])
const ITEM_STATUSES = new Set(['applied', 'conflict', 'rejected', 'retryable', 'aborted'])

const odd = fc.constantFrom(
  null,
  0,
  -1,
  1.5,
  '',
  ' ',
  'constructor',
  [],
  {},
  { __proto__: 1 },
  'x'.repeat(3000),
)
const mostly = <T>(usual: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: usual, weight: 30 }, odd as fc.Arbitrary<T>)
const entityId = fc.constantFrom('malware--1', 'malware--2', 'indicator--1', 'tool--1')
const anyId = fc.oneof(
  { arbitrary: entityId, weight: 4 },
  fc.constantFrom('relationship--1', 'relationship--2'),
)
const entity = fc.record(
  {
    id: mostly(entityId),
    type: mostly(fc.constantFrom('malware', 'indicator', 'tool')),
    name: mostly(fc.constantFrom('Emotet', 'Poison Ivy', 'nmap', 'zürich 🙂')),
    description: fc.string({ maxLength: 30 }),
    labels: fc.array(fc.constantFrom('a', 'b'), { maxLength: 2 }),
  },
  { requiredKeys: ['id', 'type'] },
)
const relationship = fc.record({
  id: fc.constantFrom('relationship--1', 'relationship--2'),
  type: fc.constant('relationship'),
  relationship_type: mostly(fc.constantFrom('uses', 'indicates')),
  source_ref: mostly(entityId),
  target_ref: mostly(fc.oneof(entityId, fc.constant('malware--404'))),
})
const record = fc.oneof({ arbitrary: entity, weight: 3 }, relationship)
const revision = fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined })
const patch = fc.oneof(
  fc.record({ name: fc.constantFrom('renamed', null) }, { requiredKeys: [] }),
  fc.constant({ labels: ['c'], description: null }),
  odd,
)

const single: Record<string, fc.Arbitrary<unknown>> = {
  create: fc.record({ record }),
  update: fc.record({ id: anyId, expected_revision: revision, patch }, { requiredKeys: ['id', 'patch'] }),
  delete: fc.record({ id: anyId, expected_revision: revision }, { requiredKeys: ['id'] }),
  merge: fc.record({
    target_id: entityId,
    source_ids: fc.array(entityId, { minLength: 0, maxLength: 3 }),
  }),
}
const bulkItem = fc.oneof(
  fc.record({ operation: fc.constant('create'), record }),
  fc.record({ operation: fc.constantFrom('update', 'access_policy_update'), id: anyId, patch }),
  fc.record(
    { operation: fc.constant('delete'), id: anyId, expected_revision: revision },
    { requiredKeys: ['operation', 'id'] },
  ),
)
const operation = fc.oneof(
  {
    arbitrary: fc
      .constantFrom(...Object.keys(single))
      .chain((name) =>
        (single[name] as fc.Arbitrary<unknown>).map((request) => ({ operation: name, request })),
      ),
    weight: 6,
  },
  {
    arbitrary: fc
      .record({ operations: fc.array(bulkItem, { maxLength: 5 }), atomic: fc.boolean() })
      .map((request) => ({ operation: 'bulk', request })),
    weight: 3,
  },
  fc.constantFrom({ operation: 'read', request: {} }, { operation: 'constructor', request: {} }),
)
const write = fc.record({
  key: fc.oneof(
    { arbitrary: fc.constantFrom('k1', 'k2', 'k3', 'k4', 'k5', 'k6'), weight: 10 },
    fc.constantFrom('', ' '),
  ),
  operation,
})

export type RefCase = { key: string; operation: { operation: string; request: unknown } }[]

const envelope = (key: string, operation: unknown) => ({
  contract_version: { major: 1, minor: 0 },
  context: {
    request_id: 'req--fuzz',
    correlation_id: 'corr--fuzz',
    idempotency_key: key,
    access: {
      subject_id: 'user--fuzz',
      organization_ids: [],
      marking_ids: [],
      tenant_id: null,
      roles: [],
      attributes: {},
    },
    consistency: 'eventual',
  },
  operation,
})

type Outcome = {
  status: string
  error?: { code: string }
  response?: { response: string; data: { results?: { status: string }[] } }
}

/**
 * A sequence of reference writes on a persistent, service-only engine. Invariants: refusals are EngineErrors
 * with a `REF_`/`INVALID_REF_` code (never a JavaScript error); answers are the envelope with a known failure code
 * or per-item statuses (one per bulk item); a failed single write or a failed atomic bulk changes nothing;
 * the same key and body answers exactly the same and changes nothing.
 */
export async function checkRefCase(steps: RefCase): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'fuzz-ref-'))
  const engine: Engine = await openEngine({ storage: { mode: 'persistent', dir, requireFsync: false } })
  try {
    for (const { key, operation } of steps) {
      // As it arrives over HTTP: JSON, so an absent optional field is absent, not undefined.
      const body = JSON.parse(JSON.stringify(envelope(key, operation))) as unknown
      const before = await graphDigest(engine, REF_WORKSPACE_ID)
      let answer: { outcome: Outcome }
      try {
        answer = (await engine.ref.write(body)) as unknown as { outcome: Outcome }
      } catch (error) {
        if (error instanceof InvariantViolation) throw error
        invariant(isEngineError(error), `non-engine failure: ${describe(error)}`)
        invariant(/^(INVALID_)?REF_/.test(error.code), `unexpected code ${error.code}: ${error.message}`)
        invariant(
          (await graphDigest(engine, REF_WORKSPACE_ID)) === before,
          'a refused write changed the graph',
        )
        continue
      }
      const { outcome } = answer
      const after = await graphDigest(engine, REF_WORKSPACE_ID)
      if (outcome.status === 'failure') {
        invariant(OUTCOME_CODES.has(outcome.error?.code ?? ''), `failure code ${outcome.error?.code}`)
        invariant(after === before, `a failed ${operation.operation} changed the graph`)
      } else {
        invariant(outcome.status === 'success', `status ${outcome.status}`)
        const results = outcome.response?.data.results
        if (operation.operation === 'bulk') {
          const request = operation.request as { operations: unknown[]; atomic: boolean }
          invariant(
            results?.length === request.operations.length,
            'bulk answered a different number of items',
          )
          for (const r of results) invariant(ITEM_STATUSES.has(r.status), `item status ${r.status}`)
          if (request.atomic && results.some((r) => r.status !== 'applied'))
            invariant(
              after === before && results.every((r) => r.status !== 'applied'),
              'a failed atomic bulk applied items',
            )
        }
      }
      const again = await engine.ref.write(body)
      invariant(
        JSON.stringify(again) === JSON.stringify(answer),
        `the same write answered differently on retry`,
      )
      invariant((await graphDigest(engine, REF_WORKSPACE_ID)) === after, 'a retry changed the graph')
    }
  } finally {
    await engine.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

export const refTarget: FuzzTarget<RefCase> = {
  name: 'ref',
  description:
    'sequences of reference-platform writes (create/update/delete/merge/bulk, atomic and not, odd values, reused keys, stale revisions, dangling endpoints) on a persistent service-only engine',
  async prepare() {
    return {
      arbitrary: fc.array(write, { minLength: 1, maxLength: 6 }) as fc.Arbitrary<RefCase>,
      check: checkRefCase,
      corpus: 'generated; a small id pool so writes meet the same records',
    }
  },
}
