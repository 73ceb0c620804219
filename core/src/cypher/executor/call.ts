import { findAggregates, type Scope } from '../analyzer.js'
import type { Clause, Expr } from '../ast.js'
import type { Eval } from '../compile-expr.js'
import { runtimeError } from '../errors.js'
import {
  assignable,
  coerceArgument,
  type ProcedureContext,
  type ProcedureDef,
  type ProcedureRegistry,
} from '../procedures/registry.js'
import { truth, type Value } from '../values.js'
import { load, type StageFactory } from './context.js'
import type { MatchEnv } from './match.js'

export interface CallEnv extends MatchEnv {
  readonly text: string
  readonly procedures: ProcedureRegistry
  /** Parameters a call without parentheses takes its arguments from. */
  implicitParam(name: string): void
}

export interface CompiledCall {
  factories: StageFactory[]
  scope: Scope
  /** The result columns of a standalone call. */
  columns?: { name: string; slot: number }[]
}

/** Resolves a procedure by name, reporting PROCEDURE_NOT_FOUND. */
export function lookupProcedure(env: CallEnv, name: string, at: number): ProcedureDef | undefined {
  const def = env.procedures.get(name)
  if (def === undefined)
    env.report('PROCEDURE_NOT_FOUND', `there is no procedure with the name '${name}'`, at)
  return def
}

/** `CALL name(args) YIELD a, b AS c WHERE …`; `standalone` when it is the whole query. */
export function compileCall(
  env: CallEnv,
  clause: Clause & { kind: 'call' },
  input: Scope,
  standalone: boolean,
): CompiledCall {
  const counter = env.rowCounter ?? load
  const def = lookupProcedure(env, clause.procedure, clause.start)
  if (def === undefined) return { factories: [], scope: input }
  const args = argumentsOf(env, def, clause, input, standalone)
  const scope = input.copy()
  // Which outputs bind to which variables.
  let yields: { name: string; alias: string }[]
  if (clause.yields === '*') {
    if (!standalone)
      env.report(
        'CYPHER_SYNTAX_ERROR',
        'YIELD * is only allowed in a standalone procedure call',
        clause.start,
      )
    yields = def.outputs.map((out) => ({ name: out.name, alias: out.name }))
  } else if (clause.yields !== undefined) {
    yields = clause.yields.map((item) => ({ name: item.name, alias: item.alias ?? item.name }))
  } else if (standalone) {
    const shown = def.defaultOutputs ?? def.outputs.map((out) => out.name)
    yields = shown.map((name) => ({ name, alias: name }))
  } else yields = []
  const outputIndex = new Map(def.outputs.map((out, i) => [out.name, i]))
  const bound: { index: number; slot: number; name: string }[] = []
  for (const item of yields) {
    const index = outputIndex.get(item.name)
    if (index === undefined) {
      env.report(
        'UNKNOWN_PROCEDURE_OUTPUT',
        `procedure ${def.name} has no output '${item.name}'`,
        clause.start,
      )
      continue
    }
    if (scope.has(item.alias)) {
      env.report('VARIABLE_ALREADY_BOUND', `variable '${item.alias}' is already defined`, clause.start)
      continue
    }
    const slot = env.allocSlot()
    scope.define(item.alias, { slot, kind: 'value' })
    bound.push({ index, slot, name: item.alias })
  }
  const where = clause.where ? env.exprs.compile(clause.where, scope) : undefined
  const optional = clause.optional === true
  const factory: StageFactory = (ctx, next) => ({
    push(row) {
      if (ctx.host === undefined)
        throw runtimeError('PROCEDURE_CALL_FAILED', 'procedures are not available here')
      const pctx = ctx as ProcedureContext
      const values = args.map((arg, i) => coerceArgument(def, i, arg(row, ctx)))
      for (let i = values.length; i < def.params.length; i++)
        values.push((def.params[i]?.default as Value) ?? null)
      let yielded = false
      let passed = false
      for (const result of def.run(values, pctx)) {
        counter(ctx)
        yielded = true
        const out = row.slice()
        for (const { index, slot } of bound) out[slot] = result[index] ?? null
        if (where && truth(where(out, ctx)) !== true) continue
        passed = true
        if (!next.push(out)) return false
      }
      // A procedure without outputs passes each row on once (Neo4j: a VOID procedure).
      // Standalone, it has no result rows at all.
      if (!yielded && def.outputs.length === 0 && !standalone) return next.push(row)
      if (!passed && optional) {
        const out = row.slice()
        for (const { slot } of bound) out[slot] = null
        return next.push(out)
      }
      return true
    },
    finish: () => next.finish(),
  })
  return {
    factories: [factory],
    scope,
    ...(standalone ? { columns: bound.map(({ name, slot }) => ({ name, slot })) } : {}),
  }
}

/** Compiled argument expressions: explicit, or for `CALL name` the same-named parameters. */
function argumentsOf(
  env: CallEnv,
  def: ProcedureDef,
  clause: Clause & { kind: 'call' },
  scope: Scope,
  standalone: boolean,
): Eval[] {
  let exprs: Expr[]
  if (clause.args === undefined) {
    if (!standalone && def.params.length > 0) {
      env.report(
        'INVALID_ARGUMENT_PASSING_MODE',
        `procedure ${def.name} takes arguments; an in-query call must pass them in parentheses`,
        clause.start,
      )
      return []
    }
    exprs = def.params.map((param) => {
      env.implicitParam(param.name)
      return { kind: 'param', name: param.name, start: clause.start, end: clause.end }
    })
  } else exprs = clause.args
  const required = def.params.filter((param) => param.default === undefined).length
  if (exprs.length > def.params.length || exprs.length < required) {
    const expected = required === def.params.length ? `${required}` : `${required} to ${def.params.length}`
    env.report(
      'INVALID_NUMBER_OF_ARGUMENTS',
      `procedure ${def.name} takes ${expected} arguments, got ${exprs.length}`,
      clause.start,
    )
    return []
  }
  return exprs.map((expr, i) => {
    if (findAggregates(expr, env.text).length > 0) {
      env.report('INVALID_AGGREGATION', 'procedure arguments cannot use aggregate functions', expr.start)
    }
    const param = def.params[i]
    if (expr.kind === 'literal' && param !== undefined && !assignable(expr.value as Value, param.type)) {
      env.report(
        'INVALID_ARGUMENT_TYPE',
        `${def.name}() argument '${param.name}' expects ${param.type.replace(/\?$/, '')}`,
        expr.start,
      )
    }
    return env.exprs.compile(expr, scope)
  })
}
