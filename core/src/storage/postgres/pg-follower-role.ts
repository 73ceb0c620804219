/**
 * A follower's part of the PostgreSQL store: it tails the log into the engine a page at a time (rebuilding
 * when retention passed it) and, with promote=auto, takes over as primary once the primary's session is gone.
 */
import { randomUUID } from 'node:crypto'
import type { TailListener } from '../durable-store.js'
import type { WalRecord } from '../wal-record.js'
import type { PgClient } from './pg-connect.js'
import { FollowerTail } from './pg-follower.js'
import { readPgLog } from './pg-log-reader.js'
import type { OwnerLock, PgStoreRole } from './pg-ownership.js'

const TAIL_PAGE = 5_000

/** What the follower uses of the store it belongs to. */
export interface FollowerPort {
  url: string
  pollMs: number
  leaseMs: number
  promote: 'auto' | 'off'
  /** Who this process is, in the owner row. */
  holder: string
  now(): number
  warn?: ((message: string) => void) | undefined
  role(): PgStoreRole
  auxClient(): Promise<PgClient>
  openOwnerSession(): Promise<OwnerLock>
  /** The newest sequence applied to the engine. */
  applied(): number
  /** Records up to `lastSeq` (`bytes` of log) were applied. */
  advanced(lastSeq: number, bytes: number): void
  /** Becomes the primary under `epoch`: starts the writer above the applied sequence. */
  takeOver(epoch: number): Promise<void>
}

export class FollowerRole {
  /** Null once promoted. */
  private driver: FollowerTail | null
  private promoting = false
  private nextLockTry = 0

  constructor(
    private readonly port: FollowerPort,
    private readonly listener: TailListener,
  ) {
    this.driver = new FollowerTail(
      port.url,
      port.pollMs,
      () => port.now(),
      { catchUp: () => this.catchUp(), tryPromote: () => this.tryPromote() },
      port.applied(),
    )
    this.driver.start()
  }

  /** The tail's lag figures, for the replication report; null once promoted. */
  get tail(): FollowerTail | null {
    return this.driver
  }

  /** The store was rebuilt from its checkpoint and log: the applied sequence moved. */
  rebased(applied: number): void {
    this.driver?.rebased(applied)
  }

  stop(): void {
    this.driver?.stop()
  }

  /** Applies every record above the applied sequence, a page at a time; rebuilds when retention passed it. */
  private async catchUp(): Promise<number> {
    const client = await this.port.auxClient()
    for (;;) {
      const records: WalRecord[] = []
      const read = await readPgLog(
        client,
        this.port.applied(),
        (r) => records.push(r),
        Number.MAX_SAFE_INTEGER,
        TAIL_PAGE,
      )
      if (read.gap && records.length === 0) {
        this.port.warn?.(
          `the log no longer reaches back to sequence ${this.port.applied() + 1}; rebuilding from the checkpoint`,
        )
        await this.listener.rebase()
        return this.port.applied()
      }
      if (records.length > 0) {
        this.listener.apply(records)
        this.port.advanced(read.lastSeq, read.bytes)
      }
      if (records.length < TAIL_PAGE) return this.port.applied()
    }
  }

  /** A follower with promote=auto takes the lock once the primary's session is gone, then catches up. */
  private async tryPromote(): Promise<boolean> {
    if (this.port.promote !== 'auto' || this.port.role() !== 'follower' || this.promoting) return false
    const now = this.port.now()
    if (now < this.nextLockTry) return false
    this.nextLockTry = now + Math.max(50, Math.floor(this.port.leaseMs / 3))
    const owner = await this.port.openOwnerSession()
    if (!(await owner.tryLock())) return false
    this.promoting = true
    try {
      // The bump waits for an append of the old primary in flight (it holds the owner row FOR SHARE); what
      // it committed is read right after, and nothing of it can commit later.
      const taken = await owner.takeEpoch(`graph--runtime-${randomUUID()}`, this.port.holder)
      await this.catchUp()
      await this.port.takeOver(taken.epoch)
      this.driver?.stop()
      this.driver = null
      this.port.warn?.(`promoted to primary at sequence ${this.port.applied()} under epoch ${taken.epoch}`)
      this.listener.promoted()
      return true
    } finally {
      this.promoting = false
    }
  }
}
