import type * as fc from 'fast-check'

/**
 * One fuzz target: a generator and the invariants checked on each input. Adding a target is one module
 * exporting a `FuzzTarget` and one line in `targets/index.ts`; the runner and the CI smoke test pick it up.
 */
export interface FuzzTarget<T = unknown> {
  name: string
  /** What is generated and which invariants hold, for `pnpm fuzz --list` and the note. */
  description: string
  /** Builds the generator (it may read seed corpora from the shared directory). */
  prepare(): Promise<PreparedTarget<T>>
}

export interface PreparedTarget<T> {
  arbitrary: fc.Arbitrary<T>
  /** Runs one input; throws `InvariantViolation` (or anything unexpected) when an invariant breaks. */
  check(input: T): Promise<void>
  /** Where the seed corpus came from, e.g. "312 TCK queries" or "no shared dir: generated only". */
  corpus: string
}

/** A broken invariant: the fuzzer reports it as a finding with the failing input. */
export class InvariantViolation extends Error {
  override readonly name = 'InvariantViolation'
}

export function invariant(condition: unknown, message: string): asserts condition {
  if (!condition) throw new InvariantViolation(message)
}
