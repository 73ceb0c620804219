import { DEFAULT_DATABASE_NAME, type ExplicitTransaction } from '@service/core'
import type { DetachedValue } from '@service/core/cypher'
import type { BoltBackend } from './backend.js'
import {
  type BoltFailure,
  Failures,
  failureMetadata,
  resultFailure,
  thrownFailure,
  UNKNOWN_ERROR,
} from './failures.js'
import type { BoltVersion } from './handshake.js'
import {
  MessageShapeError,
  mapField,
  optionalInteger,
  Request,
  type RequestMessage,
  Response,
} from './messages.js'
import { MAX_OPEN_RESULTS, OpenResults } from './open-results.js'
import type { PackValue } from './packstream/structure.js'
import type { UnpackLimits } from './packstream/unpacker.js'
import {
  completionSummary,
  deadlineOf,
  routingTableOf,
  statementOf,
  transactionExtras,
} from './request-extras.js'
import { ResponseWriter } from './response-writer.js'
import { OpenResult } from './result-stream.js'
import { checkTransactionOpen, pullStreamed } from './streamed-pull.js'
import { ParameterTypeError } from './values.js'
import { WireInput } from './wire-input.js'

/** Bolt server states (Bolt 5.1+; 5.0 goes from NEGOTIATION to READY on HELLO). */
export type BoltState =
  | 'negotiation'
  | 'authentication'
  | 'ready'
  | 'streaming'
  | 'tx_ready'
  | 'tx_streaming'
  | 'failed'
  | 'defunct'

export interface ConnectionEvents {
  message?(name: string): void
  /** A request failed for a reason the client is not told (a bug, a broken dependency). */
  internalError?(name: string, error: unknown): void
  /** A request answered: its message, time taken and the failure code (null on success). */
  handled?(name: string, ms: number, code: string | null): void
  failure?(code: string): void
  /** The connection ends (GOODBYE, protocol error, failed auth). */
  end?(reason: string): void
  /** A streamed result opened (true) or ended: done, discarded, failed or closed (false). */
  stream?(open: boolean): void
  /** Records of a streamed result sent by one slice. */
  streamed?(records: number): void
}

export interface ConnectionOptions {
  backend: BoltBackend
  connectionId: string
  /** `server` in HELLO's SUCCESS: starts with `Neo4j/5`. */
  serverAgent: string
  maxMessageBytes: number
  unpackLimits: UnpackLimits
  /** The handler budget: no statement runs past it, whatever `tx_timeout` asks. */
  requestTimeoutMs: number
  /** An explicit transaction with no statement for this long rolls back. */
  txIdleTimeoutMs: number
  /** The address the client reached (for ROUTE when the client sends none). */
  localAddress: string
  /** Past the connection limit: HELLO is answered with this failure and the connection ends. */
  refusal?: BoltFailure | null
  write(bytes: Buffer): void
  /** Resolves once the socket has written what it buffered (a streamed result waits for it between slices). */
  drained?(): Promise<void> | undefined
  close(): void
  /** Back-pressure: stop reading while too many messages wait (the socket's own buffers fill up). */
  pause?(): void
  resume?(): void
  events?: ConnectionEvents
}

/** Responses waiting in the packer are written once they pass this (or the queue is empty). */
const FLUSH_BYTES = 256 * 1024
/** Pipelined messages waiting: reading pauses at the high mark and resumes at the low one. */
const QUEUE_HIGH = 256
const QUEUE_LOW = 32

/** A Bolt connection's protocol: handshake, message framing and the server state machine. */
export class BoltConnection {
  private readonly input: WireInput
  private ended = false
  private readonly responses = new ResponseWriter()
  private version: BoltVersion = { major: 5, minor: 0 }
  state: BoltState = 'negotiation'
  private readonly queue: RequestMessage[] = []
  private pumping = false
  /** A RESET arrived: messages before it are IGNORED and the running statement is aborted. */
  private interrupts = 0
  private running: AbortController | null = null
  private authenticated = false
  private tx: ExplicitTransaction | null = null
  private txDatabase: string | undefined
  private readonly results: OpenResults
  private lastFailure: string | null = null
  private paused = false
  private draining = false

  constructor(private readonly options: ConnectionOptions) {
    this.results = new OpenResults((open) => options.events?.stream?.(open))
    this.input = new WireInput(options.maxMessageBytes, options.unpackLimits, {
      reply: (bytes) => options.write(bytes),
      agreed: (version) => {
        this.version = version
      },
      message: (message) => this.accept(message),
      broken: (reason) => this.end(reason),
    })
  }

  get protocolVersion(): BoltVersion {
    return this.version
  }

  /** Bytes from the socket. */
  receive(data: Buffer): void {
    this.input.receive(data)
  }

  /** The socket closed: an open transaction rolls back, a running statement stops. */
  closed(): void {
    this.ended = true
    this.input.stop()
    this.running?.abort()
    this.results.closeAll('closed with its connection')
    const tx = this.tx
    this.tx = null
    void tx?.rollback()
  }

  private accept(message: RequestMessage): void {
    this.options.events?.message?.(message.name)
    if (message.signature === Request.RESET) {
      this.interrupts++
      this.running?.abort()
    }
    this.queue.push(message)
    if (this.queue.length === QUEUE_HIGH) {
      this.paused = true
      this.options.pause?.()
    }
    if (!this.pumping) void this.pump()
  }

  /** Handles messages one at a time, in order; responses go out together once the queue is empty. */
  private async pump(): Promise<void> {
    this.pumping = true
    try {
      for (let message = this.queue.shift(); message !== undefined; message = this.queue.shift()) {
        if (this.ended) return
        if (this.paused && this.queue.length <= QUEUE_LOW) {
          this.paused = false
          this.options.resume?.()
        }
        await this.handle(message)
        if (this.queue.length === 0 || this.responses.size > FLUSH_BYTES) this.flush()
      }
    } finally {
      this.pumping = false
      this.flush()
      if (this.draining && !this.ended) this.end('the server is shutting down')
    }
  }

  /**
   * The server is shutting down: the request being answered finishes and is answered, then the connection
   * ends (an open transaction rolls back: the client cannot send its next statement to a closing server).
   */
  drain(): void {
    this.draining = true
    if (!this.pumping && !this.ended) this.end('the server is shutting down')
  }

  private async handle(message: RequestMessage): Promise<void> {
    if (message.signature === Request.GOODBYE) return this.end('goodbye')
    if (message.signature === Request.RESET) {
      this.interrupts--
      await this.reset()
      return this.success()
    }
    if (this.interrupts > 0 || this.state === 'failed') return this.reply(Response.IGNORED, [])
    const startedAt = performance.now()
    this.lastFailure = null
    try {
      await this.dispatch(message)
    } catch (error) {
      const failure =
        error instanceof MessageShapeError
          ? Failures.invalidFormat(error.message)
          : error instanceof ParameterTypeError
            ? Failures.parameterType(error.message)
            : thrownFailure(error)
      // What the wire says nothing of (an unknown error) goes to the operator's log.
      if (failure.code === UNKNOWN_ERROR) this.options.events?.internalError?.(message.name, error)
      this.fail(failure)
    }
    this.options.events?.handled?.(message.name, performance.now() - startedAt, this.lastFailure)
  }

  private async dispatch(message: RequestMessage): Promise<void> {
    const state = this.state
    switch (message.signature) {
      case Request.HELLO:
        if (state !== 'negotiation') return this.protocolViolation(message, state)
        return this.hello(message)
      case Request.LOGON:
        if (state !== 'authentication') return this.protocolViolation(message, state)
        return this.logon(mapField(message, 0))
      case Request.LOGOFF:
        if (state !== 'ready') return this.protocolViolation(message, state)
        this.authenticated = false
        this.state = 'authentication'
        return this.success()
      case Request.TELEMETRY:
        if (state !== 'ready') return this.protocolViolation(message, state)
        return this.success()
      case Request.ROUTE:
        if (state !== 'ready') return this.protocolViolation(message, state)
        return this.route(message)
      case Request.RUN:
        if (state === 'ready') return this.runAutoCommit(message)
        if (state === 'tx_ready' || state === 'tx_streaming') return this.runInTransaction(message)
        return this.protocolViolation(message, state)
      case Request.PULL:
      case Request.DISCARD:
        if (state !== 'streaming' && state !== 'tx_streaming') return this.protocolViolation(message, state)
        return this.page(message)
      case Request.BEGIN:
        if (state !== 'ready') return this.protocolViolation(message, state)
        return this.begin(mapField(message, 0))
      case Request.COMMIT:
        if (state !== 'tx_ready' && state !== 'tx_streaming') return this.protocolViolation(message, state)
        return this.commit()
      case Request.ROLLBACK:
        if (state !== 'tx_ready' && state !== 'tx_streaming') return this.protocolViolation(message, state)
        await this.endTransaction()
        return this.success()
    }
    this.fail(Failures.protocol(`unknown message 0x${message.signature.toString(16)}`))
  }

  private protocolViolation(message: RequestMessage, state: BoltState): void {
    this.fail(Failures.protocol(`${message.name} is not allowed in state ${state.toUpperCase()}`))
  }

  // ── Connection set-up ─────────────────────────────────────────────────────────────────────────────

  private hello(message: RequestMessage): void {
    const extra = mapField(message, 0)
    const refusal = this.options.refusal
    if (refusal !== undefined && refusal !== null) {
      this.refuseAuth(refusal)
      return
    }
    // Bolt 5.0 carries the credentials in HELLO; 5.1+ sends them in LOGON.
    if (this.version.minor === 0) {
      const refusal = this.options.backend.authenticate(extra)
      if (refusal !== null) {
        this.refuseAuth(refusal)
        return
      }
      this.authenticated = true
      this.state = 'ready'
    } else {
      this.state = 'authentication'
    }
    const metadata = new Map<string, PackValue>([
      ['server', this.options.serverAgent],
      ['connection_id', this.options.connectionId],
    ])
    if (this.version.minor >= 4) {
      metadata.set('hints', new Map<string, PackValue>([['telemetry.enabled', true]]))
    }
    this.success(metadata)
  }

  private logon(auth: Map<string, PackValue>): void {
    const refusal = this.options.backend.authenticate(auth)
    if (refusal !== null) {
      this.refuseAuth(refusal)
      return
    }
    this.authenticated = true
    this.state = 'ready'
    this.success()
  }

  /** A failed authentication (or a refused connection) ends the connection, as Neo4j does. */
  private refuseAuth(failure: BoltFailure): void {
    this.reply(Response.FAILURE, [failureMetadata(failure, this.version.minor)])
    this.options.events?.failure?.(failure.code)
    this.end(
      failure.code === 'Neo.ClientError.Security.Unauthorized' ? 'authentication failed' : failure.message,
    )
  }

  private route(message: RequestMessage): void {
    this.success(new Map([['rt', routingTableOf(message, this.options.backend, this.options.localAddress)]]))
  }

  // ── Statements ───────────────────────────────────────────────────────────────────────────────────

  private async runAutoCommit(message: RequestMessage): Promise<void> {
    const startedAt = Date.now()
    const { query, params } = statementOf(message)
    const extras = transactionExtras(mapField(message, 2))
    const admitted = this.options.backend.admit()
    if (admitted !== null) return this.fail(admitted)
    await this.options.backend.awaitBookmarks(extras.bookmarks)
    const controller = new AbortController()
    this.running = controller
    try {
      const result = await this.options.backend.run({
        query,
        params,
        mode: extras.read ? 'read' : 'auto',
        forcedMode: extras.read ? 'read' : null,
        workspaceId: this.options.backend.workspaceOf(extras.database),
        sessionId: extras.sessionId,
        deadline: deadlineOf(extras.timeoutMs, startedAt, this.options.requestTimeoutMs),
        signal: controller.signal,
        correlationId: this.options.connectionId,
        rows: 'stream',
      })
      if (result.status !== 'Success') return this.fail(resultFailure(result))
      const summary = completionSummary(result, extras.database, this.options.backend.bookmark())
      const deadline = extras.timeoutMs === undefined ? undefined : startedAt + extras.timeoutMs
      this.open(new OpenResult(-1, result, summary, startedAt, deadline), extras.database, false)
      this.state = 'streaming'
    } finally {
      this.running = null
    }
  }

  private async begin(extra: Map<string, PackValue>): Promise<void> {
    const extras = transactionExtras(extra)
    const admitted = this.options.backend.admit()
    if (admitted !== null) return this.fail(admitted)
    await this.options.backend.awaitBookmarks(extras.bookmarks)
    this.tx = this.options.backend.begin({
      workspaceId: this.options.backend.workspaceOf(extras.database),
      mode: extras.read ? 'read' : 'write',
      sessionId: extras.sessionId,
      idleTimeoutMs: this.options.txIdleTimeoutMs,
      ...(extras.timeoutMs === undefined ? {} : { deadline: Date.now() + extras.timeoutMs }),
    })
    this.txDatabase = extras.database
    this.results.restartNumbering()
    this.state = 'tx_ready'
    this.success(new Map([['db', extras.database ?? DEFAULT_DATABASE_NAME]]))
  }

  private async runInTransaction(message: RequestMessage): Promise<void> {
    const startedAt = Date.now()
    const tx = this.tx
    if (tx === null) return this.fail(Failures.protocol('no open transaction'))
    if (this.results.full) {
      return this.fail(
        Failures.protocol(
          `${MAX_OPEN_RESULTS} results are open on this connection: PULL or DISCARD one first`,
        ),
      )
    }
    const { query, params } = statementOf(message)
    const admitted = this.options.backend.admit()
    if (admitted !== null) return this.fail(admitted)
    const controller = new AbortController()
    this.running = controller
    try {
      const result = await tx.run({
        query,
        params,
        rows: 'stream',
        signal: controller.signal,
        deadline: startedAt + this.options.requestTimeoutMs,
      })
      if (result.status !== 'Success') return this.fail(resultFailure(result))
      const summary = completionSummary(result, this.txDatabase, null)
      const qid = this.results.takeQid()
      this.open(new OpenResult(qid, result, summary, startedAt), this.txDatabase, true)
      this.state = 'tx_streaming'
    } finally {
      this.running = null
    }
  }

  private open(result: OpenResult, database: string | undefined, inTransaction: boolean): void {
    this.results.add(result)
    const metadata = new Map<string, PackValue>([
      ['fields', result.fields],
      ['t_first', BigInt(Date.now() - result.startedAt)],
    ])
    if (inTransaction) metadata.set('qid', BigInt(result.qid))
    if (this.version.minor >= 8) metadata.set('db', database ?? DEFAULT_DATABASE_NAME)
    this.success(metadata)
  }

  /** PULL or DISCARD `n` records of one open result (`qid` -1: the last one opened). */
  private async page(message: RequestMessage): Promise<void> {
    const extra = mapField(message, 0)
    const n = optionalInteger(extra, 'n') ?? -1
    const asked = optionalInteger(extra, 'qid') ?? -1
    const result = this.results.find(asked)
    if (result === undefined) {
      this.fail(Failures.unknownResult(BigInt(asked)))
      return
    }
    if (result.cursor === undefined) {
      if (message.signature === Request.PULL) for (const row of result.take(n)) this.responses.record(row)
      else result.discard(n)
    } else if (message.signature === Request.PULL) {
      await this.pullStreamed(result, n, (row) => this.responses.record(row))
    } else if (n < 0) {
      // DISCARD of what remains stops the work.
      result.close('discarded')
    } else {
      await this.pullStreamed(result, n, () => {})
    }
    if (result.hasMore) {
      this.success(new Map([['has_more', true]]))
      return
    }
    this.results.drop(result)
    const metadata = new Map(result.summary)
    metadata.set('t_last', BigInt(Date.now() - result.startedAt))
    if (this.state === 'streaming') this.state = 'ready'
    else if (this.results.size === 0) this.state = 'tx_ready'
    this.success(metadata)
  }

  /** PULL (or DISCARD) `n` records of a streamed result (streamed-pull.ts); a failure closes it. */
  private async pullStreamed(
    result: OpenResult,
    n: number,
    sink: (row: DetachedValue[]) => void,
  ): Promise<void> {
    const controller = new AbortController()
    this.running = controller
    try {
      await pullStreamed(result, n, sink, {
        backend: this.options.backend,
        requestTimeoutMs: this.options.requestTimeoutMs,
        signal: controller.signal,
        check: () => {
          if (result.qid >= 0) checkTransactionOpen(this.tx)
        },
        ended: () => this.ended,
        breathe: async () => {
          this.flush()
          await this.options.drained?.()
          await new Promise<void>((resolve) => setImmediate(resolve))
        },
        ...(this.options.events?.streamed ? { streamed: this.options.events.streamed } : {}),
      })
    } catch (error) {
      result.close('failed')
      this.results.drop(result)
      throw error
    } finally {
      this.running = null
    }
  }

  private async commit(): Promise<void> {
    const tx = this.tx
    if (tx === null) return this.fail(Failures.protocol('no open transaction'))
    this.tx = null
    this.results.closeAll('closed by the commit')
    this.state = 'ready'
    await tx.commit()
    this.success(new Map([['bookmark', this.options.backend.bookmark()]]))
  }

  private async endTransaction(): Promise<void> {
    const tx = this.tx
    this.tx = null
    this.results.closeAll('closed by the end of its transaction')
    if (this.state !== 'failed' && this.state !== 'defunct') this.state = 'ready'
    await tx?.rollback()
  }

  private async reset(): Promise<void> {
    await this.endTransaction()
    this.state = this.authenticated ? 'ready' : this.state === 'defunct' ? 'defunct' : 'authentication'
  }

  // ── Responses ────────────────────────────────────────────────────────────────────────────────────

  private success(metadata: Map<string, PackValue> = new Map()): void {
    this.reply(Response.SUCCESS, [metadata])
  }

  private fail(failure: BoltFailure): void {
    this.lastFailure = failure.code
    this.options.events?.failure?.(failure.code)
    this.reply(Response.FAILURE, [failureMetadata(failure, this.version.minor)])
    // In a transaction the failure dooms it: the client sends RESET (or ROLLBACK after it).
    this.state = 'failed'
  }

  private reply(signature: number, fields: PackValue[]): void {
    this.responses.reply(signature, fields)
  }

  private flush(): void {
    const bytes = this.responses.take()
    if (bytes !== null && !this.ended) this.options.write(bytes)
  }

  private end(reason: string): void {
    this.flush()
    this.options.events?.end?.(reason)
    this.closed()
    this.options.close()
  }
}
