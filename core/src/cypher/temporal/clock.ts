import { Temporal } from 'temporal-polyfill'
import type { ExecContext } from '../executor/context.js'

/**
 * The clocks behind `date()`, `datetime.statement()`, … : a statement (and its transaction: one query is
 * one transaction here) reads one instant, taken at its first use; `realtime` reads the clock each call.
 */
const statementClock = new WeakMap<ExecContext, bigint>()

export type Clock = 'statement' | 'transaction' | 'realtime'

export function nowInstant(ctx: ExecContext, clock: Clock): bigint {
  if (clock === 'realtime') return Temporal.Now.instant().epochNanoseconds
  let instant = statementClock.get(ctx)
  if (instant === undefined) {
    instant = Temporal.Now.instant().epochNanoseconds
    statementClock.set(ctx, instant)
  }
  return instant
}
