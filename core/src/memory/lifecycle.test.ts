import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type Engine, openEngine } from '../runtime/index.js'
import { injectStorageFailure } from '../testing/index.js'
import { context, inner, limits, memoryInput, op } from '../testing/memory-requests.js'

const dirs: string[] = []
const engines: Engine[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'memory-'))
  dirs.push(dir)
  return dir
}
const open = async (options: Parameters<typeof openEngine>[0] = {}) => {
  const engine = await openEngine(options)
  engines.push(engine)
  return engine
}
afterEach(async () => {
  for (const e of engines.splice(0)) await e.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe('consolidate', () => {
  it('proposes without change, applies only the approved proposal, keeps originals and disagreements', async () => {
    const engine = await open()
    const ctx = context()
    const a = inner(await op(engine, ctx, 'remember', memoryInput('same fact'))).record.id
    const b = inner(await op(engine, ctx, 'remember', memoryInput('same fact, other words'))).record.id
    const c = inner(await op(engine, ctx, 'remember', memoryInput('same fact'))).record.id
    const request = (mode: unknown, extra: Record<string, unknown> = {}) => ({
      mode,
      memory_ids: [c, a, b, a],
      reason: 'duplicates',
      preserve_disagreements: true,
      ...extra,
    })
    const before = await engine.currentSequence()
    const proposal = inner(await op(engine, ctx, 'consolidate', request({ mode: 'propose' }), null))
    expect(await engine.currentSequence()).toBe(before) // propose changes nothing
    const canonical = [a, b, c].sort()[0]
    expect(proposal).toMatchObject({
      proposal_id: expect.stringMatching(/^consolidation--[0-9a-f]{24}$/),
      applied: false,
      canonical_id: canonical,
      originals_retained: true,
      disagreements_retained: true,
      receipt: null,
    })
    // Deterministic: the same candidate set in another order proposes the same id.
    const again = inner(
      await op(engine, ctx, 'consolidate', { ...request({ mode: 'propose' }), memory_ids: [b, c, a] }, null),
    )
    expect(again.proposal_id).toBe(proposal.proposal_id)
    const apply = (extra: Record<string, unknown> = {}, proposalId = proposal.proposal_id) =>
      op(
        engine,
        ctx,
        'consolidate',
        request({ mode: 'apply_approved', proposal_id: proposalId, approval_policy: 'four-eyes' }, extra),
      )
    await expect(apply({}, 'consolidation--000000000000000000000000')).rejects.toMatchObject({
      code: 'POLICY_APPROVAL_REQUIRED',
    })
    await expect(apply({ memory_ids: [a, b] })).rejects.toMatchObject({ code: 'POLICY_APPROVAL_REQUIRED' })
    await expect(apply({ canonical_id: c })).rejects.toMatchObject({ code: 'POLICY_APPROVAL_REQUIRED' })
    await expect(apply({ preserve_disagreements: false })).rejects.toMatchObject({
      code: 'POLICY_APPROVAL_REQUIRED',
    })
    await expect(
      op(
        engine,
        ctx,
        'consolidate',
        request({ mode: 'apply_approved', proposal_id: proposal.proposal_id, approval_policy: 'p' }),
        null,
      ),
    ).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REQUIRED' })
    const applied = inner(await apply())
    expect(applied).toMatchObject({
      proposal_id: proposal.proposal_id,
      applied: true,
      canonical_id: canonical,
    })
    expect(applied.receipt.committed_id).toBe(proposal.proposal_id)
    const rows = await engine.read(
      `MATCH (o:Memory)-[r:MEMORY_RELATION {kind: 'superseded_by'}]->(k:Memory) RETURN o.lifecycle, k.lifecycle, count(r)`,
      {},
      { workspaceId: ctx.workspace_id },
    )
    expect(rows.data?.rows).toEqual([['superseded', 'active', 2]])
    // Originals stay readable with their content: consolidation is not deletion.
    const trace = inner(await op(engine, ctx, 'trace', { target: { kind: 'memory', id: b } }))
    expect(trace.versions.map((v: { lifecycle: string }) => v.lifecycle)).toEqual(['active', 'superseded'])
    expect(trace.policy_decisions).toContain('approval_policy:four-eyes')
    expect(trace.details.current[0].content.value.text).toBe('same fact, other words')
    await expect(
      op(engine, ctx, 'consolidate', request({ mode: 'propose' }, { memory_ids: [a, 'node--9999'] }), null),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' })
    await expect(
      op(engine, ctx, 'consolidate', request({ mode: 'propose' }, { memory_ids: [a, a] }), null),
    ).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    })
  })
})

describe('trace', () => {
  it('explains versions, evidence paths, attribution, correlation and policy of records, mutations and recalls', async () => {
    const engine = await open()
    const ctx = context({ correlation_id: 'corr-remember' })
    const a = inner(
      await op(engine, ctx, 'remember', memoryInput('anchor', { provenance: [{ source_id: 'doc-1' }] })),
    ).record.id
    const b = inner(await op(engine, context(), 'remember', memoryInput('other'))).record.id
    const rel = inner(
      await op(engine, context({ correlation_id: 'corr-relate' }), 'relate', {
        source_id: a,
        target_id: b,
        kind: 'cites',
        properties: {},
        provenance: [{ source_id: 'doc-2' }],
        lifecycle: 'active',
      }),
    ).relationship.id
    const t = inner(await op(engine, ctx, 'trace', { target: { kind: 'memory', id: a } }))
    expect(t).toMatchObject({
      target: { kind: 'memory', id: a },
      versions: [
        {
          record_id: a,
          version: 1,
          lifecycle: 'active',
          recorded_at: expect.any(String),
          correlation_id: 'corr-remember',
        },
      ],
      actor_id: 'actor--tester',
      agent_id: 'agent--unit',
      session_id: 'session--standalone-api',
      details: {},
    })
    expect(t.policy_decisions).toEqual(
      expect.arrayContaining([
        'trusted_workspace_filter_applied',
        'trace_permission_allowed',
        'non_sensitive_audit_projection',
      ]),
    )
    expect(t.paths).toEqual([
      { memory_ids: [a], relationship_ids: [], evidence_source_ids: ['doc-1'] },
      { memory_ids: [a, b], relationship_ids: [rel], evidence_source_ids: ['doc-2'] },
    ])
    const r = inner(await op(engine, ctx, 'trace', { target: { kind: 'relationship', id: rel } }))
    expect(r.versions).toHaveLength(1)
    const m = inner(await op(engine, ctx, 'trace', { target: { kind: 'mutation', id: 'corr-relate' } }))
    expect(m.versions[0].record_id).toBe(rel)
    const recall = inner(
      await op(engine, ctx, 'recall', { objective: 'anchor', seed_ids: [], limits: limits() }),
    )
    const rt = inner(await op(engine, ctx, 'trace', { target: { kind: 'recall', id: recall.recall_id } }))
    expect(rt.paths[0].memory_ids).toEqual([a])
    // The kept (compact) form gives back each item's path and evidence exactly.
    expect(rt.paths).toEqual(
      recall.items.map((i: { selection_path: object; record: { provenance: { source_id: string }[] } }) => ({
        ...i.selection_path,
        evidence_source_ids: i.record.provenance.map((p) => p.source_id),
      })),
    )
    expect(rt.paths.some((p: { relationship_ids: string[] }) => p.relationship_ids.length > 0)).toBe(true)
    for (const target of [
      { kind: 'memory', id: 'node--999' },
      { kind: 'memory', id: rel },
      { kind: 'relationship', id: a },
      { kind: 'mutation', id: 'corr-unknown' },
      { kind: 'recall', id: 'recall--000000000000000000000000' },
    ])
      await expect(op(engine, ctx, 'trace', { target })).rejects.toMatchObject({ code: 'NOT_FOUND' })
  })

  it('traces a memory written straight into the graph as one graph_write version', async () => {
    const engine = await open()
    const ctx = context()
    await engine.write(
      "CREATE (:Memory {kind: 'note', content_format: 'text', text: 'by hand', lifecycle: 'active', version: 1, recorded_at: '2026-01-01T00:00:00Z'})",
      {},
      { workspaceId: ctx.workspace_id },
    )
    const trace = inner(await op(engine, ctx, 'trace', { target: { kind: 'memory', id: 'node--0' } }))
    expect(trace.versions).toMatchObject([{ version: 1, operation: 'graph_write', lifecycle: 'active' }])
    expect(trace.policy_decisions).toContain('written_outside_the_memory_contract')
    const recall = inner(
      await op(engine, ctx, 'recall', { objective: 'hand', seed_ids: [], limits: limits() }),
    )
    expect(recall.items[0].record.content).toEqual({ format: 'text', value: 'by hand' })
  })

  it('keeps versions and receipts across kill -9 and restart, even with record history trimmed', async () => {
    const dir = tempDir()
    const ctx = context()
    let engine = await open({
      storage: { mode: 'persistent', dir, checkpointEveryBytes: 1e12 },
      historyMaxVersions: 1,
    })
    const first = await op(engine, ctx, 'remember', memoryInput('durable', { identity_key: 'd' }), 'key-d1')
    const id = inner(first).record.id
    await op(engine, ctx, 'update', { target: { kind: 'memory', id }, patch: { add_tags: ['x'] } }, 'key-d2')
    // A copy taken while it runs (lock left out) is what kill -9 leaves: the WAL, no checkpoint.
    const crashed = tempDir()
    cpSync(dir, crashed, { recursive: true, filter: (path) => !path.endsWith('.lock') })
    engine = await open({ storage: { mode: 'persistent', dir: crashed }, historyMaxVersions: 1 })
    const replay = await op(engine, ctx, 'remember', memoryInput('durable', { identity_key: 'd' }), 'key-d1')
    expect(inner(replay).receipt.replayed).toBe(true)
    expect(inner(replay).record).toEqual(inner(first).record)
    const trace = inner(await op(engine, ctx, 'trace', { target: { kind: 'memory', id } }))
    expect(trace.versions.map((v: { version: number }) => v.version)).toEqual([1, 2])
    const rows = await engine.read('MATCH (m:Memory) RETURN m.version', {}, { workspaceId: ctx.workspace_id })
    expect(rows.data?.rows).toEqual([[2]]) // nothing applied twice
    await engine.close()
    // And through a checkpoint.
    engine = await open({ storage: { mode: 'persistent', dir: crashed } })
    expect(inner(await op(engine, ctx, 'trace', { target: { kind: 'memory', id } })).versions).toHaveLength(2)
    await expect(op(engine, ctx, 'remember', memoryInput('changed'), 'key-d2')).rejects.toMatchObject({
      code: 'IDEMPOTENCY_CONFLICT',
    })
  })

  it('answers DURABILITY_FAILED when the WAL write fails, publishing nothing and keeping no receipt', async () => {
    const dir = tempDir()
    const ctx = context()
    let engine = await open({ storage: { mode: 'persistent', dir } })
    injectStorageFailure(engine)
    await expect(op(engine, ctx, 'remember', memoryInput('lost'), 'key-lost')).rejects.toMatchObject({
      code: 'DURABILITY_FAILED',
    })
    await engine.close()
    engine = await open({ storage: { mode: 'persistent', dir } })
    const rows = await engine.read('MATCH (m:Memory) RETURN count(m)', {}, { workspaceId: ctx.workspace_id })
    expect(rows.data?.rows).toEqual([[0]])
    // No receipt was kept: the same key now applies for the first time.
    expect(inner(await op(engine, ctx, 'remember', memoryInput('lost'), 'key-lost')).receipt.replayed).toBe(
      false,
    )
  })
})

describe('workspace isolation and audit', () => {
  it('hides another workspace’s records behind the same NOT_FOUND, on one engine', async () => {
    const engine = await open()
    const a = context({ workspace_id: 'workspace--a' })
    const b = context({ workspace_id: 'workspace--b' })
    const id = inner(await op(engine, a, 'remember', memoryInput('secret alpha'))).record.id
    const other = inner(await op(engine, a, 'remember', memoryInput('secret beta'))).record.id
    await op(engine, a, 'relate', {
      source_id: id,
      target_id: other,
      kind: 'k',
      properties: {},
      provenance: [],
      lifecycle: 'active',
    })
    await expect(op(engine, b, 'trace', { target: { kind: 'memory', id } })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    })
    await expect(
      op(engine, b, 'forget', { memory_id: id, mode: 'tombstone', reason: 'r' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' })
    await expect(
      op(engine, b, 'update', { target: { kind: 'memory', id }, patch: {} }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' })
    await expect(
      op(engine, b, 'relate', {
        source_id: id,
        target_id: other,
        kind: 'k',
        properties: {},
        provenance: [],
        lifecycle: 'active',
      }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' })
    await expect(
      op(engine, b, 'trace', { target: { kind: 'mutation', id: a.correlation_id } }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    })
    const recall = inner(
      await op(engine, b, 'recall', { objective: 'secret', seed_ids: [id], limits: limits() }),
    )
    expect(recall.items).toEqual([])
    // The same idempotency key in another workspace is another key.
    await op(engine, a, 'remember', memoryInput('x'), 'shared-key')
    expect(inner(await op(engine, b, 'remember', memoryInput('y'), 'shared-key')).receipt.replayed).toBe(
      false,
    )
  })

  it('audits into the trusted session’s log (no idempotency key) and makes mutations timeshots', async () => {
    const engine = await open()
    const { session_id } = await engine.sessions.start({
      workspace_id: 'workspace--a',
      actor_id: 'actor--tester',
    })
    const ctx = context({ session_id })
    await op(engine, ctx, 'remember', memoryInput('audited'), 'secret-key-value')
    await expect(
      op(engine, ctx, 'trace', { target: { kind: 'memory', id: 'node--99' } }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' })
    const logs = engine.sessions.logs(session_id, {})
    const events = logs.entries.map((e) => (e.fields as { event: string }).event)
    expect(events).toEqual([
      'memory_audit_input',
      'memory_audit_output',
      'memory_audit_input',
      'memory_audit_output',
    ])
    expect(logs.audit_parity.parity_ok).toBe(true)
    expect(JSON.stringify(logs.entries)).not.toContain('secret-key-value')
    expect(JSON.stringify(logs.entries[1])).toContain(ctx.correlation_id)
    const timeline = engine.explorer.timeline(session_id)
    expect(JSON.stringify(timeline)).toContain('memory remember')
    // The standalone id names no started session: nothing is audited, the operation still runs.
    await expect(op(engine, context(), 'remember', memoryInput('unaudited'))).resolves.toMatchObject({
      ok: true,
    })
  })
})
