import { externalized, type PayloadRef, type PayloadStore, resolved } from './payload-ref.js'
import type { PropertyValue } from './types.js'

type Slot = PropertyValue | PayloadRef

/** Past this many keys a hash map answers lookups faster than a scan. */
const SCAN_LIMIT = 24

/**
 * A node's properties as one flat array `[key0, value0, key1, value1, …]`: the published store holds one per
 * node, and a V8 `Map` costs about 200 bytes before its first entry (most nodes have a handful of keys).
 * It is a `Map<number, PropertyValue>` to every reader (same methods, insertion order, `set` keeps a key's
 * place); a node with very many keys switches to a real `Map` so lookups stay O(1). A long string may sit in
 * the payload file (`externalize`): its slot holds a `PayloadRef` and every read resolves it.
 */
export class PropertyMap implements Map<number, PropertyValue> {
  private flat: (number | Slot)[]
  private hashed: Map<number, Slot> | undefined

  constructor(entries?: Iterable<readonly [number, PropertyValue]>) {
    this.flat = []
    if (entries !== undefined) for (const [key, value] of entries) this.set(key, value)
  }

  /** From parallel key and value lists whose keys are known to be distinct (decoded records). */
  static fromDistinct(keys: readonly number[], values: readonly Slot[]): PropertyMap {
    const map = new PropertyMap()
    if (keys.length > SCAN_LIMIT) {
      for (let i = 0; i < keys.length; i++) map.setSlot(keys[i] as number, values[i] as Slot)
      return map
    }
    const flat = new Array<number | Slot>(keys.length * 2)
    for (let i = 0; i < keys.length; i++) {
      flat[2 * i] = keys[i] as number
      flat[2 * i + 1] = values[i] as Slot
    }
    map.flat = flat
    return map
  }

  /**
   * A copy of `source` (any map of properties); list values are copied too, so nothing is shared but payload
   * references (immutable: a copy of a PropertyMap keeps them unread).
   */
  static copyOf(source: ReadonlyMap<number, PropertyValue>): PropertyMap {
    const map = new PropertyMap()
    if (source instanceof PropertyMap) {
      const copy = (value: Slot) => (Array.isArray(value) ? value.slice() : value)
      if (source.hashed !== undefined)
        map.hashed = new Map([...source.hashed].map(([key, value]) => [key, copy(value)] as const))
      else map.flat = source.flat.map((slot, i) => (i % 2 === 0 ? slot : copy(slot as Slot)))
      return map
    }
    if (source.size > SCAN_LIMIT) {
      for (const [key, value] of source) map.set(key, Array.isArray(value) ? value.slice() : value)
      return map
    }
    const flat = new Array<number | Slot>(source.size * 2)
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
    if (this.hashed !== undefined) {
      const value = this.hashed.get(key)
      return value === undefined ? undefined : resolved(value)
    }
    const at = this.slot(key)
    return at < 0 ? undefined : resolved(this.flat[at + 1] as Slot)
  }

  has(key: number): boolean {
    return this.hashed !== undefined ? this.hashed.has(key) : this.slot(key) >= 0
  }

  set(key: number, value: PropertyValue): this {
    return this.setSlot(key, value)
  }

  private setSlot(key: number, value: Slot): this {
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
      this.hashed = new Map()
      for (let i = 0; i < this.flat.length; i += 2)
        this.hashed.set(this.flat[i] as number, this.flat[i + 1] as Slot)
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
      for (const [key, value] of this.hashed) callback.call(thisArg, resolved(value), key, this)
      return
    }
    const flat = this.flat
    for (let i = 0; i < flat.length; i += 2)
      callback.call(thisArg, resolved(flat[i + 1] as Slot), flat[i] as number, this)
  }

  /** Every key with its raw slot (a `PayloadRef` unread): the checkpoint walk never reads a payload back. */
  forEachSlot(callback: (slot: Slot, key: number) => void, thisArg?: unknown): void {
    if (this.hashed !== undefined) {
      for (const [key, value] of this.hashed) callback.call(thisArg, value, key)
      return
    }
    const flat = this.flat
    for (let i = 0; i < flat.length; i += 2) callback.call(thisArg, flat[i + 1] as Slot, flat[i] as number)
  }

  /** Puts `ref` in `key`'s slot if the slot still holds `value` (a later write keeps its own value). */
  swapToRef(key: number, value: string, ref: PayloadRef): boolean {
    if (this.hashed !== undefined) {
      if (this.hashed.get(key) !== value) return false
      this.hashed.set(key, ref)
      return true
    }
    const at = this.slot(key)
    if (at < 0 || this.flat[at + 1] !== value) return false
    this.flat[at + 1] = ref
    return true
  }

  /**
   * Moves every string of `minChars` or more to `payloads` (the payload file), keeping a reference in its
   * slot; returns how many moved.
   */
  externalize(minChars: number, payloads: PayloadStore): number {
    let moved = 0
    const swap = (value: Slot): Slot => {
      const out = externalized(value, minChars, payloads)
      if (out !== value) moved++
      return out
    }
    if (this.hashed !== undefined) for (const [key, value] of this.hashed) this.hashed.set(key, swap(value))
    else for (let i = 1; i < this.flat.length; i += 2) this.flat[i] = swap(this.flat[i] as Slot)
    return moved
  }

  *entries(): MapIterator<[number, PropertyValue]> {
    if (this.hashed !== undefined) {
      for (const [key, value] of this.hashed) yield [key, resolved(value)]
      return
    }
    // Live, not a snapshot: whoever owns one (the store, or the transaction that created the node) never
    // changes it while iterating it.
    const flat = this.flat
    for (let i = 0; i < flat.length; i += 2) yield [flat[i] as number, resolved(flat[i + 1] as Slot)]
  }

  *keys(): MapIterator<number> {
    // Without resolving values: a payload reference is read only when its value is.
    if (this.hashed !== undefined) yield* this.hashed.keys()
    else for (let i = 0; i < this.flat.length; i += 2) yield this.flat[i] as number
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
