import {
  type CypherEngine,
  type CypherRequest,
  type CypherResult,
  emptySummary,
  neo4jStatusCode,
  type RowForm,
} from '../cypher/index.js'
import { EngineError } from '../errors.js'
import type { Transaction } from '../graph/transaction.js'
import type { CypherCall, TransactFn, TransactOptions, TransactResult } from './types.js'

/** One statement of an explicit transaction. */
export interface TransactionStatement {
  query: string
  params?: Record<string, unknown> | undefined
  rows?: RowForm | undefined
  signal?: AbortSignal | undefined
  /** Epoch ms; the statement stops with REQUEST_TIMEOUT past it (or past the transaction's own deadline). */
  deadline?: number | undefined
}

export interface BeginOptions {
  workspaceId: string
  /** `read`: every statement is a read of the published graph and nothing is held; `write` takes the
   * workspace's write turn until commit or rollback. */
  mode: 'read' | 'write'
  sessionId?: string | undefined
  /** With no statement for this long, the transaction rolls back by itself. */
  idleTimeoutMs: number
  /** Epoch ms by which it must have committed (Bolt's `tx_timeout`); past it, it rolls back. */
  deadline?: number | undefined
}

export type TransactionState = 'open' | 'committed' | 'rolled_back' | 'timed_out' | 'failed'

/**
 * A multi-statement transaction: `run` statements, then `commit` (applied atomically, acknowledged once
 * durable, one WAL record) or `rollback` (nothing of it remains). Reads inside see its own writes.
 */
export interface ExplicitTransaction {
  readonly workspaceId: string
  readonly mode: 'read' | 'write'
  state(): TransactionState
  run(statement: TransactionStatement): Promise<CypherResult>
  /** The commit sequence of the write (null when it changed nothing). */
  commit(): Promise<{ sequence: number | null }>
  rollback(): Promise<void>
}

/** What an explicit transaction needs of the kernel. */
export interface TransactionPorts {
  cypherEngine: CypherEngine
  transactInSlices<T>(
    workspaceId: string,
    fn: TransactFn<Promise<T>>,
    options?: TransactOptions,
  ): Promise<TransactResult<T>>
  /** An auto-commit read on the published graph. */
  runCypher(call: CypherCall, workspaceId: string): Promise<CypherResult>
}

type Command =
  | { kind: 'run'; statement: TransactionStatement; done: (result: CypherResult) => void; fail: Fail }
  | { kind: 'commit' }
  | { kind: 'rollback' }
type Fail = (error: unknown) => void

/** Thrown out of the write turn to publish nothing. */
const ROLLED_BACK = Symbol('rolled back')

const closed = (state: TransactionState): EngineError =>
  state === 'timed_out'
    ? new EngineError('TRANSACTION_TIMED_OUT', 'the transaction timed out and was rolled back')
    : new EngineError('TRANSACTION_CLOSED', `the transaction is already ${state.replace('_', ' ')}`)

export function beginTransaction(ports: TransactionPorts, options: BeginOptions): ExplicitTransaction {
  return options.mode === 'read' ? new ReadTransaction(ports, options) : new WriteTransaction(ports, options)
}

/** Shared bookkeeping: state, the idle and total clocks. */
abstract class BaseTransaction implements ExplicitTransaction {
  protected current: TransactionState = 'open'
  private timer: NodeJS.Timeout | undefined

  constructor(
    protected readonly ports: TransactionPorts,
    protected readonly options: BeginOptions,
  ) {
    this.armTimer()
  }

  get workspaceId(): string {
    return this.options.workspaceId
  }

  get mode(): 'read' | 'write' {
    return this.options.mode
  }

  state(): TransactionState {
    return this.current
  }

  abstract run(statement: TransactionStatement): Promise<CypherResult>
  abstract commit(): Promise<{ sequence: number | null }>
  abstract rollback(): Promise<void>
  /** The clock ran out while no statement was running. */
  protected abstract expire(): void

  /** A statement read on the published graph (nothing held): as an auto-commit read. */
  protected readStatement(statement: TransactionStatement): Promise<CypherResult> {
    return this.autoCommit(statement, 'read')
  }

  /** The statement as an auto-commit request of its own, the idle clock stopped while it runs. */
  protected async autoCommit(statement: TransactionStatement, mode: 'read' | 'write'): Promise<CypherResult> {
    this.disarmTimer()
    try {
      return await this.ports.runCypher(
        {
          query: statement.query,
          params: statement.params,
          mode,
          rows: statement.rows,
          signal: statement.signal,
          deadline: this.statementDeadline(statement),
        },
        this.options.workspaceId,
      )
    } finally {
      if (this.current === 'open') this.armTimer()
    }
  }

  protected statementDeadline(statement: TransactionStatement): number | undefined {
    const own = statement.deadline
    const total = this.options.deadline
    if (own === undefined) return total
    return total === undefined ? own : Math.min(own, total)
  }

  /** Idle clock, bounded by the total deadline; re-armed after every statement. */
  protected armTimer(): void {
    this.disarmTimer()
    let wait = this.options.idleTimeoutMs
    if (this.options.deadline !== undefined) wait = Math.min(wait, this.options.deadline - Date.now())
    this.timer = setTimeout(
      () => {
        if (this.current !== 'open') return
        this.current = 'timed_out'
        this.expire()
      },
      Math.max(0, wait),
    )
    this.timer.unref()
  }

  protected disarmTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
  }

  protected end(state: TransactionState): void {
    this.disarmTimer()
    this.current = state
  }
}

/** Reads only: each statement reads the published graph; nothing is held between statements. */
class ReadTransaction extends BaseTransaction {
  async run(statement: TransactionStatement): Promise<CypherResult> {
    if (this.current !== 'open') throw closed(this.current)
    return this.readStatement(statement)
  }

  async commit(): Promise<{ sequence: number | null }> {
    if (this.current !== 'open') throw closed(this.current)
    this.end('committed')
    return { sequence: null }
  }

  async rollback(): Promise<void> {
    if (this.current === 'open') this.end('rolled_back')
  }

  protected expire(): void {}
}

/**
 * Takes the workspace's write turn (its single-writer queue) at its first write and holds it to commit or
 * rollback: from then on statements run one by one on one transaction overlay, and the commit is prepared,
 * logged and published once. Other writers of the workspace wait; readers go on reading the published
 * graph. Statements before the first write read the published graph, so a transaction that only reads (a
 * driver's default write-mode transaction often does) holds nothing: read committed, as Neo4j's default.
 */
class WriteTransaction extends BaseTransaction {
  private readonly queue: Command[] = []
  private wake: (() => void) | undefined
  /** The write turn, once the first write took it. */
  private outcome: Promise<TransactResult<void>> | null = null
  /** A statement failed: the transaction can only roll back (as in Neo4j). */
  private doomed = false
  /** The write turn ended without a commit (refused at begin: a follower, a failed log): why. */
  private broken: unknown = null
  /** The write turn was taken: statements run now. */
  private serving = false
  /** A schema command ran: the transaction takes no data write. */
  private schemaChanged = false

  private start(): Promise<TransactResult<void>> {
    const outcome = this.ports.transactInSlices(this.options.workspaceId, (tx) => this.serve(tx), {
      sessionId: this.options.sessionId,
    })
    // Observed here so a rollback never surfaces as an unhandled rejection; a refusal fails what waits.
    outcome.catch((error: unknown) => {
      if (error === ROLLED_BACK) return
      this.broken = error
      this.failQueued(error)
    })
    return outcome
  }

  async run(statement: TransactionStatement): Promise<CypherResult> {
    if (this.broken !== null) throw this.broken
    if (this.current !== 'open') throw closed(this.current)
    const shape = this.shapeOf(statement.query)
    if (shape === 'schema') return this.schemaStatement(statement)
    if (shape === 'write' && this.schemaChanged) {
      return this.refuseMix('a data write cannot follow a schema command in one transaction')
    }
    if (this.outcome === null && shape === 'read') {
      const result = await this.readStatement(statement)
      if (result.status !== 'Success') this.doomed = true
      return result
    }
    this.disarmTimer()
    this.outcome ??= this.start()
    const waitUntil = this.serving ? undefined : this.statementDeadline(statement)
    return new Promise((done, fail) => {
      this.send({ kind: 'run', statement, done, fail })
      if (waitUntil !== undefined) this.boundTurnWait(waitUntil)
    })
  }

  /**
   * Another transaction may hold the workspace's write turn: waiting for it past the statement's deadline
   * gives up this transaction (a transient refusal, so drivers retry it) instead of waiting on.
   */
  private boundTurnWait(until: number): void {
    const timer = setTimeout(
      () => {
        if (this.serving || this.current !== 'open') return
        const error = new EngineError(
          'WRITE_TURN_TIMEOUT',
          "another transaction held the workspace's write turn past this statement's deadline; retry",
        )
        this.end('failed')
        this.broken = error
        this.failQueued(error)
        // When the turn comes, nothing of this transaction is applied.
        this.send({ kind: 'rollback' })
      },
      Math.max(0, until - Date.now()),
    )
    timer.unref()
  }

  /** How the query plans (one that does not compile is run as a read, which reports the error). */
  private shapeOf(query: string): 'read' | 'write' | 'schema' {
    try {
      const plan = this.ports.cypherEngine.plan(query)
      return plan.schema !== undefined ? 'schema' : plan.isWrite ? 'write' : 'read'
    } catch {
      return 'read'
    }
  }

  /**
   * A schema command (`CREATE INDEX …`) is journaled and committed on its own, so it runs at once as an
   * auto-commit write. As in Neo4j, a transaction holds schema commands or data writes, not both (drivers
   * and LangChain send `CREATE CONSTRAINT` through a managed transaction); unlike Neo4j, a rollback does not
   * undo a schema change already made.
   */
  private async schemaStatement(statement: TransactionStatement): Promise<CypherResult> {
    if (this.outcome !== null) {
      return this.refuseMix('a schema command cannot follow data writes in one transaction')
    }
    this.schemaChanged = true
    return this.autoCommit(statement, 'write')
  }

  private refuseMix(message: string): CypherResult {
    this.doomed = true
    return {
      status: 'Rejected',
      data: null,
      mutation_summary: emptySummary(),
      validation_errors: [
        {
          code: 'IMPLICIT_TRANSACTION_REQUIRED',
          message,
          neo4j_code: neo4jStatusCode('IMPLICIT_TRANSACTION_REQUIRED'),
          field: 'query_text',
        },
      ],
      warnings: [],
    }
  }

  async commit(): Promise<{ sequence: number | null }> {
    if (this.current !== 'open') throw closed(this.current)
    if (this.doomed) {
      await this.rollback()
      throw new EngineError('TRANSACTION_FAILED', 'a statement of the transaction failed: it was rolled back')
    }
    this.end('committed')
    if (this.outcome === null) return { sequence: null }
    this.send({ kind: 'commit' })
    try {
      const { sequence } = await this.outcome
      return { sequence }
    } catch (error) {
      this.current = 'failed'
      throw error
    }
  }

  async rollback(): Promise<void> {
    if (this.current !== 'open') return
    this.end('rolled_back')
    if (this.outcome === null) return
    this.send({ kind: 'rollback' })
    await this.outcome.then(
      () => undefined,
      () => undefined,
    )
  }

  protected expire(): void {
    if (this.outcome !== null) this.send({ kind: 'rollback' })
  }

  private send(command: Command): void {
    this.queue.push(command)
    const wake = this.wake
    this.wake = undefined
    wake?.()
  }

  private async next(): Promise<Command> {
    for (;;) {
      const command = this.queue.shift()
      if (command !== undefined) return command
      await new Promise<void>((resolve) => {
        this.wake = resolve
      })
    }
  }

  /** The write turn: serves commands until commit (returns, so the kernel commits) or rollback (throws). */
  private async serve(tx: Transaction): Promise<void> {
    this.serving = true
    for (;;) {
      const command = await this.next()
      if (command.kind === 'commit') return
      if (command.kind === 'rollback') {
        this.failQueued(closed(this.current))
        throw ROLLED_BACK
      }
      this.runOn(tx, command)
    }
  }

  private runOn(tx: Transaction, command: Extract<Command, { kind: 'run' }>): void {
    const { statement } = command
    const request: CypherRequest = {
      query: statement.query,
      mode: 'write',
      workspaceId: this.options.workspaceId,
    }
    if (statement.params !== undefined) request.params = statement.params
    if (statement.rows !== undefined) request.rows = statement.rows
    const deadline = this.statementDeadline(statement)
    try {
      const outcome = this.ports.cypherEngine.executeInTransaction(tx, request, {
        ...(statement.signal === undefined ? {} : { signal: statement.signal }),
        ...(deadline === undefined ? {} : { deadline }),
      })
      if (outcome.result.status !== 'Success') this.doomed = true
      command.done(outcome.result)
    } catch (error) {
      this.doomed = true
      command.fail(error)
    }
    if (this.current === 'open') this.armTimer()
  }

  /** Statements sent after the rollback (a race with the idle clock) or a refusal fail instead of hanging. */
  private failQueued(error: unknown): void {
    for (const command of this.queue.splice(0)) {
      if (command.kind === 'run') command.fail(error)
    }
  }
}
