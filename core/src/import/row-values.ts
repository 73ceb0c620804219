import type { PropertyValue } from '../graph/types.js'

/** Property columns one header may have: which of a row's are present is kept as the bits of one integer. */
export const MAX_PROPERTY_COLUMNS = 30

/**
 * The present properties of one row, in key order, reused from row to row. A short integer (what most integer
 * columns hold) stays a number in `ints` instead of becoming a bigint the image would turn back into a number.
 */
export class RowValues {
  count = 0
  /** Property k's value, or null when it is the integer `ints[k]`. */
  readonly values: (PropertyValue | null)[] = []
  /** Integers a double holds exactly (up to 15 digits). */
  readonly ints = new Float64Array(MAX_PROPERTY_COLUMNS)

  clear(): void {
    this.count = 0
  }

  push(value: PropertyValue): void {
    this.values[this.count++] = value
  }

  pushInt(value: number): void {
    this.ints[this.count] = value
    this.values[this.count++] = null
  }

  /** Property k as the engine holds it (a bigint for an integer). */
  value(k: number): PropertyValue {
    const value = this.values[k] as PropertyValue | null
    return value === null ? BigInt(this.ints[k]!) : value
  }

  /** Whether each of the first `n` properties is a short integer. */
  allInts(n: number): boolean {
    for (let k = 0; k < n; k++) if (this.values[k] !== null) return false
    return true
  }
}
