interface Waiter {
  sequence: number
  resolve: (reached: boolean) => void
  timer: NodeJS.Timeout
}

/** Callers waiting for a commit sequence to become visible, each with its own deadline. */
export class SequenceWaiters {
  private waiters: Waiter[] = []

  /** Resolves true once `reached` reports `sequence` (or `visible()` already does), false at the deadline. */
  wait(sequence: number, timeoutMs: number, visible: () => number): Promise<boolean> {
    if (visible() >= sequence) return Promise.resolve(true)
    return new Promise((resolve) => {
      const waiter: Waiter = {
        sequence,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter)
          resolve(visible() >= sequence)
        }, timeoutMs),
      }
      this.waiters.push(waiter)
    })
  }

  reached(sequence: number): void {
    if (this.waiters.length === 0) return
    const done = this.waiters.filter((w) => w.sequence <= sequence)
    if (done.length === 0) return
    this.waiters = this.waiters.filter((w) => w.sequence > sequence)
    for (const w of done) {
      clearTimeout(w.timer)
      w.resolve(true)
    }
  }
}
