import { isUpdating, type Scope } from './analyzer.js'
import type { Clause } from './ast.js'
import { type CallEnv, compileCall } from './executor/call.js'
import { type Row, type RowCounter, rowByRow, type StageFactory } from './executor/context.js'
import { compileMatch } from './executor/match.js'
import { compileProjection, type ProjectionEnv } from './executor/projection.js'
import { compileForeach, compileSubqueryCall, type SubqueryEnv } from './executor/subquery.js'
import {
  compileCreatePart,
  compileDelete,
  compileRemoveItems,
  compileSetItems,
  runCreatePart,
} from './executor/write.js'
import type { ClauseResult } from './fused-scans.js'
import { matcherStage, mutationStage, unwindStage } from './stages.js'

/**
 * The planner's clause-by-clause step: each clause of a single query compiled to its stage factories and the
 * scope after it. The query-level decisions (fused scans, streaming, UNION, batching, EXPLAIN) stay in
 * planner.ts.
 */
export interface ClauseEnv extends CallEnv, SubqueryEnv, ProjectionEnv {
  readonly explain: string[]
  /** How the clause being compiled counts its rows (the planner sets it per clause). */
  readonly rowCounter: RowCounter
}

/**
 * One clause. `source`: the first clause of a read that may stream; a MATCH or UNWIND then compiles its
 * outermost loop as a resumable source (`resumable` in the answer). `streams`: rows pass through one by one.
 */
export function planClause(
  env: ClauseEnv,
  clause: Clause,
  scope: Scope,
  standalone: boolean,
  write: boolean,
  source = false,
): ClauseResult & { streams?: boolean; resumable?: boolean } {
  switch (clause.kind) {
    case 'call':
      return compileCall(env, clause, scope, standalone)
    case 'subqueryCall': {
      // Batched only at the top of a writing query (build); a read-only subquery needs no batches.
      if (clause.batch !== undefined && write)
        env.report(
          'INVALID_CLAUSE_COMPOSITION',
          'CALL { … } IN TRANSACTIONS must be a clause of the outermost query',
          clause.start,
        )
      const compiled = compileSubqueryCall(env, clause, scope, write)
      return { factories: compiled.factories, scope: compiled.scope }
    }
    case 'schema':
      // Alone it is planned by build(); beside other clauses it is refused.
      if (!standalone)
        env.report(
          'INVALID_CLAUSE_COMPOSITION',
          'a schema command cannot be combined with other clauses',
          clause.start,
        )
      return { factories: [], scope }
    case 'loadCsv':
      // The query's one LOAD CSV is planned by build(); another would read a file inside a running pipeline.
      env.report(
        'INVALID_CLAUSE_COMPOSITION',
        'a query may hold one LOAD CSV, in its outermost part (not in a subquery, FOREACH or UNION)',
        clause.start,
      )
      return {
        factories: [],
        scope: scope.with(clause.variable, { slot: env.allocSlot(), kind: 'value' }),
      }
    case 'foreach':
      return compileForeach(env, clause, scope, (body, inner) => planBody(env, body, inner, write))
    case 'finish':
      // The rows run to the end (their side effects happen) and none is returned.
      return { factories: [], scope }
    case 'match': {
      const compiled = compileMatch(env, clause.pattern, clause.where, scope, {
        countLoaded: true,
        optional: clause.optional,
        resumable: source,
      })
      env.explain.push(...compiled.plan)
      return {
        factories: [matcherStage(compiled.matcher)],
        scope: compiled.scope,
        streams: true,
        resumable: compiled.resumable,
      }
    }
    case 'unwind': {
      const list = env.exprs.compile(clause.expr, scope)
      if (scope.has(clause.variable)) {
        env.report('VARIABLE_ALREADY_BOUND', `variable '${clause.variable}' is already defined`, clause.start)
      }
      const slot = env.allocSlot()
      const expr = clause.expr
      const range =
        expr.kind === 'call' &&
        expr.name.toLowerCase() === 'range' &&
        !expr.distinct &&
        (expr.args.length === 2 || expr.args.length === 3)
          ? expr.args.map((arg) => env.exprs.compile(arg, scope))
          : undefined
      return {
        factories: [unwindStage(list, slot, env.rowCounter, source ? { range } : undefined)],
        scope: scope.with(clause.variable, { slot, kind: 'value' }),
        streams: true,
        resumable: source,
      }
    }
    case 'with': {
      const projection = compileProjection(env, clause.projection, scope, 'with', clause.where, clause.start)
      return { factories: projection.factories, scope: projection.scope, streams: projection.streams }
    }
    case 'return': {
      const projection = compileProjection(env, clause.projection, scope, 'return', undefined, clause.start)
      return {
        factories: projection.factories,
        scope: projection.scope,
        columns: projection.columns,
        streams: projection.streams,
      }
    }
    case 'create': {
      const next = scope.copy()
      const parts = clause.pattern.map((part) => compileCreatePart(env, part, next, () => undefined, false))
      return {
        factories: [
          rowByRow((ctx, stage) => ({
            push(row) {
              const out = row.slice()
              for (const part of parts) runCreatePart(part, out, ctx, false)
              return stage.push(out)
            },
            finish: () => stage.finish(),
          })),
        ],
        scope: next,
      }
    }
    case 'merge':
      return planMerge(env, clause, scope)
    case 'set':
      return { factories: [mutationStage(compileSetItems(env, clause.items, scope))], scope }
    case 'remove':
      return { factories: [mutationStage(compileRemoveItems(env, clause.items, scope))], scope }
    case 'delete':
      return {
        factories: [mutationStage([compileDelete(env, clause.exprs, clause.detach, scope)])],
        scope,
      }
  }
}

/** The clauses of a FOREACH body, chained. */
function planBody(env: ClauseEnv, body: Clause[], scope: Scope, write: boolean): StageFactory[] {
  const factories: StageFactory[] = []
  let current = scope
  for (const clause of body) {
    if (!isUpdating(clause)) {
      env.report('INVALID_CLAUSE_COMPOSITION', 'FOREACH may only hold updating clauses', clause.start)
      continue
    }
    const result = planClause(env, clause, current, false, write)
    factories.push(...result.factories)
    current = result.scope
  }
  return factories
}

function planMerge(
  env: ClauseEnv,
  clause: Clause & { kind: 'merge' },
  scope: Scope,
): { factories: StageFactory[]; scope: Scope } {
  const part = clause.part
  for (const rel of part.rels) {
    if (rel.types.length !== 1)
      env.report('NO_SINGLE_RELATIONSHIP_TYPE', 'MERGE needs exactly one relationship type', rel.start)
    if (rel.varLength)
      env.report('CREATING_VAR_LENGTH', 'MERGE cannot use a variable-length relationship', rel.start)
  }
  if (part.nodes.length === 1 && part.nodes[0]?.variable !== undefined && scope.has(part.nodes[0].variable)) {
    env.report(
      'VARIABLE_ALREADY_BOUND',
      `variable '${part.nodes[0].variable}' is already defined`,
      part.start,
    )
  }
  const matched = compileMatch(env, [part], undefined, scope, { countLoaded: true, optional: false })
  env.explain.push(...matched.plan)
  const createScope = scope.copy()
  const create = compileCreatePart(env, part, createScope, (name) => matched.scope.get(name)?.slot, true)
  const onMatch = compileSetItems(env, clause.onMatch, matched.scope)
  const onCreate = compileSetItems(env, clause.onCreate, matched.scope)
  const matcher = matched.matcher
  return {
    factories: [
      rowByRow((ctx, next) => ({
        push(row) {
          const found: Row[] = []
          matcher(row, ctx, (out) => {
            found.push(out)
            return true
          })
          if (found.length > 0) {
            for (const out of found) {
              for (const set of onMatch) set(out, ctx)
              if (!next.push(out)) return false
            }
            return true
          }
          const out = row.slice()
          runCreatePart(create, out, ctx, true)
          for (const set of onCreate) set(out, ctx)
          return next.push(out)
        },
        finish: () => next.finish(),
      })),
    ],
    scope: matched.scope,
  }
}
