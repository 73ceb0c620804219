import { type Value, valueKey } from '../values.js'
import { chain, type ExecContext, type Row, type Stage, type StageFactory } from './context.js'

export interface CompiledPart {
  factories: StageFactory[]
  columns: string[]
  slots: number[]
  returns: boolean
  /** The top-level read's rows can stream (planner.ts StreamPlan). */
  streams?: boolean
}

/** A compiled query (a UNION of single queries): the top-level query or a subquery. */
export interface CompiledUnion {
  parts: CompiledPart[]
  distinct: boolean
  columns: string[]
}

/** Runs a compiled union from `input`; `sink` gets each returned row's values and returns false to stop. */
export function runUnion(
  union: CompiledUnion,
  ctx: ExecContext,
  input: Row,
  sink: (values: Value[], row: Row) => boolean,
): void {
  const seen = union.distinct ? new Set<string>() : undefined
  let stopped = false
  for (const part of union.parts) {
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
        if (!sink(values, row)) {
          stopped = true
          return false
        }
        return true
      },
      finish() {},
    }
    const head = chain(part.factories, ctx, final)
    head.push(input.slice())
    head.finish()
  }
}

/** The pipeline of a single-part query opened as a stage: returned rows go to `sink` as their column values. */
export function openPart(part: CompiledPart, ctx: ExecContext, sink: (values: Value[]) => boolean): Stage {
  const final: Stage = {
    push: (row) => !part.returns || sink(part.slots.map((slot) => row[slot] as Value)),
    finish() {},
  }
  return chain(part.factories, ctx, final)
}
