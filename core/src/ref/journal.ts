/**
 * The write journal: every applied reference write, in sequence order, with its stored request (hashed key)
 * and canonical answer. It is what a store that served as the reference platform hands back on the return
 * path: the primary pulls the writes above its handover mark and applies them as replays. Kept as its own
 * ledger, committed in the same WAL record as the write, bounded to the newest `JOURNAL_RETAINED` writes and
 * `JOURNAL_RETAINED_BYTES` of requests. Only a store that projects nowhere keeps one: that is the store that
 * can serve as a reference platform (a projecting primary's own journal would be read by no one).
 */
import type { CommitOp } from '../graph/commit.js'
import type { Ledger } from '../kernel/ledger.js'
import type { RefWriteRequest } from './request.js'
import { LIVE_REQUEST, type RequestByOps, requestFromOps } from './request-by-ops.js'
import type { StoredResponse } from './state.js'

export const JOURNAL_LEDGER = 'ref-journal'
/** Writes the journal keeps; a return that needs older ones is refused (REF_RETURN_FAILED). */
export const JOURNAL_RETAINED = 8192
/** Request and answer bytes the journal keeps at the most (a bulk write may be megabytes). */
export const JOURNAL_RETAINED_BYTES = 64 * 1024 * 1024

export interface JournalEntry {
  sequence: number
  /** The hashed idempotency key (the stored request carries the same). */
  key: string
  request: unknown
  response: StoredResponse
  /** Size of request and answer as JSON, for the byte bound. */
  bytes: number
}

export type JournalLedgerEntry =
  | {
      k: 'write'
      /** `request` is null with `request_ops`: a bulk create's records are logged once, in its ops. */
      entry: JournalEntry
      request_ops?: RequestByOps
      /** The request `request_ops` stands for, while the process that committed it runs (never logged). */
      [LIVE_REQUEST]?: RefWriteRequest
    }
  /** Image only: the highest sequence no longer held. */
  | { k: 'dropped'; through: number }

export class RefJournal implements Ledger<JournalLedgerEntry> {
  readonly name = JOURNAL_LEDGER
  private entries: JournalEntry[] = []
  /** Writes at or below this sequence were dropped from the journal. */
  droppedThrough = 0
  private bytes = 0

  constructor(
    private readonly retained = JOURNAL_RETAINED,
    private readonly retainedBytes = JOURNAL_RETAINED_BYTES,
  ) {}

  apply(e: JournalLedgerEntry, ops?: readonly CommitOp[]): void {
    if (e.k === 'dropped') {
      this.droppedThrough = Math.max(this.droppedThrough, e.through)
      return
    }
    const byOps = e.request_ops
    this.entries.push(
      byOps === undefined ? e.entry : { ...e.entry, request: e[LIVE_REQUEST] ?? requestFromOps(byOps, ops) },
    )
    this.bytes += e.entry.bytes
    let drop = 0
    let bytes = this.bytes
    while (
      drop < this.entries.length - 1 &&
      (this.entries.length - drop > this.retained || bytes > this.retainedBytes)
    )
      bytes -= (this.entries[drop++] as JournalEntry).bytes
    if (drop > 0) {
      const removed = this.entries.splice(0, drop)
      this.bytes = bytes
      this.droppedThrough = Math.max(this.droppedThrough, removed.at(-1)?.sequence ?? 0)
    }
  }

  *image(): Iterable<JournalLedgerEntry> {
    if (this.droppedThrough > 0) yield { k: 'dropped', through: this.droppedThrough }
    for (const entry of this.entries) yield { k: 'write', entry }
  }

  reset(): void {
    this.entries = []
    this.droppedThrough = 0
    this.bytes = 0
  }

  /**
   * Up to `limit` writes above `after`, oldest first; `complete` is false when writes above `after` were
   * already dropped (the caller cannot get them all from here).
   */
  since(after: number, limit: number): { entries: JournalEntry[]; complete: boolean } {
    const entries: JournalEntry[] = []
    for (const entry of this.entries) {
      if (entry.sequence <= after) continue
      if (entries.length >= limit) break
      entries.push(entry)
    }
    return { entries, complete: after >= this.droppedThrough }
  }
}
