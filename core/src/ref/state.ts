/**
 * The durable state of reference writes, kept as an engine ledger (committed in the same WAL record as the
 * graph ops of a write): receipts by hashed key, the ordered projection outbox, write authority with its
 * trigger, the audit trail and file jobs. Only hashed keys are stored. `apply` is deterministic: publish,
 * WAL replay and checkpoint images all go through it.
 */
import type { CommitOp } from '../graph/commit.js'
import type { Ledger } from '../kernel/ledger.js'
import { ReceiptRetention } from './receipt-retention.js'
import type { RefWriteRequest, WriteAuthority } from './request.js'
import { LIVE_REQUEST, type RequestByOps, requestFromOps } from './request-by-ops.js'

export const REF_LEDGER = 'ref-writes'

export type EntryStatus = 'prepared' | 'pending' | 'delivered' | 'quarantined'

/** The canonical answer to one write, replayed verbatim to a retry with the same key. */
export interface StoredResponse {
  contract_version: { major: number; minor: number }
  correlation_id: string
  outcome: { status: 'success'; response: unknown } | { status: 'failure'; error: unknown }
}

export interface Receipt {
  key: string
  fingerprint: string
  sequence: number
  transaction_id: string
  response: StoredResponse
  /** When it committed (epoch ms); absent in receipts written before retention existed (kept by count). */
  at?: number
}

export interface OutboxEntry {
  sequence: number
  key: string
  ordering_key_hash: string
  correlation_id: string
  /**
   * Record ids the write touched; `*` for a write that may touch any (merge). Entries with disjoint sets
   * commute, so the projector may have them in flight together. Intents no longer log it (a bulk write's
   * 5,000 ids made the intent a second copy of its request): `touchedOf` derives it from the request.
   */
  touched?: string[]
  status: EntryStatus
  attempts: number
  diagnostic: string | null
  /** The stored request (hashed key) and canonical response; dropped once delivered. */
  request: unknown
  response: StoredResponse | null
}

/** The audit rows of one write, compact: they share the key hash, correlation id and source offset. */
export interface AuditGroup {
  key: string
  correlation_id: string
  source_offset: string | null
  /** [before_revision, after_revision, outcome] per record the write touched. */
  rows: [number | null, number | null, string][]
}

export interface AuditRow {
  idempotency_key_hash: string
  correlation_id: string
  source_offset: string | null
  before_revision: number | null
  after_revision: number | null
  outcome: string
}

export interface FileJob {
  job_id: string
  file_id: string
  content_hash: string
  version: number
  descriptor: unknown
}

export type RefLedgerEntry =
  | { k: 'intent'; entry: OutboxEntry }
  | {
      k: 'commit'
      sequence: number
      receipt: Receipt
      /** true: the entry becomes pending (projected); false: service-only store, the intent closes. */
      project: boolean
      /** The stored request of a projected write; null with `request_ops` (logged once, in the ops). */
      request: unknown
      request_ops?: RequestByOps
      /** The request `request_ops` stands for, while the process that committed it runs (never logged). */
      [LIVE_REQUEST]?: RefWriteRequest
      audit: AuditGroup
    }
  | { k: 'drop'; sequences: number[] }
  | { k: 'attempts'; results: { sequence: number; status: EntryStatus; diagnostic: string | null }[] }
  | { k: 'authority'; authority: WriteAuthority; trigger: string | null; resolve_quarantine: boolean }
  | { k: 'legacy'; digest: string }
  | { k: 'file_enqueue'; job: FileJob }
  | { k: 'file_delete'; file_ids: string[] }
  | { k: 'image'; next_sequence: number; authority: WriteAuthority; trigger: string | null; legacy: string[] }
  | { k: 'image_receipt'; receipt: Receipt }
  | { k: 'image_entry'; entry: OutboxEntry }
  | { k: 'image_audits'; groups: AuditGroup[] }
  | { k: 'image_file'; job: FileJob }
  | { k: 'image_retired'; keys: string[] }

/** Bounds of what the status keeps around (older delivered entries and audits are dropped). */
export const RETAINED_DELIVERED = 1024
export const RETAINED_AUDITS = 4096

export class RefState implements Ledger<RefLedgerEntry> {
  readonly name = REF_LEDGER
  /** Receipts by key hash, oldest commit first; pruned to the retention window (receipt-retention.ts). */
  readonly receipts = new Map<string, Receipt>()
  readonly retention = new ReceiptRetention()
  /** Outbox entries by sequence; Map order is sequence order because sequences only grow. */
  readonly entries = new Map<number, OutboxEntry>()
  private readonly delivered: number[] = []
  private auditGroups: AuditGroup[] = []
  private auditCount = 0
  readonly files = new Map<string, FileJob>()
  readonly legacy = new Set<string>()
  nextSequence = 1
  authority: WriteAuthority = 'service_primary'
  trigger: string | null = null

  apply(e: RefLedgerEntry, ops?: readonly CommitOp[]): void {
    switch (e.k) {
      case 'intent':
      case 'image_entry': {
        const entry = { ...e.entry }
        // An image stores the canonical response once, in the receipt (yielded before the entries).
        if (entry.request !== null && entry.response === null)
          entry.response = this.receipts.get(entry.key)?.response ?? null
        this.entries.set(entry.sequence, entry)
        if (e.entry.status === 'delivered') this.delivered.push(e.entry.sequence)
        this.nextSequence = Math.max(this.nextSequence, e.entry.sequence + 1)
        return
      }
      case 'commit': {
        this.receipts.set(e.receipt.key, e.receipt)
        this.retention.prune(this.receipts, e.receipt.at, (sequence) => this.holdsReceipt(sequence))
        const entry = this.entries.get(e.sequence)
        if (!e.project) this.entries.delete(e.sequence)
        else if (entry !== undefined) {
          entry.status = 'pending'
          entry.request =
            e.request_ops === undefined ? e.request : (e[LIVE_REQUEST] ?? requestFromOps(e.request_ops, ops))
          entry.response = e.receipt.response
        }
        this.addAudits([e.audit])
        return
      }
      case 'drop':
        for (const sequence of e.sequences) this.entries.delete(sequence)
        return
      case 'attempts':
        for (const r of e.results) {
          const entry = this.entries.get(r.sequence)
          if (entry === undefined) continue
          entry.attempts += 1
          entry.diagnostic = r.diagnostic
          this.setStatus(entry, r.status)
        }
        return
      case 'authority':
        this.authority = e.authority
        this.trigger = e.trigger
        if (e.resolve_quarantine)
          for (const entry of this.entries.values())
            if (entry.status === 'quarantined') this.setStatus(entry, 'delivered')
        return
      case 'legacy':
        this.legacy.add(e.digest)
        return
      case 'file_enqueue':
      case 'image_file':
        this.files.set(e.job.job_id, e.job)
        return
      case 'file_delete': {
        const ids = new Set(e.file_ids)
        for (const [jobId, job] of this.files) if (ids.has(job.file_id)) this.files.delete(jobId)
        return
      }
      case 'image':
        this.nextSequence = Math.max(this.nextSequence, e.next_sequence)
        this.authority = e.authority
        this.trigger = e.trigger
        for (const digest of e.legacy) this.legacy.add(digest)
        return
      case 'image_receipt':
        this.receipts.set(e.receipt.key, e.receipt)
        return
      case 'image_audits':
        this.addAudits(e.groups)
        return
      case 'image_retired':
        this.retention.restore(e.keys)
        return
    }
  }

  reset(): void {
    this.receipts.clear()
    this.retention.clear()
    this.entries.clear()
    this.delivered.length = 0
    this.auditGroups = []
    this.auditCount = 0
    this.files.clear()
    this.legacy.clear()
    this.nextSequence = 1
    this.authority = 'service_primary'
    this.trigger = null
  }

  private setStatus(entry: OutboxEntry, status: EntryStatus): void {
    entry.status = status
    if (status !== 'delivered') return
    entry.request = null
    entry.response = null
    this.delivered.push(entry.sequence)
    while (this.delivered.length > RETAINED_DELIVERED) {
      const oldest = this.delivered.shift() as number
      if (this.entries.get(oldest)?.status === 'delivered') this.entries.delete(oldest)
    }
  }

  private addAudits(groups: AuditGroup[]): void {
    for (const group of groups) {
      this.auditGroups.push(group)
      this.auditCount += group.rows.length
    }
    // Whole groups are dropped, oldest first, while the rest still hold the retained number of rows.
    while (
      this.auditGroups.length > 1 &&
      this.auditCount - (this.auditGroups[0]?.rows.length ?? 0) >= RETAINED_AUDITS
    ) {
      this.auditCount -= this.auditGroups.shift()?.rows.length ?? 0
    }
  }

  /** The newest `limit` audit rows, oldest first. */
  audits(limit: number): AuditRow[] {
    const out: AuditRow[] = []
    for (let g = this.auditGroups.length - 1; g >= 0 && out.length < limit; g--) {
      const group = this.auditGroups[g] as AuditGroup
      for (let r = group.rows.length - 1; r >= 0 && out.length < limit; r--) {
        const [before, after, outcome] = group.rows[r] as AuditGroup['rows'][number]
        out.push({
          idempotency_key_hash: group.key,
          correlation_id: group.correlation_id,
          source_offset: group.source_offset,
          before_revision: before,
          after_revision: after,
          outcome,
        })
      }
    }
    return out.reverse()
  }

  *image(): Iterable<RefLedgerEntry> {
    yield {
      k: 'image',
      next_sequence: this.nextSequence,
      authority: this.authority,
      trigger: this.trigger,
      legacy: [...this.legacy],
    }
    for (const receipt of this.receipts.values()) yield { k: 'image_receipt', receipt }
    for (const entry of this.entries.values()) {
      const shared = entry.response !== null && this.receipts.get(entry.key)?.response === entry.response
      yield { k: 'image_entry', entry: shared ? { ...entry, response: null } : entry }
    }
    if (this.auditGroups.length > 0) yield { k: 'image_audits', groups: this.auditGroups }
    if (this.retention.retiredCount > 0) yield { k: 'image_retired', keys: this.retention.retiredKeys() }
    for (const job of this.files.values()) yield { k: 'image_file', job }
  }

  count(status: EntryStatus): number {
    let n = 0
    for (const entry of this.entries.values()) if (entry.status === status) n++
    return n
  }

  /** An undelivered entry still needs its receipt (its canonical answer is compared with the reference's). */
  private holdsReceipt(sequence: number): boolean {
    const status = this.entries.get(sequence)?.status
    return status !== undefined && status !== 'delivered'
  }

  /** Entries not yet delivered: what fills the bounded outbox. */
  unresolved(): number {
    return this.entries.size - this.count('delivered')
  }
}
