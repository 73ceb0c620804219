import { EngineError } from '../../errors.js'
import type { Transaction } from '../../graph/transaction.js'
import type { GraphReader } from '../../graph/types.js'
import type { CsvPosition } from '../csv/position.js'
import { budgetError, CypherError } from '../errors.js'
import type { ProcedureHost } from '../procedures/host.js'
import type { Value } from '../values.js'
import type { StreamSlice } from './resumable.js'

export interface CypherBudgets {
  maxQueryLength: number
  maxParameters: number
  /** Rows produced by MATCH/UNWIND/CALL before SKIP/LIMIT for a result to hold (`loaded_records`). */
  maxLoadedRecords: number
  /** Every row produced, including those an aggregation consumes (`scanned_records`): the work bound. */
  maxScannedRecords: number
  maxReturnedRecords: number
  /**
   * Records one streamed result may deliver (Bolt, SERVICE_BOLT_MAX_STREAMED_RECORDS). A streamed run holds one
   * slice, not the result, so its loaded-records and adjacency bounds rise to this too (stream-cursor.ts).
   */
  maxStreamedRecords: number
  /** Redo operations of one write query (`mutation_count`). */
  maxMutations: number
  maxExecutionMs: number
  maxPayloadBytes: number
  maxExpressionDepth: number
  maxListSize: number
  /** Upper bound of `*` and of explicit variable-length ranges. */
  maxVariableLengthHops: number
  /** Relationship entries one request may walk in adjacency lists (SERVICE_STORAGE_MAX_WARM_ADJACENCY_ENTRIES). */
  maxWarmAdjacencyEntries: number
  /** Distinct nodes one result may materialise (SERVICE_STORAGE_MAX_HOT_NODES). */
  maxHotNodes: number
  /** Distinct relationships one result may materialise (SERVICE_STORAGE_MAX_HOT_RELATIONSHIPS). */
  maxHotRelationships: number
}

export const DEFAULT_BUDGETS: Readonly<CypherBudgets> = Object.freeze({
  maxQueryLength: 8192,
  maxParameters: 128,
  maxLoadedRecords: 50_000,
  maxScannedRecords: 20_000_000,
  maxReturnedRecords: 10_000,
  maxStreamedRecords: 5_000_000,
  maxMutations: 5_000,
  maxExecutionMs: 20_000,
  maxPayloadBytes: 4 * 1024 * 1024,
  maxExpressionDepth: 256,
  maxListSize: 100_000,
  maxVariableLengthHops: 15,
  maxWarmAdjacencyEntries: 65_536,
  maxHotNodes: 16_384,
  maxHotRelationships: 32_768,
})

export interface MutationSummary {
  created_nodes: number
  deleted_nodes: number
  created_relationships: number
  deleted_relationships: number
  properties_set: number
  labels_added: number
  labels_removed: number
}

export const emptySummary = (): MutationSummary => ({
  created_nodes: 0,
  deleted_nodes: 0,
  created_relationships: 0,
  deleted_relationships: 0,
  properties_set: 0,
  labels_added: 0,
  labels_removed: 0,
})

/** A row: one value per slot the planner allocated. */
export type Row = Value[]

/** Push-based pipeline stage: `push` returns false when no more input is wanted (LIMIT reached). */
export interface Stage {
  push(row: Row): boolean
  finish(): void
}

export interface ExecContext {
  readonly graph: GraphReader
  /** Present for write queries: the overlay all reads and writes of this query go through. */
  readonly tx: Transaction | undefined
  readonly params: ReadonlyMap<string, Value>
  readonly budgets: CypherBudgets
  readonly stats: MutationSummary
  /** When the work this context bounds began (a streamed batched load restarts it per batch). */
  startedAt: number
  readonly signal: AbortSignal | undefined
  /** Epoch ms by which the caller needs an answer (the HTTP handler budget); checked by the clock, since a
   * synchronous query never lets a timer fire. */
  readonly deadline: number | undefined
  ticks: number
  loaded: number
  scanned: number
  /** Adjacency entries walked so far. */
  adjacency: number
  /** Created by the first regex match (most queries have none). */
  regexCache: Map<string, RegExp> | undefined
  /** PROFILE: rows each top-level operator emitted, by its index in Plan.operators. */
  profileRows?: number[] | undefined
  /** Set while a streamed run executes a slice: the first clause's source resumes from it (resumable.ts). */
  stream?: StreamSlice | undefined
  /** Set while LOAD CSV feeds rows: the row's file and line, for `file()` and `linenumber()`. */
  csv?: CsvPosition | undefined
  /** What procedures reach beyond the graph (the engine sets it; bare contexts in tests may not). */
  readonly host?: ProcedureHost | undefined
}

/** Called per produced row; samples the clock and the abort signal every 1024 rows. */
export function tick(ctx: ExecContext): void {
  if ((++ctx.ticks & 1023) === 0) checkDeadline(ctx)
}

export function checkDeadline(ctx: ExecContext): void {
  if (ctx.signal?.aborted) throw new CypherError('QUERY_ABORTED', 'query was aborted', 'limit')
  const now = Date.now()
  if (ctx.deadline !== undefined && now > ctx.deadline) {
    throw new EngineError('REQUEST_TIMEOUT', 'the request exceeded its time budget')
  }
  const elapsed = now - ctx.startedAt
  if (elapsed > ctx.budgets.maxExecutionMs)
    throw budgetError('execution_time_ms', elapsed, ctx.budgets.maxExecutionMs)
}

/** Counts a row loaded from the graph (MATCH/UNWIND/CALL output) that the result may hold. */
export function load(ctx: ExecContext): void {
  if (++ctx.loaded > ctx.budgets.maxLoadedRecords) {
    throw budgetError('loaded_records', ctx.loaded, ctx.budgets.maxLoadedRecords)
  }
  scan(ctx)
}

/**
 * Counts a row an aggregation consumes: work, bounded by `scanned_records` and time, not by the loaded-row
 * budget meant for what a result holds (a count over a million nodes returns one row).
 */
export function scan(ctx: ExecContext): void {
  if (++ctx.scanned > ctx.budgets.maxScannedRecords) {
    throw budgetError('scanned_records', ctx.scanned, ctx.budgets.maxScannedRecords)
  }
  tick(ctx)
}

/** How a clause counts the rows it produces: `load` by default, `scan` when they feed an aggregation. */
export type RowCounter = (ctx: ExecContext) => void

export function checkListSize(ctx: ExecContext, size: number): void {
  if (size > ctx.budgets.maxListSize) throw budgetError('list_size', size, ctx.budgets.maxListSize)
}

/**
 * Stage factories are built once per plan and instantiated per run (stages hold run state). One marked
 * `rowByRow` makes stages that hold nothing between rows (no buffer, count or set), so a built pipeline of
 * them can take another input once it finished (a subquery runs once per incoming row).
 */
export type StageFactory = ((ctx: ExecContext, next: Stage) => Stage) & { rowByRow?: true }

/** Marks a factory whose stages hold nothing between rows (see StageFactory). */
export function rowByRow(factory: (ctx: ExecContext, next: Stage) => Stage): StageFactory {
  return Object.assign(factory, { rowByRow: true as const })
}

export function chain(factories: readonly StageFactory[], ctx: ExecContext, sink: Stage): Stage {
  let stage = sink
  for (let i = factories.length - 1; i >= 0; i--) stage = (factories[i] as StageFactory)(ctx, stage)
  return stage
}

/** Counts one adjacency entry walked against the warm-adjacency bound. */
export function walkAdjacency(ctx: ExecContext): void {
  if (++ctx.adjacency > ctx.budgets.maxWarmAdjacencyEntries) {
    throw budgetError('warm_adjacency_entries', ctx.adjacency, ctx.budgets.maxWarmAdjacencyEntries)
  }
}
