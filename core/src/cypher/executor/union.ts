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

type Sink = (values: Value[], row: Row) => boolean

/**
 * A single query's pipeline kept for the context it was built in: a subquery runs once per incoming row
 * (a LOAD CSV batch: ten thousand times in one context), and a part whose stages all go row by row need not be
 * built again each time. The sink is the current run's.
 */
interface KeptPipeline {
  ctx: ExecContext
  head: Stage
  sink: Sink
}

/** The pipeline kept per part (the last context it ran in), or null for a part whose stages hold rows. */
const kept = new WeakMap<CompiledPart, KeptPipeline | null>()

/** The part's pipeline for `ctx`, built once per context; undefined when it must be built per run. */
function keptPipeline(part: CompiledPart, ctx: ExecContext): KeptPipeline | undefined {
  let pipeline = kept.get(part)
  if (pipeline === null) return undefined
  if (pipeline === undefined && !part.factories.every((factory) => factory.rowByRow === true)) {
    kept.set(part, null)
    return undefined
  }
  if (pipeline === undefined || pipeline.ctx !== ctx) {
    const built: KeptPipeline = { ctx, head: undefined as unknown as Stage, sink: () => true }
    const final: Stage = {
      push: (row) =>
        !part.returns ||
        built.sink(
          part.slots.map((slot) => row[slot] as Value),
          row,
        ),
      finish() {},
    }
    built.head = chain(part.factories, ctx, final)
    pipeline = built
    kept.set(part, pipeline)
  }
  return pipeline
}

/** Runs a compiled union from `input`; `sink` gets each returned row's values and returns false to stop. */
export function runUnion(union: CompiledUnion, ctx: ExecContext, input: Row, sink: Sink): void {
  if (union.parts.length === 1 && !union.distinct) {
    const pipeline = keptPipeline(union.parts[0] as CompiledPart, ctx)
    if (pipeline !== undefined) {
      pipeline.sink = sink
      pipeline.head.push(input.slice())
      pipeline.head.finish()
      return
    }
  }
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
