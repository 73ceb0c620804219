/** Samples per key before deciding whether its values repeat. */
const SAMPLE = 1024
/** A key whose values are this often already seen is worth interning. */
const REPEATING = 0.5
/** Longer lists are left as they are: a long list repeating whole is rare, and its key costs its length. */
const LIST_MAX = 16

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
  private readonly lists = new Map<string, readonly string[]>()
  private readonly keys = new Map<string, KeyStrings>()

  /** Distinct strings held. */
  get size(): number {
    return this.table.size
  }

  /** The interner of property `key`'s values (one per key: it keeps the key's statistics). */
  key(key: string): KeyStrings {
    let strings = this.keys.get(key)
    if (strings === undefined) {
      strings = new KeyStrings(this.table, this.lists)
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

  private listsSeen = 0
  private listRepeats = 0
  /** Still sharing lists: the key's list values repeat (or too few were seen to tell). */
  sharingLists = true

  constructor(
    private readonly table: Map<string, string>,
    private readonly lists: Map<string, readonly string[]>,
  ) {}

  /**
   * `list`, or the equal list of strings seen before while this key's lists repeat (`indicator_types`,
   * `labels`: a restart made one array per record). A shared list is frozen: the store never changes a
   * value in place (a write replaces it), and a path that tried would fail loudly, not change every record
   * holding it.
   */
  list<T>(list: T[]): T[] {
    if (!this.sharingLists || list.length > LIST_MAX || !list.every((v) => typeof v === 'string')) return list
    this.listsSeen++
    const key = JSON.stringify(list)
    const known = this.lists.get(key)
    if (known !== undefined) {
      this.listRepeats++
      return known as unknown as T[]
    }
    if (this.listsSeen >= SAMPLE && this.listRepeats < this.listsSeen * REPEATING) this.sharingLists = false
    else {
      for (let i = 0; i < list.length; i++) (list as unknown[])[i] = this.of(list[i] as string)
      this.lists.set(key, Object.freeze(list) as unknown as readonly string[])
    }
    return list
  }

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
