import { runtimeError } from '../errors.js'
import { typeName, type Value } from '../values.js'

/**
 * A streamed run (stream-cursor.ts) executes its pipeline in slices. The outermost loop of the query's first
 * clause (a label or all-nodes scan, or UNWIND) is its resumable source: it keeps its iterator here between
 * slices and stops at an item boundary once the slice is full, so all the rows one source item produces come
 * out of one slice and the stages after it (filters, expansions, projections, SKIP/LIMIT) keep their state.
 */
export interface StreamSlice {
  /** Set by the cursor's sink once the slice has what it asked for: the source stops before its next item. */
  full: boolean
  /** Source items this slice may still take: a slice whose filters pass little still ends (and yields). */
  itemsLeft: number
  /** The source stopped because the slice is full or took its items: another slice resumes it. */
  paused: boolean
  /** The source ran out, or a stage after it (LIMIT) stopped it: no slice follows. */
  exhausted: boolean
  /** The source's position, made by the first slice and resumed by the next ones. */
  source: Iterator<unknown> | undefined
}

/**
 * Drives a resumable source through `each` until the slice is full or has taken its items; false when paused
 * or stopped (the caller's stages then stop too), true when the source ran out.
 */
export function resumeSource<T>(
  stream: StreamSlice,
  items: () => Iterator<T>,
  each: (item: T) => boolean,
): boolean {
  stream.source ??= items()
  const source = stream.source as Iterator<T>
  while (!stream.full && stream.itemsLeft > 0) {
    stream.itemsLeft--
    const next = source.next()
    if (next.done === true) {
      stream.exhausted = true
      return true
    }
    if (!each(next.value)) {
      stream.exhausted = true
      return false
    }
  }
  stream.paused = true
  ;(source as Partial<Settling>).settle?.()
  return false
}

/** A source that must keep what remains of it when a slice pauses (see SettlingIds). */
interface Settling {
  settle(): void
}

/**
 * The ids of a label's index as a streamed source. The store may compact that index in place between two
 * slices (after many deletes), which would shift a live iterator's position; so ids are read live while a
 * slice runs (synchronously: nothing changes meanwhile) and, when the slice pauses, the ids still to visit are
 * copied (4 bytes each). A result of one slice copies nothing.
 */
export class SettlingIds implements Iterator<number>, Settling {
  private live: Iterator<number> | undefined
  private rest: Int32Array | undefined
  private at = 0

  constructor(ids: Iterable<number>) {
    this.live = ids[Symbol.iterator]()
  }

  next(): IteratorResult<number> {
    if (this.live !== undefined) return this.live.next()
    const rest = this.rest as Int32Array
    return this.at < rest.length ? { value: rest[this.at++] as number, done: false } : DONE
  }

  settle(): void {
    const live = this.live
    if (live === undefined) return
    const ids: number[] = []
    for (let next = live.next(); next.done !== true; next = live.next()) ids.push(next.value)
    this.rest = Int32Array.from(ids)
    this.live = undefined
  }
}

const DONE: IteratorResult<number> = { value: undefined, done: true }

/**
 * `range(start, end[, step])` as UNWIND's streamed source: the integers one by one, never the list (a streamed
 * `UNWIND range(1, 1000000)` holds no million-element list). Arguments are checked as `range()` checks them.
 */
export function* lazyRange(args: Value[]): Iterator<bigint> {
  for (const arg of args) {
    if (typeof arg !== 'bigint')
      throw runtimeError('INVALID_ARGUMENT_TYPE', `range() expects integers, got ${typeName(arg)}`)
  }
  const [start, end, step = 1n] = args as bigint[]
  if (step === 0n) throw runtimeError('NUMBER_OUT_OF_RANGE', 'range() step must not be zero')
  for (let v = start as bigint; step > 0n ? v <= (end as bigint) : v >= (end as bigint); v += step) yield v
}
