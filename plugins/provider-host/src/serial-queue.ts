/** Thrown to a queued job whose caller gave up before its turn came; it never reaches the provider. */
export class SkippedJob extends Error {
  override readonly name = 'SkippedJob'
}

/**
 * Runs jobs one at a time in arrival order. A provider instance is single-threaded, so a job that outlives
 * its caller's deadline still holds the queue until the native call returns and its buffer is freed.
 */
export class SerialQueue {
  private tail: Promise<void> = Promise.resolve()
  private pending = 0

  /** Queues `job`; when its turn comes it runs only if `stillWanted()` says so. */
  push<T>(job: () => Promise<T>, stillWanted: () => boolean = () => true): Promise<T> {
    this.pending += 1
    const run = this.tail.then(() => {
      if (!stillWanted()) throw new SkippedJob('the caller gave up before the provider was called')
      return job()
    })
    const settled = run.then(
      () => undefined,
      () => undefined,
    )
    this.tail = settled.then(() => {
      this.pending -= 1
    })
    return run
  }

  /** Jobs queued or running. */
  get size(): number {
    return this.pending
  }

  /** Resolves once every job queued so far has settled. */
  idle(): Promise<void> {
    return this.tail
  }
}
