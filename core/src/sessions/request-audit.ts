import { randomUUID } from 'node:crypto'
import { isEngineError } from '../errors.js'
import type { SessionManager } from './session-manager.js'

/**
 * Runs a request as one audited request of a session, the same way for every door and operation (Cypher and
 * memory share it): the session's state machine moves, and the session log gets a `<event>_audit_input` /
 * `_output` pair. Without a session there is nothing to audit and `work` just runs.
 */
export class RequestAudit {
  constructor(
    private readonly sessions: SessionManager,
    private readonly now: () => number,
  ) {}

  async run<T>(
    sessionId: string | undefined,
    workspaceId: string,
    event: string,
    input: Record<string, unknown>,
    work: () => Promise<T>,
    output: (value: T) => Record<string, unknown>,
  ): Promise<T> {
    if (sessionId === undefined) return work()
    const auditId = randomUUID()
    this.sessions.beginRequest(sessionId)
    await this.record(sessionId, workspaceId, `${event}_audit_input`, auditId, input)
    const started = performance.now()
    let value: T
    try {
      value = await work()
    } catch (error) {
      this.sessions.endRequest(sessionId, 'fault')
      await this.record(sessionId, workspaceId, `${event}_audit_output`, auditId, {
        status: 'Error',
        error_code: isEngineError(error) ? error.code : 'INTERNAL',
        error_message: isEngineError(error) ? error.message : 'internal error',
        elapsed_ms: Math.round(performance.now() - started),
      }).catch(() => {})
      throw error
    }
    this.sessions.endRequest(sessionId, 'ok')
    await this.record(sessionId, workspaceId, `${event}_audit_output`, auditId, {
      ...output(value),
      elapsed_ms: Math.round(performance.now() - started),
    })
    return value
  }

  private record(
    sessionId: string,
    workspaceId: string,
    event: string,
    auditEventId: string,
    fields: Record<string, unknown>,
  ): Promise<void> {
    return this.sessions.recordAudit({
      timestamp: this.now(),
      level: 'info',
      target: 'service::audit',
      fields: {
        message: event.replace(/_/g, ' '),
        event,
        audit_event_id: auditEventId,
        session_id: sessionId,
        workspace_id: workspaceId,
        ...fields,
      },
    })
  }
}
