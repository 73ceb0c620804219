import { performance } from 'node:perf_hooks'

/** A probe of the event loop this long decides whether foreground work is running. */
export const PROBE_MS = 20
/** Busier than this share of a probe, the loop is running foreground work (requests, a bulk load). */
export const BUSY_SHARE = 0.5
/** One event-loop turn taking this long ran foreground work (an idle turn takes microseconds). */
const BUSY_TURN_MS = 2
/** The longest a slice waits for the foreground to ease: it still moves under steady load. */
export const MAX_WAIT_MS = 100

/** The share of time the event loop was active since a mark (Node's event-loop utilization). */
export interface LoopMeter {
  mark(): unknown
  shareSince(mark: unknown): number
}

const nodeLoop: LoopMeter = {
  mark: () => performance.eventLoopUtilization(),
  shareSince: (mark) => performance.eventLoopUtilization(mark as EventLoopUtilization).utilization,
}
type EventLoopUtilization = ReturnType<typeof performance.eventLoopUtilization>

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * Background indexing gives way to foreground work. During a bulk load its slices took ~30 % of the event
 * loop from the load, to index nodes it would index just as well right after; durable single writes leave the
 * loop idle while fsync runs, and 8 ms slices there held back every cohort of writers whose fsync ended
 * meanwhile. A search still catches up first, so nothing it answers is stale.
 *
 * Foreground work is a slow event-loop turn (other callbacks ran in it) or a commit within the last
 * `PROBE_MS`. Then it probes in steps of `PROBE_MS` until the loop is less than half busy and no commit came,
 * at most `MAX_WAIT_MS`, so steady load still leaves one slice (~8 ms) in every ~100 ms and the backlog cannot
 * grow without bound. On an idle loop a slice follows the next at once.
 */
export class ForegroundLoad {
  constructor(
    private readonly loop: LoopMeter = nodeLoop,
    private readonly turn: () => Promise<void> = nextTurn,
    private readonly wait: (ms: number) => Promise<void> = sleep,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Until then a slow turn is not probed again: a probe just found the loop quiet (a slow turn can be the OS). */
  private quietUntil = Number.NEGATIVE_INFINITY
  private lastCommitAt = Number.NEGATIVE_INFINITY

  /** A commit was published: writers are active even when the loop idles waiting for their fsync. */
  committed(): void {
    this.lastCommitAt = this.now()
  }

  async giveWay(): Promise<void> {
    const started = this.now()
    await this.turn()
    const slowTurn = this.now() - started >= BUSY_TURN_MS && this.now() >= this.quietUntil
    if (!slowTurn && !this.writing()) return
    while (this.now() - started < MAX_WAIT_MS) {
      const probe = this.loop.mark()
      await this.wait(PROBE_MS)
      if (this.loop.shareSince(probe) < BUSY_SHARE && !this.writing()) {
        this.quietUntil = this.now() + MAX_WAIT_MS
        return
      }
    }
  }

  private writing(): boolean {
    return this.now() - this.lastCommitAt < PROBE_MS
  }
}
