/**
 * Reference-platform writes end to end: a persistent primary projects through a fault-injecting proxy to a
 * second persistent instance of this service (configured with no reference, so a service-only store) that
 * plays the reference platform.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, type ErrorBody, type RunningServer, startServer, TOKEN } from './harness.js'
import { type FaultProxy, startFaultProxy } from './ref-proxy.js'
import { malware, persistentRefEnv, projectingRefEnv, refWriter, rel } from './ref-support.js'

const dirs: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-ref-'))
  dirs.push(dir)
  return dir
}

const persistent = persistentRefEnv
const primaryEnv = (dir: string, proxy: FaultProxy, extra: Record<string, string> = {}) =>
  projectingRefEnv(dir, proxy.url, extra)
const writer = refWriter()
const write = writer.write

interface WriteAnswer {
  ok: true
  correlation_id: string
  outcome: {
    status: string
    response?: { response: string; data: Record<string, unknown> }
    error?: { code: string; retryable: boolean }
  }
}
interface StatusBody {
  ok: true
  result: Record<string, number | boolean | string | null>
  projections: { sequence: number; status: string; attempts: number; diagnostic: string | null }[]
  reconciliations: { status: string }[]
  audits: unknown[]
}

const post = <T = WriteAnswer>(server: RunningServer, body: unknown) =>
  server.request<T>('/v1/ref/writes', { body })
const admin = <T = StatusBody>(server: RunningServer, path: string, body?: unknown) =>
  server.request<T>(`/v1/admin/ref/${path}`, {
    method: 'POST',
    token: ADMIN_TOKEN,
    ...(body === undefined ? {} : { body }),
  })
const status = async (server: RunningServer) =>
  (await server.request<StatusBody>('/v1/ref/writes/status')).json
const records = async (server: RunningServer) =>
  (
    await admin<{ result: { records: { id: string }[]; high_water_sequence: number } }>(
      server,
      'reconstruction',
    )
  ).json.result
const authority = (
  server: RunningServer,
  target: string,
  flags: Partial<Record<'reference_healthy' | 'replay_complete' | 'parity_verified', boolean>> = {},
) =>
  admin<{ ok: boolean; authority?: string; error?: { code: string } }>(server, 'authority', {
    target,
    reference_healthy: true,
    replay_complete: true,
    parity_verified: true,
    ...flags,
  })

/** The runbook's parity check: records (with relationships and access metadata), full-text results. */
async function expectParity(primary: RunningServer, reference: RunningServer): Promise<void> {
  const ours = await records(primary)
  const theirs = await records(reference)
  expect(theirs.records).toEqual(ours.records)
  for (const objective of ['Malware', 'report']) {
    const body = { objective, workspace_id: 'workspace--ref-canonical', mode: 'full_text', top_k: 50 }
    const a = await primary.request('/v1/seed/search', { body })
    const b = await reference.request('/v1/seed/search', { body })
    expect(a.status).toBe(200)
    expect((a.json as { result: { candidates: unknown[] } }).result.candidates.length).toBeGreaterThan(0)
    expect(b.json).toEqual(a.json)
  }
}

let reference: RunningServer
let proxy: FaultProxy
let primary: RunningServer
let primaryDir: string

beforeAll(async () => {
  reference = await startServer({ env: persistent(tempDir()) })
  proxy = await startFaultProxy(reference.url)
  primaryDir = tempDir()
  primary = await startServer({ env: primaryEnv(primaryDir, proxy) })
}, 60_000)

afterAll(async () => {
  await primary?.kill()
  await reference?.kill()
  await proxy?.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe('reference writes over HTTP with a real reference instance', () => {
  it('reports its mode in /version: projecting primary, service-only reference', async () => {
    expect((await primary.request<{ ref_mode: string }>('/version', { token: null })).json.ref_mode).toBe(
      'reversible_reference',
    )
    expect((await reference.request<{ ref_mode: string }>('/version', { token: null })).json.ref_mode).toBe(
      'elastic_free',
    )
  })

  it('delivers a burst of mixed writes in order and reaches parity', async () => {
    proxy.mode = 'pass'
    const answers = []
    for (const body of [
      write('create', {
        record: malware('malware--a', { object_marking_refs: ['marking-definition--tlp'] }),
      }),
      write('create', { record: malware('malware--b') }),
      write('create', {
        record: { id: 'report--r', type: 'report', name: 'report on b', object_refs: ['malware--b'] },
      }),
      write('bulk', {
        atomic: false,
        operations: [
          { operation: 'create', record: malware('malware--c') },
          { operation: 'create', record: rel('relationship--ab', 'malware--a', 'malware--b') },
          { operation: 'create', record: rel('relationship--cb', 'malware--c', 'malware--b') },
          { operation: 'update', id: 'malware--zz', patch: { name: 'x' } },
        ],
      }),
      write('update', { id: 'malware--a', expected_revision: 1, patch: { description: 'patched' } }),
      write('bulk', {
        atomic: false,
        operations: [
          {
            operation: 'access_policy_update',
            id: 'malware--c',
            patch: { object_marking_refs: ['marking-definition--x'] },
          },
        ],
      }),
      write('merge', { target_id: 'malware--a', source_ids: ['malware--b'] }),
      write('delete', { id: 'malware--c' }),
    ]) {
      const answer = await post(primary, body)
      expect(answer.status).toBe(200)
      answers.push(answer.json.outcome)
    }
    expect(answers.every((o) => o.status === 'success')).toBe(true)
    const drained = (await admin(primary, 'projection/drain')).json
    expect(drained.result).toMatchObject({
      projection_lag: 0,
      projection_outbox_depth: 0,
      fully_synchronized: true,
    })
    const sequences = drained.projections.map((p) => p.sequence)
    expect(sequences).toEqual([...sequences].sort((x, y) => x - y))
    expect(drained.projections.every((p) => p.status === 'delivered')).toBe(true)
    // In order: the proxy saw the writes first in their sequence order. A delivery whose answer outlived the
    // projection timeout (a loaded machine) is sent again under the same idempotency key: a repeat of an
    // entry already seen, never a later entry overtaking an earlier one.
    const seen = proxy.seen.map(
      (s) => (s.body as { context: { correlation_id: string } }).context.correlation_id,
    )
    const expected = answers.map((_, i) => `corr-${writer.count() - answers.length + 1 + i}`)
    const order: string[] = []
    for (const id of seen) if (id !== order[order.length - 1]) order.push(id) // repeats of the entry in flight
    expect(order).toEqual(expected)
    await expectParity(primary, reference)
    // read_your_writes: the write is visible at once through the service, whatever the projection does.
    const cypher = await primary.request<{ result: { data: { rows: unknown[][] } } }>('/v1/cypher/read', {
      body: {
        query: 'MATCH (m:Malware {stix_id: "malware--a"}) RETURN m.ref_revision',
        workspace_id: 'workspace--ref-canonical',
      },
    })
    expect(cypher.json.result.data.rows).toEqual([[3]])
  })

  it('answers a retry with the original response and a reused key with a conflict', async () => {
    const body = write('create', { record: malware('malware--idem') }, { key: 'e2e-idem-key' })
    const first = await post(primary, body)
    const again = await post(primary, body)
    expect(again.json).toEqual(first.json)
    const other = await post(
      primary,
      write('create', { record: malware('malware--idem2') }, { key: 'e2e-idem-key' }),
    )
    expect(other.json.outcome).toMatchObject({ status: 'failure', error: { code: 'CONFLICT' } })
    const s = await status(primary)
    expect(s.result.idempotent_replays).toBeGreaterThanOrEqual(1)
    expect(JSON.stringify(s)).not.toContain('e2e-idem-key')
  })

  it('keeps writes pending through an outage and a timeout, then drains them', async () => {
    proxy.mode = 'outage'
    for (const id of ['malware--o1', 'malware--o2'])
      expect((await post(primary, write('create', { record: malware(id) }))).json.outcome.status).toBe(
        'success',
      )
    let s = (await admin(primary, 'projection/drain')).json
    expect(s.result).toMatchObject({
      projection_outbox_depth: 2,
      projection_lag: 2,
      fully_synchronized: false,
    })
    // Oldest first: the oldest pending entry was tried (the drain stops at its failure).
    expect(s.projections.find((p) => p.status === 'pending')?.attempts).toBeGreaterThanOrEqual(1)
    proxy.mode = 'timeout'
    s = (await admin(primary, 'projection/drain')).json
    expect(s.projections.find((p) => p.status === 'pending')?.diagnostic).toMatch(/timeout/)
    const metrics = (await primary.request('/metrics', { token: null })).text
    expect(metrics).toMatch(/^service_ref_projection_outbox_depth 2$/m)
    expect(metrics).toMatch(/^service_ref_projection_retries_total [1-9]/m)
    proxy.mode = 'slow'
    proxy.delayMs = 50
    s = (await admin(primary, 'projection/drain')).json
    expect(s.result).toMatchObject({ projection_lag: 0, fully_reconciled: true })
    proxy.mode = 'pass'
    await expectParity(primary, reference)
  })

  it('kill -9 with entries pending (one already applied by the reference): nothing lost or duplicated', async () => {
    proxy.mode = 'lost_answer'
    const lost = write('create', { record: malware('malware--lost') })
    expect((await post(primary, lost)).json.outcome.status).toBe('success')
    await admin(primary, 'projection/drain')
    proxy.mode = 'outage'
    const pendingWrite = write('create', { record: malware('malware--k1') })
    const answer = await post(primary, pendingWrite)
    await post(primary, write('update', { id: 'malware--k1', patch: { description: 'two' } }))
    const before = await status(primary)
    expect(before.result.projection_lag).toBe(3)
    await primary.kill()
    primary = await startServer({ env: primaryEnv(primaryDir, proxy) })
    expect((await status(primary)).result.projection_lag).toBe(3)
    // The retry after restart is answered from the receipt.
    expect((await post(primary, pendingWrite)).json).toEqual(answer.json)
    proxy.mode = 'pass'
    const after = (await admin(primary, 'projection/drain')).json
    expect(after.result).toMatchObject({ projection_lag: 0 })
    const theirs = await records(reference)
    expect(theirs.records.filter((r) => r.id === 'malware--lost')).toHaveLength(1)
    expect((await status(reference)).result.idempotent_replays).toBeGreaterThanOrEqual(1)
    await expectParity(primary, reference)
  })

  it('divergence quarantines and suspends; the six-step rollback returns authority with parity verified', async () => {
    // Gates refused while the service is primary and healthy.
    expect((await authority(primary, 'reference_primary')).json.error?.code).toBe('REF_AUTHORITY_GATE_FAILED')
    proxy.mode = 'divergent'
    await post(primary, write('create', { record: malware('malware--div') }))
    const diverged = (await admin(primary, 'projection/drain')).json
    expect(diverged.result).toMatchObject({
      projection_quarantined: 1,
      write_authority: 'writes_suspended',
      write_authority_trigger: 'write_divergence',
    })
    const metrics = (await primary.request('/metrics', { token: null })).text
    expect(metrics).toMatch(/^service_ref_write_authority\{authority="writes_suspended"\} 1$/m)
    expect(metrics).toMatch(/^service_ref_write_authority\{authority="service_primary"\} 0$/m)
    expect(metrics).toMatch(/^service_ref_projection_quarantined 1$/m)
    const refused = await post(primary, write('create', { record: malware('malware--refused') }))
    expect(refused.status).toBe(503)
    expect((refused.json as unknown as ErrorBody).error.code).toBe('REF_PRIMARY_WRITE_SUSPENDED')

    // 1. Suspend writes (declared trigger).
    const suspended = await admin<{ ok: boolean; authority: string }>(primary, 'authority/suspend', {
      trigger: 'write_divergence',
    })
    expect(suspended.json).toEqual({ ok: true, authority: 'writes_suspended' })
    // 2. Restore the reference and drain (the quarantined entry stays until parity is verified).
    proxy.mode = 'pass'
    expect((await admin(primary, 'projection/drain')).json.result).toMatchObject({
      projection_outbox_depth: 0,
    })
    // 3. Reconstruct: the canonical corpus and the high-water mark (the reference is complete: nothing to replay).
    const corpus = await records(primary)
    expect(corpus.high_water_sequence).toBeGreaterThan(0)
    // 4. Verify parity: the service computes it and records the report (the assignment checks it).
    await expectParity(primary, reference)
    const report = await admin<{ result: { verified: boolean } }>(primary, 'parity', {
      queries: ['Malware'],
      subjects: [{ subject_id: 'user--e2e', organization_ids: [], marking_ids: [] }],
      record_ids: ['malware--a'],
    })
    expect(report.json.result.verified).toBe(true)
    // 5. Assign reference_primary: every gate refused alone, then allowed.
    for (const flag of ['reference_healthy', 'replay_complete', 'parity_verified'] as const) {
      const gate = await authority(primary, 'reference_primary', { [flag]: false })
      expect(gate.status).toBe(400)
      expect(gate.json.error?.code).toBe('REF_AUTHORITY_GATE_FAILED')
    }
    expect((await authority(primary, 'reference_primary')).json).toEqual({
      ok: true,
      authority: 'reference_primary',
    })
    const s = await status(primary)
    expect(s.result).toMatchObject({ write_authority: 'reference_primary', projection_quarantined: 0 })
    expect((await post(primary, write('create', { record: malware('malware--x') }))).status).toBe(503)
    // 6. Restore traffic gradually: the reversible return to service_primary, gated on replay and parity.
    expect((await authority(primary, 'service_primary', { parity_verified: false })).status).toBe(400)
    expect((await authority(primary, 'service_primary', { replay_complete: false })).status).toBe(400)
    // The service states replay_complete itself: the return path brings back what the reference accepted
    // (nothing here), then parity is verified again.
    expect((await admin<{ result: { replayed: number } }>(primary, 'return')).json.result.replayed).toBe(0)
    expect(
      (
        await admin<{ result: { verified: boolean } }>(primary, 'parity', {
          queries: ['Malware'],
          subjects: [],
          record_ids: [],
        })
      ).json.result.verified,
    ).toBe(true)
    expect((await authority(primary, 'service_primary', { reference_healthy: false })).json).toEqual({
      ok: true,
      authority: 'service_primary',
    })
    expect(
      (await post(primary, write('create', { record: malware('malware--back') }))).json.outcome.status,
    ).toBe('success')
    expect((await admin(primary, 'projection/drain')).json.result).toMatchObject({
      projection_lag: 0,
      write_authority: 'service_primary',
    })
    const metricsAfter = (await primary.request('/metrics', { token: null })).text
    expect(metricsAfter).toMatch(/^service_ref_write_authority\{authority="service_primary"\} 1$/m)
    // The divergent entry was applied on the reference too; parity holds at the end.
    await expectParity(primary, reference)
  })

  it('keeps authority across a restart', async () => {
    await admin(primary, 'authority/suspend', { trigger: 'latency_regression' })
    await primary.stop()
    primary = await startServer({ env: primaryEnv(primaryDir, proxy) })
    expect((await status(primary)).result).toMatchObject({
      write_authority: 'writes_suspended',
      write_authority_trigger: 'latency_regression',
    })
    expect((await authority(primary, 'service_primary')).json.authority).toBe('service_primary')
  })

  it('files: enqueue (202, deterministic job id, duplicate), delete (200), invalid commands (400)', async () => {
    const descriptor = {
      file_id: 'file--1',
      source_object_id: 'report--r',
      blob_key: 'blobs/1',
      name: 'r.pdf',
      mime_type: 'application/pdf',
      content_hash: 'b'.repeat(64),
      version: 1,
    }
    const first = await primary.request<{ result: string; job_id: string }>('/v1/ref/files', {
      body: { operation: 'enqueue', descriptor },
    })
    expect(first.status).toBe(202)
    expect(first.json).toMatchObject({
      ok: true,
      result: 'enqueued',
      job_id: expect.stringMatching(/^file-job--[0-9a-f]{64}$/),
    })
    const again = await primary.request<{ result: string; job_id: string }>('/v1/ref/files', {
      body: { operation: 'enqueue', descriptor },
    })
    expect(again.json).toEqual({ ok: true, result: 'duplicate', job_id: first.json.job_id })
    const bad = await primary.request<ErrorBody>('/v1/ref/files', {
      body: { operation: 'enqueue', descriptor: { ...descriptor, content_hash: 'xyz' } },
    })
    expect([bad.status, bad.json.error.code]).toEqual([400, 'REF_FILE_ENQUEUE_FAILED'])
    const empty = await primary.request<ErrorBody>('/v1/ref/files', {
      body: { operation: 'delete', file_ids: [] },
    })
    expect([empty.status, empty.json.error.code]).toEqual([400, 'INVALID_REF_FILE_DELETE'])
    const untagged = await primary.request<ErrorBody>('/v1/ref/files', {
      body: { operation: 'rename', file_ids: ['x'] },
    })
    expect([untagged.status, untagged.json.error.code]).toEqual([400, 'INVALID_REF_FILE_COMMAND'])
    const deleted = await primary.request('/v1/ref/files', {
      body: { operation: 'delete', file_ids: ['file--1'] },
    })
    expect([deleted.status, deleted.json]).toEqual([200, { ok: true, result: 'deleted' }])
  })

  it('HTTP-level errors in the envelope: operation, key, auth, admin boundary, deadline', async () => {
    const notWrite = await post<ErrorBody>(primary, write('read', {}))
    expect([notWrite.status, notWrite.json.error.code]).toEqual([400, 'INVALID_REF_WRITE_OPERATION'])
    const blank = await post<ErrorBody>(
      primary,
      write('create', { record: malware('malware--blank') }, { key: ' ' }),
    )
    expect([blank.status, blank.json.error.code]).toEqual([400, 'REF_IDEMPOTENCY_KEY_REQUIRED'])
    expect(blank.json.correlation_id).toBeDefined()
    const noToken = await primary.request<ErrorBody>('/v1/ref/writes', {
      body: write('create', { record: malware('malware--t') }),
      token: null,
    })
    expect([noToken.status, noToken.json.error.code]).toEqual([401, 'AUTH_REQUIRED'])
    const bearerOnAdmin = await primary.request<ErrorBody>('/v1/admin/ref/projection/drain', {
      method: 'POST',
      token: TOKEN,
    })
    expect([bearerOnAdmin.status, bearerOnAdmin.json.ok]).toEqual([401, false])
    const late = await post<ErrorBody>(
      primary,
      write('create', { record: malware('malware--late') }, { deadline: Date.now() - 1 }),
    )
    expect([late.status, late.json.error.code]).toEqual([504, 'REF_PRIMARY_WRITE_TIMEOUT'])
    const inTime = await post(
      primary,
      write('create', { record: malware('malware--intime') }, { deadline: Date.now() + 60_000 }),
    )
    expect(inTime.json.outcome.status).toBe('success')
    const badTrigger = await admin<ErrorBody>(primary, 'authority/suspend', { trigger: 'boredom' })
    expect([badTrigger.status, badTrigger.json.ok]).toEqual([400, false])
  })
})

describe('reference write limits at their edges', () => {
  let limited: RunningServer
  let down: FaultProxy
  const bodyLimit = 4000

  beforeAll(async () => {
    down = await startFaultProxy(reference.url)
    down.mode = 'outage'
    limited = await startServer({
      env: primaryEnv(tempDir(), down, {
        SERVICE_OPENCTI_SYNC_MAX_OPERATIONS: '3',
        SERVICE_REF_SYNC_MAX_REPLAY_IDENTITIES: '3',
        SERVICE_REF_SHADOW_MAX_CONCURRENCY: '1',
        SERVICE_HTTP_IMPORT_MAX_BODY_BYTES: String(bodyLimit),
      }),
    })
  }, 60_000)
  afterAll(async () => {
    await limited?.kill()
    await down?.close()
  })

  const bulk = (count: number, prefix: string) =>
    write('bulk', {
      atomic: true,
      operations: Array.from({ length: count }, (_, i) => ({
        operation: 'create',
        record: malware(`malware--${prefix}${i}`),
      })),
    })

  it('operations per write: 2, 3 pass; 4 is INVALID_REQUEST', async () => {
    expect((await post(limited, bulk(2, 'l2-'))).json.outcome.status).toBe('success')
    expect((await post(limited, bulk(3, 'l3-'))).json.outcome.status).toBe('success')
    const four = await post(limited, bulk(4, 'l4-'))
    expect([four.status, four.json.outcome.error?.code]).toEqual([200, 'INVALID_REQUEST'])
  })

  it('outbox capacity: the write that would exceed it gets backpressure, a replay still answers', async () => {
    // Two entries are pending from the test above (the reference is down); capacity 3.
    const third = write('create', { record: malware('malware--cap3') })
    expect((await post(limited, third)).json.outcome.status).toBe('success')
    const fourth = await post<ErrorBody>(limited, write('create', { record: malware('malware--cap4') }))
    expect([fourth.status, fourth.json.error.code]).toEqual([503, 'REF_PRIMARY_WRITE_SUSPENDED'])
    expect((await post(limited, third)).json.outcome.status).toBe('success')
  })

  it('body bytes: at the limit parsed, one byte over 413 in the envelope', async () => {
    const sized = (size: number) => {
      const body = write('read', {})
      const base = JSON.stringify({ ...body, pad: '' }).length
      return JSON.stringify({ ...body, pad: 'x'.repeat(size - base) })
    }
    const at = await limited.request<ErrorBody>('/v1/ref/writes', {
      rawBody: sized(bodyLimit),
      headers: { 'content-type': 'application/json' },
    })
    expect([at.status, at.json.error.code]).toEqual([400, 'INVALID_REF_WRITE_OPERATION'])
    const over = await limited.request<ErrorBody>('/v1/ref/writes', {
      rawBody: sized(bodyLimit + 1),
      headers: { 'content-type': 'application/json' },
    })
    expect(over.status).toBe(413)
    expect(over.json.ok).toBe(false)
  })
})

describe('reference write permits and storage mode', () => {
  let single: RunningServer
  let ephemeral: RunningServer
  beforeAll(async () => {
    single = await startServer({ env: { ...persistent(tempDir()), SERVICE_REF_SHADOW_MAX_CONCURRENCY: '1' } })
    ephemeral = await startServer({
      env: { SERVICE_HTTP_ADMIN_AUTH_TOKEN: ADMIN_TOKEN, SERVICE_STORAGE_MODE: 'ephemeral' },
    })
  }, 60_000)
  afterAll(async () => {
    await single?.kill()
    await ephemeral?.kill()
  })

  it('concurrency: one write at a time passes, simultaneous ones beyond the permit get REF_WRITE_BACKPRESSURE', async () => {
    expect(
      (await post(single, write('create', { record: malware('malware--one') }))).json.outcome.status,
    ).toBe('success')
    const burst = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        post<{ outcome: WriteAnswer['outcome']; error: ErrorBody['error'] }>(
          single,
          write('create', { record: malware(`malware--burst${i}`) }),
        ),
      ),
    )
    const ok = burst.filter((a) => a.status === 200 && a.json.outcome.status === 'success')
    const refused = burst.filter((a) => a.status === 503 && a.json.error.code === 'REF_WRITE_BACKPRESSURE')
    expect(ok.length).toBeGreaterThanOrEqual(1)
    expect(refused.length).toBeGreaterThanOrEqual(1)
    expect(ok.length + refused.length).toBe(16)
  })

  it('ephemeral storage: writes answer the retryable failure, reconstruction and files need persistence', async () => {
    const answer = await post(ephemeral, write('create', { record: malware('malware--eph') }))
    expect([answer.status, answer.json.outcome.error]).toEqual([
      200,
      { code: 'BACKEND_UNAVAILABLE', message: expect.any(String), retryable: true },
    ])
    const rebuilt = await admin<ErrorBody>(ephemeral, 'reconstruction')
    expect([rebuilt.status, rebuilt.json.error.code]).toEqual([
      503,
      'REF_RECONSTRUCTION_REQUIRES_PERSISTENCE',
    ])
    const files = await ephemeral.request<ErrorBody>('/v1/ref/files', {
      body: { operation: 'delete', file_ids: ['f'] },
    })
    expect([files.status, files.json.error.code]).toEqual([503, 'REF_FILE_STORAGE_REQUIRED'])
  })

  it('startup with an unresolved legacy dual-write record suspends writes with migration_failure', async () => {
    const dir = tempDir()
    const first = await startServer({ env: persistent(dir) })
    await first.stop()
    mkdirSync(join(dir, 'runtime'), { recursive: true })
    writeFileSync(
      join(dir, 'runtime', 'opencti-write-state.json'),
      JSON.stringify({ projections: [{ sequence: 7, status: 'pending' }] }),
    )
    const upgraded = await startServer({ env: persistent(dir) })
    try {
      expect((await status(upgraded)).result).toMatchObject({
        write_authority: 'writes_suspended',
        write_authority_trigger: 'migration_failure',
      })
      const refused = await post<ErrorBody>(upgraded, write('create', { record: malware('malware--mig') }))
      expect([refused.status, refused.json.error.code]).toEqual([503, 'REF_PRIMARY_WRITE_SUSPENDED'])
      // The operator reconciles, verifies parity and returns authority to the service.
      expect((await authority(upgraded, 'service_primary')).json.authority).toBe('service_primary')
    } finally {
      await upgraded.kill()
    }
  })
})
