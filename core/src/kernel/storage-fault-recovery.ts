import { storageTrouble } from '../storage/storage-trouble.js'

/** What /health and /metrics tell about storage faults. */
export interface StorageFaultReport {
  /** healthy; reloading (reads wait for the durable state); writes_suspended (reads go on, writes refused). */
  state: 'healthy' | 'reloading' | 'writes_suspended'
  /** Why writes are suspended (the storage's own words), or null. */
  reason: string | null
  /** Epoch ms of the fault being handled, or null. */
  since_ms: number | null
  faults_total: number
  recoveries_total: number
  /** Failed attempts to reload or resume since the fault. */
  attempts: number
  checkpoint_failures_total: number
  /** The last checkpoint failure, cleared by the next checkpoint that succeeds. */
  checkpoint_error: string | null
}

export interface RecoverySteps {
  /** Rebuilds the published state from what is durable; throws when the storage cannot be read. */
  reload(): void | Promise<void>
  /** Opens a new log once the storage answers; throws while it still fails. */
  resume(): Promise<void>
  /** The reload failed: readers are refused until a later attempt succeeds. */
  readsUnavailable(error: Error): void
}

const FIRST_DELAY_MS = 50
const MAX_DELAY_MS = 2000

/**
 * Recovers from a failed log in place, without a process restart, as PostgreSQL's postmaster restarts its
 * backends and replays the WAL after a storage error: first the published state is rebuilt from what is
 * durable (readers go on from there), then the storage is probed with backoff, and once it answers a new
 * log is opened and writes resume. Nothing the failed fsync was meant to make durable is trusted: the live
 * segment is cut back to what was durable before the failure.
 */
export class StorageFaultRecovery {
  private report: StorageFaultReport = {
    state: 'healthy',
    reason: null,
    since_ms: null,
    faults_total: 0,
    recoveries_total: 0,
    attempts: 0,
    checkpoint_failures_total: 0,
    checkpoint_error: null,
  }
  private timer: NodeJS.Timeout | null = null
  private stopped = false
  private delay = FIRST_DELAY_MS

  constructor(
    private readonly steps: RecoverySteps,
    private readonly now: () => number,
    private readonly warn: ((message: string) => void) | undefined,
  ) {}

  status(): StorageFaultReport {
    return { ...this.report }
  }

  /** The log failed: the published state is rebuilt from what is durable, then writes wait for the storage. */
  logFailed(error: Error): void {
    if (this.report.state !== 'healthy' || this.stopped) return
    this.report = {
      ...this.report,
      state: 'reloading',
      reason: storageTrouble(error),
      since_ms: this.now(),
      faults_total: this.report.faults_total + 1,
      attempts: 0,
    }
    this.warn?.(`${this.report.reason}; writes suspended, recovering in place`)
    this.delay = FIRST_DELAY_MS
    this.schedule(0)
  }

  checkpointFailed(error: Error): void {
    this.report.checkpoint_failures_total++
    this.report.checkpoint_error = storageTrouble(error)
  }

  checkpointSucceeded(): void {
    this.report.checkpoint_error = null
  }

  /** Stops retrying (the engine closes). */
  stop(): void {
    this.stopped = true
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
  }

  private schedule(ms: number): void {
    if (this.stopped) return
    this.timer = setTimeout(() => void this.attempt(), ms)
    this.timer.unref()
  }

  private async attempt(): Promise<void> {
    this.timer = null
    if (this.stopped) return
    try {
      if (this.report.state === 'reloading') {
        try {
          await this.steps.reload()
        } catch (error) {
          this.steps.readsUnavailable(error as Error)
          throw error
        }
        this.report.state = 'writes_suspended'
      }
      await this.steps.resume()
      this.report = { ...this.report, state: 'healthy', reason: null, since_ms: null, attempts: 0 }
      this.report.recoveries_total++
      this.warn?.('storage answers again; writes resumed')
    } catch {
      this.report.attempts++
      this.delay = Math.min(this.delay * 2, MAX_DELAY_MS)
      this.schedule(this.delay)
    }
  }
}
