import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ConformanceFixture, checkMemoryConformance, type MemoryDoor } from '@service/core/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ErrorBody, type RunningServer, sharedDir, startServer } from './harness.js'
import { type Body, MEMORY_PATH, recallLimits } from './memory-support.js'

const PATH = MEMORY_PATH
const LIMITS = {
  max_items: 10000,
  max_depth: 16,
  max_payload_bytes: 16777216,
  max_cost: 1000000,
  timeout_ms: 60000,
}
const limits = recallLimits

let keys = 0
const send = (
  server: RunningServer,
  operation: string,
  input: unknown,
  key: string | null = `e2e-${++keys}`,
) =>
  server.request<Body>(PATH, {
    body: { contract_version: 'v1', operation, input, ...(key === null ? {} : { idempotency_key: key }) },
  })

const memory = (text: string, extra: Record<string, unknown> = {}) => ({
  kind: 'note',
  schema_version: '1',
  content: { format: 'text_and_properties', value: { text, properties: { lang: 'en' } } },
  provenance: [{ source_id: 'e2e-source', locator: 'line 1', observed_at: '2026-01-01T00:00:00Z' }],
  confidence: 0.5,
  tags: ['e2e'],
  ...extra,
})

const door = (server: RunningServer): MemoryDoor => ({
  send: async (request) => {
    const res = await server.request<Body>(PATH, { body: request })
    if (res.status === 200) return { ok: true, body: res.json }
    return {
      ok: false,
      code: (res.json as ErrorBody).error.code,
      message: (res.json as ErrorBody).error.message,
    }
  },
})

const expectError = (res: { status: number; json: unknown }, status: number, code: string) => {
  expect({ status: res.status, code: (res.json as ErrorBody).error?.code }).toEqual({ status, code })
  expect((res.json as ErrorBody).ok).toBe(false)
}

describe('memory operations over HTTP', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(async () => {
    await server?.stop()
  })

  const fixtureFile = join(sharedDir, 'reference', 'memory-v1-conformance.json')
  it.skipIf(!existsSync(fixtureFile))('conforms to memory-v1-conformance.json', async () => {
    const fixture = JSON.parse(readFileSync(fixtureFile, 'utf8')) as ConformanceFixture
    expect(await checkMemoryConformance(fixture, door(server))).toEqual([])
  })

  it('answers every producible error code with its status', async () => {
    expectError(
      await server.request(PATH, {
        body: { contract_version: 'v1', operation: 'recall', input: {} },
        token: null,
      }),
      401,
      'AUTH_REQUIRED',
    )
    expectError(
      await server.request(PATH, {
        rawBody: '{"contract_version":',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'INVALID_REQUEST',
    )
    expectError(
      await server.request(PATH, {
        body: { contract_version: 'v1', operation: 'delete_everything', input: {} },
      }),
      400,
      'INVALID_REQUEST',
    )
    expectError(
      await server.request(PATH, {
        body: {
          contract_version: 'v1',
          operation: 'remember',
          idempotency_key: 'k',
          input: memory('x'),
          workspace_id: 'w',
        },
      }),
      400,
      'INVALID_REQUEST',
    )
    expectError(await send(server, 'remember', memory('x'), null), 400, 'IDEMPOTENCY_KEY_REQUIRED')
    expectError(
      await send(server, 'recall', { objective: 'x', seed_ids: [], limits: limits({ max_depth: 0 }) }),
      422,
      'INVALID_BUDGET',
    )
    expectError(
      await send(server, 'trace', { target: { kind: 'memory', id: 'node--424242' } }),
      404,
      'NOT_FOUND',
    )
    const first = await send(server, 'remember', memory('conflicting'), 'e2e-conflict')
    expect(first.status).toBe(200)
    expectError(
      await send(server, 'remember', memory('different'), 'e2e-conflict'),
      409,
      'IDEMPOTENCY_CONFLICT',
    )
    const id = first.json.result.result.record.id
    expectError(
      await send(server, 'update', {
        target: { kind: 'memory', id },
        expected_version: 7,
        patch: { confidence: 0.9 },
      }),
      409,
      'VERSION_CONFLICT',
    )
    const other = (await send(server, 'remember', memory('other'))).json.result.result.record.id
    const input = { memory_ids: [id, other], reason: 'e2e', preserve_disagreements: true }
    expectError(
      await send(server, 'consolidate', {
        ...input,
        mode: { mode: 'apply_approved', proposal_id: 'consolidation--forged', approval_policy: 'p' },
      }),
      403,
      'POLICY_APPROVAL_REQUIRED',
    )
    const metrics = await server.request('/metrics', { token: null })
    expect(metrics.text).toMatch(
      /service_memory_operations_total\{operation="remember",outcome="IDEMPOTENCY_CONFLICT"\} 1/,
    )
    expect(metrics.text).toContain('service_memory_recall_cost_bucket')
  })

  it('enforces every recall limit at 0, 1, max and max+1', async () => {
    await send(server, 'remember', memory('limit probe'))
    for (const [key, max] of Object.entries(LIMITS)) {
      for (const [value, status] of [
        [0, 422],
        [1, 200],
        [max, 200],
        [max + 1, 422],
      ] as const) {
        const res = await send(
          server,
          'recall',
          { objective: 'limit probe', seed_ids: [], limits: limits({ [key]: value }) },
          null,
        )
        expect({ key, value, status: res.status }).toEqual({ key, value, status })
      }
    }
    for (const [value, status] of [
      [0, 422],
      [1, 200],
      [Number.MAX_SAFE_INTEGER, 200],
    ] as const) {
      const res = await send(
        server,
        'recall',
        { objective: 'limit probe', seed_ids: [], limits: limits({ supernode_threshold: value }) },
        null,
      )
      expect(res.status).toBe(status)
    }
  })

  it('round-trips a consolidation: propose changes nothing, apply supersedes originals and links them', async () => {
    const ids: string[] = []
    for (const text of [
      'the server runs on port 8080',
      'server port is 8080',
      'the port of the server: 8080',
    ])
      ids.push((await send(server, 'remember', memory(text))).json.result.result.record.id)
    const input = { memory_ids: ids, canonical_id: ids[1], reason: 'same fact', preserve_disagreements: true }
    const proposal = await send(server, 'consolidate', { ...input, mode: { mode: 'propose' } }, null)
    expect(proposal.status).toBe(200)
    const p = proposal.json.result.result
    expect(p).toMatchObject({ applied: false, canonical_id: ids[1], receipt: null })
    const unchanged = await send(server, 'trace', { target: { kind: 'memory', id: ids[0] } }, null)
    expect(unchanged.json.result.result.versions).toHaveLength(1)
    const apply = await send(server, 'consolidate', {
      ...input,
      mode: { mode: 'apply_approved', proposal_id: p.proposal_id, approval_policy: 'e2e-reviewer' },
    })
    expect(apply.status).toBe(200)
    expect(apply.json.result.result).toMatchObject({
      applied: true,
      originals_retained: true,
      disagreements_retained: true,
    })
    const cypher = await server.request<Body>('/v1/cypher/read', {
      body: {
        query:
          "MATCH (o:Memory)-[:MEMORY_RELATION {kind: 'superseded_by'}]->(c:Memory {text: 'server port is 8080'}) RETURN count(o) AS n, collect(DISTINCT c.lifecycle) AS l",
        workspace_id: 'workspace--standalone-default',
      },
    })
    expect(cypher.json.result.data.rows).toEqual([[2, ['active']]])
    const recall = await send(
      server,
      'recall',
      { objective: 'server port 8080', seed_ids: [], limits: limits() },
      null,
    )
    expect(recall.json.result.result.items.map((i: Body) => i.record.id)).toEqual([ids[1]])
  })
})

describe('memory permissions over HTTP, each denied alone', () => {
  const all = ['read', 'write', 'trace', 'forget', 'consolidate']
  const probe: Record<string, [string, unknown]> = {
    read: ['recall', { objective: 'x', seed_ids: [], limits: limits() }],
    write: ['remember', memory('x')],
    trace: ['trace', { target: { kind: 'memory', id: 'node--0' } }],
    forget: ['forget', { memory_id: 'node--0', mode: 'tombstone', reason: 'r' }],
    consolidate: [
      'consolidate',
      {
        mode: { mode: 'propose' },
        memory_ids: ['node--0', 'node--1'],
        reason: 'r',
        preserve_disagreements: true,
      },
    ],
  }
  it.each(all)('without %s', async (denied) => {
    const server = await startServer({
      env: { SERVICE_MEMORY_PERMISSIONS: all.filter((p) => p !== denied).join(',') },
    })
    try {
      for (const [permission, [operation, input]] of Object.entries(probe)) {
        const res = await send(server, operation, input)
        if (permission === denied) expectError(res, 403, 'PERMISSION_DENIED')
        else expect(res.json.error?.code).not.toBe('PERMISSION_DENIED')
      }
    } finally {
      await server.stop()
    }
  })
})

describe('memory durability and isolation over HTTP', () => {
  it('replays after kill -9, audits into the trusted session, and hides everything from another workspace', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'memory-e2e-')), 'graph')
    const env = { SERVICE_STORAGE_MODE: 'persistent', SERVICE_STORAGE_DIR: dir, SERVICE_LOG_LEVEL: 'warn' }
    let server = await startServer({ env })
    const session = await server.request<Body>('/v1/sessions/start', {
      body: { workspace_id: 'workspace--standalone-default', actor_id: 'actor--standalone-client' },
    })
    const sessionId = session.json.result.session_id as string
    await server.kill()

    server = await startServer({ env: { ...env, SERVICE_MEMORY_SESSION_ID: sessionId } })
    const first = await send(
      server,
      'remember',
      memory('survives kill nine', { identity_key: 'k9' }),
      'e2e-kill9',
    )
    expect(first.status).toBe(200)
    const id = first.json.result.result.record.id
    const other = (await send(server, 'remember', memory('survives as well'))).json.result.result.record.id
    await send(server, 'relate', {
      source_id: id,
      target_id: other,
      kind: 'with',
      properties: {},
      provenance: [],
      lifecycle: 'active',
    })
    const paged = await send(
      server,
      'recall',
      { objective: 'survives', seed_ids: [], limits: limits({ max_items: 1 }) },
      null,
    )
    const token = paged.json.result.result.next_page_token as string
    expect(token).toEqual(expect.any(String))
    const recallId = paged.json.result.result.recall_id
    await server.kill()

    server = await startServer({ env: { ...env, SERVICE_MEMORY_SESSION_ID: sessionId } })
    const replay = await send(
      server,
      'remember',
      memory('survives kill nine', { identity_key: 'k9' }),
      'e2e-kill9',
    )
    expect(replay.status).toBe(200)
    expect(replay.json.result.result.receipt.replayed).toBe(true)
    expect(replay.json.result.result.record).toEqual(first.json.result.result.record)
    const versions = await server.request<Body>('/v1/cypher/read', {
      body: {
        query: "MATCH (m:Memory {identity_key: 'k9'}) RETURN m.version",
        workspace_id: 'workspace--standalone-default',
      },
    })
    expect(versions.json.result.data.rows).toEqual([[1]]) // nothing applied twice
    const next = await send(
      server,
      'recall',
      { objective: 'survives', seed_ids: [], limits: limits({ max_items: 1 }), page_token: token },
      null,
    )
    expect(next.status).toBe(200) // the page token outlives the restart
    const logs = await server.request<Body>(`/v1/sessions/${sessionId}/logs`)
    const events = logs.json.result.entries.map((e: Body) => e.fields.event)
    expect(events).toContain('memory_audit_input')
    expect(logs.json.result.audit_parity.parity_ok).toBe(true)
    expect(logs.text).not.toContain('e2e-kill9')
    const timeline = await server.request<Body>(`/v1/explorer/sessions/${sessionId}/timeline`)
    expect(timeline.text).toContain('memory remember')
    await server.stop()

    server = await startServer({ env: { ...env, SERVICE_MEMORY_WORKSPACE_ID: 'workspace--other' } })
    try {
      expectError(await send(server, 'trace', { target: { kind: 'memory', id } }), 404, 'NOT_FOUND')
      expectError(
        await send(server, 'trace', {
          target: { kind: 'mutation', id: first.json.result.result.receipt.audit_correlation_id },
        }),
        404,
        'NOT_FOUND',
      )
      expectError(await send(server, 'trace', { target: { kind: 'recall', id: recallId } }), 404, 'NOT_FOUND')
      expectError(
        await send(server, 'update', { target: { kind: 'memory', id }, patch: { add_tags: ['x'] } }),
        404,
        'NOT_FOUND',
      )
      expectError(
        await send(server, 'forget', { memory_id: id, mode: 'tombstone', reason: 'r' }),
        404,
        'NOT_FOUND',
      )
      expectError(
        await send(
          server,
          'recall',
          { objective: 'survives', seed_ids: [], limits: limits({ max_items: 1 }), page_token: token },
          null,
        ),
        404,
        'NOT_FOUND',
      )
      const recall = await send(
        server,
        'recall',
        { objective: 'survives', seed_ids: [id], limits: limits() },
        null,
      )
      expect(recall.json.result.result.items).toEqual([])
      // The same key in this workspace is a new key.
      const fresh = await send(
        server,
        'remember',
        memory('survives kill nine', { identity_key: 'k9' }),
        'e2e-kill9',
      )
      expect(fresh.json.result.result.receipt.replayed).toBe(false)
    } finally {
      await server.stop()
    }
  })
})

const rememberText = async (server: RunningServer, text: string): Promise<string> => {
  const res = await send(server, 'remember', memory(text))
  expect(res.status).toBe(200)
  return res.json.result.result.record.id
}
const relateFollows = async (
  server: RunningServer,
  source_id: string,
  target_id: string,
): Promise<string> => {
  const res = await send(server, 'relate', {
    source_id,
    target_id,
    kind: 'follows',
    properties: {},
    provenance: [{ source_id: 'ids-evidence' }],
    lifecycle: 'active',
  })
  expect(res.status).toBe(200)
  return res.json.result.result.relationship.id
}
const expectNotFound = (res: { status: number; json: unknown }) => expectError(res, 404, 'NOT_FOUND')

describe('memory ids across workspaces', () => {
  it('an id from another workspace answers NOT_FOUND after a restart into a workspace with records of its own', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'memory-ids-e2e-')), 'graph')
    const env = { SERVICE_STORAGE_MODE: 'persistent', SERVICE_STORAGE_DIR: dir, SERVICE_LOG_LEVEL: 'warn' }
    let server = await startServer({ env: { ...env, SERVICE_MEMORY_WORKSPACE_ID: 'workspace--a' } })
    const a1 = await rememberText(server, 'alpha one')
    const a2 = await rememberText(server, 'alpha two')
    const aRel = await relateFollows(server, a1, a2)
    await server.stop()

    server = await startServer({ env: { ...env, SERVICE_MEMORY_WORKSPACE_ID: 'workspace--b' } })
    const b1 = await rememberText(server, 'beta one')
    const b2 = await rememberText(server, 'beta two')
    const b3 = await rememberText(server, 'beta three')
    const bRel = await relateFollows(server, b1, b2)
    await server.stop()
    // Every id is new: none of B's records took an id A already had.
    expect(new Set([a1, a2, b1, b2, b3]).size).toBe(5)
    expect(bRel).not.toBe(aRel)

    server = await startServer({ env: { ...env, SERVICE_MEMORY_WORKSPACE_ID: 'workspace--b' } })
    try {
      expectNotFound(await send(server, 'trace', { target: { kind: 'memory', id: a1 } }))
      expectNotFound(await send(server, 'trace', { target: { kind: 'relationship', id: aRel } }))
      expectNotFound(
        await send(server, 'update', { target: { kind: 'memory', id: a2 }, patch: { add_tags: ['x'] } }),
      )
      expectNotFound(
        await send(server, 'update', {
          target: { kind: 'relationship', id: aRel },
          patch: { confidence: 0.9 },
        }),
      )
      expectNotFound(await send(server, 'forget', { memory_id: a1, mode: 'tombstone', reason: 'r' }))
      expectNotFound(
        await send(server, 'relate', {
          source_id: a1,
          target_id: b1,
          kind: 'follows',
          properties: {},
          provenance: [],
          lifecycle: 'active',
        }),
      )
      // A's id as a seed is no seed at all; B's own ids still answer after the restart.
      const recall = await send(
        server,
        'recall',
        { objective: 'zzzz', seed_ids: [a1, a2], limits: limits() },
        null,
      )
      expect(recall.status).toBe(200)
      expect(recall.json.result.result.items).toEqual([])
      const own = await send(server, 'trace', { target: { kind: 'memory', id: b3 } })
      expect(own.status).toBe(200)
      // And a record made after the restart does not reuse an id of either workspace.
      const b4 = await rememberText(server, 'beta four')
      expect([a1, a2, b1, b2, b3]).not.toContain(b4)
    } finally {
      await server.stop()
    }
  })
})
