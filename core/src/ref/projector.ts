/**
 * The projector: POSTs pending outbox entries to the reference, oldest sequence first, each request bounded
 * by `timeoutMs`, at most `maxConcurrency` requests in flight (only units whose touched records are
 * disjoint, so they commute and the reference ends where in-order delivery would). When the reference
 * offers the batch form, one request carries up to `batchMax` consecutive entries (see projection-batch.ts);
 * otherwise one entry a request. It compares each answer with the canonical one: equal -> delivered;
 * transport error, timeout or rejection -> stays pending and backs off (backoff.ts); a different
 * successful answer -> quarantined and writes suspended with trigger write_divergence. Outcomes commit in
 * batches as ledger records.
 */
import { EntryBackoff, type RetryPolicy } from './backoff.js'
import { touchedOf } from './outbox-intent.js'
import { compareAnswer, type Outcome, sendUnit } from './projection-batch.js'
import type { ReferenceClient } from './reference-client.js'
import type { OutboxEntry, RefLedgerEntry, RefState } from './state.js'

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
  retry: RetryPolicy
  /** Most entries in one batch request (1 turns batching off). */
  batchMax: number
  now?: () => number
  random?: () => number
}

/** What /metrics reads about the attempts (FACTS' retries counter plus ours). */
export interface ProjectionAttempts {
  /** Requests sent to the reference (a batch counts once). */
  requests_total: number
  /** Entries carried by those requests. */
  entries_total: number
  /** Failed attempts (transport error, timeout, rejection). */
  retries_total: number
  /** When the next retry is due (epoch ms), or null when nothing waits. */
  next_retry_at_ms: number | null
  /** Whether the reference offers the batch form: null until known. */
  batch_supported: boolean | null
}

export class Projector {
  private readonly figures = { requests_total: 0, entries_total: 0, retries_total: 0 }
  private running: Promise<void> | null = null
  private timer: NodeJS.Timeout | null = null
  private timerAt: number | null = null
  private closed = false
  private readonly backoff: EntryBackoff
  private readonly now: () => number
  /** Learnt from the first batch request: a 404/405 means the reference has no batch form. */
  private batchSupported: boolean | null = null
  /** Entries a batch may carry: `batchMax`, halved each time the reference refuses a batch as too large. */
  private batchSize: number
  /**
   * Entries whose outcome is decided and being committed: the next round goes on without waiting for that
   * commit to be durable. Safe because a delivery the crash forgets is sent again and the reference answers
   * it from its receipt (same key), so nothing is applied twice.
   */
  private readonly settling = new Set<number>()
  private committing: Promise<void> = Promise.resolve()
  /** A write committed while a run was finishing: look again once it ends. */
  private again = false
  /** An admin drain: entries are tried now, whatever their backoff says. */
  private forced = false

  constructor(
    private readonly host: ProjectorHost,
    private readonly reference: ReferenceClient,
    private readonly options: ProjectorOptions,
  ) {
    this.now = options.now ?? Date.now
    this.backoff = new EntryBackoff(options.retry, this.now, options.random)
    this.batchSize = options.batchMax
  }

  get retriesTotal(): number {
    return this.figures.retries_total
  }

  attempts(): ProjectionAttempts {
    return {
      ...this.figures,
      next_retry_at_ms: this.backoff.failing ? (this.timerAt ?? this.backoff.earliest()) : null,
      batch_supported: this.batchSupported,
    }
  }

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

  /**
   * Admin drain: waits for the background run, then drains until idle or the first failure/divergence,
   * trying the oldest pending entry now even while it is backing off (the operator asked for it).
   */
  async drain(): Promise<void> {
    while (this.running !== null) await this.running.catch(() => {})
    this.forced = true
    this.running = this.loop()
    try {
      await this.running
    } finally {
      this.forced = false
      this.running = null
    }
  }

  close(): void {
    this.closed = true
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    this.timerAt = null
  }

  private async loop(): Promise<void> {
    try {
      if (this.closed || !this.host.isOpen()) return
      this.backoff.retain((sequence) => this.host.state.entries.get(sequence)?.status === 'pending')
      await this.pump()
    } finally {
      // A drain answers with the state its outcomes left, so their commits must have landed.
      const committing = this.committing
      this.committing = Promise.resolve()
      await committing
      this.scheduleRetry()
    }
  }

  /** One timer, at the earliest time an entry waiting out a failure may be tried again. */
  private scheduleRetry(): void {
    if (this.closed) return
    const at = this.backoff.earliest()
    if (at === null || (this.timer !== null && this.timerAt !== null && this.timerAt <= at)) return
    if (this.timer !== null) clearTimeout(this.timer)
    this.timerAt = at
    this.timer = setTimeout(
      () => {
        this.timer = null
        this.timerAt = null
        this.kick()
      },
      Math.max(0, at - this.now()),
    )
    this.timer.unref()
  }

  /**
   * A sliding window: whenever a request ends, the next units start, oldest first, as long as they commute
   * with everything in flight. The first failure or divergence stops new attempts; outcomes are committed
   * in batches as they come.
   */
  private pump(): Promise<void> {
    const inflight = new Map<number, OutboxEntry[]>()
    const busy = new Set<number>()
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
          for (const unit of this.candidates(inflight, busy)) {
            const head = (unit[0] as OutboxEntry).sequence
            inflight.set(head, unit)
            for (const entry of unit) busy.add(entry.sequence)
            void this.attemptUnit(unit).then((decided) => {
              inflight.delete(head)
              for (const entry of unit) busy.delete(entry.sequence)
              for (const outcome of decided) {
                if (outcome.status === 'pending') {
                  this.figures.retries_total += 1
                  this.backoff.failed(outcome.sequence)
                } else {
                  this.settling.add(outcome.sequence)
                  this.backoff.settled(outcome.sequence)
                  // The reference answers again: entries that failed with it need not wait out their delay.
                  if (outcome.status === 'delivered' && this.backoff.failing) this.backoff.reset()
                }
                if (outcome.status !== 'delivered') stopped = true
                outcomes.push(outcome)
              }
              flush()
              launch()
            })
          }
        }
        if (inflight.size === 0) void settled().then(() => resolve())
      }
      launch()
    })
  }

  private batching(): boolean {
    return (
      this.options.batchMax > 1 && this.reference.postBatch !== undefined && this.batchSupported !== false
    )
  }

  /**
   * Units that may start now, oldest first: each a run of consecutive pending entries (up to `batchMax`
   * when batching, else one). Entries inside a unit need not commute (the reference applies them in
   * order); a unit must commute with every other unit in flight, and the scan ends at the first entry that
   * does not, or that is still waiting out its backoff, so nothing overtakes an entry it may depend on.
   * After a failure only one unit is in flight at a time (a probe) until an attempt succeeds.
   */
  private candidates(
    inflight: ReadonlyMap<number, OutboxEntry[]>,
    busy: ReadonlySet<number>,
  ): OutboxEntry[][] {
    const probing = this.backoff.failing && !this.forced
    const slots = probing ? 1 - inflight.size : this.options.maxConcurrency - inflight.size
    if (slots <= 0) return []
    const size = this.batching() ? this.batchSize : 1
    const others = new Set<string>()
    for (const unit of inflight.values())
      for (const entry of unit) for (const id of touchedOf(entry)) others.add(id)
    const now = this.now()
    const units: OutboxEntry[][] = []
    let current: OutboxEntry[] = []
    let touched = new Set<string>()
    const close = () => {
      units.push(current)
      for (const id of touched) others.add(id)
      current = []
      touched = new Set()
    }
    for (const entry of this.host.state.entries.values()) {
      if (entry.status !== 'pending' || this.settling.has(entry.sequence) || busy.has(entry.sequence))
        continue
      if (!this.forced && this.backoff.readyAt(entry.sequence) > now) break
      const ids = touchedOf(entry)
      const barrier = ids.includes('*')
      if ((others.size > 0 && (barrier || others.has('*'))) || ids.some((id) => others.has(id))) break
      current.push(entry)
      for (const id of ids) touched.add(id)
      if (current.length >= size) {
        close()
        if (units.length >= slots) break
      }
    }
    if (current.length > 0 && units.length < slots) units.push(current)
    return units
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

  /**
   * Sends one unit and decides its entries in order up to the first that is not delivered; later entries
   * get no outcome and stay pending. A reference without the batch form is remembered, and the unit's
   * entries are left for single requests; a batch refused as too large halves the batch size.
   */
  private async attemptUnit(unit: OutboxEntry[]): Promise<Outcome[]> {
    const batch = unit.length > 1 && this.batching()
    this.figures.requests_total += 1
    this.figures.entries_total += batch ? unit.length : 1
    const sent = await sendUnit(this.reference, batch ? unit : unit.slice(0, 1), this.options.timeoutMs)
    if (sent.kind === 'unsupported') {
      this.batchSupported = false
      return []
    }
    if (sent.kind === 'too_large') {
      this.batchSize = Math.min(this.batchSize, Math.max(1, Math.floor(unit.length / 2)))
      return []
    }
    if (sent.kind === 'failed') return [{ sequence: (unit[0] as OutboxEntry).sequence, ...sent.outcome }]
    if (batch) this.batchSupported = true
    const decided: Outcome[] = []
    for (const [i, answer] of sent.answers.entries()) {
      const entry = unit[i] as OutboxEntry
      const outcome = compareAnswer(entry, answer)
      decided.push(outcome)
      if (outcome.status !== 'delivered') break
    }
    return decided
  }
}
