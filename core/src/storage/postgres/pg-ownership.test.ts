import { describe, expect, it, vi } from 'vitest'
import { EngineError } from '../../errors.js'
import { PgStoreErrors } from './pg-errors.js'
import { type OwnerLock, type OwnerLocks, type OwnershipOptions, PrimaryOwnership } from './pg-ownership.js'

/** The owner row and the advisory lock, as one PostgreSQL database holds them for every session. */
class FakeDatabase {
  epoch: number | null = null
  lockHolder: FakeLock | null = null
  /** Answers tryLock with an error (the database does not answer). */
  down = false
  /** Milliseconds tryLock takes to answer. */
  delayMs = 0
}

class FakeLock implements OwnerLock {
  alive = true

  constructor(
    private readonly db: FakeDatabase,
    private readonly lost: (error: Error) => void = () => {},
  ) {}

  async tryLock(): Promise<boolean> {
    if (this.db.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.db.delayMs))
    if (this.db.down) throw new Error('connection refused')
    if (this.db.lockHolder !== null && this.db.lockHolder !== this) return false
    this.db.lockHolder = this
    return true
  }

  async takeEpoch(graphId: string): Promise<{ epoch: number; graphId: string }> {
    this.db.epoch = (this.db.epoch ?? 0) + 1
    return { epoch: this.db.epoch, graphId }
  }

  async renewEpoch(mine: number): Promise<number | null> {
    if (this.db.epoch !== mine) return null
    this.db.epoch = mine + 1
    return this.db.epoch
  }

  async currentEpoch(): Promise<number | null> {
    return this.db.epoch
  }

  close(): void {
    this.alive = false
    if (this.db.lockHolder === this) this.db.lockHolder = null
  }

  /** The session ends by itself (database restart, idle timeout): the lock goes with it. */
  lose(error: Error): void {
    if (!this.alive) return
    this.close()
    this.lost(error)
  }
}

class FakeLocks implements OwnerLocks {
  current: FakeLock | null = null
  opened = 0

  constructor(
    private readonly db: FakeDatabase,
    private readonly lost: (error: Error) => void,
  ) {}

  async open(): Promise<FakeLock> {
    if (this.current?.alive) return this.current
    this.opened++
    this.current = new FakeLock(this.db, this.lost)
    return this.current
  }

  serially<T>(step: () => Promise<T>): Promise<T> {
    return step()
  }
}

function ownershipOn(db: FakeDatabase, options: Partial<OwnershipOptions> = {}, writing = true) {
  const warnings: string[] = []
  const writerFailures: EngineError[] = []
  let locks: FakeLocks | null = null
  const ownership = new PrimaryOwnership(
    { role: 'primary', leaseMs: 150, primaryUrl: null, warn: (m) => warnings.push(m), ...options },
    { writing: () => writing, failWriter: (error) => writerFailures.push(error) },
    (lost) => {
      locks = new FakeLocks(db, lost)
      return locks
    },
  )
  return { ownership, warnings, writerFailures, locks: () => locks! }
}

/** A primary that opened its session and claimed the store. */
async function claimedPrimary(db = new FakeDatabase(), writing = true) {
  const made = ownershipOn(db, {}, writing)
  await made.ownership.openSession()
  await made.ownership.claim()
  return { db, ...made }
}

describe('PrimaryOwnership', () => {
  it('claims the store under a raised epoch and refuses to start when another session holds the lock', async () => {
    const { db, ownership } = await claimedPrimary()
    expect([ownership.role, ownership.epoch, ownership.writeEpoch, db.epoch]).toEqual(['primary', 1, 1, 1])
    expect(ownership.refusal()).toBeNull()

    const second = ownershipOn(db)
    await second.ownership.openSession()
    await expect(second.ownership.claim()).rejects.toMatchObject({
      code: 'STORAGE_OWNED_BY_ANOTHER_PRIMARY',
    })
    expect(second.ownership.writeEpoch).toBeNull()
    expect(db.epoch).toBe(1)
  })

  it('refuses writes on a follower, naming the primary', () => {
    const { ownership } = ownershipOn(new FakeDatabase(), {
      role: 'follower',
      primaryUrl: 'http://primary:7474',
    })
    expect(ownership.refusal()?.message).toBe(
      'this server is a read follower; send writes to the primary at http://primary:7474',
    )
  })

  it('after a plain writer failure, renews under the next epoch; with ownership held, renewal changes nothing', async () => {
    const { db, ownership } = await claimedPrimary()
    await ownership.renew()
    expect(db.epoch).toBe(1)

    ownership.writerFailed(new Error('connection reset'))
    expect([ownership.role, ownership.writeEpoch, ownership.epoch]).toEqual(['primary', null, 1])
    await ownership.renew()
    expect([ownership.writeEpoch, ownership.epoch, db.epoch]).toEqual([2, 2, 2])
  })

  it('a fenced writer fences the server: reason without the error prefix, refusal and renewal say it', async () => {
    const { ownership, warnings } = await claimedPrimary()
    ownership.writerFailed(
      PgStoreErrors.fenced('the ownership epoch moved past 1 (another primary took over)'),
    )
    expect(ownership.isFenced()).toBe(true)
    expect(ownership.fenceReason).toBe('the ownership epoch moved past 1 (another primary took over)')
    expect(warnings).toEqual(['fenced: the ownership epoch moved past 1 (another primary took over)'])
    const refusal = ownership.refusal()
    expect(refusal?.code).toBe('STORAGE_FENCED')
    expect(refusal?.message).toBe(
      'this server no longer owns the PostgreSQL store and refuses writes: the ownership epoch moved past 1 (another primary took over)',
    )
    await expect(ownership.renew()).rejects.toThrow(refusal!.message)
  })

  it('renewal fences when another session holds the lock under another epoch', async () => {
    const { db, ownership, locks } = await claimedPrimary()
    locks().current!.close()
    const other = new FakeLock(db)
    await other.tryLock()
    await other.takeEpoch('graph--other')
    ownership.writerFailed(new Error('connection reset'))
    await expect(ownership.renew()).rejects.toMatchObject({
      code: 'STORAGE_FENCED',
      message:
        'this server no longer owns the PostgreSQL store and refuses writes: another primary holds the ownership lock under epoch 2 (this server had 1)',
    })
    expect(ownership.role).toBe('fenced')
  })

  it('renewal waits, unfenced, while a session holds the lock without having raised the epoch', async () => {
    const { db, ownership, locks } = await claimedPrimary()
    locks().current!.close()
    const stale = new FakeLock(db)
    await stale.tryLock()
    ownership.writerFailed(new Error('connection reset'))
    const refused = await ownership.renew().catch((error: unknown) => error)
    expect(refused).not.toBeInstanceOf(EngineError)
    expect((refused as Error).message).toBe('the ownership lock is held by another session')
    expect(ownership.role).toBe('primary')

    stale.close()
    await ownership.renew()
    expect(ownership.writeEpoch).toBe(2)
  })

  it('renewal fences when the epoch moved while the lock was free', async () => {
    const { db, ownership, locks } = await claimedPrimary()
    locks().current!.close()
    db.epoch = 3
    ownership.writerFailed(new Error('connection reset'))
    await expect(ownership.renew()).rejects.toThrow(
      'refuses writes: another primary took over (epoch 3, this server had 1)',
    )
    expect(ownership.fenceReason).toBe('another primary took over (epoch 3, this server had 1)')
  })

  it('a lost session is taken back in the background while the epoch is unchanged', async () => {
    const { ownership, warnings, writerFailures, locks } = await claimedPrimary()
    locks().current!.lose(new Error('terminating connection'))
    await vi.waitFor(() => expect(warnings).toHaveLength(2))
    expect(warnings).toEqual([
      'the PostgreSQL ownership session ended (terminating connection); taking it back',
      'the PostgreSQL ownership session is back; the epoch is unchanged',
    ])
    expect([ownership.role, ownership.writeEpoch, locks().opened]).toEqual(['primary', 1, 2])
    expect(writerFailures).toEqual([])
  })

  it('the background retake waits out a database that does not answer', async () => {
    const { db, warnings, locks } = await claimedPrimary()
    db.down = true
    locks().current!.lose(new Error('terminating connection'))
    await new Promise((resolve) => setTimeout(resolve, 80))
    expect(warnings).toHaveLength(1)
    db.down = false
    await vi.waitFor(() => expect(warnings).toHaveLength(2))
    expect(warnings[1]).toBe('the PostgreSQL ownership session is back; the epoch is unchanged')
  })

  it('a lost session finding a raised epoch fences the server and fails its writer', async () => {
    const { db, ownership, warnings, writerFailures, locks } = await claimedPrimary()
    locks().current!.lose(new Error('terminating connection'))
    db.epoch = 2
    await vi.waitFor(() => expect(writerFailures).toHaveLength(1))
    expect(writerFailures[0]!.message).toBe(
      'this server no longer owns the PostgreSQL store and refuses writes: another primary took over (epoch 2, this server had 1)',
    )
    expect(ownership.role).toBe('fenced')
    expect(warnings[1]).toBe('fenced: another primary took over (epoch 2, this server had 1)')
  })

  it('a lost session does not matter to a primary without a writer', async () => {
    const { warnings, locks } = await claimedPrimary(new FakeDatabase(), false)
    locks().current!.lose(new Error('terminating connection'))
    await new Promise((resolve) => setTimeout(resolve, 80))
    expect([warnings, locks().opened]).toEqual([[], 1])
  })

  it('closing stops the background retake', async () => {
    const { db, ownership, warnings, locks } = await claimedPrimary()
    db.down = true
    locks().current!.lose(new Error('terminating connection'))
    // closed between attempts: no attempt follows
    await new Promise((resolve) => setTimeout(resolve, 20))
    ownership.close()
    db.down = false
    await new Promise((resolve) => setTimeout(resolve, 150))
    expect(warnings).toEqual([
      'the PostgreSQL ownership session ended (terminating connection); taking it back',
    ])
  })

  it('closing during a retake attempt closes the session that attempt opened', async () => {
    const { db, ownership, warnings, locks } = await claimedPrimary()
    db.delayMs = 60
    locks().current!.lose(new Error('terminating connection'))
    await new Promise((resolve) => setTimeout(resolve, 20))
    ownership.close()
    await new Promise((resolve) => setTimeout(resolve, 120))
    expect([locks().opened, locks().current!.alive, db.lockHolder]).toEqual([2, false, null])
    expect(warnings).toEqual([
      'the PostgreSQL ownership session ended (terminating connection); taking it back',
    ])
  })

  it('a promoted follower becomes primary only once its writer started', async () => {
    const db = new FakeDatabase()
    const { ownership } = ownershipOn(db, { role: 'follower' })
    const failing = ownership.takeOver(4, async () => {
      expect(ownership.writeEpoch).toBe(4)
      throw new Error('no connection for the writer')
    })
    await expect(failing).rejects.toThrow('no connection for the writer')
    expect(ownership.role).toBe('follower')

    await ownership.takeOver(5, async () => {})
    expect([ownership.role, ownership.epoch, ownership.writeEpoch]).toEqual(['primary', 5, 5])
    expect(ownership.refusal()).toBeNull()
  })
})
