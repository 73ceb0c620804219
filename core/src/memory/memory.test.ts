import { afterEach, describe, expect, it } from 'vitest'
import { type Engine, openEngine } from '../runtime/index.js'
import { context, inner, limits, memoryInput, op } from '../testing/memory-requests.js'
import { PERMISSIONS } from './types.js'

const engines: Engine[] = []
const open = async (options: Parameters<typeof openEngine>[0] = {}) => {
  const engine = await openEngine(options)
  engines.push(engine)
  return engine
}
afterEach(async () => {
  for (const e of engines.splice(0)) await e.close()
})

describe('remember and the record shape', () => {
  it('round-trips every field with its type and is a Memory node to Cypher', async () => {
    const engine = await open()
    const ctx = context()
    const input = memoryInput('Lateral movement over SMB', {
      identity_key: 'fact-1',
      confidence: 0.75,
      valid_from: '2026-01-01T00:00:00Z',
      valid_until: null,
      expires_at: '2099-01-01T00:00:00Z',
    })
    const res = await op(engine, ctx, 'remember', input)
    expect(res.ok).toBe(true)
    expect(res.contract_version).toBe('v1')
    expect(res.result.operation).toBe('remember')
    const { record, receipt } = inner(res)
    expect(record).toEqual({
      id: expect.stringMatching(/^node--\d+$/),
      identity_key: 'fact-1',
      kind: 'note',
      schema_version: '1',
      content: input.content,
      provenance: input.provenance,
      confidence: 0.75,
      valid_from: '2026-01-01T00:00:00Z',
      valid_until: null,
      recorded_at: expect.any(String),
      expires_at: '2099-01-01T00:00:00Z',
      lifecycle: 'active',
      version: 1,
      tags: ['t'],
    })
    expect(receipt).toEqual({
      committed_id: record.id,
      committed_version: 1,
      audit_correlation_id: ctx.correlation_id,
      replayed: false,
    })
    const rows = await engine.read(
      'MATCH (m:Memory {identity_key: $k}) RETURN m.kind, m.text, m.version, m.lifecycle, m.tags, m.provenance_source_ids',
      { k: 'fact-1' },
      { workspaceId: 'workspace--a' },
    )
    expect(rows.data?.rows).toEqual([['note', 'Lateral movement over SMB', 1, 'active', ['t'], ['src-1']]])
  })

  it('upserts by identity key: a new version, provenance appended without repeats, lifecycle active again', async () => {
    const engine = await open()
    const ctx = context()
    const first = inner(await op(engine, ctx, 'remember', memoryInput('v1', { identity_key: 'k' })))
    await op(engine, ctx, 'forget', { memory_id: first.record.id, mode: 'tombstone', reason: 'test' })
    const second = inner(
      await op(
        engine,
        ctx,
        'remember',
        memoryInput('v2', {
          identity_key: 'k',
          provenance: [
            { source_id: 'src-1', locator: 'p1', observed_at: '2026-01-01T00:00:00Z' },
            { source_id: 'src-2', locator: null, observed_at: null },
          ],
        }),
      ),
    )
    expect(second.record.id).toBe(first.record.id)
    expect(second.record.version).toBe(3)
    expect(second.record.lifecycle).toBe('active')
    expect(second.record.provenance.map((p: { source_id: string }) => p.source_id)).toEqual([
      'src-1',
      'src-2',
    ])
    expect(second.record.content.value.text).toBe('v2')
  })

  it('accepts the text and properties content formats too', async () => {
    const engine = await open()
    const ctx = context()
    const text = inner(
      await op(engine, ctx, 'remember', memoryInput('x', { content: { format: 'text', value: 'plain' } })),
    )
    expect(text.record.content).toEqual({ format: 'text', value: 'plain' })
    const props = inner(
      await op(
        engine,
        ctx,
        'remember',
        memoryInput('x', { content: { format: 'properties', value: { a: [1, 'b'] } } }),
      ),
    )
    expect(props.record.content).toEqual({ format: 'properties', value: { a: [1, 'b'] } })
  })
})

describe('request rules', () => {
  it('rejects unknown fields anywhere, trusted identity in the payload, unknown operations and versions', async () => {
    const engine = await open()
    const ctx = context()
    const bad = [
      {
        contract_version: 'v1',
        operation: 'remember',
        idempotency_key: 'k',
        input: memoryInput('x'),
        workspace_id: 'w',
      },
      {
        contract_version: 'v1',
        operation: 'remember',
        idempotency_key: 'k',
        input: { ...memoryInput('x'), actor_id: 'a' },
      },
      {
        contract_version: 'v1',
        operation: 'remember',
        idempotency_key: 'k',
        input: memoryInput('x', { provenance: [{ source_id: 's', session_id: 'x' }] }),
      },
      {
        contract_version: 'v1',
        operation: 'remember',
        idempotency_key: 'k',
        input: memoryInput('x'),
        correlation_id: 'c',
      },
      { contract_version: 'v1', operation: 'erase', input: {} },
      {
        contract_version: 'v2',
        operation: 'recall',
        input: { objective: 'x', seed_ids: [], limits: limits() },
      },
      {
        contract_version: 'v1',
        operation: 'recall',
        input: { objective: ' ', seed_ids: [], limits: limits() },
      },
      { contract_version: 'v1', operation: 'remember', idempotency_key: '', input: memoryInput('x') },
      {
        contract_version: 'v1',
        operation: 'remember',
        idempotency_key: 'k'.repeat(257),
        input: memoryInput('x'),
      },
      {
        contract_version: 'v1',
        operation: 'remember',
        idempotency_key: 'k',
        input: memoryInput('x', { valid_from: '2026-02-01T00:00:00Z', valid_until: '2026-01-01T00:00:00Z' }),
      },
      {
        contract_version: 'v1',
        operation: 'remember',
        idempotency_key: 'k',
        input: memoryInput('x', { valid_from: '1 January 2026' }),
      },
      {
        contract_version: 'v1',
        operation: 'remember',
        idempotency_key: 'k',
        input: memoryInput('x', { confidence: 1.5 }),
      },
      'not an object',
    ]
    for (const request of bad)
      await expect(engine.memory.execute(request, ctx)).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    // 256 characters is the longest key accepted.
    await expect(op(engine, ctx, 'remember', memoryInput('x'), 'k'.repeat(256))).resolves.toMatchObject({
      ok: true,
    })
  })

  it('checks each permission alone, before anything else', async () => {
    const engine = await open()
    const full = context()
    const m = inner(await op(engine, full, 'remember', memoryInput('alpha')))
    const requests: Record<string, [string, unknown]> = {
      write: ['remember', memoryInput('beta')],
      read: ['recall', { objective: 'alpha', seed_ids: [], limits: limits() }],
      trace: ['trace', { target: { kind: 'memory', id: m.record.id } }],
      forget: ['forget', { memory_id: m.record.id, mode: 'tombstone', reason: 'r' }],
      consolidate: [
        'consolidate',
        {
          mode: { mode: 'propose' },
          memory_ids: [m.record.id, 'node--999'],
          reason: 'r',
          preserve_disagreements: true,
        },
      ],
    }
    for (const denied of PERMISSIONS) {
      const ctx = context({ permissions: PERMISSIONS.filter((p) => p !== denied) })
      for (const [permission, [operation, input]] of Object.entries(requests)) {
        const call = op(engine, ctx, operation, input)
        if (permission === denied) await expect(call).rejects.toMatchObject({ code: 'PERMISSION_DENIED' })
        else await call.catch(() => {}) // other outcomes are covered elsewhere; only the denial matters here
      }
      // Denied first: even an invalid request of that operation says PERMISSION_DENIED.
      const [operation] = requests[denied] as [string, unknown]
      await expect(op(engine, ctx, operation, { nonsense: true })).rejects.toMatchObject({
        code: 'PERMISSION_DENIED',
      })
    }
  })

  it('replays the same request, refuses a different one under the same key, and needs a key for mutations', async () => {
    const engine = await open()
    const ctx = context()
    const first = await op(engine, ctx, 'remember', memoryInput('alpha', { identity_key: 'k' }), 'key-1')
    // Another layout and an explicit null for an absent field are the same request.
    const again = await engine.memory.execute(
      {
        input: { ...memoryInput('alpha', { identity_key: 'k' }), expires_at: null },
        operation: 'remember',
        idempotency_key: 'key-1',
        contract_version: 'v1',
      },
      context({ correlation_id: 'other' }),
    )
    expect(inner(again).receipt.replayed).toBe(true)
    expect({ ...inner(again), receipt: { ...inner(again).receipt, replayed: false } }).toEqual(inner(first))
    const rows = await engine.read('MATCH (m:Memory) RETURN m.version', {}, { workspaceId: ctx.workspace_id })
    expect(rows.data?.rows).toEqual([[1]]) // applied once
    await expect(op(engine, ctx, 'remember', memoryInput('beta'), 'key-1')).rejects.toMatchObject({
      code: 'IDEMPOTENCY_CONFLICT',
    })
    for (const operation of ['remember', 'relate', 'update', 'forget'])
      await expect(op(engine, ctx, operation, {}, null)).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    await expect(op(engine, ctx, 'remember', memoryInput('x'), null)).rejects.toMatchObject({
      code: 'IDEMPOTENCY_KEY_REQUIRED',
    })
    await expect(
      op(engine, ctx, 'forget', { memory_id: inner(first).record.id, mode: 'tombstone', reason: 'r' }, null),
    ).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REQUIRED' })
    // Reads need none.
    await expect(
      op(engine, ctx, 'recall', { objective: 'alpha', seed_ids: [], limits: limits() }, null),
    ).resolves.toMatchObject({ ok: true })
  })
})

describe('relate, update, forget', () => {
  it('relates two visible memories, versions the relationship, and patches optimistically', async () => {
    const engine = await open()
    const ctx = context()
    const a = inner(await op(engine, ctx, 'remember', memoryInput('alpha'))).record
    const b = inner(await op(engine, ctx, 'remember', memoryInput('beta'))).record
    const relate = (extra: Record<string, unknown> = {}) =>
      op(engine, ctx, 'relate', {
        source_id: a.id,
        target_id: b.id,
        kind: 'supports',
        properties: { weight: 2 },
        provenance: [{ source_id: 'ev-1' }],
        lifecycle: 'active',
        ...extra,
      })
    const first = inner(await relate())
    expect(first.relationship).toMatchObject({
      id: expect.stringMatching(/^relationship--\d+$/),
      source_id: a.id,
      target_id: b.id,
      kind: 'supports',
      properties: { weight: 2 },
      provenance: [{ source_id: 'ev-1', locator: null, observed_at: null }],
      identity_key: null,
      lifecycle: 'active',
      version: 1,
    })
    const second = inner(await relate({ provenance: [{ source_id: 'ev-2' }] }))
    expect(second.relationship.id).toBe(first.relationship.id)
    expect(second.relationship.version).toBe(2)
    expect(second.relationship.provenance.map((p: { source_id: string }) => p.source_id)).toEqual([
      'ev-1',
      'ev-2',
    ])
    await expect(relate({ target_id: 'node--999' })).rejects.toMatchObject({ code: 'NOT_FOUND' })
    await expect(relate({ source_id: 'garbage' })).rejects.toMatchObject({ code: 'NOT_FOUND' })

    const patched = await op(engine, ctx, 'update', {
      target: { kind: 'memory', id: a.id },
      expected_version: 1,
      patch: { confidence: 0.4, add_provenance: [{ source_id: 'src-9' }], add_tags: ['new'] },
    })
    expect(patched.result.operation).toBe('update')
    expect(inner(patched).record).toMatchObject({ version: 2, confidence: 0.4, tags: ['t', 'new'] })
    expect(inner(patched).record.provenance.map((p: { source_id: string }) => p.source_id)).toEqual([
      'src-1',
      'src-9',
    ])
    await expect(
      op(engine, ctx, 'update', {
        target: { kind: 'memory', id: a.id },
        expected_version: 1,
        patch: { confidence: 0.1 },
      }),
    ).rejects.toMatchObject({ code: 'VERSION_CONFLICT' })
    const rel = await op(engine, ctx, 'update', {
      target: { kind: 'relationship', id: first.relationship.id },
      expected_version: 2,
      patch: { lifecycle: 'expired' },
    })
    expect(rel.result.operation).toBe('update_relationship')
    expect(inner(rel).relationship).toMatchObject({ version: 3, lifecycle: 'expired' })
    await expect(
      op(engine, ctx, 'update', { target: { kind: 'relationship', id: 'relationship--77' }, patch: {} }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' })
  })

  it('forget expires or tombstones so ordinary recall no longer returns the memory', async () => {
    const engine = await open()
    const ctx = context()
    const ids: string[] = []
    for (const word of ['zebra one', 'zebra two', 'zebra three'])
      ids.push(inner(await op(engine, ctx, 'remember', memoryInput(word))).record.id)
    const recall = async () =>
      inner(await op(engine, ctx, 'recall', { objective: 'zebra', seed_ids: [], limits: limits() }))
        .items.map((i: { record: { id: string } }) => i.record.id)
        .sort()
    expect(await recall()).toEqual([...ids].sort())
    const expire = inner(
      await op(engine, ctx, 'forget', {
        memory_id: ids[0],
        mode: 'expire',
        expires_at: '2026-01-02T00:00:00Z',
        reason: 'stale',
      }),
    )
    expect(expire).toEqual({
      receipt: {
        committed_id: ids[0],
        committed_version: 2,
        audit_correlation_id: ctx.correlation_id,
        replayed: false,
      },
      mode: 'expire',
    })
    await op(engine, ctx, 'forget', { memory_id: ids[1], mode: 'application_delete', reason: 'user asked' })
    expect(await recall()).toEqual([ids[2]])
    await expect(
      op(engine, ctx, 'forget', { memory_id: ids[2], mode: 'expire', reason: 'no time given' }),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    // Application forgetting is not erasure: the record and its history remain for trace.
    const trace = inner(await op(engine, ctx, 'trace', { target: { kind: 'memory', id: ids[1] } }))
    expect(trace.versions.map((v: { lifecycle: string }) => v.lifecycle)).toEqual(['active', 'tombstoned'])
  })
})
