import type { PropertyValue } from './types.js'

/** Past this many keys a hash map answers lookups faster than a scan. */
const SCAN_LIMIT = 24

/**
 * A node's properties as one flat array `[key0, value0, key1, value1, …]`: the published store holds one per
 * node, and a V8 `Map` costs about 200 bytes before its first entry (most nodes have a handful of keys).
 * It is a `Map<number, PropertyValue>` to every reader (same methods, insertion order, `set` keeps a key's
 * place); a node with very many keys switches to a real `Map` so lookups stay O(1).
 */
export class PropertyMap implements Map<number, PropertyValue> {
  private flat: (number | PropertyValue)[]
  private hashed: Map<number, PropertyValue> | undefined

  constructor(entries?: Iterable<readonly [number, PropertyValue]>) {
    this.flat = []
    if (entries !== undefined) for (const [key, value] of entries) this.set(key, value)
  }

  /** From parallel key and value lists whose keys are known to be distinct (decoded records). */
  static fromDistinct(keys: readonly number[], values: readonly PropertyValue[]): PropertyMap {
    const map = new PropertyMap()
    if (keys.length > SCAN_LIMIT) {
      for (let i = 0; i < keys.length; i++) map.set(keys[i] as number, values[i] as PropertyValue)
      return map
    }
    const flat = new Array<number | PropertyValue>(keys.length * 2)
    for (let i = 0; i < keys.length; i++) {
      flat[2 * i] = keys[i] as number
      flat[2 * i + 1] = values[i] as PropertyValue
    }
    map.flat = flat
    return map
  }

  /** A copy of `source` (any map of properties); list values are copied too, so nothing is shared. */
  static copyOf(source: ReadonlyMap<number, PropertyValue>): PropertyMap {
    const map = new PropertyMap()
    if (source.size > SCAN_LIMIT) {
      for (const [key, value] of source) map.set(key, Array.isArray(value) ? value.slice() : value)
      return map
    }
    const flat = new Array<number | PropertyValue>(source.size * 2)
    let at = 0
    source.forEach((value, key) => {
      flat[at++] = key
      flat[at++] = Array.isArray(value) ? value.slice() : value
    })
    map.flat = flat
    return map
  }

  get size(): number {
    return this.hashed === undefined ? this.flat.length >> 1 : this.hashed.size
  }

  private slot(key: number): number {
    const flat = this.flat
    for (let i = 0; i < flat.length; i += 2) if (flat[i] === key) return i
    return -1
  }

  get(key: number): PropertyValue | undefined {
    if (this.hashed !== undefined) return this.hashed.get(key)
    const at = this.slot(key)
    return at < 0 ? undefined : (this.flat[at + 1] as PropertyValue)
  }

  has(key: number): boolean {
    return this.hashed !== undefined ? this.hashed.has(key) : this.slot(key) >= 0
  }

  set(key: number, value: PropertyValue): this {
    if (this.hashed !== undefined) {
      this.hashed.set(key, value)
      return this
    }
    const at = this.slot(key)
    if (at >= 0) this.flat[at + 1] = value
    else if (this.flat.length >> 1 < SCAN_LIMIT)
      // A new array of exactly the new size: push would grow the list to 17 slots, and the store keeps
      // these for the life of the node.
      this.flat = this.flat.length === 0 ? [key, value] : [...this.flat, key, value]
    else {
      this.hashed = new Map(this.entries())
      this.hashed.set(key, value)
      this.flat = []
    }
    return this
  }

  delete(key: number): boolean {
    if (this.hashed !== undefined) return this.hashed.delete(key)
    const at = this.slot(key)
    if (at < 0) return false
    this.flat.splice(at, 2)
    return true
  }

  clear(): void {
    this.flat = []
    this.hashed = undefined
  }

  /** The cheap way through (no iterator, no entry arrays): hot paths of the store use it. */
  forEach(
    callback: (value: PropertyValue, key: number, map: Map<number, PropertyValue>) => void,
    thisArg?: unknown,
  ): void {
    if (this.hashed !== undefined) {
      for (const [key, value] of this.hashed) callback.call(thisArg, value, key, this)
      return
    }
    const flat = this.flat
    for (let i = 0; i < flat.length; i += 2)
      callback.call(thisArg, flat[i + 1] as PropertyValue, flat[i] as number, this)
  }

  *entries(): MapIterator<[number, PropertyValue]> {
    if (this.hashed !== undefined) {
      yield* this.hashed.entries()
      return
    }
    // Live, not a snapshot: whoever owns one (the store, or the transaction that created the node) never
    // changes it while iterating it.
    const flat = this.flat
    for (let i = 0; i < flat.length; i += 2) yield [flat[i] as number, flat[i + 1] as PropertyValue]
  }

  *keys(): MapIterator<number> {
    for (const [key] of this.entries()) yield key
  }

  *values(): MapIterator<PropertyValue> {
    for (const [, value] of this.entries()) yield value
  }

  [Symbol.iterator](): MapIterator<[number, PropertyValue]> {
    return this.entries()
  }

  get [Symbol.toStringTag](): string {
    return 'PropertyMap'
  }
}
