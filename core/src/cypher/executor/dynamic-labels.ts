import type { Scope } from '../analyzer.js'
import type { Expr } from '../ast.js'
import type { Eval, ExpressionCompiler } from '../compile-expr.js'
import { runtimeError, typeError } from '../errors.js'
import { typeName, type Value } from '../values.js'
import type { ExecContext, Row } from './context.js'

export type DynamicLabels = (row: Row, ctx: ExecContext) => string[]

/** `:$(expr)` labels: each expression gives a label name or a list of them, per row. */
export function compileDynamicLabels(
  exprs: ExpressionCompiler,
  list: readonly Expr[] | undefined,
  scope: Scope,
): DynamicLabels | undefined {
  if (list === undefined || list.length === 0) return undefined
  const evals: Eval[] = list.map((expr) => exprs.compile(expr, scope))
  return (row, ctx) => {
    const out: string[] = []
    for (const evaluate of evals) {
      const value = evaluate(row, ctx)
      for (const item of Array.isArray(value) ? value : [value]) out.push(labelName(item))
    }
    return out
  }
}

function labelName(value: Value): string {
  if (typeof value !== 'string') throw typeError(`a dynamic label must be a string, got ${typeName(value)}`)
  if (value === '') throw runtimeError('INVALID_ARGUMENT_VALUE', 'a dynamic label must not be empty')
  return value
}
