import type { ExecContext, Row } from './executor/context.js'
import type { Value } from './values.js'

/** A compiled expression: evaluated once per row with the query's context. */
export type Eval = (row: Row, ctx: ExecContext) => Value
/** Runs a compiled pattern for one row; `emit` returns false to stop. Returns false when stopped. */
export type Matcher = (row: Row, ctx: ExecContext, emit: (row: Row) => boolean) => boolean

export const constant =
  (value: Value): Eval =>
  () =>
    value
