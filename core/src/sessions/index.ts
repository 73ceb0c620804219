export {
  type AuditEntry,
  AuditLog,
  type AuditParity,
  LOG_PAGE_LIMIT,
  type LogPage,
  type LogQuery,
} from './audit-log.js'
export {
  ACTOR_KINDS,
  type ActorKind,
  parseActorKind,
  SESSION_STATUSES,
  type SessionRecord,
  type SessionStatus,
} from './session.js'
export {
  type SessionJournal,
  SessionManager,
  type SessionManagerOptions,
  type StartSession,
} from './session-manager.js'
