import type { Value } from '../values.js'
import type { ExecContext, Row } from './context.js'

// The continuation types a compiled pattern is built from; match.ts composes them, expand.ts provides steps.

export type Cont = (row: Row, ctx: ExecContext, emit: (row: Row) => boolean) => boolean
export type Step = (next: Cont) => Cont
/** Checks a record's properties against a pattern's property map. */
export type PropCheck = (row: Row, ctx: ExecContext, get: (key: string) => Value) => boolean
/** Checks a node a step reached (labels, properties); undefined when the pattern puts no condition on it. */
export type NodeCheck = ((id: number, row: Row, ctx: ExecContext) => boolean) | undefined
