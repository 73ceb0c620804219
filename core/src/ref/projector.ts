/**
 * The projector: POSTs pending outbox entries to the reference, oldest sequence first, at most
 * `maxConcurrency` in flight (only entries whose touched records are disjoint, so they commute and the
 * reference ends where in-order delivery would), each bounded by `timeoutMs`. It compares the reference's
 * `outcome.response` with the canonical one: equal -> delivered; transport error, timeout or rejection ->
 * stays pending (attempts and retries counted, retried after `retryIntervalMs`); a different successful
 * answer -> quarantined and writes suspended with trigger write_divergence. Outcomes of one round commit
 * as one ledger record.
 */
import { canonicalize } from '../stix/canonical.js'
import type { ReferenceClient } from './reference-client.js'
import type { EntryStatus, OutboxEntry, RefLedgerEntry, RefState } from './state.js'

export interface ProjectorHost {
  readonly state: RefState
  /** Commits ledger entries durably (one WAL record). */
  commit(entries: RefLedgerEntry[]): Promise<void>
  /** False once the engine closes: nothing more is attempted. */
  isOpen(): boolean
}

export interface ProjectorOptions {
  maxConcurrency: number
  timeoutMs: number
  retryIntervalMs: number
}

type Outcome = { sequence: number; status: EntryStatus; diagnostic: string | null }

const DIAGNOSTIC_MAX = 512
const clip = (text: string) => (text.length > DIAGNOSTIC_MAX ? text.slice(0, DIAGNOSTIC_MAX) : text)

export class Projector {
  retriesTotal = 0
  private running: Promise<void> | null = null
  private timer: NodeJS.Timeout | null = null
  private closed = false
  /**
   * Entries whose outcome is decided and being committed: the next round goes on without waiting for that
   * commit to be durable. Safe because a delivery the crash forgets is sent again and the reference answers
   * it from its receipt (same key), so nothing is applied twice.
   */
  private readonly settling = new Set<number>()
  private committing: Promise<void> = Promise.resolve()
  /** A write committed while a run was finishing: look again once it ends. */
  private again = false

  constructor(
    private readonly host: ProjectorHost,
    private readonly reference: ReferenceClient,
    private readonly options: ProjectorOptions,
  ) {}

  /** Starts a background drain, or asks the running one to look again; called after each committed write. */
  kick(): void {
    if (this.closed) return
    if (this.running !== null) {
      this.again = true
      return
    }
    this.again = false
    this.running = this.loop().finally(() => {
      this.running = null
      if (this.again) this.kick()
    })
    this.running.catch(() => {})
  }

  /** Admin drain: waits for the background run, then drains until idle or the first failure/divergence. */
  async drain(): Promise<void> {
    while (this.running !== null) await this.running.catch(() => {})
    this.running = this.loop()
    try {
      await this.running
    } finally {
      this.running = null
    }
  }

  close(): void {
    this.closed = true
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
  }

  private async loop(): Promise<void> {
    try {
      if (this.closed || !this.host.isOpen()) return
      if ((await this.pump()) === 'stopped') this.scheduleRetry()
    } finally {
      // A drain answers with the state its outcomes left, so their commits must have landed.
      const committing = this.committing
      this.committing = Promise.resolve()
      await committing
    }
  }

  private scheduleRetry(): void {
    if (this.closed || this.timer !== null) return
    this.timer = setTimeout(() => {
      this.timer = null
      this.kick()
    }, this.options.retryIntervalMs)
    this.timer.unref()
  }

  /**
   * A sliding window: whenever an attempt ends, the next pending entries start, oldest first, as long as
   * they commute with everything in flight (an entry that does not ends the scan, so none is overtaken by
   * a later one it depends on). The first failure or divergence stops new attempts; outcomes are committed
   * in batches as they come.
   */
  private pump(): Promise<'idle' | 'stopped'> {
    const inflight = new Map<number, OutboxEntry>()
    let stopped = false
    let outcomes: Outcome[] = []
    let flushing: Promise<void> | null = null
    // One batch commits at a time; outcomes that arrive meanwhile go into the next batch.
    const flush = () => {
      if (flushing !== null || outcomes.length === 0) return
      const batch = outcomes
      outcomes = []
      flushing = this.record(batch).finally(() => {
        flushing = null
        flush()
      })
    }
    const settled = async () => {
      flush()
      while (flushing !== null) await flushing
    }
    return new Promise((resolve) => {
      const launch = () => {
        if (!stopped && !this.closed && this.host.isOpen()) {
          for (const entry of this.candidates(inflight)) {
            inflight.set(entry.sequence, entry)
            void this.attempt(entry).then((outcome) => {
              inflight.delete(entry.sequence)
              if (outcome.status === 'pending') this.retriesTotal += 1
              else this.settling.add(outcome.sequence)
              if (outcome.status !== 'delivered') stopped = true
              outcomes.push(outcome)
              flush()
              launch()
            })
          }
        }
        if (inflight.size === 0) void settled().then(() => resolve(stopped ? 'stopped' : 'idle'))
      }
      launch()
    })
  }

  /** Pending entries that may start now, oldest first, up to the free concurrency. */
  private candidates(inflight: ReadonlyMap<number, OutboxEntry>): OutboxEntry[] {
    const free = this.options.maxConcurrency - inflight.size
    if (free <= 0) return []
    const busy = new Set<string>()
    for (const entry of inflight.values()) for (const id of entry.touched) busy.add(id)
    const picked: OutboxEntry[] = []
    for (const entry of this.host.state.entries.values()) {
      if (entry.status !== 'pending' || this.settling.has(entry.sequence) || inflight.has(entry.sequence))
        continue
      const barrier = entry.touched.includes('*')
      if (
        (inflight.size > 0 || picked.length > 0) &&
        (barrier || busy.has('*') || entry.touched.some((id) => busy.has(id)))
      )
        break
      picked.push(entry)
      for (const id of entry.touched) busy.add(id)
      if (picked.length >= free || barrier) break
    }
    return picked
  }

  /** Commits a batch of outcomes (a divergence also suspends writes) behind the previous batch. */
  private record(batch: Outcome[]): Promise<void> {
    const entries: RefLedgerEntry[] = [{ k: 'attempts', results: batch }]
    if (batch.some((r) => r.status === 'quarantined') && this.host.state.authority === 'service_primary')
      entries.push({
        k: 'authority',
        authority: 'writes_suspended',
        trigger: 'write_divergence',
        resolve_quarantine: false,
      })
    const commit = this.committing.then(() => this.host.commit(entries))
    this.committing = commit.finally(() => {
      for (const r of batch) this.settling.delete(r.sequence)
    })
    this.committing.catch(() => {}) // observed at the end of the loop
    return this.committing.catch(() => {})
  }

  private async attempt(entry: OutboxEntry): Promise<Outcome> {
    const sequence = entry.sequence
    const canonical = entry.response?.outcome
    try {
      const answer = await this.reference.post(entry.request, AbortSignal.timeout(this.options.timeoutMs))
      const outcome = (answer.body as { outcome?: { status?: string; response?: unknown } } | null)?.outcome
      if (answer.status !== 200 || outcome?.status !== 'success') {
        const code =
          (answer.body as { error?: { code?: string } } | null)?.error?.code ??
          (outcome as { error?: { code?: string } } | undefined)?.error?.code ??
          'unknown'
        return {
          sequence,
          status: 'pending',
          diagnostic: clip(`reference rejected: HTTP ${answer.status} ${code}`),
        }
      }
      const expected = canonical?.status === 'success' ? canonical.response : undefined
      if (canonicalize(outcome.response) === canonicalize(expected))
        return { sequence, status: 'delivered', diagnostic: null }
      return {
        sequence,
        status: 'quarantined',
        diagnostic: clip('reference response differs from the canonical response'),
      }
    } catch (error) {
      const name = (error as Error).name
      const reason = name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'transport error'
      return { sequence, status: 'pending', diagnostic: clip(`${reason}: ${(error as Error).message}`) }
    }
  }
}
