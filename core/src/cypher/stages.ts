import type { Eval, Matcher } from './compile-expr.js'
import { load, type Row, type RowCounter, rowByRow, type StageFactory } from './executor/context.js'
import { lazyRange, resumeSource } from './executor/resumable.js'
import type { Mutation } from './executor/write.js'
import type { Value } from './values.js'

// The row-pipeline stages the planner chains for its clauses.

/** Collects every row before passing any on: writes see a stable input (Cypher's eagerness). */
export const eager: StageFactory = (_ctx, next) => {
  const rows: Row[] = []
  return {
    push(row) {
      rows.push(row)
      return true
    },
    finish() {
      for (const row of rows) if (!next.push(row)) break
      next.finish()
    },
  }
}

export function matcherStage(matcher: Matcher): StageFactory {
  return rowByRow((ctx, next) => {
    const emit = (row: Row): boolean => next.push(row)
    return {
      push: (row) => matcher(row, ctx, emit),
      finish: () => next.finish(),
    }
  })
}

/**
 * UNWIND. As a streamed run's source (`source` set: the query's first clause) it resumes where the previous
 * slice stopped, and `UNWIND range(…)` (`source.range`: the arguments) counts through the integers without
 * building the list.
 */
export function unwindStage(
  list: Eval,
  slot: number,
  counter: RowCounter = load,
  source?: { range: Eval[] | undefined },
): StageFactory {
  const factory: StageFactory = (ctx, next) => ({
    push(row) {
      if (source !== undefined && ctx.stream !== undefined) {
        const range = source.range
        const items = (): Iterator<Value> => {
          if (range !== undefined) return lazyRange(range.map((arg) => arg(row, ctx)))
          const value = list(row, ctx)
          return (value === null ? [] : Array.isArray(value) ? value : [value])[Symbol.iterator]()
        }
        return resumeSource(ctx.stream, items, (item) => {
          counter(ctx)
          const out = row.slice()
          out[slot] = item
          return next.push(out)
        })
      }
      const value = list(row, ctx)
      if (value === null) return true
      const items = Array.isArray(value) ? value : [value]
      for (const item of items) {
        counter(ctx)
        const out = row.slice()
        out[slot] = item
        if (!next.push(out)) return false
      }
      return true
    },
    finish: () => next.finish(),
  })
  // As a streamed source it keeps its place in the list between slices.
  return source === undefined ? rowByRow(factory) : factory
}

export function mutationStage(mutations: Mutation[]): StageFactory {
  return rowByRow((ctx, next) => ({
    push(row) {
      for (const mutation of mutations) mutation(row, ctx)
      return next.push(row)
    },
    finish: () => next.finish(),
  }))
}
