import type { GraphCatalog } from '../graph/catalog.js'
import { DEFAULT_DATABASE_NAME, DEFAULT_WORKSPACE_ID } from '../graph/catalog.js'
import type { CommitRecord } from '../graph/commit.js'
import type { GraphStore } from '../graph/store.js'
import type { Transaction } from '../graph/transaction.js'
import type { GraphReader } from '../graph/types.js'
import { answerRows, collectAnswer, explainAnswer, type OutcomeContext, type RowForm } from './answer.js'
import type { CompiledWrite } from './compiled-write/index.js'
import type { CsvImportPolicy } from './csv/location.js'
import { collectCsv } from './csv/run.js'
import { budgetError, CypherError } from './errors.js'
import { type BatchProgress, runBatched } from './executor/batched-write.js'
import {
  type CypherBudgets,
  DEFAULT_BUDGETS,
  type ExecContext,
  emptySummary,
  type MutationSummary,
} from './executor/context.js'
import { functionCatalog } from './function-table.js'
import { type CypherOutcome, type CypherResult, durabilityFailed, failure } from './outcome.js'
import { bindParams } from './params.js'
import type { BatchedPlan, CsvPlan, Plan } from './plan.js'
import { PlanCache } from './plan-cache.js'
import { builtinRegistry, type ProcedureDef, type ProcedureRegistry } from './procedures/index.js'
import { toJson } from './result.js'
import { SchemaCatalog } from './schema/catalog.js'
import type { Value } from './values.js'

export type CypherMode = 'read' | 'write' | 'validate' | 'auto'

export interface CypherRequest {
  query: string
  params?: Record<string, unknown>
  mode: CypherMode
  workspaceId?: string
  /**
   * `detached`: rows hold typed values (see detached.ts) instead of JSON. `stream`: as `detached`, but a read
   * whose plan streams answers with a cursor that computes its rows as they are pulled (stream-cursor.ts).
   */
  rows?: RowForm
}

export type { RowForm } from './answer.js'
export type { CypherOutcome, CypherResult, CypherValidationError } from './outcome.js'

export interface RunOptions {
  signal?: AbortSignal
  /** Epoch ms; past it the query stops with EngineError REQUEST_TIMEOUT (checked by the clock while running). */
  deadline?: number
  /** Opaque value handed to `beforePublish` (the caller's per-request commit bookkeeping). */
  context?: unknown
}

export interface CypherEngineOptions {
  budgets?: Partial<CypherBudgets>
  /** Work between prepare and publish (the WAL append); a throw publishes nothing. May be async. */
  beforePublish?: (
    commit: CommitRecord,
    workspaceId: string,
    sequence: number,
    context: unknown,
  ) => Promise<void> | void
  /** Parsed plans kept by query text. */
  planCacheSize?: number
  /**
   * Resolves when the commits `beforePublish` logged so far under `context` are durable: a batched write
   * (`CALL { … } IN TRANSACTIONS`) waits for it before its next batch, so each batch is durable on its own.
   */
  awaitDurable?: (context: unknown) => Promise<void> | undefined
  /** The procedures CALL can name; a registry of the built-ins when absent. */
  procedures?: ProcedureRegistry
  /** Declared indexes and constraints (the kernel's is journaled); an in-memory one when absent. */
  schema?: SchemaCatalog
  /**
   * Rows a streamed read computes when it is run (its first page; default 1,000, a driver's fetch size): one
   * that ends within them is answered whole. 0: every streamed read answers with its cursor (tests).
   */
  streamPrefetchRows?: number
  /** Where LOAD CSV may read (SERVICE_CYPHER_IMPORT_DIR, SERVICE_CYPHER_IMPORT_ALLOWED_URLS); nowhere when absent. */
  csvImport?: CsvImportPolicy
  /**
   * Resolves at a moment when every published commit is durable. A LOAD CSV read waits for it in its writer's
   * turn (no commit of its workspace can publish after that until it ends), so over its many event-loop turns
   * it reads durable state only, without holding the read gate (which would hold back every writer).
   */
  awaitReadable?: () => Promise<void>
  /** false: every write runs the general pipeline, none its compiled form (compiled-write/; tests compare the two). */
  compiledWrites?: boolean
  /** Each committed batch of a `CALL { … } IN TRANSACTIONS` run, with the caller's `context` (progress logs). */
  onBatch?: (progress: BatchProgress & { workspaceId: string }, context: unknown) => void
}

const STREAM_PREFETCH_ROWS = 1000

/** A query run in its workspace's writer turn (batched, LOAD CSV), with what it carries from the request. */
interface Turn {
  store: GraphStore
  workspaceId: string
  plan: Plan
  params: Map<string, Value>
  signal: AbortSignal | undefined
  deadline: number | undefined
  context: unknown
  rowForm: RowForm | undefined
}

/**
 * Runs Cypher against a catalog of workspace graphs. Reads execute synchronously on the published
 * version (so they see exactly one version); writes go through the workspace's single-writer queue,
 * execute against a transaction overlay, and publish only after `beforePublish` succeeds.
 */
export class CypherEngine {
  readonly budgets: CypherBudgets
  /** Procedures of this engine: the built-ins plus any registered (tests, plugins). */
  readonly procedures: ProcedureRegistry
  readonly schema: SchemaCatalog
  private readonly plans: PlanCache
  private readonly hosts = new Map<string, ExecContext['host']>()

  constructor(
    private readonly catalog: GraphCatalog,
    private readonly options: CypherEngineOptions = {},
  ) {
    this.budgets = { ...DEFAULT_BUDGETS, ...options.budgets }
    this.procedures = options.procedures ?? builtinRegistry()
    this.plans = new PlanCache(options.planCacheSize ?? 512, this.budgets, this.procedures)
    this.schema = options.schema ?? new SchemaCatalog()
    this.procedures.setFunctionCatalog(functionCatalog)
  }

  /** Registers a procedure; plans compiled before keep what they resolved, so the plan cache is cleared. */
  registerProcedure(def: ProcedureDef): void {
    this.procedures.register(def)
    this.plans.clear()
  }

  async run(request: CypherRequest, options: RunOptions = {}): Promise<CypherResult> {
    return (await this.execute(request, options)).result
  }

  async execute(request: CypherRequest, options: RunOptions = {}): Promise<CypherOutcome> {
    try {
      const outcome = this.executeOrThrow(request, options.signal, options.deadline, options.context)
      return outcome instanceof Promise ? await outcome : outcome
    } catch (error) {
      return failure(error)
    }
  }

  /**
   * An auto-commit write run to the end now, when its workspace's writer queue is idle: plan (cached), run,
   * prepare, `beforePublish` (which must be synchronous here) and publish in one synchronous call, so a
   * single write costs no promise until the caller waits for durability. Undefined when the write has to
   * take its turn in the queue (`execute` then).
   */
  executeWriteNow(request: CypherRequest, options: RunOptions = {}): CypherOutcome | undefined {
    const store = this.catalog.workspace(request.workspaceId ?? DEFAULT_WORKSPACE_ID)
    if (!store.writerIdle) return undefined
    try {
      const plan = this.plan(request.query)
      // Batches wait between their commits; schema commands wait for their journal record.
      if (plan.batched !== undefined || plan.schema !== undefined || plan.csv !== undefined) return undefined
    } catch {
      // the run below reports the compile error
    }
    try {
      const outcome = this.executeOrThrow(request, options.signal, options.deadline, options.context, true)
      if (outcome instanceof Promise) throw new Error('a synchronous write returned a promise')
      return outcome
    } catch (error) {
      return failure(error)
    }
  }

  /** Synchronous for reads and validation; writes return the promise of their turn in the writer queue. */
  private executeOrThrow(
    request: CypherRequest,
    signal: AbortSignal | undefined,
    deadline?: number,
    context?: unknown,
    now = false,
  ): CypherOutcome | Promise<CypherOutcome> {
    this.checkBounds(request)
    if (request.mode === 'validate') return this.plans.validate(request.query)
    const plan = this.planFor(request)
    const workspaceId = this.workspaceOf(plan, request.workspaceId ?? DEFAULT_WORKSPACE_ID)
    if (plan.mode === 'explain') return explainAnswer(plan)
    const params = this.bind(plan, request)
    const store = this.catalog.workspace(workspaceId)
    const { csv, batched } = plan
    if (csv !== undefined || batched !== undefined) {
      const turn: Turn = {
        store,
        workspaceId,
        plan,
        params,
        signal,
        deadline,
        context,
        rowForm: request.rows,
      }
      // In the writer's turn, even a LOAD CSV that only reads: the file's rows all see one version of the graph.
      return store.exclusive(async () =>
        batched ? await this.writeBatched(turn, batched) : await this.loadCsv(turn, csv as CsvPlan),
      )
    }
    if (!plan.isWrite) {
      const ctx = this.context(store, undefined, params, signal, deadline, workspaceId)
      const outcome = this.collect(plan, ctx, request.rows)
      outcome.classification = 'read'
      return outcome
    }
    if (plan.schema !== undefined) {
      const schema = plan.schema
      return store.exclusive(async () => {
        const ctx = this.context(store, undefined, params, signal, deadline, workspaceId)
        const options = toJson(schema.options(ctx), store, new Set())
        const record =
          options !== null && typeof options === 'object' && !Array.isArray(options) ? options : {}
        await this.schema.execute(workspaceId, schema.command, record as Record<string, unknown>, store)
        const outcome = this.outcome(plan, [], ctx, request.rows)
        outcome.classification = 'write'
        return outcome
      })
    }
    if (now)
      return this.write(store, workspaceId, plan, params, request.rows, signal, deadline, context, true)
    return store.exclusive(
      async () =>
        await this.write(store, workspaceId, plan, params, request.rows, signal, deadline, context, false),
    )
  }

  /** The request's size bounds: query length and parameter count. */
  private checkBounds(request: CypherRequest): void {
    const budgets = this.budgets
    const query = request.query
    if (query.length > budgets.maxQueryLength) {
      throw new CypherError(
        'REQUEST_LIMIT_EXCEEDED',
        `query is ${query.length} characters, limit ${budgets.maxQueryLength}`,
        'limit',
      )
    }
    const paramCount = request.params ? Object.keys(request.params).length : 0
    if (paramCount > budgets.maxParameters) {
      throw new CypherError(
        'REQUEST_LIMIT_EXCEEDED',
        `request has ${paramCount} parameters, limit ${budgets.maxParameters}`,
        'limit',
      )
    }
  }

  /** The request's plan (cached); a write in read mode is refused. */
  private planFor(request: CypherRequest): Plan {
    const plan = this.plan(request.query)
    if (plan.isWrite && request.mode === 'read') {
      throw new CypherError(
        'WRITE_PERMISSION_REQUIRED',
        'the query writes to the graph but the request is read-only',
        'limit',
      )
    }
    return plan
  }

  /** The bound parameters; every parameter the plan names must be given. */
  private bind(plan: Plan, request: CypherRequest): Map<string, Value> {
    const params = bindParams(request.params, this.budgets.maxListSize)
    for (const name of plan.params) {
      if (!params.has(name))
        throw new CypherError('PARAMETER_MISSING', `expected parameter $${name}`, 'runtime')
    }
    return params
  }

  /**
   * One statement of an explicit transaction, run on its overlay: reads see the transaction's own writes;
   * nothing is prepared or published here (the transaction commits once, see kernel/explicit-transaction.ts).
   * A transaction belongs to one workspace: `USE` of another is refused.
   */
  executeInTransaction(tx: Transaction, request: CypherRequest, options: RunOptions = {}): CypherOutcome {
    try {
      this.checkBounds(request)
      const plan = this.planFor(request)
      const workspaceId = request.workspaceId ?? DEFAULT_WORKSPACE_ID
      if (this.workspaceOf(plan, workspaceId) !== workspaceId)
        throw new CypherError(
          'INVALID_CLAUSE_COMPOSITION',
          `USE ${plan.use} inside a transaction on another workspace (database)`,
          'compile',
        )
      if (plan.mode === 'explain') return explainAnswer(plan)
      // Each commits on its own (batches, a journaled schema change): only as an auto-commit query.
      if (plan.batched !== undefined || plan.schema !== undefined || plan.csv !== undefined)
        throw new CypherError(
          'IMPLICIT_TRANSACTION_REQUIRED',
          `${plan.batched ? 'CALL { … } IN TRANSACTIONS' : plan.csv ? 'LOAD CSV' : 'a schema command'} can only run in an implicit (auto-commit) transaction`,
          'runtime',
        )
      const params = this.bind(plan, request)
      const ctx = this.context(tx, tx, params, options.signal, options.deadline, workspaceId)
      const outcome = this.collect(plan, ctx, request.rows)
      outcome.classification = plan.isWrite ? 'write' : 'read'
      return outcome
    } catch (error) {
      return failure(error)
    }
  }

  /** Runs a write plan on a transaction and publishes it; synchronous when `now` (beforePublish too). */
  private write(
    store: GraphStore,
    workspaceId: string,
    plan: Plan,
    params: Map<string, Value>,
    rowForm: RowForm | undefined,
    signal: AbortSignal | undefined,
    deadline: number | undefined,
    context: unknown,
    now: boolean,
  ): CypherOutcome | Promise<CypherOutcome> {
    const tx = store.begin()
    const compiled = this.options.compiledWrites === false ? undefined : plan.compiled
    const outcome =
      compiled === undefined
        ? this.collect(plan, this.context(tx, tx, params, signal, deadline, workspaceId), rowForm)
        : this.runCompiled(plan, compiled, tx, params, signal, rowForm)
    outcome.classification = 'write'
    const commit = tx.prepare()
    if (commit.ops.length === 0) return outcome
    const published = this.publish(store, workspaceId, tx, commit, context)
    if (published === undefined) return outcome
    if (now) throw new Error('beforePublish returned a promise to a synchronous write')
    return published.then(() => outcome)
  }

  /** A compiled single write (compiled-write/): its rows and counters, answered as `collect` answers them. */
  private runCompiled(
    plan: Plan,
    compiled: CompiledWrite,
    tx: Transaction,
    params: Map<string, Value>,
    signal: AbortSignal | undefined,
    rowForm: RowForm | undefined,
  ): CypherOutcome {
    if (signal?.aborted) throw new CypherError('QUERY_ABORTED', 'query was aborted', 'limit')
    const stats = emptySummary()
    const rows = compiled.run(tx, params, stats, this.budgets.maxMutations)
    const max = this.budgets.maxReturnedRecords
    if (rows.length > max) throw budgetError('returned_records', rows.length, max)
    return this.outcome(plan, rows, { graph: tx, stats }, rowForm)
  }

  /**
   * Checks the workspace's constraints, logs the commit through `beforePublish` and publishes it: at once, or
   * (undefined returned) when the log answers synchronously, else once its promise resolves.
   */
  private publish(
    store: GraphStore,
    workspaceId: string,
    tx: Transaction,
    commit: CommitRecord,
    context: unknown,
  ): Promise<void> | undefined {
    this.schema.checkCommit(workspaceId, tx, commit.ops)
    const sequence = store.sequence + 1
    let logged: Promise<void> | void
    try {
      logged = this.options.beforePublish?.(commit, workspaceId, sequence, context)
    } catch (error) {
      throw durabilityFailed(error)
    }
    if (logged === undefined) {
      store.publish(commit, sequence)
      return undefined
    }
    return logged.then(
      () => store.publish(commit, sequence),
      (error: unknown) => {
        throw durabilityFailed(error)
      },
    )
  }

  /** `LOAD CSV … AS row …` in one transaction (a read: on the graph), the file read as the rows run. */
  private async loadCsv(turn: Turn, csv: CsvPlan): Promise<CypherOutcome> {
    const { store, workspaceId, plan, params, signal, deadline, context, rowForm } = turn
    const tx = plan.isWrite ? store.begin() : undefined
    if (tx === undefined) await this.options.awaitReadable?.()
    const ctx = this.context(tx ?? store, tx, params, signal, deadline, workspaceId)
    const rows = await collectCsv(csv, ctx, this.options.csvImport ?? {}, this.budgets.maxReturnedRecords)
    const outcome = this.outcome(plan, rows, ctx, rowForm)
    outcome.classification = tx ? 'write' : 'read'
    const commit = tx?.prepare()
    if (tx && commit && commit.ops.length > 0) await this.publish(store, workspaceId, tx, commit, context)
    return outcome
  }

  /** `… CALL { … } IN TRANSACTIONS OF n ROWS …`, batch by batch (executor/batched-write.ts). */
  private async writeBatched(turn: Turn, batched: BatchedPlan): Promise<CypherOutcome> {
    const { store, workspaceId, plan, params, signal, deadline, context, rowForm } = turn
    const { rows, ctx } = await runBatched(batched, store, {
      context: (graph, tx, stats) => this.context(graph, tx, params, signal, deadline, workspaceId, stats),
      commit: async (tx, record) => {
        await this.publish(store, workspaceId, tx, record, context)
        await this.options.awaitDurable?.(context)
      },
      maxReturnedRecords: this.budgets.maxReturnedRecords,
      csvImport: this.options.csvImport ?? {},
      progress:
        this.options.onBatch && ((progress) => this.options.onBatch?.({ ...progress, workspaceId }, context)),
    })
    const outcome = this.outcome(plan, rows, ctx, rowForm)
    outcome.classification = 'write'
    return outcome
  }

  /** True for a read that runs over many event-loop turns in its writer's turn (LOAD CSV), see awaitReadable. */
  readsOverTurns(query: string): boolean {
    try {
      return this.plan(query).csv !== undefined
    } catch {
      return false // the run reports the compile error
    }
  }

  /** Parses and plans with the LRU cache; compile errors propagate as CypherError. */
  plan(query: string): Plan {
    return this.plans.get(query)
  }

  /** `USE name` picks a workspace (databases are workspaces); one that does not exist is an error. */
  private workspaceOf(plan: Plan, requested: string): string {
    // `USE neo4j` is the default workspace, as a Bolt database `neo4j` is.
    const use = plan.use === DEFAULT_DATABASE_NAME ? DEFAULT_WORKSPACE_ID : plan.use
    if (use === undefined || use === requested) return requested
    if (use === DEFAULT_WORKSPACE_ID || this.catalog.has(use)) return use
    throw new CypherError('DATABASE_NOT_FOUND', `there is no workspace (database) '${plan.use}'`, 'runtime')
  }

  /** What procedures see of the engine, made once per workspace (a query would otherwise allocate five closures). */
  private hostOf(workspaceId: string): ExecContext['host'] {
    let host = this.hosts.get(workspaceId)
    if (host === undefined) {
      const catalog = this.catalog
      host = {
        workspaceId,
        procedures: () => this.procedures.list(),
        functions: () => this.procedures.functions(),
        workspaceIds: () => catalog.workspaceIds(),
        schemaRules: () => this.schema.rules(workspaceId),
      }
      this.hosts.set(workspaceId, host)
    }
    return host
  }

  private context(
    graph: GraphReader,
    tx: ExecContext['tx'],
    params: Map<string, Value>,
    signal: AbortSignal | undefined,
    deadline: number | undefined,
    workspaceId: string,
    stats: MutationSummary = emptySummary(),
  ): ExecContext {
    return {
      host: this.hostOf(workspaceId),
      graph,
      tx,
      params,
      budgets: this.budgets,
      stats,
      startedAt: Date.now(),
      signal,
      deadline,
      ticks: 0,
      loaded: 0,
      scanned: 0,
      adjacency: 0,
      regexCache: undefined,
    }
  }

  /** Runs the plan and answers its rows (answer.ts). */
  private collect(plan: Plan, ctx: ExecContext, rowForm: RowForm = 'json'): CypherOutcome {
    const prefetch = this.options.streamPrefetchRows ?? STREAM_PREFETCH_ROWS
    return collectAnswer(plan, ctx, this.budgets, prefetch, rowForm)
  }

  private outcome(
    plan: Plan,
    rows: Value[][],
    ctx: OutcomeContext,
    rowForm: RowForm = 'json',
  ): CypherOutcome {
    return answerRows(plan, rows, ctx, this.budgets, rowForm)
  }
}
