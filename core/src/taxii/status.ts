/**
 * TAXII status resources of object additions (section 4.3): pending while the import runs, then complete
 * with each object as a success or a failure with its reason, from the import's own outcomes. Kept in
 * memory for the most recent MAX_STATUSES additions; an addition is not lost with its status (the objects
 * are durable once complete), a client that lost the status reads the collection instead.
 */
import { randomUUID } from 'node:crypto'
import type { ImportResult } from '../stix/outcomes.js'

export const MAX_STATUSES = 1000

export interface StatusDetail {
  id: string
  version: string
  message?: string
}

export interface StatusResource {
  id: string
  status: 'pending' | 'complete'
  request_timestamp: string
  total_count: number
  success_count: number
  successes: StatusDetail[]
  failure_count: number
  failures: StatusDetail[]
  pending_count: number
  pendings: StatusDetail[]
}

export interface AddedObject {
  id: string
  version: string
}

const MESSAGES: Record<string, string> = {
  created: 'added',
  updated: 'updated',
  duplicate: 'already held (or an older version, kept as a version)',
}

export class StatusStore {
  private readonly statuses = new Map<string, StatusResource>()

  /** A pending status for these objects, dropping the oldest beyond MAX_STATUSES. */
  open(objects: readonly AddedObject[], nowMs: number): StatusResource {
    const status: StatusResource = {
      id: randomUUID(),
      status: 'pending',
      request_timestamp: new Date(nowMs).toISOString(),
      total_count: objects.length,
      success_count: 0,
      successes: [],
      failure_count: 0,
      failures: [],
      pending_count: objects.length,
      pendings: objects.map((o) => ({ id: o.id, version: o.version })),
    }
    this.statuses.set(status.id, status)
    if (this.statuses.size > MAX_STATUSES) this.statuses.delete(this.statuses.keys().next().value as string)
    return status
  }

  get(id: string): StatusResource | undefined {
    return this.statuses.get(id)
  }

  /** Completes from the import's outcomes: created, updated and duplicates succeed, the rest fail. */
  complete(status: StatusResource, result: ImportResult): void {
    const version = new Map(status.pendings.map((p) => [p.id, p.version]))
    const seen = new Set<string>()
    for (const o of result.outcomes) {
      if (seen.has(o.id)) continue
      seen.add(o.id)
      const detail = { id: o.id, version: version.get(o.id) ?? '' }
      const message = MESSAGES[o.status]
      if (message !== undefined) status.successes.push({ ...detail, message })
      else
        status.failures.push({
          ...detail,
          message: `${o.error_code ?? o.status}${o.reference === undefined ? '' : `: ${o.reference}`}`,
        })
    }
    const extra = result.errors.join('; ')
    if (extra !== '') for (const f of status.failures) f.message = `${f.message} (${extra})`
    this.finish(status)
  }

  /** Every object fails with the same reason (the import refused the envelope as a whole). */
  fail(status: StatusResource, message: string): void {
    for (const p of status.pendings) status.failures.push({ ...p, message })
    this.finish(status)
  }

  private finish(status: StatusResource): void {
    status.pendings = []
    status.pending_count = 0
    status.success_count = status.successes.length
    status.failure_count = status.failures.length
    status.status = 'complete'
  }
}
