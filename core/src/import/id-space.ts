/** Keys may sit in the dense table up to this many slots past its base; others go to the map. */
const DENSE_LIMIT = 1 << 26
/** The table grows to a key only while it stays this dense (slots per key held), so sparse ids cost no memory. */
const SLOTS_PER_KEY = 4
const MIN_SLOTS = 1 << 16

/**
 * One id space of an import: node ids by their `:ID` key. Integer keys in a run, the usual ids of generated
 * and exported data (each label's ids often starting where the last one's stopped), index a growing typed
 * table from the first such key on, so a lookup is an array read, not a hash; every other key goes to a map.
 * As in a Map, -0 and 0 are one key.
 */
export class IdSpace {
  /** `dense[key - base]` is the node id + 1; 0 where the key has no node there. */
  private dense = new Float64Array(0)
  private base = -1
  private readonly sparse = new Map<string | number, number>()
  private size = 0

  get(key: string | number): number | undefined {
    if (typeof key === 'number') {
      const at = key - this.base
      if (at >= 0 && at < this.dense.length && Number.isInteger(at)) {
        const v = this.dense[at]!
        if (v !== 0) return v - 1
      }
    }
    // a key may have gone to the map before the table grew past it
    return this.sparse.size === 0 ? undefined : this.sparse.get(key)
  }

  has(key: string | number): boolean {
    return this.get(key) !== undefined
  }

  /** Sets a key that has no node yet. */
  set(key: string | number, node: number): void {
    this.size++
    if (typeof key === 'number' && Number.isInteger(key)) {
      // the first integer key (the generated ids' usual start) is where the table begins
      if (this.base < 0 && key >= 0) this.base = key === 0 ? 0 : key
      const at = key - this.base
      if (this.base >= 0 && at >= 0 && (at < this.dense.length || this.grow(at))) {
        this.dense[at] = node + 1
        return
      }
    }
    this.sparse.set(key, node)
  }

  /** Grows the table to hold slot `at` unless that would leave it sparse; whether it holds it now. */
  private grow(at: number): boolean {
    const bound = Math.min(DENSE_LIMIT, Math.max(MIN_SLOTS, this.size * SLOTS_PER_KEY))
    if (at >= bound) return false
    const grown = new Float64Array(Math.min(bound, Math.max(at + 1, this.dense.length * 2, 1024)))
    grown.set(this.dense)
    this.dense = grown
    return true
  }
}
