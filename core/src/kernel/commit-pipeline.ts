import type { CypherEngine, CypherRequest, CypherResult, RunOptions } from '../cypher/index.js'
import { isEngineError } from '../errors.js'
import type { GraphCatalog } from '../graph/catalog.js'
import type { CommitRecord } from '../graph/commit.js'
import type { GraphStore } from '../graph/store.js'
import type { DurableStore } from '../storage/durable-store.js'
import { nextTxId } from '../storage/tx-ids.js'
import type { Checkpointer } from './checkpointer.js'
import type { CommitHooks } from './commit-hooks.js'
import { isWriteCall } from './cypher-call.js'
import { KernelErrors } from './errors.js'
import type { Histories } from './histories.js'
import type { LedgerEntry, LedgerRegistry } from './ledger.js'
import { graphWalBody } from './recovery.js'
import type { CypherCall, DerivedIndex, TransactFn, TransactOptions, TransactResult } from './types.js'
import type { VisibilityGate } from './visibility-gate.js'

/** A write's commits and what it waits for before it is acknowledged. */
export interface PendingDurability {
  /** The state generation the write began on: a write that straddles a reload must not commit. */
  epoch: number
  durables: Promise<void>[]
  commits: { seq: number; tx: string; workspace: string; ops: CommitRecord['ops'] }[]
  /** The request's, for the progress of its batches. */
  correlationId?: string | undefined
}

/** What the commit pipeline uses of the kernel that owns it (read when used: some are made after it). */
export interface PipelineHost {
  readonly catalog: GraphCatalog
  readonly ledgers: LedgerRegistry
  readonly histories: Histories
  readonly gate: VisibilityGate
  readonly checkpointer: Checkpointer
  readonly commitHooks: CommitHooks
  readonly derived: readonly DerivedIndex[]
  readonly cypherEngine: CypherEngine
  /** The durable store once the kernel opened in persistent mode, else null. */
  storage(): DurableStore | null
  /** Bumped each time the state is rebuilt from the durable log after a storage failure. */
  epoch(): number
  assertOpen(): void
}

/**
 * The kernel's write path: a write (Cypher or a feature's transaction) runs on a transaction overlay, its WAL
 * record is buffered for group commit, it publishes at once, and its caller is answered once the record is
 * durable and the commit hooks ran; reads see only durable commits (the visibility gate).
 */
export class CommitPipeline {
  /** Commit sequence in ephemeral mode (persistent mode uses the WAL's). */
  localSeq = 0

  constructor(private readonly host: PipelineHost) {}

  /** Feature records share the WAL with graph commits (nothing to do when ephemeral). */
  journal(kind: string, body: unknown): Promise<void> {
    const storage = this.host.storage()
    if (storage === null) return Promise.resolve()
    const refusal = storage.writeRefusal()
    if (refusal !== null) return Promise.reject(refusal)
    return storage.append(kind, body).durable
  }

  /**
   * Called between prepare and publish of a graph write: buffer the WAL line (group commit) and let the write
   * publish at once; the request itself waits for durability before it is acknowledged. Synchronous: the
   * commit publishes right after, in the same tick, so no await sits in between.
   */
  logCommit(
    commit: CommitRecord,
    workspaceId: string,
    pending: PendingDurability | undefined,
    ledgers: LedgerEntry[] = [],
  ): void {
    const storage = this.host.storage()
    if (storage === null) {
      const seq = ++this.localSeq
      if (commit.ops.length > 0) this.host.histories.capture(workspaceId, commit, seq)
      if (pending !== undefined)
        pending.commits = withItem(pending.commits, {
          seq,
          tx: nextTxId(),
          workspace: workspaceId,
          ops: commit.ops,
        })
      return
    }
    const refusal = storage.writeRefusal()
    if (refusal !== null) throw refusal
    if (this.host.gate.failed) throw this.host.gate.failed
    if (pending !== undefined && pending.epoch !== this.host.epoch()) throw KernelErrors.writeOutlivedReload()
    // A checkpoint image being written keeps what this commit changes ahead of its walk (it is above S).
    this.host.checkpointer.beforePublish(workspaceId, commit.ops)
    const appended = storage.append('graph', graphWalBody(workspaceId, commit.ops, ledgers))
    if (commit.ops.length > 0) this.host.histories.capture(workspaceId, commit, appended.seq)
    if (pending !== undefined) {
      const written = { seq: appended.seq, tx: appended.tx, workspace: workspaceId, ops: commit.ops }
      pending.commits = withItem(pending.commits, written)
    }
    // The log tells the gate per batch (see open()); the promise is shared by the batch's records.
    this.host.gate.published(appended.seq)
    // One entry for the records of one log batch (they share its promise).
    if (pending !== undefined && pending.durables.at(-1) !== appended.durable)
      pending.durables = withItem(pending.durables, appended.durable)
  }

  /** Runs one Cypher call (shape already checked); writes wait for durability and run the commit hooks. */
  runCypher(call: CypherCall, workspaceId: string): Promise<CypherResult> {
    const request: CypherRequest = { query: call.query, mode: call.mode, workspaceId }
    if (call.params) request.params = call.params
    if (call.rows) request.rows = call.rows
    const options: RunOptions = {}
    if (call.signal) options.signal = call.signal
    if (call.deadline) options.deadline = call.deadline
    if (call.mode === 'validate') return this.host.cypherEngine.run(request, options)
    if (!isWriteCall(this.host.cypherEngine, call)) return this.runRead(request, options)
    try {
      this.assertWritable()
      const entered = this.host.gate.enterWrite()
      if (entered !== undefined) return entered.then(() => this.runWrite(call, request, options))
      return this.runWrite(call, request, options)
    } catch (error) {
      return Promise.reject(error) // a refusal, or a derived index failing after the write (rejects as before)
    }
  }

  private async runRead(request: CypherRequest, options: RunOptions): Promise<CypherResult> {
    // LOAD CSV reads over many turns: it finds its durable moment in its writer's turn (awaitReadable above).
    if (this.host.cypherEngine.readsOverTurns(request.query))
      return await this.host.cypherEngine.run(request, options)
    await this.host.gate.enterRead()
    try {
      // Reads execute synchronously inside run(), on a version with no non-durable commit in it.
      return await this.host.cypherEngine.run(request, options)
    } finally {
      this.host.gate.exitRead()
    }
  }

  /** At once when the workspace's writer is idle, else in its turn; no async frame of its own. May throw. */
  private runWrite(call: CypherCall, request: CypherRequest, options: RunOptions): Promise<CypherResult> {
    const pending: PendingDurability = {
      epoch: this.host.epoch(),
      durables: [],
      commits: [],
      correlationId: call.correlationId,
    }
    options.context = pending
    const now = this.host.cypherEngine.executeWriteNow(request, options)
    if (now !== undefined) return this.afterWrite(pending, call.sessionId, undefined, now.result)
    return this.host.cypherEngine
      .execute(request, options)
      .then(({ result }) => this.afterWrite(pending, call.sessionId, undefined, result))
  }

  indexCommit(workspaceId: string, ops: CommitRecord['ops']): void {
    const store = this.host.catalog.workspace(workspaceId)
    for (const index of this.host.derived) index.onCommit(workspaceId, store, ops)
  }

  /**
   * Derived indexes, durability, then the commit hooks: everything a write does after it publishes. Resolves
   * to `answer` (the caller's result: no further promise and closure per write to hand it on).
   */
  private afterWrite<T>(
    pending: PendingDurability,
    sessionId: string | undefined,
    label: string | undefined,
    answer: T,
  ): Promise<T> {
    for (const c of pending.commits) if (c.ops.length > 0) this.indexCommit(c.workspace, c.ops)
    const durables = pending.durables
    // A batch's records share one promise, so there is mostly one to wait for.
    const durable = durables.length === 1 ? (durables[0] as Promise<void>) : Promise.all(durables)
    return durable.then(
      () => {
        const running = this.committed(pending, sessionId, label)
        return running === undefined ? answer : running.then(() => answer)
      },
      (error: unknown) => {
        throw isEngineError(error) ? error : KernelErrors.durabilityFailed(error as Error)
      },
    )
  }

  /** The commit hooks, then a checkpoint if one is due. */
  private committed(
    pending: PendingDurability,
    sessionId?: string,
    label?: string,
  ): Promise<void> | undefined {
    const running = this.host.commitHooks.run(pending.commits, sessionId, label)
    if (running !== undefined) return running.then(() => this.host.checkpointer.maybeStart())
    this.host.checkpointer.maybeStart()
    return undefined
  }

  transact<T>(
    workspaceId: string,
    fn: TransactFn<T>,
    options: TransactOptions = {},
  ): Promise<TransactResult<T>> {
    return this.transaction(workspaceId, fn, options)
  }

  /** A write that waits between its slices holds the workspace's write turn; its overlay stays private. */
  transactInSlices<T>(
    workspaceId: string,
    fn: TransactFn<Promise<T>>,
    options: TransactOptions = {},
  ): Promise<TransactResult<T>> {
    return this.transaction(workspaceId, fn, options)
  }

  private async transaction<T>(
    workspaceId: string,
    fn: TransactFn<T | Promise<T>>,
    options: TransactOptions,
  ): Promise<TransactResult<T>> {
    this.host.assertOpen()
    this.assertWritable()
    await this.host.gate.enterWrite()
    const pending: PendingDurability = { epoch: this.host.epoch(), durables: [], commits: [] }
    const store = this.host.catalog.workspace(workspaceId)
    const value = await store.exclusive(async () => {
      const tx = store.begin()
      const { writer, entries } = this.host.ledgers.collector()
      const returned = fn(tx, store, writer)
      const value = returned instanceof Promise ? await returned : returned
      const commit = tx.prepare()
      // Declared constraints hold for every write: explicit transactions and feature writes too.
      if (commit.ops.length > 0) this.host.cypherEngine.schema.checkCommit(workspaceId, tx, commit.ops)
      if (commit.ops.length > 0 || entries.length > 0) {
        this.logCommit(commit, workspaceId, pending, entries)
        if (commit.ops.length > 0) store.publish(commit, store.sequence + 1)
        this.host.ledgers.apply(entries)
      }
      return value
    })
    const durable = this.afterWrite(pending, options.sessionId, options.label, undefined)
    const last = pending.commits.at(-1)
    const result = { value, sequence: last?.seq ?? null, transaction_id: last?.tx ?? null }
    if (options.deferDurability !== true) {
      await durable
      return result
    }
    durable.catch(() => {})
    return { ...result, durable }
  }

  async readGraph<T>(workspaceId: string, fn: (store: GraphStore) => T): Promise<T> {
    this.host.assertOpen()
    await this.host.gate.enterRead()
    try {
      return fn(this.host.catalog.workspace(workspaceId))
    } finally {
      this.host.gate.exitRead()
    }
  }

  /** A follower or a fenced primary refuses writes with its own reason, before any storage fault's. */
  private assertWritable(): void {
    const refusal = this.host.storage()?.writeRefusal()
    if (refusal) throw refusal
  }
}

/**
 * `list` with `item` appended. A write's lists mostly hold one entry: the first becomes a literal of one,
 * where a push onto the empty list would reserve 17 slots (~150 bytes of garbage per write).
 */
function withItem<T>(list: T[], item: T): T[] {
  if (list.length === 0) return [item]
  list.push(item)
  return list
}
