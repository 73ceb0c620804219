import { connectClient, dropClient, type PgClient } from './pg-connect.js'
import { WAL_CHANNEL } from './schema.js'

export interface TailSteps {
  /** Reads and applies every record the log holds above the applied sequence; returns the applied sequence. */
  catchUp(): Promise<number>
  /** Takes over when allowed and the primary's session is gone; true once this process is the primary. */
  tryPromote(): Promise<boolean>
}

/**
 * Drives a follower: a LISTEN session wakes it as soon as the primary commits a batch, and a poll by sequence
 * every `pollMs` covers a lost notification or a dropped session. Keeps the lag figures /health reports.
 */
export class FollowerTail {
  /** Newest sequence known to be in the log (from notifications and reads). */
  logSeq: number
  /** When this follower first knew of a record it had not applied yet; null while caught up. */
  private behindSince: number | null = null
  lastError: string | null = null
  private listener: PgClient | null = null
  private timer: NodeJS.Timeout | null = null
  private dueAt = 0
  private running = false
  private again = false
  private stopped = false

  constructor(
    private readonly url: string,
    private readonly pollMs: number,
    private readonly now: () => number,
    private readonly steps: TailSteps,
    private applied: number,
  ) {
    this.logSeq = applied
  }

  start(): void {
    this.schedule(0)
  }

  stop(): void {
    this.stopped = true
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    dropClient(this.listener)
    this.listener = null
  }

  appliedSeq(): number {
    return this.applied
  }

  lagSequences(): number {
    return Math.max(0, this.logSeq - this.applied)
  }

  lagMs(): number {
    return this.behindSince === null ? 0 : Math.max(0, this.now() - this.behindSince)
  }

  /** The store was rebuilt (rebase): the applied sequence moved. */
  rebased(applied: number): void {
    this.applied = applied
    this.logSeq = Math.max(this.logSeq, applied)
  }

  /** Runs a tick in `ms`, never later than one already due (a notification must not wait for the poll). */
  private schedule(ms: number): void {
    if (this.stopped) return
    const due = performance.now() + ms
    if (this.timer !== null) {
      if (this.dueAt <= due) return
      clearTimeout(this.timer)
    }
    this.dueAt = due
    this.timer = setTimeout(() => void this.tick(), ms)
    this.timer.unref()
  }

  private async tick(): Promise<void> {
    this.timer = null
    if (this.running) {
      this.again = true
      return
    }
    this.running = true
    try {
      await this.ensureListening()
      this.applied = await this.steps.catchUp()
      this.logSeq = Math.max(this.logSeq, this.applied)
      if (this.applied >= this.logSeq) this.behindSince = null
      this.lastError = null
      if (await this.steps.tryPromote()) {
        this.stop()
        return
      }
    } catch (error) {
      this.lastError = (error as Error).message
      dropClient(this.listener)
      this.listener = null
    } finally {
      this.running = false
    }
    const again = this.again
    this.again = false
    this.schedule(again ? 0 : this.pollMs)
  }

  private async ensureListening(): Promise<void> {
    if (this.listener !== null) return
    const client = await connectClient(this.url, 'service-follower', () => {
      if (this.listener === client) this.listener = null
      dropClient(client)
    })
    client.on('notification', (message) => {
      const seq = Number(message.payload)
      if (Number.isSafeInteger(seq) && seq > this.logSeq) this.logSeq = seq
      if (this.logSeq > this.applied && this.behindSince === null) this.behindSince = this.now()
      this.schedule(0)
    })
    await client.query(`LISTEN ${WAL_CHANNEL}`)
    this.listener = client
  }
}
