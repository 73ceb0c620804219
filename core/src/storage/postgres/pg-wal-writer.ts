import type { ClientBase } from 'pg'
import { EngineError } from '../../errors.js'
import { nextTxId } from '../tx-ids.js'
import { encodeWalRecord } from '../wal-record.js'
import type { Appended, WalListener } from '../wal-writer.js'
import { PgStoreErrors } from './pg-errors.js'
import { FENCED_INSERT_SQL, WAL_CHANNEL } from './schema.js'

/** The records of one transaction share one promise. */
class PgBatch {
  resolve!: () => void
  reject!: (error: Error) => void
  readonly durable = new Promise<void>((resolve, reject) => {
    this.resolve = resolve
    this.reject = reject
  })
  readonly seqs: number[] = []
  readonly lines: string[] = []
  constructor() {
    this.durable.catch(() => {})
  }
}

/** One statement per batch: the fenced insert, then a notification for followers, atomically. */
const APPEND_SQL = `WITH inserted AS (${FENCED_INSERT_SQL} RETURNING seq)
  SELECT count(*)::int AS n, pg_notify('${WAL_CHANNEL}', coalesce(max(seq), 0)::text) FROM inserted`

/**
 * The write-ahead log in PostgreSQL with group commit: every record appended while a batch's statement is
 * in flight joins the next batch, so concurrent writers share one commit. A batch is one autocommit
 * statement, so it commits whole or not at all; it is acknowledged only after PostgreSQL answered the
 * commit. As the file log, it is fail-stop: after a failure every append fails until the store resumes.
 */
export class PgWalWriter {
  private pending = new PgBatch()
  private inFlight = false
  private scheduled = false
  private failure: Error | null = null
  private nextSeq: number
  private readonly idleWaiters: (() => void)[] = []
  /** Highest sequence PostgreSQL has committed for us. */
  durableSeq: number
  bytesWritten = 0
  commits = 0
  listener: WalListener | null = null

  constructor(
    private readonly client: ClientBase,
    readonly epoch: number,
    lastSeq: number,
    private readonly now: () => number,
  ) {
    this.nextSeq = lastSeq + 1
    this.durableSeq = lastSeq
  }

  get lastSeq(): number {
    return this.nextSeq - 1
  }

  get failed(): Error | null {
    return this.failure
  }

  append(kind: string, body: unknown, tx: string = nextTxId()): Appended {
    if (this.failure !== null) {
      if (this.failure instanceof EngineError && this.failure.code === 'STORAGE_FENCED') throw this.failure
      throw PgStoreErrors.unavailableAfterFailure(this.failure)
    }
    const seq = this.nextSeq
    const batch = this.pending
    const line = encodeWalRecord({ seq, tx, at: this.now(), kind, body })
    this.nextSeq++ // only once the record encodes: a refused one leaves no hole in the sequence
    batch.seqs.push(seq)
    batch.lines.push(line.slice(0, -1))
    if (!this.inFlight && !this.scheduled) {
      this.scheduled = true
      setImmediate(this.endOfTick)
    }
    return { seq, tx, durable: batch.durable }
  }

  private readonly endOfTick = (): void => {
    this.scheduled = false
    if (!this.inFlight && this.pending.seqs.length > 0) void this.flush()
  }

  private async flush(): Promise<void> {
    const batch = this.pending
    this.pending = new PgBatch()
    this.inFlight = true
    try {
      if (this.failure !== null) throw this.failure
      const result = await this.client.query<{ n: number }>(APPEND_SQL, [
        batch.seqs[0],
        batch.lines.join('\n'),
        this.epoch,
      ])
      if (result.rows[0]?.n !== batch.seqs.length) {
        throw PgStoreErrors.fenced(`the ownership epoch moved past ${this.epoch} (another primary took over)`)
      }
    } catch (error) {
      this.inFlight = false
      this.fail(asFencing(error as Error, this.epoch), batch)
      return
    }
    this.inFlight = false
    this.commits++
    for (const line of batch.lines) this.bytesWritten += Buffer.byteLength(line) + 1
    const last = batch.seqs[batch.seqs.length - 1]!
    this.durableSeq = last
    this.listener?.durable(last)
    batch.resolve()
    if (this.pending.seqs.length > 0) void this.flush()
    else this.wakeIdle()
  }

  private fail(error: Error, batch: PgBatch): void {
    if (this.failure === null) {
      this.failure = error
      this.listener?.failed(error)
    }
    const failure = error instanceof EngineError ? error : PgStoreErrors.logFailed(error)
    batch.reject(failure)
    this.pending.reject(failure)
    this.pending = new PgBatch()
    this.wakeIdle()
  }

  private wakeIdle(): void {
    for (const wake of this.idleWaiters.splice(0)) wake()
  }

  /** Waits for everything appended so far to be committed (or to have failed). */
  async drain(): Promise<void> {
    while (this.inFlight || this.pending.seqs.length > 0) {
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve))
    }
  }

  /** The log fails now, as after a failed commit (the listener is told, appends throw). */
  injectFailure(error: Error): void {
    if (this.failure !== null) return
    this.failure = error
    this.listener?.failed(error)
  }
}

/** A sequence already taken means another primary appended there: that is a fencing, not a glitch. */
function asFencing(error: Error, epoch: number): Error {
  if ((error as { code?: string }).code === '23505') {
    return PgStoreErrors.fenced(
      `another primary already wrote this sequence (this server's epoch is ${epoch})`,
    )
  }
  return error
}
