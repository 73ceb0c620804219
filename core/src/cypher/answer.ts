import { type DetachedValue, detach, detachedBytes } from './detached.js'
import { budgetError, CypherError } from './errors.js'
import { type CypherBudgets, type ExecContext, emptySummary } from './executor/context.js'
import type { CypherOutcome } from './outcome.js'
import type { Plan } from './plan.js'
import { toJson } from './result.js'
import { ResultCursor } from './stream-cursor.js'
import { NodeValue, PathValue, RelValue, type Value } from './values.js'

/** How rows leave the engine: JSON values, values detached from the graph (Bolt), or a stream of pages. */
export type RowForm = 'json' | 'detached' | 'stream'

/**
 * A run's answer: its rows checked against the returned-rows, hot-record and payload budgets and converted,
 * with the counters, warnings and profile of the run. The engine (engine.ts) and the compiled writes answer
 * through here.
 */
/** EXPLAIN: the plan, no rows and no effects. */
export function explainAnswer(plan: Plan): CypherOutcome {
  return {
    result: {
      status: 'Success',
      data: { columns: plan.columns, rows: [] },
      mutation_summary: emptySummary(),
      validation_errors: [],
      warnings: [],
    },
    classification: plan.isWrite ? 'write' : 'read',
    explained: { queryType: plan.queryType, operators: plan.operators, matchOperators: plan.explain },
    queryType: plan.queryType,
  }
}

/**
 * Runs the plan, enforces the returned-rows and payload budgets, converts rows to JSON (or detaches them).
 * A read asked for as a stream, whose plan streams, computes its first page and answers with its cursor.
 */
export function collectAnswer(
  plan: Plan,
  ctx: ExecContext,
  budgets: CypherBudgets,
  prefetchRows: number,
  rowForm: RowForm = 'json',
): CypherOutcome {
  if (ctx.signal?.aborted) throw new CypherError('QUERY_ABORTED', 'query was aborted', 'limit')
  if (rowForm === 'stream' && plan.stream !== undefined && plan.mode === undefined && !plan.isWrite) {
    const cursor = new ResultCursor(plan.stream, plan.columns, ctx, ctx.host?.workspaceId ?? '')
    // The first page now: a result that ends within it is answered whole, as without streaming.
    cursor.prefetch(prefetchRows)
    if (cursor.finished) return answerRows(plan, cursor.takeHeld(), ctx, budgets, rowForm)
    const outcome = answerRows(plan, [], ctx, budgets, rowForm)
    outcome.result.cursor = cursor
    return outcome
  }
  const rows: Value[][] = []
  const max = budgets.maxReturnedRecords
  if (plan.mode === 'profile') ctx.profileRows = []
  plan.run(ctx, (values) => {
    rows.push(values)
    if (rows.length > max) throw budgetError('returned_records', rows.length, max)
    return true
  })
  return answerRows(plan, rows, ctx, budgets, rowForm)
}

/** Checks the hot-record and payload budgets of the result rows and converts them (JSON or detached). */
export function answerRows(
  plan: Plan,
  rows: Value[][],
  ctx: OutcomeContext,
  budgets: CypherBudgets,
  rowForm: RowForm = 'json',
): CypherOutcome {
  checkHotRecords(rows, budgets)
  const profile = ctx.profileRows
  const explained =
    plan.mode === 'profile'
      ? {
          queryType: plan.queryType,
          operators: plan.operators.map((op, i) => ({ ...op, rows: profile?.[i] ?? 0 })),
          matchOperators: plan.explain,
          rows: ctx.loaded ?? 0,
        }
      : undefined
  const warnings = new Set<string>()
  let outRows: unknown[][]
  let payload: number
  if (rowForm !== 'json') {
    const detached: DetachedValue[][] = rows.map((row) => row.map((value) => detach(value, ctx.graph)))
    payload = detachedBytes(detached)
    outRows = detached
  } else {
    outRows = rows.map((row) => row.map((value) => toJson(value, ctx.graph, warnings)))
    payload =
      outRows.length === 0 && plan.columns.length === 0
        ? EMPTY_PAYLOAD_BYTES
        : payloadBytes(plan.columns, outRows)
  }
  if (payload > budgets.maxPayloadBytes) throw budgetError('payload_bytes', payload, budgets.maxPayloadBytes)
  return {
    result: {
      status: 'Success',
      data: { columns: plan.columns, rows: outRows },
      mutation_summary: ctx.stats,
      validation_errors: [],
      warnings: warnings.size === 0 ? [] : [...warnings],
      ...(rowForm === 'json' ? {} : { query_type: boltQueryType(plan) }),
    },
    raw: { columns: plan.columns, rows, graph: ctx.graph },
    ...(explained ? { explained } : {}),
    queryType: plan.queryType,
  }
}

/** What answering a run reads of its context (a compiled write has only the graph and its counters). */
export type OutcomeContext = Pick<ExecContext, 'graph' | 'stats'> &
  Partial<Pick<ExecContext, 'profileRows' | 'loaded'>>

/**
 * Neo4j's query type as Bolt reports it: `s` for schema commands, `r` for reads, `rw` for a write that reads
 * (MATCH, CALL) or returns rows, `w` for one that only writes.
 */
function boltQueryType(plan: Plan): 'r' | 'w' | 'rw' | 's' {
  if (plan.queryType === 's') return 's'
  if (!plan.isWrite) return 'r'
  return plan.queryType === 'rw' || plan.columns.length > 0 ? 'rw' : 'w'
}

/** Distinct nodes and relationships a result materialises, against the hot-record bounds. */
function checkHotRecords(rows: Value[][], budgets: CypherBudgets): void {
  if (rows.length === 0) return
  const nodes = new Set<number>()
  const rels = new Set<number>()
  const visit = (value: Value): void => {
    if (value instanceof NodeValue) nodes.add(value.id)
    else if (value instanceof RelValue) rels.add(value.id)
    else if (value instanceof PathValue) {
      for (const id of value.nodes) nodes.add(id)
      for (const id of value.rels) rels.add(id)
    } else if (Array.isArray(value)) for (const item of value) visit(item)
    else if (value instanceof Map) for (const item of value.values()) visit(item)
  }
  for (const row of rows) for (const value of row) visit(value)
  if (nodes.size > budgets.maxHotNodes) throw budgetError('hot_nodes', nodes.size, budgets.maxHotNodes)
  if (rels.size > budgets.maxHotRelationships)
    throw budgetError('hot_relationships', rels.size, budgets.maxHotRelationships)
}

function payloadBytes(columns: string[], rows: unknown[][]): number {
  return Buffer.byteLength(JSON.stringify({ columns, rows }), 'utf8')
}

/** A write without RETURN answers this every time. */
const EMPTY_PAYLOAD_BYTES = payloadBytes([], [])
