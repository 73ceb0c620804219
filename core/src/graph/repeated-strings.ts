/** Samples per key before deciding whether its values repeat. */
const SAMPLE = 1024
/** A key whose values are this often already seen is worth interning. */
const REPEATING = 0.5

/**
 * One shared string per repeated value while a checkpoint loads (issue 39, step 4). `JSON.parse` makes a new
 * string for every value it reads, so a restart turned the import's shared `candidate`, `indicator` or
 * `2024-01-02T03:04:05.000Z` into one copy per record (~100 bytes an object for a STIX store). Keys are judged
 * by their values: after `SAMPLE` values a key whose values are mostly new (ids, names, payloads) is no longer
 * interned, so the table holds repeated values and at most a sample of each unique-valued key. The table lives
 * for one load; what it shared stays shared.
 */
export class RepeatedStrings {
  private readonly table = new Map<string, string>()
  private readonly keys = new Map<string, KeyStrings>()

  /** Distinct strings held. */
  get size(): number {
    return this.table.size
  }

  /** The interner of property `key`'s values (one per key: it keeps the key's statistics). */
  key(key: string): KeyStrings {
    let strings = this.keys.get(key)
    if (strings === undefined) {
      strings = new KeyStrings(this.table)
      this.keys.set(key, strings)
    }
    return strings
  }
}

export class KeyStrings {
  private seen = 0
  private repeats = 0
  /** Still interning: the key's values repeat (or too few were seen to tell). */
  interning = true

  constructor(private readonly table: Map<string, string>) {}

  /** `value`, or the equal string seen before while this key's values repeat. */
  of(value: string): string {
    if (!this.interning) return value
    this.seen++
    const known = this.table.get(value)
    if (known !== undefined) {
      this.repeats++
      return known
    }
    if (this.seen >= SAMPLE && this.repeats < this.seen * REPEATING) this.interning = false
    else this.table.set(value, value)
    return value
  }
}
