import type { AuditEntry, LogQuery } from './audit-log.js'
import type { SessionManager, StartSession } from './session-manager.js'

/** Sessions as the embedded API and the HTTP routes see them. */
export class SessionsApi {
  constructor(private readonly manager: SessionManager) {}

  start(input: StartSession) {
    return this.manager.start(input)
  }

  stop(sessionId: string) {
    return this.manager.stop(sessionId)
  }

  health(sessionId: string) {
    return this.manager.health(sessionId)
  }

  list(includeStopped = false) {
    return this.manager.list(includeStopped)
  }

  logs(sessionId: string, query: LogQuery) {
    return this.manager.logs(sessionId, query)
  }

  /** Appends a door's own event (e.g. an MCP tool call) to a session's audit log; durable with the next commit. */
  record(entry: AuditEntry): Promise<void> {
    return this.manager.recordAudit(entry)
  }

  ttlMetrics() {
    return this.manager.ttlMetrics()
  }

  /** Throws SESSION_NOT_FOUND for an unknown id. */
  assertExists(sessionId: string): void {
    this.manager.get(sessionId)
  }
}
