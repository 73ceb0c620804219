import { randomUUID } from 'node:crypto'
import { EngineError } from '../errors.js'
import type { JournaledState } from '../kernel/types.js'
import { type AuditEntry, AuditLog, type LogPage, type LogQuery } from './audit-log.js'
import {
  type ActorKind,
  assertTransition,
  explorerView,
  parseActorKind,
  type SessionRecord,
  type SessionStatus,
} from './session.js'

/** Where session state and audit entries go to become durable (the engine's WAL, or nowhere when ephemeral). */
export interface SessionJournal {
  record(kind: 'session' | 'audit', body: unknown): Promise<void>
}

export interface SessionManagerOptions {
  /** Idle time-to-live; 0 disables expiry. */
  idleTtlMs: number
  now?: () => number
  journal?: SessionJournal
}

export interface StartSession {
  workspace_id: string
  actor_id: string
  actor_kind?: string | undefined
  metadata?: Record<string, string> | undefined
}

const FIVE_MINUTES_MS = 300_000
const noJournal: SessionJournal = { record: async () => {} }

/**
 * Sessions, their state machine, the idle time-to-live and the audit log. Expiry runs on a timer, so an idle
 * session stops on time even when no request arrives.
 */
export class SessionManager implements JournaledState {
  readonly recordKinds = ['session', 'audit'] as const
  readonly lineKinds = ['session', 'audit'] as const

  private readonly sessions = new Map<string, SessionRecord>()
  readonly audit = new AuditLog()
  private readonly now: () => number
  private readonly journal: SessionJournal
  private timer: NodeJS.Timeout | null = null

  constructor(private readonly options: SessionManagerOptions) {
    this.now = options.now ?? Date.now
    this.journal = options.journal ?? noJournal
    if (options.idleTtlMs > 0) {
      const period = Math.min(1000, Math.max(20, Math.floor(options.idleTtlMs / 10)))
      this.timer = setInterval(() => void this.expireIdle(), period)
      this.timer.unref()
    }
  }

  private save(session: SessionRecord, durable = false): Promise<void> {
    const written = this.journal.record('session', session)
    // Transient transitions ride along with the next group commit; start and stop wait for the disk.
    if (!durable) written.catch(() => {})
    return durable ? written : Promise.resolve()
  }

  async start(input: StartSession): Promise<{ session_id: string; status: SessionStatus }> {
    for (const [field, value] of [
      ['workspace_id', input.workspace_id],
      ['actor_id', input.actor_id],
    ] as const) {
      if (typeof value !== 'string' || value.trim() === '') {
        throw new EngineError('INVALID_SESSION_REQUEST', `${field} must be a non-blank string`)
      }
    }
    const actorKind: ActorKind = parseActorKind(input.actor_kind)
    const at = this.now()
    const session: SessionRecord = {
      session_id: randomUUID(),
      workspace_id: input.workspace_id.trim(),
      actor_id: input.actor_id.trim(),
      actor_kind: actorKind,
      status: 'idle',
      started_at_ms: at,
      updated_at_ms: at,
      auto_stopped_due_to_idle_ttl: false,
      metadata: { ...input.metadata },
    }
    this.sessions.set(session.session_id, session)
    await this.save(session, true)
    return { session_id: session.session_id, status: session.status }
  }

  get(sessionId: string): SessionRecord {
    const session = this.sessions.get(sessionId)
    if (session === undefined) throw new EngineError('SESSION_NOT_FOUND', `no session ${sessionId}`)
    return session
  }

  has(sessionId: string): boolean {
    return this.sessions.has(sessionId)
  }

  private move(session: SessionRecord, to: SessionStatus): void {
    assertTransition(session.status, to, session.session_id)
    session.status = to
    session.updated_at_ms = this.now()
    session.auto_stopped_due_to_idle_ttl = false
  }

  async stop(sessionId: string): Promise<{ session_id: string; status: 'stopped'; updated_at_ms: number }> {
    const session = this.get(sessionId)
    if (session.status !== 'stopped') {
      this.move(session, 'stopped')
      await this.save(session, true)
    }
    return { session_id: session.session_id, status: 'stopped', updated_at_ms: session.updated_at_ms }
  }

  health(sessionId: string) {
    const s = this.get(sessionId)
    return {
      ...explorerView(s),
      uptime_ms: s.updated_at_ms - s.started_at_ms,
      stop_reason: s.auto_stopped_due_to_idle_ttl ? ('idle_ttl_expired' as const) : null,
    }
  }

  list(includeStopped: boolean) {
    return [...this.sessions.values()]
      .filter((s) => includeStopped || s.status !== 'stopped')
      .sort((a, b) => (a.session_id < b.session_id ? -1 : a.session_id > b.session_id ? 1 : 0))
      .map(explorerView)
  }

  /** A request naming the session begins: idle -> working -> processing (a degraded session keeps working). */
  beginRequest(sessionId: string): SessionRecord {
    const session = this.get(sessionId)
    if (session.status === 'stopped') {
      throw new EngineError('INVALID_STATUS_TRANSITION', `session ${sessionId} is stopped`)
    }
    if (session.status === 'idle') this.move(session, 'working')
    if (session.status === 'working') this.move(session, 'processing')
    return session
  }

  /** The request ended: back to idle on any answer (a degraded session recovers), degraded on an engine fault. */
  endRequest(sessionId: string, outcome: 'ok' | 'fault'): void {
    const session = this.sessions.get(sessionId)
    if (session === undefined || session.status === 'stopped') return
    this.move(session, outcome === 'ok' ? 'idle' : 'degraded')
    void this.save(session)
  }

  /** Stops every non-stopped session idle for at least the TTL. Returns how many it stopped. */
  async expireIdle(): Promise<number> {
    const ttl = this.options.idleTtlMs
    if (ttl <= 0) return 0
    const at = this.now()
    const expired: SessionRecord[] = []
    for (const session of this.sessions.values()) {
      if (session.status !== 'stopped' && at - session.updated_at_ms >= ttl) {
        session.status = 'stopped'
        session.updated_at_ms = at
        session.auto_stopped_due_to_idle_ttl = true
        expired.push(session)
      }
    }
    await Promise.all(expired.map((s) => this.save(s, true).catch(() => {})))
    return expired.length
  }

  ttlMetrics(): { total_expired_sessions: number; expired_last_5m_sessions: number } {
    const at = this.now()
    let total = 0
    let recent = 0
    for (const s of this.sessions.values()) {
      if (!s.auto_stopped_due_to_idle_ttl) continue
      total++
      if (at - s.updated_at_ms <= FIVE_MINUTES_MS) recent++
    }
    return { total_expired_sessions: total, expired_last_5m_sessions: recent }
  }

  /** Appends an audit entry (durable with the next group commit; awaited by the caller that needs it). */
  recordAudit(entry: AuditEntry): Promise<void> {
    this.audit.add(entry)
    return this.journal.record('audit', entry)
  }

  logs(sessionId: string, query: LogQuery): LogPage & { session_id: string; stop_reason: string | null } {
    const session = this.get(sessionId)
    return {
      session_id: sessionId,
      stop_reason: session.auto_stopped_due_to_idle_ttl ? 'idle_ttl_expired' : null,
      ...this.audit.query(sessionId, query),
    }
  }

  /** Replay of a journalled record at recovery. */
  applyRecord(kind: string, body: unknown): void {
    if (kind === 'session') {
      const s = body as SessionRecord
      this.sessions.set(s.session_id, { ...s })
    } else if (kind === 'audit') {
      this.audit.add(body as AuditEntry)
    }
  }

  reset(): void {
    this.sessions.clear()
    this.audit.reset()
  }

  loadLine(line: { kind: string }): void {
    this.applyRecord(line.kind, (line as { kind: string; body?: unknown }).body)
  }

  /** Checkpoint image: every session, then every audit entry. */
  *imageLines(): Iterable<{ kind: 'session' | 'audit'; body: unknown }> {
    for (const s of this.sessions.values()) yield { kind: 'session', body: s }
    for (const e of this.audit.all()) yield { kind: 'audit', body: e }
  }

  close(): void {
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = null
  }
}
