import { EngineError } from '../errors.js'

export const ACTOR_KINDS = [
  'user',
  'agent',
  'orchestrator_agent',
  'worker_agent',
  'tool',
  'system',
  'test_fixture',
] as const
export type ActorKind = (typeof ACTOR_KINDS)[number]
export const SESSION_STATUSES = ['idle', 'working', 'processing', 'degraded', 'stopped'] as const
export type SessionStatus = (typeof SESSION_STATUSES)[number]

/** The explorer read model of a session (spec: Session), plus what the store keeps beside it. */
export interface SessionRecord {
  session_id: string
  workspace_id: string
  actor_id: string
  actor_kind: ActorKind
  status: SessionStatus
  started_at_ms: number
  updated_at_ms: number
  auto_stopped_due_to_idle_ttl: boolean
  metadata: Record<string, string>
}

/** Allowed transitions (the reference's table, plus degraded -> working/processing so a degraded session can recover). */
const TRANSITIONS: Record<SessionStatus, readonly SessionStatus[]> = {
  idle: ['working', 'processing', 'degraded', 'stopped'],
  working: ['processing', 'idle', 'degraded', 'stopped'],
  processing: ['working', 'idle', 'degraded', 'stopped'],
  degraded: ['idle', 'working', 'processing', 'stopped'],
  stopped: ['stopped'],
}

export function assertTransition(from: SessionStatus, to: SessionStatus, sessionId: string): void {
  if (from === to && from !== 'stopped') return
  if (!TRANSITIONS[from].includes(to)) {
    throw new EngineError(
      'INVALID_STATUS_TRANSITION',
      `session ${sessionId} cannot move from ${from} to ${to}`,
    )
  }
}

/** Accepts the spec's values plus hyphenated and compact aliases (`worker-agent`, `workeragent`), any case. */
export function parseActorKind(input: string | undefined): ActorKind {
  if (input === undefined) return 'agent'
  const normalized = input.trim().toLowerCase().replace(/-/g, '_')
  const hit = ACTOR_KINDS.find((k) => k === normalized || k.replace(/_/g, '') === normalized)
  if (hit === undefined) {
    throw new EngineError('INVALID_ACTOR_KIND', `actor_kind must be one of ${ACTOR_KINDS.join(', ')}`)
  }
  return hit
}

/** The public (explorer) projection: metadata is stored, never returned. */
export const explorerView = (s: SessionRecord) => ({
  session_id: s.session_id,
  workspace_id: s.workspace_id,
  actor_id: s.actor_id,
  actor_kind: s.actor_kind,
  status: s.status,
  started_at_ms: s.started_at_ms,
  updated_at_ms: s.updated_at_ms,
  auto_stopped_due_to_idle_ttl: s.auto_stopped_due_to_idle_ttl,
})
