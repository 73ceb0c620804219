import { EngineError } from '../errors.js'

/**
 * Group commit without exposing non-durable state. A write publishes its commit to the in-memory graph as
 * soon as its WAL line is buffered, so the next writer builds on it and many writers share one fsync; but a
 * reader never runs while any published commit is not yet durable. Readers that arrive then wait for the
 * in-flight fsync (and hold back new writers meanwhile, so they cannot starve).
 */
export class VisibilityGate {
  private undurable = 0
  private activeReaders = 0
  private waitingReaders: { resolve: () => void; reject: (e: Error) => void }[] = []
  private waitingWriters: { resolve: () => void; reject: (e: Error) => void }[] = []
  private failure: Error | null = null

  get failed(): Error | null {
    return this.failure
  }

  /**
   * Resolves at a moment when every published commit is durable; the caller must then read synchronously
   * (in the same tick), because a queued writer may publish again right after.
   */
  async enterRead(): Promise<void> {
    for (;;) {
      if (this.failure !== null) throw this.failure
      if (this.undurable === 0) {
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

  async enterWrite(): Promise<void> {
    if (this.failure !== null) throw this.failure
    if (this.activeReaders === 0 && this.waitingReaders.length === 0) return
    await new Promise<void>((resolve, reject) => this.waitingWriters.push({ resolve, reject }))
  }

  /** A commit was published to memory; it is not durable yet. */
  published(): void {
    this.undurable++
  }

  /** A published commit reached the disk. */
  durable(): void {
    this.undurable--
    if (this.undurable === 0) {
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
