import { describe, expect, it } from 'vitest'
import { EngineError } from '../errors.js'
import type { AuditEntry } from './audit-log.js'
import { parseActorKind } from './session.js'
import { SessionManager } from './session-manager.js'

const entry = (session: string, t: number, event: string, id: string): AuditEntry => ({
  timestamp: t,
  level: 'info',
  target: 'audit',
  fields: { message: event, event, audit_event_id: id, session_id: session, workspace_id: 'w' },
})

const codeOf = (fn: () => unknown) => {
  try {
    fn()
  } catch (error) {
    return (error as EngineError).code
  }
  return null
}

describe('SessionManager', () => {
  it('starts idle, runs the request state machine and recovers from degraded', async () => {
    let now = 1000
    const m = new SessionManager({ idleTtlMs: 0, now: () => now })
    const { session_id, status } = await m.start({ workspace_id: 'w', actor_id: 'a' })
    expect(status).toBe('idle')
    expect(session_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(m.beginRequest(session_id).status).toBe('processing')
    m.endRequest(session_id, 'fault')
    expect(m.get(session_id).status).toBe('degraded')
    now = 2000
    m.beginRequest(session_id)
    m.endRequest(session_id, 'ok')
    expect(m.health(session_id)).toMatchObject({
      status: 'idle',
      uptime_ms: 1000,
      stop_reason: null,
      actor_kind: 'agent',
    })
    await m.stop(session_id)
    expect(codeOf(() => m.beginRequest(session_id))).toBe('INVALID_STATUS_TRANSITION')
    expect((await m.stop(session_id)).status).toBe('stopped')
    await expect(m.stop('nope')).rejects.toBeInstanceOf(EngineError)
    m.close()
  })

  it('lists deterministically and hides stopped sessions unless asked', async () => {
    const m = new SessionManager({ idleTtlMs: 0 })
    const ids = await Promise.all(
      [1, 2, 3].map(() => m.start({ workspace_id: 'w', actor_id: 'a', metadata: { k: 'v' } })),
    )
    await m.stop(ids[0]!.session_id)
    expect(m.list(false).map((s) => s.session_id)).toEqual(
      ids
        .slice(1)
        .map((s) => s.session_id)
        .sort(),
    )
    expect(m.list(true)).toHaveLength(3)
    expect(m.list(true)[0]).not.toHaveProperty('metadata')
  })

  it('expires idle sessions on a timer, with no traffic', async () => {
    const m = new SessionManager({ idleTtlMs: 60 })
    const { session_id } = await m.start({ workspace_id: 'w', actor_id: 'a' })
    await new Promise((r) => setTimeout(r, 200))
    expect(m.get(session_id)).toMatchObject({ status: 'stopped', auto_stopped_due_to_idle_ttl: true })
    expect(m.ttlMetrics()).toEqual({ total_expired_sessions: 1, expired_last_5m_sessions: 1 })
    expect(m.health(session_id).stop_reason).toBe('idle_ttl_expired')
    m.close()
  })

  it('accepts actor kind aliases and refuses unknown kinds', () => {
    expect(parseActorKind('Worker-Agent')).toBe('worker_agent')
    expect(parseActorKind('orchestratoragent')).toBe('orchestrator_agent')
    expect(parseActorKind(undefined)).toBe('agent')
    expect(codeOf(() => parseActorKind('robot'))).toBe('INVALID_ACTOR_KIND')
  })

  it('answers log queries from the per-session index with bounds and parity', async () => {
    const m = new SessionManager({ idleTtlMs: 0 })
    const { session_id: s } = await m.start({ workspace_id: 'w', actor_id: 'a' })
    for (let i = 0; i < 10; i++) {
      await m.recordAudit(entry(s, 100 + i * 10, 'cypher_audit_input', `e${i}`))
      if (i !== 3) await m.recordAudit(entry(s, 105 + i * 10, 'cypher_audit_output', `e${i}`))
    }
    await m.recordAudit(entry('other', 100, 'cypher_audit_input', 'x'))
    const all = m.logs(s, { limit: 5000 })
    expect(all.total_matched_entries).toBe(19)
    expect(all.audit_parity).toEqual({
      input_events: 10,
      output_events: 9,
      missing_output_event_ids: ['e3'],
      orphan_output_event_ids: [],
      parity_ok: false,
    })
    const page = m.logs(s, { limit: 2, fromMs: 120, toMs: 150 })
    expect(page.total_matched_entries).toBe(6) // 120,125,140,145,150 and 130 (e3 has no output)
    expect(page.entries.map((e) => e.timestamp)).toEqual([145, 150])
    expect(() => m.logs(s, { limit: 1, fromMs: 2, toMs: 1 })).toThrow(/from_ms/)
    // The spec's 1..5000 (default 500) holds for embedded callers too, at its edges.
    expect(m.logs(s, {}).entries).toHaveLength(19)
    expect(m.logs(s, { limit: 1 }).entries).toHaveLength(1)
    for (const limit of [0, 5001, 2.5])
      expect(() => m.logs(s, { limit })).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST' }))
  })

  it('rebuilds sessions and logs from journalled records', async () => {
    const journal: { kind: string; body: unknown }[] = []
    const m = new SessionManager({
      idleTtlMs: 0,
      journal: { record: async (kind, body) => void journal.push({ kind, body: structuredClone(body) }) },
    })
    const { session_id } = await m.start({ workspace_id: 'w', actor_id: 'a' })
    await m.recordAudit(entry(session_id, 1, 'cypher_audit_input', 'e'))
    await m.stop(session_id)
    const copy = new SessionManager({ idleTtlMs: 0 })
    for (const r of journal) copy.applyRecord(r.kind, r.body)
    expect(copy.get(session_id).status).toBe('stopped')
    expect(copy.logs(session_id, { limit: 10 }).entries).toHaveLength(1)
  })
})
