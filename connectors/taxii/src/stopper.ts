/**
 * A stop request shared by the run loop and its waits: set by SIGTERM/SIGINT, it ends sleeps at once while a
 * running cycle is left to finish.
 */
export class Stopper {
  #stopped = false
  readonly #wakers = new Set<() => void>()

  get stopped(): boolean {
    return this.#stopped
  }

  stop(): void {
    this.#stopped = true
    for (const wake of this.#wakers) wake()
    this.#wakers.clear()
  }

  /** Resolves after `ms`, or as soon as a stop is requested. */
  sleep(ms: number): Promise<void> {
    if (this.#stopped) return Promise.resolve()
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer)
        this.#wakers.delete(wake)
        resolve()
      }
      const timer = setTimeout(wake, ms)
      this.#wakers.add(wake)
    })
  }
}
