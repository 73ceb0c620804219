import { EngineError } from '../errors.js'

/** One structured audit line, the shape of the reference's JSON log entries. */
export interface AuditEntry {
  timestamp: number
  level: 'info' | 'warn' | 'error'
  target: string
  fields: {
    message: string
    event: string
    audit_event_id: string
    session_id: string
    workspace_id: string
    [key: string]: unknown
  }
}

export interface AuditParity {
  input_events: number
  output_events: number
  missing_output_event_ids: string[]
  orphan_output_event_ids: string[]
  parity_ok: boolean
}

/** Entries one log page returns: default and most (FACTS §6). */
export const LOG_PAGE_LIMIT = { default: 500, max: 5000 } as const

export interface LogQuery {
  /** 1..LOG_PAGE_LIMIT.max, default LOG_PAGE_LIMIT.default. */
  limit?: number | undefined
  fromMs?: number | undefined
  toMs?: number | undefined
}

export interface LogPage {
  entries: AuditEntry[]
  total_matched_entries: number
  audit_parity: AuditParity
}

const isInput = (event: string) => event.endsWith('_audit_input')
const isOutput = (event: string) => event.endsWith('_audit_output')

/** First index whose timestamp is >= t (entries are appended in time order). */
function lowerBound(entries: readonly AuditEntry[], t: number): number {
  let lo = 0
  let hi = entries.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (entries[mid]!.timestamp < t) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * Audit entries indexed by session and kept in time order, so a log query is two binary searches and a
 * slice: never a scan of every line for a substring. Parity pairs inputs and outputs by audit_event_id.
 */
/** Parity of a whole session, kept as entries arrive so an unbounded query needs no scan. */
interface RunningParity {
  inputs: Set<string>
  outputs: Set<string>
  missing: Set<string>
  orphans: Set<string>
}

export class AuditLog {
  private readonly bySession = new Map<string, AuditEntry[]>()
  private readonly parity = new Map<string, RunningParity>()
  size = 0

  reset(): void {
    this.bySession.clear()
    this.parity.clear()
    this.size = 0
  }

  private track(entry: AuditEntry): void {
    const { event, audit_event_id: id, session_id: session } = entry.fields
    let p = this.parity.get(session)
    if (p === undefined) {
      p = { inputs: new Set(), outputs: new Set(), missing: new Set(), orphans: new Set() }
      this.parity.set(session, p)
    }
    if (isInput(event)) {
      p.inputs.add(id)
      if (p.outputs.has(id)) p.orphans.delete(id)
      else p.missing.add(id)
    } else if (isOutput(event)) {
      p.outputs.add(id)
      if (p.inputs.has(id)) p.missing.delete(id)
      else p.orphans.add(id)
    }
  }

  add(entry: AuditEntry): void {
    this.track(entry)
    let list = this.bySession.get(entry.fields.session_id)
    if (list === undefined) {
      list = []
      this.bySession.set(entry.fields.session_id, list)
    }
    // Clock steps backwards are possible; keep the list sorted anyway.
    if (list.length > 0 && list[list.length - 1]!.timestamp > entry.timestamp) {
      list.splice(lowerBound(list, entry.timestamp + 1), 0, entry)
    } else list.push(entry)
    this.size++
  }

  query(sessionId: string, query: LogQuery): LogPage {
    const limit = query.limit ?? LOG_PAGE_LIMIT.default
    if (!Number.isInteger(limit) || limit < 1 || limit > LOG_PAGE_LIMIT.max)
      throw new EngineError('INVALID_REQUEST', `limit must be an integer from 1 to ${LOG_PAGE_LIMIT.max}`)
    if (query.fromMs !== undefined && query.toMs !== undefined && query.fromMs > query.toMs) {
      throw new EngineError('INVALID_TIME_RANGE', 'from_ms must not be after to_ms')
    }
    const list = this.bySession.get(sessionId) ?? []
    const start = query.fromMs === undefined ? 0 : lowerBound(list, query.fromMs)
    const end = query.toMs === undefined ? list.length : lowerBound(list, query.toMs + 1)
    const matched = end > start ? end - start : 0
    let inputs: ReadonlySet<string>
    let outputs: ReadonlySet<string>
    let missing: string[]
    let orphans: string[]
    const running = this.parity.get(sessionId)
    if (start === 0 && end === list.length && running !== undefined) {
      // The whole log: the running figures, no scan.
      inputs = running.inputs
      outputs = running.outputs
      missing = [...running.missing].sort()
      orphans = [...running.orphans].sort()
    } else {
      const ins = new Set<string>()
      const outs = new Set<string>()
      for (let i = start; i < end; i++) {
        const f = list[i]!.fields
        if (isInput(f.event)) ins.add(f.audit_event_id)
        else if (isOutput(f.event)) outs.add(f.audit_event_id)
      }
      inputs = ins
      outputs = outs
      missing = [...ins].filter((id) => !outs.has(id)).sort()
      orphans = [...outs].filter((id) => !ins.has(id)).sort()
    }
    return {
      // The newest `limit` matches, oldest first.
      entries: list.slice(Math.max(start, end - limit), end),
      total_matched_entries: matched,
      audit_parity: {
        input_events: inputs.size,
        output_events: outputs.size,
        missing_output_event_ids: missing,
        orphan_output_event_ids: orphans,
        parity_ok: missing.length === 0 && orphans.length === 0,
      },
    }
  }

  *all(): Iterable<AuditEntry> {
    for (const list of this.bySession.values()) yield* list
  }
}
