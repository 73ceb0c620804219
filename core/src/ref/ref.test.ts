import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type Engine, openEngine } from '../runtime/index.js'
import { injectStorageFailure, refBulkCreates, refRelationship } from '../testing/index.js'
import { REF_WORKSPACE_ID } from './records.js'
import type { ReferenceClient } from './reference-client.js'
import type { ReferenceProbe } from './reference-probe.js'
import type { RefOptions } from './write-options.js'

const dirs: string[] = []
const engines: Engine[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'ref-'))
  dirs.push(dir)
  return dir
}
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

async function open(dir = tempDir(), ref: RefOptions = {}): Promise<Engine> {
  const engine = await openEngine({ storage: { mode: 'persistent', dir }, ref })
  engines.push(engine)
  return engine
}

let counter = 0
function request(operation: string, body: unknown, key = `key-${++counter}`, extra: object = {}) {
  return {
    contract_version: { major: 1, minor: 0 },
    context: {
      request_id: `req-${counter}`,
      correlation_id: `corr-${counter}`,
      idempotency_key: key,
      access: {
        subject_id: 'user--1',
        organization_ids: [],
        marking_ids: [],
        tenant_id: null,
        roles: [],
        attributes: { source_offset: '42' },
      },
      consistency: 'eventual',
      ...extra,
    },
    operation: { operation, request: body },
  }
}
const malware = (id: string, extra: object = {}) => ({ id, type: 'malware', name: `M ${id}`, ...extra })
const rel = refRelationship
const create = (record: object, key?: string) => request('create', { record }, key)
type Outcome = {
  status: string
  // biome-ignore lint/suspicious/noExplicitAny: assertions read whichever response shape the test wrote
  response?: { response: string; data: any }
  error?: { code: string }
}
const outcome = (r: unknown) => (r as { outcome: Outcome }).outcome

/** A reference that is a second real engine (service-only store), as the e2e tests use a second server. */
async function engineReference(): Promise<{ engine: Engine; client: ReferenceClient; calls: unknown[] }> {
  const engine = await open()
  const calls: unknown[] = []
  return {
    engine,
    calls,
    client: {
      post: async (body) => {
        calls.push(body)
        return { status: 200, body: await engine.ref.write(body) }
      },
    },
  }
}

describe('reference writes: requests and records', () => {
  it('creates, updates with merge-patch and deletes, with revisions and expected_revision conflicts', async () => {
    const engine = await open()
    const created = outcome(await engine.ref.write(create(malware('malware--a', { labels: ['x'] }))))
    expect(created).toEqual({
      status: 'success',
      response: { response: 'write', data: { id: 'malware--a', revision: 1 } },
    })
    const updated = outcome(
      await engine.ref.write(
        request('update', {
          id: 'malware--a',
          expected_revision: 1,
          patch: { labels: null, description: 'd' },
        }),
      ),
    )
    expect(updated.response?.data).toEqual({ id: 'malware--a', revision: 2 })
    const stale = outcome(
      await engine.ref.write(
        request('update', { id: 'malware--a', expected_revision: 1, patch: { name: 'old' } }),
      ),
    )
    expect(stale).toMatchObject({ status: 'failure', error: { code: 'CONFLICT', retryable: false } })
    const { records } = await engine.ref.reconstruction()
    expect(records).toEqual([{ id: 'malware--a', type: 'malware', name: 'M malware--a', description: 'd' }])
    // Cypher sees the record under the STIX labels with its revision.
    const read = await engine.read(
      'MATCH (m:Malware {stix_id: $id}) RETURN m.ref_revision AS r, m.description AS d',
      { id: 'malware--a' },
      { workspaceId: REF_WORKSPACE_ID },
    )
    expect(read.data?.rows).toEqual([[2, 'd']])
    const deleted = outcome(
      await engine.ref.write(request('delete', { id: 'malware--a', expected_revision: 2 })),
    )
    expect(deleted.status).toBe('success')
    expect((await engine.ref.reconstruction()).records).toEqual([])
  })

  it('validates requests: operation names, blank keys, shapes, ids, types and operation counts at the bound', async () => {
    const engine = await open(undefined, { maxOperations: 3 })
    await expect(engine.ref.write(request('read', {}))).rejects.toMatchObject({
      code: 'INVALID_REF_WRITE_OPERATION',
    })
    await expect(engine.ref.write(create(malware('malware--k'), '  '))).rejects.toMatchObject({
      code: 'REF_IDEMPOTENCY_KEY_REQUIRED',
    })
    expect(outcome(await engine.ref.write(request('update', { id: 'x' }))).error?.code).toBe(
      'INVALID_REQUEST',
    )
    expect(outcome(await engine.ref.write(create({ type: 'malware' }))).error?.code).toBe('INVALID_REQUEST')
    expect(outcome(await engine.ref.write(create({ id: 'malware--t' }))).error?.code).toBe('INVALID_REQUEST')
    const items = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ operation: 'create', record: malware(`malware--n${n}-${i}`) }))
    const three = outcome(await engine.ref.write(request('bulk', { operations: items(3), atomic: true })))
    expect(three.status).toBe('success')
    const four = outcome(await engine.ref.write(request('bulk', { operations: items(4), atomic: true })))
    expect(four.error?.code).toBe('INVALID_REQUEST')
    const duplicateIds = outcome(
      await engine.ref.write(
        request('bulk', {
          operations: [
            { operation: 'create', operation_id: 'a', record: malware('malware--d1') },
            { operation: 'create', operation_id: 'a', record: malware('malware--d2') },
          ],
          atomic: false,
        }),
      ),
    )
    expect(duplicateIds.error?.code).toBe('INVALID_REQUEST')
  })

  it('names the field at fault in the branch the operation names, not the union discriminator', async () => {
    const engine = await open()
    const message = async (operation: string, body: unknown) =>
      (outcome(await engine.ref.write(request(operation, body))).error as { message?: string }).message
    expect(await message('update', { id: 'malware--1', patch: 5 })).toBe(
      '/operation/request/patch: must be object',
    )
    expect(
      await message('bulk', {
        atomic: true,
        operations: [
          { operation: 'create', record: malware('malware--1') },
          { operation: 'update', id: 'malware--1', patch: [] },
        ],
      }),
    ).toBe('/operation/request/operations/1/patch: must be object')
    expect(await message('merge', { target_id: 'malware--1', source_ids: [] })).toMatch(
      /^\/operation\/request\/source_ids: /,
    )
    expect(await message('create', {})).toMatch(/^\/operation\/request\/: .*record/)
  })

  it('replays a key with the original response, refuses it with another request, and hashes keys', async () => {
    const engine = await open()
    const first = await engine.ref.write(create(malware('malware--r'), 'secret-key-1'))
    const again = await engine.ref.write({
      ...create(malware('malware--r'), 'secret-key-1'),
      context: { ...create(malware('malware--r'), 'secret-key-1').context, correlation_id: 'other' },
    })
    expect(again).toEqual(first)
    const other = outcome(await engine.ref.write(create(malware('malware--other'), 'secret-key-1')))
    expect(other.error?.code).toBe('CONFLICT')
    const status = engine.ref.status()
    expect(status.result.idempotent_replays).toBe(1)
    expect(JSON.stringify(status)).not.toContain('secret-key-1')
    expect(status.audits[0]).toMatchObject({ source_offset: '42', after_revision: 1, outcome: 'applied' })
    expect(status.audits[0]?.idempotency_key_hash).toMatch(/^sha256:[0-9a-f]{64}$/)
  })

  it('keeps the receipt across kill (no close) and restart: a retry does not apply twice', async () => {
    const dir = tempDir()
    const first = await openEngine({ storage: { mode: 'persistent', dir, checkpointEveryBytes: 1e12 } })
    const answer = await first.ref.write(create(malware('malware--k9'), 'restart-key'))
    // A copy of the directory as a kill -9 leaves it: no checkpoint, only the WAL carries the state.
    const copy = tempDir()
    cpSync(dir, copy, { recursive: true, filter: (path) => !path.endsWith('.lock') })
    const second = await open(copy)
    expect(await second.ref.write(create(malware('malware--k9'), 'restart-key'))).toEqual(answer)
    expect((await second.ref.reconstruction()).records).toHaveLength(1)
    await first.close().catch(() => {})
  })

  it('a bulk write logged as columnar runs comes back whole after kill and restart', async () => {
    const dir = tempDir()
    const first = await openEngine({
      storage: { mode: 'persistent', dir, checkpointEveryBytes: 1e12 },
      ref: { maxOperations: 500 },
    })
    const operations = refBulkCreates('c', 40, 120)
    expect(outcome(await first.ref.write(request('bulk', { operations, atomic: true }))).status).toBe(
      'success',
    )
    const query =
      'MATCH (a:Malware)-[r]->(b) RETURN a.stix_id, type(r), r.ref_revision, b.name ORDER BY r.stix_id'
    const before = await first.read(query, {}, { workspaceId: REF_WORKSPACE_ID })
    const corpus = await first.ref.reconstruction()
    const copy = tempDir()
    cpSync(dir, copy, { recursive: true, filter: (path) => !path.endsWith('.lock') })
    const second = await open(copy, { maxOperations: 500 })
    expect(second.recoveryFacts().replayed_transactions).toBeGreaterThan(0)
    expect((await second.read(query, {}, { workspaceId: REF_WORKSPACE_ID })).data).toEqual(before.data)
    expect(before.data?.rows).toHaveLength(120)
    expect((await second.ref.reconstruction()).records).toEqual(corpus.records)
    await first.close().catch(() => {})
  })

  it('relationships need both endpoints (missing: retryable), and cascade on delete', async () => {
    const engine = await open()
    const missing = outcome(
      await engine.ref.write(create(rel('relationship--1', 'malware--x', 'malware--y'))),
    )
    expect(missing.error).toMatchObject({ code: 'BACKEND_UNAVAILABLE', retryable: true })
    await engine.ref.write(create(malware('malware--x')))
    await engine.ref.write(create(malware('malware--y')))
    expect(
      outcome(await engine.ref.write(create(rel('relationship--1', 'malware--x', 'malware--y')))).status,
    ).toBe('success')
    const edge = await engine.read(
      'MATCH (:Malware)-[r:Uses]->(:Malware) RETURN r.stix_id AS id',
      {},
      {
        workspaceId: REF_WORKSPACE_ID,
      },
    )
    expect(edge.data?.rows).toEqual([['relationship--1']])
    expect(
      outcome(
        await engine.ref.write(request('update', { id: 'relationship--1', patch: { description: 'x' } })),
      ).response?.data,
    ).toEqual({ id: 'relationship--1', revision: 2 })
    await engine.ref.write(request('delete', { id: 'malware--x' }))
    expect((await engine.ref.reconstruction()).records.map((r) => r.id)).toEqual(['malware--y'])
  })

  it('bulk: atomic aborts everything at the first failure, non-atomic keeps positions', async () => {
    const engine = await open()
    await engine.ref.write(create(malware('malware--b0')))
    const items = [
      { operation: 'create', record: malware('malware--b1') },
      { operation: 'update', id: 'malware--b0', expected_revision: 9, patch: { name: 'n' } },
      { operation: 'create', record: malware('malware--b2') },
    ]
    const atomic = outcome(await engine.ref.write(request('bulk', { operations: items, atomic: true })))
    expect(atomic.response?.data.results.map((r: { status: string }) => r.status)).toEqual([
      'aborted',
      'conflict',
      'aborted',
    ])
    expect((await engine.ref.reconstruction()).records.map((r) => r.id)).toEqual(['malware--b0'])
    const loose = outcome(await engine.ref.write(request('bulk', { operations: items, atomic: false })))
    expect(loose.response?.data.results).toMatchObject([
      { operation_id: 'bulk-item-0', id: 'malware--b1', status: 'applied', after_revision: 1 },
      { operation_id: 'bulk-item-1', status: 'conflict', before_revision: 1, diagnostic: expect.any(String) },
      { operation_id: 'bulk-item-2', status: 'applied' },
    ])
    const access = outcome(
      await engine.ref.write(
        request('bulk', {
          operations: [
            {
              operation: 'access_policy_update',
              id: 'malware--b1',
              patch: { object_marking_refs: ['marking-definition--x'] },
            },
            { operation: 'access_policy_update', id: 'malware--b1', patch: { name: 'not access' } },
          ],
          atomic: false,
        }),
      ),
    )
    expect(access.response?.data.results.map((r: { status: string }) => r.status)).toEqual([
      'applied',
      'rejected',
    ])
  })

  it('merge keeps the target, unions identifiers and access, redirects and deduplicates, tombstones sources', async () => {
    const engine = await open()
    await engine.ref.write(create(malware('malware--t', { object_marking_refs: ['m1'], aliases: ['t'] })))
    await engine.ref.write(
      create(malware('malware--s', { object_marking_refs: ['m2'], aliases: ['s'], description: 'src' })),
    )
    await engine.ref.write(create(malware('malware--o')))
    await engine.ref.write(
      create({ id: 'report--1', type: 'report', name: 'r', object_refs: ['malware--s', 'malware--o'] }),
    )
    await engine.ref.write(create(rel('relationship--to', 'malware--t', 'malware--o')))
    await engine.ref.write(
      create({ ...rel('relationship--so', 'malware--s', 'malware--o'), object_marking_refs: ['m3'] }),
    )
    await engine.ref.write(create(rel('relationship--os', 'malware--o', 'malware--s')))
    const merged = outcome(
      await engine.ref.write(
        request('merge', {
          target_id: 'malware--t',
          source_ids: ['malware--s'],
          expected_revisions: { 'malware--t': 1 },
        }),
      ),
    )
    expect(merged.response).toEqual({
      response: 'merge',
      data: {
        target_id: 'malware--t',
        target_revision: 2,
        deleted_source_ids: ['malware--s'],
        redirected_relationship_ids: ['relationship--os'],
        redirected_reference_ids: ['report--1'],
        deduplicated_relationship_ids: ['relationship--so'],
        conflict_count: 1,
      },
    })
    const records = new Map((await engine.ref.reconstruction()).records.map((r) => [r.id, r]))
    expect(records.has('malware--s')).toBe(false)
    expect(records.get('malware--t')).toMatchObject({
      object_marking_refs: ['m1', 'm2'],
      aliases: ['t', 's'],
      x_opencti_stix_ids: ['malware--s'],
      x_service_merged_ids: ['malware--s'],
      description: 'src',
    })
    expect(records.get('relationship--to')).toMatchObject({ object_marking_refs: ['m3'] })
    expect(records.get('relationship--os')).toMatchObject({ target_ref: 'malware--t' })
    expect(records.get('report--1')).toMatchObject({ object_refs: ['malware--t', 'malware--o'] })
    const audits = engine.ref.status().audits.map((a) => a.outcome)
    expect(audits).toContain('merged_survivor')
    expect(audits).toContain('merged_source_tombstoned')
    const stale = outcome(
      await engine.ref.write(
        request('merge', {
          target_id: 'malware--t',
          source_ids: ['malware--o'],
          expected_revisions: { 'malware--o': 5 },
        }),
      ),
    )
    expect(stale.error?.code).toBe('CONFLICT')
  })

  it('answers the documented retryable failure when storage is ephemeral', async () => {
    const engine = await openEngine({})
    engines.push(engine)
    expect(outcome(await engine.ref.write(create(malware('malware--e'))))).toMatchObject({
      status: 'failure',
      error: { code: 'BACKEND_UNAVAILABLE', retryable: true },
    })
    await expect(engine.ref.reconstruction()).rejects.toMatchObject({
      code: 'REF_RECONSTRUCTION_REQUIRES_PERSISTENCE',
    })
    await expect(engine.ref.files({ operation: 'delete', file_ids: ['f'] })).rejects.toMatchObject({
      code: 'REF_FILE_STORAGE_REQUIRED',
    })
  })

  it('refuses a write whose deadline passed, and reports a failed disk as REF_PROJECTION_STATE_FAILED', async () => {
    const engine = await open()
    await expect(
      engine.ref.write(
        request('create', { record: malware('malware--late') }, 'late', { deadline_unix_ms: Date.now() - 1 }),
      ),
    ).rejects.toMatchObject({ code: 'REF_PRIMARY_WRITE_TIMEOUT' })
    expect(
      outcome(
        await engine.ref.write(
          request('create', { record: malware('malware--ok') }, 'ok', {
            deadline_unix_ms: Date.now() + 60_000,
          }),
        ),
      ).status,
    ).toBe('success')
    injectStorageFailure(engine)
    await expect(engine.ref.write(create(malware('malware--disk')))).rejects.toMatchObject({
      code: 'REF_PROJECTION_STATE_FAILED',
    })
  })

  it('gives backpressure when every permit is busy', async () => {
    const engine = await open(undefined, { maxConcurrency: 2 })
    const writes = [1, 2, 3].map((i) =>
      engine.ref.write(create(malware(`malware--p${i}`))).then(outcome, (e) => e),
    )
    const results = await Promise.all(writes)
    expect(results.filter((r) => r.status === 'success')).toHaveLength(2)
    expect(results.filter((r) => r.code === 'REF_WRITE_BACKPRESSURE')).toHaveLength(1)
  })
})

describe('reference writes: outbox, projector and authority', () => {
  it('projects committed writes in order to a real reference and reaches parity', async () => {
    const reference = await engineReference()
    const engine = await open(undefined, { reference: reference.client })
    await engine.ref.write(create(malware('malware--1')))
    await engine.ref.write(create(malware('malware--2')))
    await engine.ref.write(create(rel('relationship--12', 'malware--1', 'malware--2')))
    await engine.ref.write(request('update', { id: 'malware--1', patch: { description: 'u' } }))
    await engine.ref.write(request('merge', { target_id: 'malware--1', source_ids: ['malware--2'] }))
    const status = await engine.ref.drain()
    expect(status.result).toMatchObject({
      projection_lag: 0,
      fully_synchronized: true,
      projection_quarantined: 0,
    })
    expect(status.projections.map((p) => p.status)).toEqual(Array(5).fill('delivered'))
    expect((await reference.engine.ref.reconstruction()).records).toEqual(
      (await engine.ref.reconstruction()).records,
    )
    // The reference received hashed keys only, and is itself a service-only store with an empty outbox.
    expect(JSON.stringify(reference.calls)).not.toMatch(/"idempotency_key":"key-/)
    expect(reference.engine.ref.status().result.projection_outbox_depth).toBe(0)
  })

  it('concurrent writes to one record are projected in the order they were applied', async () => {
    const reference = await engineReference()
    const engine = await open(undefined, { reference: reference.client, maxConcurrency: 16 })
    await engine.ref.write(create(malware('malware--hot')))
    const updates = Array.from({ length: 12 }, (_, i) =>
      engine.ref.write(request('update', { id: 'malware--hot', patch: { description: `v${i}` } })),
    )
    const answers = (await Promise.all(updates)).map(outcome)
    expect(answers.map((a) => a.response?.data.revision).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 12 }, (_, i) => i + 2),
    )
    const status = await engine.ref.drain()
    expect(status.result.projection_lag).toBe(0)
    expect(status.result.projection_quarantined).toBe(0)
    expect((await reference.engine.ref.reconstruction()).records).toEqual(
      (await engine.ref.reconstruction()).records,
    )
  })

  it('keeps entries pending through an outage, then drains; a divergent answer quarantines and suspends', async () => {
    const reference = await engineReference()
    let mode: 'down' | 'up' | 'divergent' = 'down'
    const client: ReferenceClient = {
      post: async (body, signal) => {
        if (mode === 'down') throw new Error('connect ECONNREFUSED')
        const answer = await reference.client.post(body, signal)
        if (mode === 'divergent')
          (
            answer.body as { outcome: { response: { data: { revision: number } } } }
          ).outcome.response.data.revision = 99
        return answer
      },
    }
    const engine = await open(undefined, { reference: client, retryIntervalMs: 60_000 })
    await engine.ref.write(create(malware('malware--o1')))
    await engine.ref.write(create(malware('malware--o2')))
    let status = await engine.ref.drain()
    expect(status.result).toMatchObject({
      projection_outbox_depth: 2,
      projection_lag: 2,
      fully_synchronized: false,
    })
    expect(status.result.projection_retries).toBeGreaterThan(0)
    expect(status.reconciliations.map((r) => r.status)).toEqual(['pending', 'pending'])
    mode = 'up'
    status = await engine.ref.drain()
    expect(status.result).toMatchObject({
      projection_lag: 0,
      pending_reconciliation: 0,
      fully_reconciled: true,
    })
    mode = 'divergent'
    await engine.ref.write(create(malware('malware--o3')))
    status = await engine.ref.drain()
    expect(status.result).toMatchObject({
      projection_quarantined: 1,
      write_authority: 'writes_suspended',
      write_authority_trigger: 'write_divergence',
    })
    await expect(engine.ref.write(create(malware('malware--o4')))).rejects.toMatchObject({
      code: 'REF_PRIMARY_WRITE_SUSPENDED',
    })
    expect(engine.ref.figures()).toMatchObject({ quarantined: 1, authority: 'writes_suspended', lag: 1 })
  })

  it('a checkpoint image keeps pending entries deliverable (the canonical response is stored once, in the receipt)', async () => {
    const reference = await engineReference()
    let up = false
    const client: ReferenceClient = {
      post: async (body, signal) => {
        if (!up) throw new Error('connect ECONNREFUSED')
        return reference.client.post(body, signal)
      },
    }
    const dir = tempDir()
    const first = await openEngine({ storage: { mode: 'persistent', dir }, ref: { reference: client } })
    await first.ref.write(create(malware('malware--i1')))
    await first.ref.write(create(malware('malware--i2')))
    await first.checkpoint()
    await first.close()
    up = true
    const second = await open(dir, { reference: client, retryIntervalMs: 60_000 })
    const status = await second.ref.drain()
    expect(status.result).toMatchObject({
      projection_lag: 0,
      projection_quarantined: 0,
      fully_reconciled: true,
    })
    expect(reference.calls).toHaveLength(2)
  })

  it('gives backpressure when the outbox is full (capacity at its edge)', async () => {
    const down: ReferenceClient = {
      post: async () => {
        throw new Error('down')
      },
    }
    const engine = await open(undefined, { reference: down, outboxCapacity: 2, retryIntervalMs: 60_000 })
    expect(outcome(await engine.ref.write(create(malware('malware--f1')))).status).toBe('success')
    expect(outcome(await engine.ref.write(create(malware('malware--f2')))).status).toBe('success')
    await expect(engine.ref.write(create(malware('malware--f3')))).rejects.toMatchObject({
      code: 'REF_PRIMARY_WRITE_SUSPENDED',
    })
  })

  it('gates authority transitions and keeps authority across restart', async () => {
    const dir = tempDir()
    const reference = await engineReference()
    // The service's own evidence comes from the reference engine (rollback.test.ts covers its refusals).
    const referenceProbe: ReferenceProbe = {
      health: async () => ({ healthy: true, detail: 'ready' }),
      snapshot: (inputs) => reference.engine.ref.rollback.snapshot(inputs),
      journal: async (after, limit) => reference.engine.ref.rollback.journal(after, limit),
    }
    const options = { reference: reference.client, referenceProbe }
    const parity = { queries: [], subjects: [], record_ids: [] }
    let engine = await open(dir, options)
    await engine.ref.write(create(malware('malware--g')))
    await engine.ref.drain()
    const all = { reference_healthy: true, replay_complete: true, parity_verified: true }
    await expect(engine.ref.assignAuthority({ target: 'reference_primary', ...all })).rejects.toMatchObject({
      code: 'REF_AUTHORITY_GATE_FAILED',
    })
    await expect(engine.ref.suspend('not-a-trigger')).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    expect(await engine.ref.suspend('latency_regression')).toEqual({ authority: 'writes_suspended' })
    expect((await engine.ref.rollback.parity(parity)).verified).toBe(true)
    for (const flag of ['reference_healthy', 'replay_complete', 'parity_verified'] as const)
      await expect(
        engine.ref.assignAuthority({ target: 'reference_primary', ...all, [flag]: false }),
      ).rejects.toMatchObject({ code: 'REF_AUTHORITY_GATE_FAILED' })
    expect(await engine.ref.assignAuthority({ target: 'reference_primary', ...all })).toEqual({
      authority: 'reference_primary',
    })
    await engine.close()
    engine = await open(dir, options)
    expect(engine.ref.status().result.write_authority).toBe('reference_primary')
    await expect(engine.ref.write(create(malware('malware--h')))).rejects.toMatchObject({
      code: 'REF_PRIMARY_WRITE_SUSPENDED',
    })
    await expect(
      engine.ref.assignAuthority({ target: 'service_primary', ...all, parity_verified: false }),
    ).rejects.toMatchObject({ code: 'REF_AUTHORITY_GATE_FAILED' })
    // The handover and the evidence survived the restart: the return path, then parity again.
    expect((await engine.ref.rollback.returnWrites()).replayed).toBe(0)
    expect((await engine.ref.rollback.parity(parity)).verified).toBe(true)
    expect(
      await engine.ref.assignAuthority({ target: 'service_primary', ...all, reference_healthy: false }),
    ).toEqual({ authority: 'service_primary' })
    expect(outcome(await engine.ref.write(create(malware('malware--h')))).status).toBe('success')
  })

  it('refuses reference_primary while an entry is pending', async () => {
    const down: ReferenceClient = {
      post: async () => ({ status: 503, body: { ok: false, error: { code: 'X' } } }),
    }
    const engine = await open(undefined, { reference: down, retryIntervalMs: 60_000 })
    await engine.ref.write(create(malware('malware--q')))
    await engine.ref.suspend('reference_availability')
    await expect(
      engine.ref.assignAuthority({
        target: 'reference_primary',
        reference_healthy: true,
        replay_complete: true,
        parity_verified: true,
      }),
    ).rejects.toThrow(/1 outbox entries are prepared or pending/)
  })

  it('startup: an unresolved legacy dual-write record suspends writes with migration_failure', async () => {
    const dir = tempDir()
    let engine = await open(dir)
    await engine.close()
    mkdirSync(join(dir, 'runtime'), { recursive: true })
    writeFileSync(
      join(dir, 'runtime', 'opencti-write-state.json'),
      JSON.stringify({ projections: [{ status: 'pending' }] }),
    )
    engine = await open(dir)
    expect(engine.ref.status().result).toMatchObject({
      write_authority: 'writes_suspended',
      write_authority_trigger: 'migration_failure',
    })
    await engine.ref.assignAuthority({
      target: 'service_primary',
      reference_healthy: true,
      replay_complete: true,
      parity_verified: true,
    })
    await engine.close()
    // The same legacy record does not suspend again once an operator reconciled it.
    engine = await open(dir)
    expect(engine.ref.status().result.write_authority).toBe('service_primary')
  })

  it('files: deterministic job ids, duplicates, deletes, validation; durable across restart', async () => {
    const dir = tempDir()
    let engine = await open(dir)
    const descriptor = {
      file_id: 'file--1',
      source_object_id: 'report--1',
      blob_key: 'b/1',
      name: 'a.pdf',
      mime_type: 'application/pdf',
      content_hash: 'a'.repeat(64),
      version: 1,
    }
    const first = await engine.ref.files({ operation: 'enqueue', descriptor })
    expect(first).toMatchObject({
      result: 'enqueued',
      job_id: expect.stringMatching(/^file-job--[0-9a-f]{64}$/),
    })
    expect(await engine.ref.files({ operation: 'enqueue', descriptor })).toEqual({
      ...first,
      result: 'duplicate',
    })
    await expect(
      engine.ref.files({ operation: 'enqueue', descriptor: { ...descriptor, version: 0 } }),
    ).rejects.toMatchObject({ code: 'REF_FILE_ENQUEUE_FAILED' })
    await expect(engine.ref.files({ operation: 'delete', file_ids: [] })).rejects.toMatchObject({
      code: 'INVALID_REF_FILE_DELETE',
    })
    await expect(engine.ref.files({ operation: 'delete', file_ids: [' '] })).rejects.toMatchObject({
      code: 'INVALID_REF_FILE_DELETE',
    })
    await expect(engine.ref.files({ operation: 'rename' })).rejects.toMatchObject({
      code: 'INVALID_REF_FILE_COMMAND',
    })
    await engine.close()
    engine = await open(dir)
    expect(engine.ref.fileJobs()).toHaveLength(1)
    expect(await engine.ref.files({ operation: 'delete', file_ids: ['file--1'] })).toEqual({
      result: 'deleted',
    })
    expect(engine.ref.fileJobs()).toHaveLength(0)
  })

  it('startup: an abandoned intent is removed; a committed entry with an unreadable receipt blocks readiness', async () => {
    const dir = tempDir()
    let engine = await open(dir)
    const entry = (sequence: number) => ({
      sequence,
      key: `sha256:${String(sequence).repeat(64).slice(0, 64)}`,
      ordering_key_hash: 'sha256:0',
      correlation_id: 'c',
      touched: ['x'],
      status: 'prepared',
      attempts: 0,
      diagnostic: null,
      request: null,
      response: null,
    })
    await engine.transact(REF_WORKSPACE_ID, (_tx, _store, ledger) =>
      ledger.write('ref-writes', { k: 'intent', entry: entry(1) }),
    )
    await engine.close()
    engine = await open(dir)
    expect(engine.ref.status().projections).toEqual([])
    expect(engine.isReady()).toBe(true)
    const committed = entry(2)
    await engine.transact(REF_WORKSPACE_ID, (_tx, _store, ledger) => {
      ledger.write('ref-writes', { k: 'intent', entry: committed })
      ledger.write('ref-writes', {
        k: 'image_receipt',
        receipt: { key: committed.key, fingerprint: 'f', sequence: 2, transaction_id: 't', response: null },
      })
    })
    await engine.close()
    engine = await open(dir)
    expect(engine.isReady()).toBe(false)
    await expect(engine.ref.write(create(malware('malware--blocked')))).rejects.toMatchObject({
      code: 'REF_RECOVERY_BLOCKED',
    })
  })

  it('a disk failure after the intent: REF_PRIMARY_WRITE_FAILED, the intent is abandoned at restart, state-changing routes fail cleanly', async () => {
    const dir = tempDir()
    const engine = await open(dir)
    await engine.ref.write(create(malware('malware--before')))
    // The payload is the second commit of a write: fail the disk right before it.
    const transact = engine.transact.bind(engine)
    let calls = 0
    ;(engine as { transact: Engine['transact'] }).transact = ((...args: Parameters<Engine['transact']>) => {
      calls += 1
      if (calls === 2) injectStorageFailure(engine)
      return transact(...args)
    }) as Engine['transact']
    await expect(engine.ref.write(create(malware('malware--lost')))).rejects.toMatchObject({
      code: 'REF_PRIMARY_WRITE_FAILED',
    })
    await expect(engine.ref.suspend('corruption')).rejects.toMatchObject({
      code: 'REF_AUTHORITY_STATE_FAILED',
    })
    await expect(engine.ref.files({ operation: 'delete', file_ids: ['f'] })).rejects.toMatchObject({
      code: 'REF_FILE_DELETE_FAILED',
    })
    const copy = tempDir()
    cpSync(dir, copy, { recursive: true, filter: (path) => !path.endsWith('.lock') })
    const restarted = await open(copy)
    expect(restarted.isReady()).toBe(true)
    expect(restarted.ref.status().projections).toEqual([])
    expect((await restarted.ref.reconstruction()).records.map((r) => r.id)).toEqual(['malware--before'])
  })
})
