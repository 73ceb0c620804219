import { orderKeysOf } from '../../graph/column-order.js'
import type { PropertyColumn } from '../../graph/columns.js'
import type { Expr } from '../ast.js'
import type { Eval } from '../compile-expr.js'
import type { ExecContext, Row } from './context.js'

/**
 * A WHERE conjunct `v.key op constant` (literals and parameters, maybe with arithmetic, on either side) that
 * a column scan tests on the column's order keys: one typed-array read and one double comparison per row
 * instead of the general evaluator. Rows whose cell is not of the column's kind (null, NaN, another type)
 * still go through the conjunct's general evaluation, so answers match it exactly.
 */
export type ColumnOp = '<' | '<=' | '>' | '>=' | '<>'

export interface ColumnTestShape {
  /** Index of the property in the scan's keys. */
  key: number
  op: ColumnOp
  constant: Expr
}

const FLIPPED: Record<ColumnOp, ColumnOp> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '<>': '<>' }

/** Operators of a constant: arithmetic on literals and parameters is the same value on every row. */
const ARITHMETIC = new Set(['+', '-', '*', '/', '%', '^'])

/** Whether `expr` is a literal, a parameter, or arithmetic on them (`-1`, `$a + 1`). */
function isConstant(expr: Expr): boolean {
  if (expr.kind === 'literal' || expr.kind === 'param') return true
  if (expr.kind === 'unary') return expr.op !== 'NOT' && isConstant(expr.operand)
  return expr.kind === 'binary' && ARITHMETIC.has(expr.op) && isConstant(expr.left) && isConstant(expr.right)
}

/** The column-test form of `conjunct`, or undefined when it has another shape. Syntax only. */
export function columnTestShape(
  conjunct: Expr,
  variable: string,
  keys: string[],
): ColumnTestShape | undefined {
  if (conjunct.kind !== 'binary' || !Object.hasOwn(FLIPPED, conjunct.op)) return undefined
  const op = conjunct.op as ColumnOp
  const keyOf = (expr: Expr): number =>
    expr.kind === 'prop' && expr.target.kind === 'var' && expr.target.name === variable
      ? keys.indexOf(expr.key)
      : -1
  const left = keyOf(conjunct.left)
  if (left >= 0 && isConstant(conjunct.right)) return { key: left, op, constant: conjunct.right }
  const right = keyOf(conjunct.right)
  if (right >= 0 && isConstant(conjunct.left)) return { key: right, op: FLIPPED[op], constant: conjunct.left }
  return undefined
}

/**
 * Each comparison as the set of outcomes it accepts, bit 0 equal, bit 1 less, bit 2 greater: the scan loop
 * tests a key with a shift and a mask, no branch on the (unpredictable) outcome.
 */
const OUTCOMES: Record<ColumnOp, number> = { '<': 0b010, '<=': 0b011, '>': 0b100, '>=': 0b101, '<>': 0b110 }

/** A column test bound to one scan's column and the constant's value: what the scan loop reads. */
export interface BoundColumnTest {
  readonly keys: Float64Array
  /** The outcomes the comparison accepts (`OUTCOMES`). */
  readonly accepts: number
  /** The constant's position on the keys' scale. */
  readonly at: number
}

/**
 * Binds `shape` (its constant compiled to `constant`) to `column`; undefined when the column has no order
 * keys or the constant is not of its kind — the conjunct is then evaluated the general way on every row. A
 * constant that fails to evaluate (a missing parameter) is left to the general evaluation too, which raises
 * the error on the row it would.
 */
export function bindColumnTest(
  shape: ColumnTestShape,
  constant: Eval,
  column: PropertyColumn | undefined,
  row: Row,
  ctx: ExecContext,
): BoundColumnTest | undefined {
  const order = column === undefined ? undefined : orderKeysOf(column)
  if (order === undefined) return undefined
  let value: unknown
  try {
    value = constant(row, ctx)
  } catch {
    return undefined
  }
  const at = order.position(value)
  return at === undefined ? undefined : { keys: order.keys, accepts: OUTCOMES[shape.op], at }
}

/** 1 when `key` (of the column's kind, never NaN) compared with `at` is an outcome in `accepts`, else 0. */
export function columnTestPasses(accepts: number, key: number, at: number): number {
  return (accepts >> (Number(key < at) + 2 * Number(key > at))) & 1
}
