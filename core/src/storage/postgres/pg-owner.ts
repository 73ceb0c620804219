import { connectClient, dropClient, type PgClient } from './pg-connect.js'
import { OWNER_LOCK_KEY } from './schema.js'

/**
 * The database session that holds (or tries to take) the ownership lock. The lock is a session advisory
 * lock, so it ends with the session; the session is kept alive by a heartbeat and ends by itself, by the
 * server's idle_session_timeout, when the heartbeat stops (a paused or partitioned primary). That bounds
 * how long a dead primary blocks a takeover to the lease.
 */
export class OwnerSession {
  private timer: NodeJS.Timeout | null = null
  private lost = false

  private constructor(
    private readonly client: PgClient,
    private readonly onLost: (error: Error) => void,
  ) {}

  static async open(url: string, leaseMs: number, onLost: (error: Error) => void): Promise<OwnerSession> {
    let session: OwnerSession | null = null
    const client = await connectClient(url, 'service-owner', (error) => session?.lose(error))
    session = new OwnerSession(client, onLost)
    try {
      await client.query(`SET idle_session_timeout = ${Math.max(100, Math.round(leaseMs))}`)
    } catch (error) {
      dropClient(client)
      throw error
    }
    client.on('end', () => session?.lose(new Error('the ownership session ended')))
    const beat = Math.max(50, Math.floor(leaseMs / 3))
    session.timer = setInterval(() => {
      client.query('SELECT 1').catch((error: Error) => session?.lose(error))
    }, beat)
    session.timer.unref()
    return session
  }

  get alive(): boolean {
    return !this.lost
  }

  private lose(error: Error): void {
    if (this.lost) return
    this.lost = true
    this.stopHeartbeat()
    dropClient(this.client)
    this.onLost(error)
  }

  private stopHeartbeat(): void {
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = null
  }

  async tryLock(): Promise<boolean> {
    const result = await this.client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [
      OWNER_LOCK_KEY,
    ])
    return result.rows[0]?.ok === true
  }

  /** With the lock held: creates the owner row, or raises its epoch, and returns the epoch to write under. */
  async takeEpoch(graphId: string, holder: string): Promise<{ epoch: number; graphId: string }> {
    const result = await this.client.query<{ epoch: string; graph_id: string }>(
      `INSERT INTO service_owner (id, graph_id, epoch, holder) VALUES (1, $1, 1, $2)
       ON CONFLICT (id) DO UPDATE SET epoch = service_owner.epoch + 1, holder = $2, updated_at = now()
       RETURNING epoch, graph_id`,
      [graphId, holder],
    )
    const row = result.rows[0]!
    return { epoch: Number(row.epoch), graphId: row.graph_id }
  }

  /** With the lock held again after losing it: a new epoch only if nobody took over meanwhile. */
  async renewEpoch(mine: number, holder: string): Promise<number | null> {
    const result = await this.client.query<{ epoch: string }>(
      `UPDATE service_owner SET epoch = epoch + 1, holder = $2, updated_at = now()
       WHERE id = 1 AND epoch = $1 RETURNING epoch`,
      [mine, holder],
    )
    return result.rowCount === 1 ? Number(result.rows[0]!.epoch) : null
  }

  async currentEpoch(): Promise<number | null> {
    const result = await this.client.query<{ epoch: string }>('SELECT epoch FROM service_owner WHERE id = 1')
    return result.rows[0] === undefined ? null : Number(result.rows[0].epoch)
  }

  /** Ends the session (and so releases the lock) on purpose; not reported as a loss. */
  close(): void {
    this.lost = true
    this.stopHeartbeat()
    dropClient(this.client)
  }
}

/**
 * The ownership session of one storage: opened once however many callers ask at the same time (after a
 * database restart the lease's background retake and a reload's renewal both ask; two sessions left the lock
 * with one while the other, kept as the owner, was refused it on every later attempt), and ownership steps
 * run one after another (a renewal raising the epoch mid-retake is not another primary taking over).
 */
export class OwnerSessions {
  private owner: OwnerSession | null = null
  private opening: Promise<OwnerSession> | null = null
  private turn: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly url: string,
    private readonly leaseMs: number,
    private readonly lost: (error: Error) => void,
  ) {}

  get current(): OwnerSession | null {
    return this.owner
  }

  open(): Promise<OwnerSession> {
    if (this.owner?.alive) return Promise.resolve(this.owner)
    this.opening ??= OwnerSession.open(this.url, this.leaseMs, this.lost)
      .then((owner) => {
        this.owner = owner
        return owner
      })
      .finally(() => {
        this.opening = null
      })
    return this.opening
  }

  serially<T>(step: () => Promise<T>): Promise<T> {
    const run = this.turn.then(step, step)
    this.turn = run.catch(() => undefined)
    return run
  }
}
