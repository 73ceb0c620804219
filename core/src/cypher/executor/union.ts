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
 * A single query's pipeline kept for the run (context) it was built in: a subquery runs once per incoming row
 * (a LOAD CSV batch: ten thousand times in one context), and a part whose stages all go row by row need not be
 * built again each time. The sink is the current call's.
 */
class KeptPipeline {
  sink: Sink = () => true
  readonly head: Stage

  constructor(part: CompiledPart, ctx: ExecContext) {
    this.head = chain(part.factories, ctx, {
      push: (row) =>
        !part.returns ||
        this.sink(
          part.slots.map((slot) => row[slot] as Value),
          row,
        ),
      finish() {},
    })
  }
}

/** Whether a compiled part's stages all go row by row (decided once per part). */
const rowByRowParts = new WeakMap<CompiledPart, boolean>()
/**
 * Pipelines by the context they were built in: they go with it, so a plan kept in the plan cache holds no
 * finished run's transaction or graph version.
 */
const keptByContext = new WeakMap<ExecContext, Map<CompiledPart, KeptPipeline>>()

/** The part's pipeline for `ctx`, built once per context; undefined when it must be built per run. */
function keptPipeline(part: CompiledPart, ctx: ExecContext): KeptPipeline | undefined {
  let rowByRow = rowByRowParts.get(part)
  if (rowByRow === undefined) {
    rowByRow = part.factories.every((factory) => factory.rowByRow === true)
    rowByRowParts.set(part, rowByRow)
  }
  if (!rowByRow) return undefined
  let kept = keptByContext.get(ctx)
  if (kept === undefined) {
    kept = new Map()
    keptByContext.set(ctx, kept)
  }
  let pipeline = kept.get(part)
  if (pipeline === undefined) {
    pipeline = new KeptPipeline(part, ctx)
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
