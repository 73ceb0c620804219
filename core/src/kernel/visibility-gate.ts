import { KernelErrors } from './errors.js'

/**
 * Group commit without exposing non-durable state. A write publishes its commit to the in-memory graph as
 * soon as its WAL line is buffered, so the next writer builds on it and many writers share one fsync; but a
 * reader never runs while any published commit is not yet durable. Readers that arrive then wait for the
 * in-flight fsync (and hold back new writers meanwhile, so they cannot starve).
 *
 * Commits are tracked by WAL sequence: everything is durable once the log's durable sequence reaches the
 * last published one, so the log reports once per batch instead of once per commit.
 *
 * After a log failure, writes are refused and readers wait only while the published state is rebuilt from
 * what is durable (see StorageFaultRecovery); then they read again while writes stay suspended.
 */
export class VisibilityGate {
  private lastPublished = 0
  private durableSeq = 0
  private activeReaders = 0
  private waitingReaders: { resolve: () => void; reject: (e: Error) => void }[] = []
  private waitingWriters: { resolve: () => void; reject: (e: Error) => void }[] = []
  /** Writes are refused while the log is failed (until it resumes). */
  private failure: Error | null = null
  /** Published state holds commits that will never be durable: readers wait until it is reloaded. */
  private reloading = false
  /** The durable state could not be reloaded (the storage cannot even be read): readers are refused. */
  private readFailure: Error | null = null

  /** Why writes are refused, or null. */
  get failed(): Error | null {
    return this.failure
  }

  private get undurable(): boolean {
    return this.lastPublished > this.durableSeq
  }

  /**
   * Resolves at a moment when every published commit is durable; the caller must then read synchronously
   * (in the same tick), because a queued writer may publish again right after.
   */
  async enterRead(): Promise<void> {
    for (;;) {
      if (this.readFailure !== null) throw this.readFailure
      if (!this.reloading && !this.undurable) {
        this.activeReaders++
        return
      }
      await new Promise<void>((resolve, reject) => this.waitingReaders.push({ resolve, reject }))
    }
  }

  exitRead(): void {
    this.activeReaders--
    if (this.activeReaders === 0 && this.waitingReaders.length === 0) this.releaseWriters()
  }

  /**
   * Undefined when the writer may go on at once (the common case: no promise, no await); otherwise a
   * promise to await first (readers are waiting for a batch's fsync).
   */
  enterWrite(): Promise<void> | undefined {
    if (this.failure !== null) throw this.failure
    if (this.activeReaders === 0 && this.waitingReaders.length === 0) return undefined
    return new Promise<void>((resolve, reject) => this.waitingWriters.push({ resolve, reject }))
  }

  /** The commit logged at WAL sequence `seq` was published to memory; it is not durable yet. */
  published(seq: number): void {
    if (seq > this.lastPublished) this.lastPublished = seq
  }

  /** Everything up to WAL sequence `seq` reached the disk. */
  durable(seq: number): void {
    const was = this.undurable
    if (seq > this.durableSeq) this.durableSeq = seq
    if (was && !this.undurable && !this.reloading) this.releaseReaders()
  }

  private releaseReaders(): void {
    const readers = this.waitingReaders
    this.waitingReaders = []
    for (const r of readers) r.resolve()
    if (this.activeReaders === 0 && this.waitingReaders.length === 0) this.releaseWriters()
  }

  private releaseWriters(): void {
    const writers = this.waitingWriters
    this.waitingWriters = []
    for (const w of writers) w.resolve()
  }

  /**
   * The log failed: writes stop. Published commits it had not made durable never will be (nor will journal
   * records of sessions and audit, which are applied before they are logged), so nothing is read until the
   * durable state is reloaded (`reloaded`).
   */
  logFailed(error: Error): void {
    if (this.failure === null) {
      this.failure = KernelErrors.writesSuspended(error)
      for (const w of this.waitingWriters) w.reject(this.failure)
      this.waitingWriters = []
    }
    this.reloading = true
  }

  /** The published state was rebuilt from what is durable, up to `seq`: readers go on. */
  reloaded(seq: number): void {
    this.lastPublished = seq
    this.durableSeq = seq
    this.reloading = false
    this.readFailure = null
    this.releaseReaders()
  }

  /** The durable state cannot be reloaded for now: readers are refused with `error` until it is. */
  readsUnavailable(error: Error): void {
    this.readFailure = KernelErrors.readsUnavailable(error)
    const readers = this.waitingReaders
    this.waitingReaders = []
    for (const r of readers) r.reject(this.readFailure)
  }

  /** A new log is open after the durable sequence: writes go on. */
  resumed(): void {
    this.failure = null
  }
}
