import type { Eval } from '../compile-expr.js'
import { runtimeError, typeError } from '../errors.js'
import { DurationValue, durationScale, temporalAdd } from '../temporal/index.js'
import { checkInt, isNumber, orderCompare, typeName, type Value, valueKey } from '../values.js'
import { checkListSize, type ExecContext, type Row } from './context.js'

/** Sum of durations for sum() and avg() (Neo4j adds durations component-wise); anything else is refused. */
function durationSum(name: string) {
  const state = {
    total: null as Value,
    count: 0,
    push(v: Value) {
      if (!(v instanceof DurationValue)) throw typeError(`${name}() of ${typeName(v)}`)
      state.total = state.count === 0 ? v : (temporalAdd(state.total, v) as Value)
      state.count++
    },
  }
  return state
}

/** One aggregate's running state for one group. */
export interface Accumulator {
  add(row: Row, ctx: ExecContext): void
  result(): Value
}

export type AccumulatorFactory = () => Accumulator

/** Builds the accumulator factory for an aggregate call; `arg` is its compiled argument (absent for count(*)). */
export function accumulatorFor(
  name: string,
  args: Eval[],
  distinct: boolean,
  star: boolean,
): AccumulatorFactory {
  const arg = args[0]
  const value = (row: Row, ctx: ExecContext): Value => (arg as Eval)(row, ctx)
  const withDistinct =
    (make: () => { push(v: Value, ctx: ExecContext): void; result(): Value }): AccumulatorFactory =>
    () => {
      const inner = make()
      const seen = distinct ? new Set<string>() : undefined
      return {
        add(row, ctx) {
          const v = value(row, ctx)
          if (v === null) return
          if (seen) {
            const key = valueKey(v)
            if (seen.has(key)) return
            seen.add(key)
          }
          inner.push(v, ctx)
        },
        result: () => inner.result(),
      }
    }
  switch (name) {
    case 'count':
      // Counted as a double (exact to 2^53 rows), made an integer once: a bigint add per row is slow.
      if (star) {
        return () => {
          let n = 0
          return { add: () => void n++, result: () => BigInt(n) }
        }
      }
      return withDistinct(() => {
        let n = 0
        return { push: () => void n++, result: () => BigInt(n) }
      })
    case 'sum':
      return withDistinct(() => {
        let int = 0n
        let float = 0
        let isFloat = false
        const durations = durationSum('sum')
        return {
          push(v) {
            if (typeof v === 'bigint') int = checkInt(int + v)
            else if (typeof v === 'number') {
              isFloat = true
              float += v
            } else durations.push(v)
            if (durations.count > 0 && (isFloat || int !== 0n || isNumber(v)))
              throw typeError('sum() of durations mixed with numbers')
          },
          result: () => (durations.count > 0 ? durations.total : isFloat ? float + Number(int) : int),
        }
      })
    case 'avg':
      return withDistinct(() => {
        let total = 0
        let n = 0
        const durations = durationSum('avg')
        return {
          push(v) {
            if (isNumber(v)) {
              total += Number(v)
              n++
            } else durations.push(v)
            if (durations.count > 0 && n > 0) throw typeError('avg() of durations mixed with numbers')
          },
          result: () =>
            durations.count > 0
              ? (durationScale('/', durations.total, BigInt(durations.count)) as Value)
              : n === 0
                ? null
                : total / n,
        }
      })
    case 'min':
    case 'max': {
      const sign = name === 'min' ? -1 : 1
      return withDistinct(() => {
        let best: Value = null
        return {
          push(v) {
            if (best === null || sign * orderCompare(v, best) > 0) best = v
          },
          result: () => best,
        }
      })
    }
    case 'collect':
      return withDistinct(() => {
        const out: Value[] = []
        return {
          push(v, ctx) {
            out.push(v)
            if ((out.length & 1023) === 0) checkListSize(ctx, out.length)
          },
          result: () => out,
        }
      })
    case 'stdev':
    case 'stdevp': {
      const population = name === 'stdevp'
      return withDistinct(() => {
        const values: number[] = []
        return {
          push(v) {
            if (!isNumber(v)) throw typeError(`${name}() of ${typeName(v)}`)
            values.push(Number(v))
          },
          result() {
            const n = values.length
            if (n === 0 || (!population && n === 1)) return 0
            const mean = values.reduce((a, b) => a + b, 0) / n
            const squares = values.reduce((a, b) => a + (b - mean) ** 2, 0)
            return Math.sqrt(squares / (population ? n : n - 1))
          },
        }
      })
    }
    case 'percentilecont':
    case 'percentiledisc': {
      const percentile = args[1]
      const continuous = name === 'percentilecont'
      return () => {
        // The values as given: percentileDisc returns one of them, an INTEGER for integers (Neo4j).
        const values: (number | bigint)[] = []
        let p: Value = null
        return {
          add(row, ctx) {
            const v = value(row, ctx)
            if (p === null) p = percentile ? percentile(row, ctx) : null
            if (v === null) return
            if (!isNumber(v)) throw typeError(`${name}() of ${typeName(v)}`)
            values.push(v)
          },
          result() {
            if (values.length === 0) return null
            if (!isNumber(p) || Number(p) < 0 || Number(p) > 1) {
              throw runtimeError('NUMBER_OUT_OF_RANGE', `${name}() percentile must be between 0.0 and 1.0`)
            }
            values.sort((a, b) => Number(a) - Number(b))
            const q = Number(p)
            if (continuous) {
              const pos = q * (values.length - 1)
              const lo = Number(values[Math.floor(pos)])
              const hi = Number(values[Math.ceil(pos)])
              return lo + (hi - lo) * (pos - Math.floor(pos))
            }
            const index = Math.max(0, Math.ceil(q * values.length) - 1)
            return values[index] as number | bigint
          },
        }
      }
    }
    default:
      throw runtimeError('UNKNOWN_FUNCTION', `unknown aggregate ${name}`)
  }
}
