import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { EngineError } from '../../errors.js'
import { PgStoreErrors } from './pg-errors.js'

/** A primary writes; a follower reads and may take over; a fenced server lost ownership and refuses writes. */
export type PgStoreRole = 'primary' | 'follower' | 'fenced'

/** What ownership uses of the session holding the advisory lock (OwnerSession in pg-owner.ts). */
export interface OwnerLock {
  readonly alive: boolean
  tryLock(): Promise<boolean>
  takeEpoch(graphId: string, holder: string): Promise<{ epoch: number; graphId: string }>
  renewEpoch(mine: number, holder: string): Promise<number | null>
  currentEpoch(): Promise<number | null>
  close(): void
}

/** The one ownership session of a store and its steps run one at a time (OwnerSessions in pg-owner.ts). */
export interface OwnerLocks {
  readonly current: OwnerLock | null
  open(): Promise<OwnerLock>
  serially<T>(step: () => Promise<T>): Promise<T>
}

export interface OwnershipOptions {
  role: 'primary' | 'follower'
  /** How long a silent primary keeps the lock; the background retake retries at a third of it. */
  leaseMs: number
  /** Where writes go, named in a follower's refusal. */
  primaryUrl: string | null
  warn?: ((message: string) => void) | undefined
}

/** What ownership asks of the store it guards. */
export interface OwnershipPort {
  /** Whether a writer runs: a lost session matters only to a primary that writes. */
  writing(): boolean
  /** Another primary took over: the writer must fail now with this error. */
  failWriter(error: EngineError): void
}

/**
 * Single ownership of the PostgreSQL store: the session advisory lock and the epoch that fences every
 * append. This process writes under `writeEpoch`; any failure clears it until a renewal raises the epoch
 * again, or learns that another primary has it and fences this server for good.
 */
export class PrimaryOwnership {
  /** Who this process is, in the owner row. */
  readonly holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
  private readonly locks: OwnerLocks
  private currentRole: PgStoreRole
  /** The epoch this server last held: a different one in the owner row means another primary took over. */
  private lastEpoch: number | null = null
  /** The epoch this process may write under; null after a failure until ownership is renewed. */
  private ownedEpoch: number | null = null
  private fencedReason: string | null = null
  private retaking = false
  private closed = false

  constructor(
    private readonly options: OwnershipOptions,
    private readonly port: OwnershipPort,
    openLocks: (lost: (error: Error) => void) => OwnerLocks,
  ) {
    this.currentRole = options.role
    this.locks = openLocks((error) => this.leaseLost(error))
  }

  get role(): PgStoreRole {
    return this.currentRole
  }

  get epoch(): number | null {
    return this.lastEpoch
  }

  get writeEpoch(): number | null {
    return this.ownedEpoch
  }

  /** Why this server was fenced, for the replication report; null unless fenced. */
  get fenceReason(): string | null {
    return this.fencedReason
  }

  /** A method, not a getter, so a check after an await is not narrowed away by an earlier one. */
  isFenced(): boolean {
    return this.currentRole === 'fenced'
  }

  /** The ownership session, opened once however many ask (a follower's promotion asks too). */
  openSession(): Promise<OwnerLock> {
    return this.locks.open()
  }

  /** A starting primary, its session open: takes the lock and raises the epoch, or refuses to start. */
  async claim(): Promise<void> {
    if (!(await this.locks.current!.tryLock())) throw PgStoreErrors.ownedElsewhere()
    const taken = await this.locks.current!.takeEpoch(`graph--runtime-${randomUUID()}`, this.holder)
    this.lastEpoch = taken.epoch
    this.ownedEpoch = taken.epoch
  }

  /** The writer failed: renew ownership before the next write (the renewal waits out an append in flight). */
  writerFailed(error: Error): void {
    this.ownedEpoch = null
    if (error instanceof EngineError && error.code === 'STORAGE_FENCED') this.fence(error.message)
  }

  /** Why a write is refused now, or null when this server is the primary. */
  refusal(): EngineError | null {
    if (this.currentRole === 'follower') return PgStoreErrors.readOnlyFollower(this.options.primaryUrl)
    if (this.currentRole === 'fenced') return this.fencedError()
    return null
  }

  /**
   * After a writer failure: take ownership back under a new epoch, or learn that another primary has it. Only
   * then: a raised epoch under a writer still appending would refuse its next append and fence this server
   * (a lost session under a healthy writer is the background retake's, which keeps the epoch).
   */
  renew(): Promise<void> {
    return this.locks.serially(() => this.renewNow())
  }

  /** A promoted follower writes under `epoch` from now on, once `startWriter` has started its writer. */
  async takeOver(epoch: number, startWriter: () => Promise<void>): Promise<void> {
    this.lastEpoch = epoch
    this.ownedEpoch = epoch
    await startWriter()
    this.currentRole = 'primary'
  }

  /** Ends the session (releasing the lock) and stops a background retake. */
  close(): void {
    this.closed = true
    this.locks.current?.close()
  }

  /**
   * The ownership session ended (the database restarted, or this process stalled past the lease). Writes go
   * on meanwhile: the epoch, not the lock, keeps them safe. The lock is taken back in the background; if
   * another primary raised the epoch meanwhile, this server fences itself.
   */
  private leaseLost(error: Error): void {
    if (this.currentRole !== 'primary' || !this.port.writing()) return
    this.options.warn?.(`the PostgreSQL ownership session ended (${error.message}); taking it back`)
    void this.retakeLease()
  }

  private async retakeLease(): Promise<void> {
    if (this.retaking) return
    this.retaking = true
    try {
      while (this.currentRole === 'primary' && !this.closed) {
        try {
          // One ownership step at a time: a reload's renewal raising the epoch meanwhile is not a takeover.
          const done = await this.locks.serially(async () => {
            const owner = await this.openSession()
            const mine = this.lastEpoch
            const locked = await owner.tryLock()
            const current = await owner.currentEpoch()
            if (this.closed) {
              // closed while this attempt was under way: the session it opened must not outlive the store
              owner.close()
              return true
            }
            if (current !== mine) {
              this.fenceWriter(`another primary took over (epoch ${current}, this server had ${mine})`)
              return true
            }
            if (locked)
              this.options.warn?.('the PostgreSQL ownership session is back; the epoch is unchanged')
            return locked
          })
          if (done) return
        } catch {
          // the database does not answer yet: try again after a while
        }
        await new Promise((resolve) =>
          setTimeout(resolve, Math.max(50, Math.floor(this.options.leaseMs / 3))),
        )
      }
    } finally {
      this.retaking = false
    }
  }

  private fenceWriter(reason: string): void {
    this.fence(reason)
    this.port.failWriter(PgStoreErrors.fenced(reason))
  }

  private fence(reason: string): void {
    if (this.currentRole === 'fenced') return
    this.currentRole = 'fenced'
    this.fencedReason = reason.replace(
      /^this server no longer owns the PostgreSQL store and refuses writes: /,
      '',
    )
    this.options.warn?.(`fenced: ${this.fencedReason}`)
  }

  private fencedError(): EngineError {
    return PgStoreErrors.fenced(this.fencedReason ?? 'another primary took over')
  }

  private async renewNow(): Promise<void> {
    if (this.currentRole === 'fenced') throw this.fencedError()
    if (this.ownedEpoch !== null && this.locks.current?.alive) return
    const owner = await this.openSession()
    if (!(await owner.tryLock())) {
      const current = await owner.currentEpoch()
      if (current !== this.lastEpoch) {
        this.fence(
          `another primary holds the ownership lock under epoch ${current} (this server had ${this.lastEpoch})`,
        )
        throw this.fencedError()
      }
      throw new Error('the ownership lock is held by another session')
    }
    const renewed = await owner.renewEpoch(this.lastEpoch!, this.holder)
    if (renewed === null) {
      const current = await owner.currentEpoch()
      this.fence(`another primary took over (epoch ${current}, this server had ${this.lastEpoch})`)
      throw this.fencedError()
    }
    this.lastEpoch = renewed
    this.ownedEpoch = renewed
  }
}
