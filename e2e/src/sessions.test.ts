import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ErrorBody, type RunningServer, startServer } from './harness.js'

interface Ok<T> {
  ok: true
  result: T
}
interface Session {
  session_id: string
  status: string
  actor_kind: string
  auto_stopped_due_to_idle_ttl: boolean
}
interface Logs {
  matched_entries: number
  total_matched_entries: number
  audit_parity: {
    input_events: number
    output_events: number
    parity_ok: boolean
    missing_output_event_ids: string[]
  }
  entries: { timestamp: number; fields: { event: string; audit_event_id: string; query?: string } }[]
}

const start = (server: RunningServer, body: Record<string, unknown> = {}) =>
  server.request<Ok<{ session_id: string; status: string }>>('/v1/sessions/start', {
    body: { workspace_id: 'workspace--e2e', actor_id: 'actor--e2e', ...body },
  })

describe('sessions', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(async () => {
    await server.stop()
  })

  it('starts idle with a uuid, accepts actor kind aliases, refuses unknown kinds', async () => {
    const res = await start(server, { actor_kind: 'Worker-Agent', metadata: { team: 'blue' } })
    expect(res.status).toBe(200)
    expect(res.json.result.status).toBe('idle')
    expect(res.json.result.session_id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    )
    const health = await server.request<Ok<Session & { stop_reason: string | null }>>(
      `/v1/sessions/${res.json.result.session_id}/health`,
    )
    expect(health.json.result).toMatchObject({
      status: 'idle',
      actor_kind: 'worker_agent',
      stop_reason: null,
    })
    expect(health.json.result).not.toHaveProperty('metadata')
    const bad = await start(server, { actor_kind: 'robot' })
    expect(bad.status).toBe(400)
    expect((bad.json as unknown as ErrorBody).error.code).toBe('INVALID_ACTOR_KIND')
    const missing = await server.request<ErrorBody>('/v1/sessions/start', { body: { workspace_id: 'w' } })
    expect(missing.status).toBe(400)
  })

  it('stop: 200 for a live or stopped session, 404 SESSION_NOT_FOUND for an unknown one', async () => {
    const { session_id } = (await start(server)).json.result
    const stop = await server.request<Ok<{ status: string; session_id: string }>>(
      `/v1/sessions/${session_id}/stop`,
      { method: 'POST' },
    )
    expect(stop.json.result).toMatchObject({ session_id, status: 'stopped' })
    expect((await server.request(`/v1/sessions/${session_id}/stop`, { method: 'POST' })).status).toBe(200)
    const unknown = await server.request<ErrorBody>(
      '/v1/sessions/00000000-0000-4000-8000-000000000000/stop',
      { method: 'POST' },
    )
    expect(unknown.status).toBe(404)
    expect(unknown.json.error.code).toBe('SESSION_NOT_FOUND')
    expect((await server.request<ErrorBody>('/v1/sessions/nope/health')).json.error.code).toBe(
      'SESSION_NOT_FOUND',
    )
    // A stopped session cannot carry more work.
    const refused = await server.request<ErrorBody>('/v1/cypher/read', {
      body: { query: 'RETURN 1', session_id },
    })
    expect(refused.status).toBe(400)
    expect(refused.json.error.code).toBe('INVALID_STATUS_TRANSITION')
  })

  it('lists sessions in id order and hides stopped ones unless asked', async () => {
    const a = (await start(server)).json.result.session_id
    const b = (await start(server)).json.result.session_id
    await server.request(`/v1/sessions/${a}/stop`, { method: 'POST' })
    const live = await server.request<Ok<{ sessions: Session[] }>>('/v1/explorer/sessions')
    const ids = live.json.result.sessions.map((s) => s.session_id)
    expect(ids).toContain(b)
    expect(ids).not.toContain(a)
    expect(ids).toEqual([...ids].sort())
    const all = await server.request<Ok<{ sessions: Session[] }>>(
      '/v1/explorer/sessions?include_stopped=true',
    )
    expect(all.json.result.sessions.map((s) => s.session_id)).toContain(a)
    for (const s of all.json.result.sessions) expect(typeof s.auto_stopped_due_to_idle_ttl).toBe('boolean')
  })

  it('audits every Cypher request under the session, with parity, in JSON and NDJSON', async () => {
    const { session_id } = (await start(server)).json.result
    for (let i = 0; i < 3; i++) {
      await server.request('/v1/cypher/write', {
        body: { query: 'CREATE (:Audited {i: $i})', params: { i }, session_id },
      })
    }
    await server.request('/v1/cypher/read', {
      body: { query: 'MATCH (n:Audited) RETURN count(n)', session_id },
    })
    const logs = await server.request<Ok<Logs>>(`/v1/sessions/${session_id}/logs`)
    expect(logs.json.result.total_matched_entries).toBe(8)
    expect(logs.json.result.audit_parity).toMatchObject({
      input_events: 4,
      output_events: 4,
      parity_ok: true,
      missing_output_event_ids: [],
    })
    const events = logs.json.result.entries.map((e) => e.fields.event)
    expect(events.slice(0, 2)).toEqual(['cypher_audit_input', 'cypher_audit_output'])
    expect(JSON.stringify(logs.json)).not.toContain('e2e-bearer-token')

    const limited = await server.request<Ok<Logs>>(`/v1/sessions/${session_id}/logs?limit=3`)
    expect(limited.json.result.matched_entries).toBe(3)
    expect(limited.json.result.entries.at(-1)).toEqual(logs.json.result.entries.at(-1)) // newest, oldest first

    const ndjson = await server.request(`/v1/sessions/${session_id}/logs?format=ndjson`)
    expect(String(ndjson.headers['content-type'])).toContain('application/x-ndjson')
    const lines = ndjson.text.trimEnd().split('\n')
    expect(lines).toHaveLength(8)
    expect(JSON.parse(lines[0]!).fields.event).toBe('cypher_audit_input')

    const t0 = logs.json.result.entries[2]!.timestamp
    const ranged = await server.request<Ok<Logs>>(`/v1/sessions/${session_id}/logs?from_ms=${t0}&to_ms=${t0}`)
    expect(ranged.json.result.entries.every((e) => e.timestamp === t0)).toBe(true)

    for (const [query, code] of [
      ['limit=0', 'INVALID_REQUEST'],
      ['limit=5001', 'INVALID_REQUEST'],
      ['format=xml', 'INVALID_LOG_FORMAT'],
      ['from_ms=10&to_ms=9', 'INVALID_TIME_RANGE'],
    ] as const) {
      const res = await server.request<ErrorBody>(`/v1/sessions/${session_id}/logs?${query}`)
      expect(res.status, query).toBe(400)
      expect(res.json.error.code, query).toBe(code)
    }
    for (const limit of [1, 5000]) {
      expect((await server.request(`/v1/sessions/${session_id}/logs?limit=${limit}`)).status).toBe(200)
    }
    expect((await server.request<ErrorBody>('/v1/sessions/nope/logs')).json.error.code).toBe(
      'SESSION_NOT_FOUND',
    )
  })
})

describe('session idle time-to-live', () => {
  it('stops an idle session on time with no traffic and counts it in /health', async () => {
    const server = await startServer({ env: { SERVICE_HTTP_SESSION_IDLE_TTL_MS: '300' } })
    try {
      const { session_id } = (await start(server)).json.result
      await new Promise((r) => setTimeout(r, 900))
      const health = await server.request<{
        session_ttl_metrics: { total_expired_sessions: number; expired_last_5m_sessions: number }
      }>('/health', { token: null })
      expect(health.json.session_ttl_metrics).toEqual({
        total_expired_sessions: 1,
        expired_last_5m_sessions: 1,
      })
      const s = await server.request<Ok<Session & { stop_reason: string }>>(
        `/v1/sessions/${session_id}/health`,
      )
      expect(s.json.result).toMatchObject({
        status: 'stopped',
        auto_stopped_due_to_idle_ttl: true,
        stop_reason: 'idle_ttl_expired',
      })
      const metrics = await server.request('/metrics', { token: null })
      expect(metrics.text).toContain('service_sessions_expired_total 1')
    } finally {
      await server.stop()
    }
  })
})

describe('sessions in persistent mode', () => {
  it('keep their state and audit log across a kill -9', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'sessions-')), 'graph')
    const env = { SERVICE_STORAGE_MODE: 'persistent', SERVICE_STORAGE_DIR: dir }
    const first = await startServer({ env })
    const { session_id } = (await start(first)).json.result
    await first.request('/v1/cypher/write', { body: { query: 'CREATE (:Kept)', session_id } })
    await first.kill()
    const second = await startServer({ env })
    try {
      const health = await second.request<Ok<Session>>(`/v1/sessions/${session_id}/health`)
      expect(health.json.result.status).toBe('idle')
      const logs = await second.request<Ok<Logs>>(`/v1/sessions/${session_id}/logs`)
      expect(logs.json.result.audit_parity).toMatchObject({
        input_events: 1,
        output_events: 1,
        parity_ok: true,
      })
    } finally {
      await second.stop()
    }
  })
})
