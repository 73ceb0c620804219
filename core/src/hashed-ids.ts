/**
 * Ids filed under keys in two typed arrays, for tables of a million entries and more (the seed index's exact
 * ids, the graph's property index): open addressing over (hash of the key, id), the keys themselves not kept.
 * The records hold them, and `matches(id, key)` tells a real hit from a hash collision. A Map entry with its
 * bare-id posting cost ~40 bytes at a typical fill; a slot here is 8, at most three quarters full.
 *
 * The same (key, id) is filed once. `remove` needs the key the id was filed under (its hash finds the slot),
 * not the record's current value, so a record may change before its old entry is removed.
 *
 * Number keys can be kept instead (`numberKeys`: 8 bytes more a slot): a hit is then the key itself, with no
 * record to read back (a seek by an integer id is the commonest lookup of a load).
 */
export class HashedIds<K> {
  private hashes = new Int32Array(INITIAL)
  /** The id in each slot: EMPTY, or DELETED (a tombstone a probe walks past). */
  private ids = new Int32Array(INITIAL).fill(EMPTY)
  /** Each slot's key, when the keys are numbers kept here. */
  private keys: Float64Array | null
  private live = 0
  /** Live slots and tombstones: what decides the next rehash. */
  private taken = 0

  constructor(
    private readonly hash: (key: K) => number,
    private readonly matches: (id: number, key: K) => boolean,
    numberKeys = false,
  ) {
    this.keys = numberKeys ? new Float64Array(INITIAL) : null
  }

  get size(): number {
    return this.live
  }

  add(key: K, id: number): void {
    const h = this.hash(key)
    const mask = this.ids.length - 1
    let free = -1
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const at = this.ids[s] as number
      if (at === EMPTY) {
        if (free < 0) free = s
        break
      }
      if (at === DELETED) {
        if (free < 0) free = s
      } else if (at === id && this.hashes[s] === h) return
    }
    if (this.ids[free] === EMPTY) this.taken++
    this.ids[free] = id
    this.hashes[free] = h
    if (this.keys !== null) this.keys[free] = key as number
    this.live++
    if (this.taken * 4 > this.ids.length * 3) this.rehash()
  }

  remove(key: K, id: number): void {
    const h = this.hash(key)
    const mask = this.ids.length - 1
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const at = this.ids[s] as number
      if (at === EMPTY) return
      if (at === id && this.hashes[s] === h) {
        this.ids[s] = DELETED
        this.live--
        return
      }
    }
  }

  /** The ids filed under `key`, in no particular order; undefined when none. */
  get(key: K): number[] | undefined {
    const h = this.hash(key)
    const mask = this.ids.length - 1
    const keys = this.keys
    let out: number[] | undefined
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const at = this.ids[s] as number
      if (at === EMPTY) return out
      if (at < 0 || this.hashes[s] !== h) continue
      if (keys !== null ? keys[s] !== (key as number) : !this.matches(at, key)) continue
      if (out === undefined) out = [at]
      else out.push(at)
    }
  }

  /** Twice the room when live entries fill half of it; the same room (tombstones dropped) otherwise. */
  private rehash(): void {
    const size = this.live * 2 > this.ids.length ? this.ids.length * 2 : this.ids.length
    const ids = this.ids
    const hashes = this.hashes
    const keys = this.keys
    this.ids = new Int32Array(size).fill(EMPTY)
    this.hashes = new Int32Array(size)
    if (keys !== null) this.keys = new Float64Array(size)
    const mask = size - 1
    for (let s = 0; s < ids.length; s++) {
      const id = ids[s] as number
      if (id < 0) continue
      const h = hashes[s] as number
      let t = h & mask
      while (this.ids[t] !== EMPTY) t = (t + 1) & mask
      this.ids[t] = id
      this.hashes[t] = h
      if (keys !== null) (this.keys as Float64Array)[t] = keys[s] as number
    }
    this.taken = this.live
  }
}

const INITIAL = 16
const EMPTY = -1
const DELETED = -2

/** FNV-1a over UTF-16 code units, mixed at the end so nearby keys spread over the low bits. */
export function hashString(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return finish(h)
}

const scratch = new Float64Array(1)
const words = new Int32Array(scratch.buffer)

/** A number by its bits, with -0 as 0 (they are equal keys). */
export function hashNumber(value: number): number {
  scratch[0] = value === 0 ? 0 : value
  return finish(Math.imul((words[0] as number) ^ 0x9e3779b9, 0x85ebca6b) ^ (words[1] as number))
}

function finish(h: number): number {
  let x = h
  x ^= x >>> 16
  x = Math.imul(x, 0x7feb352d)
  x ^= x >>> 15
  x = Math.imul(x, 0x846ca68b)
  return x ^ (x >>> 16)
}
