import { EngineError } from '../errors.js'

/**
 * Group commit without exposing non-durable state. A write publishes its commit to the in-memory graph as
 * soon as its WAL line is buffered, so the next writer builds on it and many writers share one fsync; but a
 * reader never runs while any published commit is not yet durable. Readers that arrive then wait for the
 * in-flight fsync (and hold back new writers meanwhile, so they cannot starve).
 *
 * Commits are tracked by WAL sequence: everything is durable once the log's durable sequence reaches the
 * last published one, so the log reports once per batch instead of once per commit.
 */
export class VisibilityGate {
  private lastPublished = 0
  private durableSeq = 0
  private activeReaders = 0
  private waitingReaders: { resolve: () => void; reject: (e: Error) => void }[] = []
  private waitingWriters: { resolve: () => void; reject: (e: Error) => void }[] = []
  private failure: Error | null = null

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
      if (this.failure !== null) throw this.failure
      if (!this.undurable) {
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
   * promise to await first.
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
    if (was && !this.undurable) {
      const readers = this.waitingReaders
      this.waitingReaders = []
      for (const r of readers) r.resolve()
      if (this.activeReaders === 0 && this.waitingReaders.length === 0) this.releaseWriters()
    }
  }

  private releaseWriters(): void {
    const writers = this.waitingWriters
    this.waitingWriters = []
    for (const w of writers) w.resolve()
  }

  /**
   * The log failed. Published commits it had not made durable never will be, so if there are any everything
   * stops here (they must never be read); a failure with none pending only fails later appends.
   */
  logFailed(error: Error): void {
    if (this.undurable) this.fail(error)
  }

  /** The disk failed: published-but-not-durable state must never be read, so everything stops here. */
  fail(error: Error): void {
    if (this.failure !== null) return
    this.failure = new EngineError(
      'DURABILITY_FAILED',
      `storage failed; restart to recover from the durable log: ${error.message}`,
      'unavailable',
      {
        cause: error,
      },
    )
    for (const w of [...this.waitingReaders, ...this.waitingWriters]) w.reject(this.failure)
    this.waitingReaders = []
    this.waitingWriters = []
  }
}
