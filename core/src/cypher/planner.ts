import { checkComposition, Diagnostics, Scope } from './analyzer.js'
import {
  type Clause,
  type Expr,
  isWriteQuery,
  type PatternPart,
  type Query,
  type SingleQuery,
} from './ast.js'
import { ExpressionCompiler, type Matcher } from './compile-expr.js'
import type { CypherError } from './errors.js'
import { chain, type ExecContext, type Row, type Stage, type StageFactory } from './executor/context.js'
import { compileMatch } from './executor/match.js'
import { compileProjection } from './executor/projection.js'
import {
  compileCreatePart,
  compileDelete,
  compileRemoveItems,
  compileSetItems,
  runCreatePart,
} from './executor/write.js'
import { type ClauseResult, type FusedEnv, fusedScanAggregate, fusedScanTopK } from './fused-scans.js'
import { parseQuery } from './parser.js'
import { eager, matcherStage, mutationStage, unwindStage } from './stages.js'
import { type Value, valueKey } from './values.js'

/** A compiled query: immutable, cached by query text, run many times with different parameters. */
export interface Plan {
  readonly columns: string[]
  readonly isWrite: boolean
  /** Parameter names the query references. */
  readonly params: string[]
  /** Operators chosen for each MATCH, for tests and diagnostics. */
  readonly explain: string[]
  /** Runs the query; `sink` receives each result row and returns false to stop. */
  run(ctx: ExecContext, sink: (values: Value[]) => boolean): void
}

export interface PlanOptions {
  maxExpressionDepth: number
  maxVariableLengthHops: number
  /** Collect every compile error (validate mode) instead of stopping at the first. */
  collectErrors: boolean
}

export interface PlanOutcome {
  plan: Plan | undefined
  errors: CypherError[]
}

/** Parses, analyses and plans `text`. Throws CypherError on parse failures and unsupported syntax. */
export function planQuery(text: string, options: PlanOptions): PlanOutcome {
  const query = parseQuery(text, { maxExpressionDepth: options.maxExpressionDepth })
  const builder = new PlanBuilder(text, options)
  const plan = builder.build(query)
  return {
    plan: builder.diagnostics.errors.length > 0 ? undefined : plan,
    errors: builder.diagnostics.errors,
  }
}

class PlanBuilder implements FusedEnv {
  slotCount = 0
  readonly exprs: ExpressionCompiler
  readonly diagnostics: Diagnostics
  readonly maxHops: number
  readonly explain: string[] = []

  constructor(
    readonly text: string,
    options: PlanOptions,
  ) {
    this.diagnostics = new Diagnostics(text, options.collectErrors)
    this.maxHops = options.maxVariableLengthHops
    this.exprs = new ExpressionCompiler(this)
  }

  allocSlot(): number {
    return this.slotCount++
  }

  report(code: string, message: string, at: number): void {
    this.diagnostics.report(code, message, at)
  }

  blankRow(): Row {
    return new Array<Value>(this.slotCount).fill(null)
  }

  pattern(part: PatternPart, where: Expr | undefined, scope: Scope): { matcher: Matcher; scope: Scope } {
    const compiled = compileMatch(this, [part], where, scope, { countLoaded: false, optional: false })
    return { matcher: compiled.matcher, scope: compiled.scope }
  }

  build(query: Query): Plan {
    const write = isWriteQuery(query)
    if (query.unionAll.length > 0 && new Set(query.unionAll).size > 1) {
      this.report(
        'INVALID_CLAUSE_COMPOSITION',
        'UNION and UNION ALL cannot be mixed',
        query.parts[1]?.start ?? 0,
      )
    }
    const parts = query.parts.map((part) => this.buildSingle(part, write))
    const columns = parts[0]?.columns ?? []
    for (const part of parts.slice(1)) {
      if (part.columns.join('\u0000') !== columns.join('\u0000')) {
        this.report('DIFFERENT_COLUMNS_IN_UNION', 'all parts of a UNION must return the same columns', 0)
      }
    }
    const distinct = query.unionAll.length > 0 && !query.unionAll[0]
    const params = collectParams(query)
    const explain = this.explain
    const blank = () => this.blankRow()
    return {
      columns,
      isWrite: write,
      params,
      explain,
      run(ctx, sink) {
        const seen = distinct ? new Set<string>() : undefined
        let stopped = false
        for (const part of parts) {
          if (stopped) break
          const final: Stage = {
            push(row) {
              if (!part.returns) return true
              const values = part.slots.map((slot) => row[slot] as Value)
              if (seen) {
                const key = valueKey(values)
                if (seen.has(key)) return true
                seen.add(key)
              }
              if (!sink(values)) {
                stopped = true
                return false
              }
              return true
            },
            finish() {},
          }
          const head = chain(part.factories, ctx, final)
          head.push(blank())
          head.finish()
        }
      },
    }
  }

  private buildSingle(
    query: SingleQuery,
    write: boolean,
  ): { factories: StageFactory[]; columns: string[]; slots: number[]; returns: boolean } {
    let scope = new Scope()
    const factories: StageFactory[] = []
    let columns: string[] = []
    let slots: number[] = []
    const clauses = query.clauses
    for (let index = 0; index < clauses.length; index++) {
      const clause = clauses[index] as Clause
      checkComposition(clauses, index, this.diagnostics)
      const following = clauses[index + 1]
      const result =
        (index === 0 && !write
          ? fusedScanTopK(this, clause, following, scope, () =>
              checkComposition(clauses, index + 1, this.diagnostics),
            )
          : undefined) ??
        (write
          ? undefined
          : fusedScanAggregate(this, clause, following, scope, () =>
              checkComposition(clauses, index + 1, this.diagnostics),
            )) ??
        this.buildClause(clause, scope)
      if (result.fused) index++
      factories.push(...result.factories)
      scope = result.scope
      if (result.columns) {
        columns = result.columns.map((column) => column.name)
        slots = result.columns.map((column) => column.slot)
      }
      // Writes see a stable input: each clause finishes before the next starts (Cypher's eagerness).
      if (write && index < clauses.length - 1) factories.push(eager)
    }
    return { factories, columns, slots, returns: clauses[clauses.length - 1]?.kind === 'return' }
  }

  private buildClause(clause: Clause, scope: Scope): ClauseResult {
    switch (clause.kind) {
      case 'match': {
        const compiled = compileMatch(this, clause.pattern, clause.where, scope, {
          countLoaded: true,
          optional: clause.optional,
        })
        this.explain.push(...compiled.plan)
        return { factories: [matcherStage(compiled.matcher)], scope: compiled.scope }
      }
      case 'unwind': {
        const list = this.exprs.compile(clause.expr, scope)
        if (scope.has(clause.variable)) {
          this.report(
            'VARIABLE_ALREADY_BOUND',
            `variable '${clause.variable}' is already defined`,
            clause.start,
          )
        }
        const slot = this.allocSlot()
        return {
          factories: [unwindStage(list, slot)],
          scope: scope.with(clause.variable, { slot, kind: 'value' }),
        }
      }
      case 'with': {
        const projection = compileProjection(
          this,
          clause.projection,
          scope,
          'with',
          clause.where,
          clause.start,
        )
        return { factories: projection.factories, scope: projection.scope }
      }
      case 'return': {
        const projection = compileProjection(
          this,
          clause.projection,
          scope,
          'return',
          undefined,
          clause.start,
        )
        return { factories: projection.factories, scope: projection.scope, columns: projection.columns }
      }
      case 'create': {
        const next = scope.copy()
        const parts = clause.pattern.map((part) =>
          compileCreatePart(this, part, next, () => undefined, false),
        )
        return {
          factories: [
            (ctx, stage) => ({
              push(row) {
                const out = row.slice()
                for (const part of parts) runCreatePart(part, out, ctx, false)
                return stage.push(out)
              },
              finish: () => stage.finish(),
            }),
          ],
          scope: next,
        }
      }
      case 'merge':
        return this.buildMerge(clause, scope)
      case 'set':
        return { factories: [mutationStage(compileSetItems(this, clause.items, scope))], scope }
      case 'remove':
        return { factories: [mutationStage(compileRemoveItems(this, clause.items, scope))], scope }
      case 'delete':
        return {
          factories: [mutationStage([compileDelete(this, clause.exprs, clause.detach, scope)])],
          scope,
        }
    }
  }

  private buildMerge(
    clause: Clause & { kind: 'merge' },
    scope: Scope,
  ): { factories: StageFactory[]; scope: Scope } {
    const part = clause.part
    for (const rel of part.rels) {
      if (rel.types.length !== 1)
        this.report('NO_SINGLE_RELATIONSHIP_TYPE', 'MERGE needs exactly one relationship type', rel.start)
      if (rel.varLength)
        this.report('CREATING_VAR_LENGTH', 'MERGE cannot use a variable-length relationship', rel.start)
    }
    if (
      part.nodes.length === 1 &&
      part.nodes[0]?.variable !== undefined &&
      scope.has(part.nodes[0].variable)
    ) {
      this.report(
        'VARIABLE_ALREADY_BOUND',
        `variable '${part.nodes[0].variable}' is already defined`,
        part.start,
      )
    }
    const matched = compileMatch(this, [part], undefined, scope, { countLoaded: true, optional: false })
    this.explain.push(...matched.plan)
    const createScope = scope.copy()
    const create = compileCreatePart(this, part, createScope, (name) => matched.scope.get(name)?.slot, true)
    const onMatch = compileSetItems(this, clause.onMatch, matched.scope)
    const onCreate = compileSetItems(this, clause.onCreate, matched.scope)
    const matcher = matched.matcher
    return {
      factories: [
        (ctx, next) => ({
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
        }),
      ],
      scope: matched.scope,
    }
  }
}

function collectParams(node: unknown, out: Set<string> = new Set()): string[] {
  if (Array.isArray(node)) for (const item of node) collectParams(item, out)
  else if (node !== null && typeof node === 'object') {
    const record = node as Record<string, unknown>
    if (record.kind === 'param' && typeof record.name === 'string') out.add(record.name)
    for (const key of Object.keys(record)) collectParams(record[key], out)
  }
  return [...out]
}
