import { externalized, PayloadRef, type PayloadStore, resolved } from './payload-ref.js'
import type { PropertyValue } from './types.js'

type Slot = PropertyValue | PayloadRef

/** Past this many keys a hash map answers lookups faster than a scan. */
const SCAN_LIMIT = 24
/** Shapes kept for sharing; past this, a new key sequence gets a shape of its own (a pathological key set). */
const MAX_SHAPES = 100_000
let shapes = 0

/**
 * A sequence of property keys, shared by every map holding exactly those keys in that order (V8's hidden
 * classes, for the same reason): the nodes of one kind have the same keys, so each keeps only its values.
 */
class Shape {
  private next: Map<number, Shape> | undefined

  constructor(readonly keys: readonly number[]) {}

  /** This shape with `key` appended. */
  with(key: number): Shape {
    let shape = this.next?.get(key)
    if (shape === undefined) {
      shape = new Shape([...this.keys, key])
      if (shapes < MAX_SHAPES) {
        shapes++
        this.next ??= new Map()
        this.next.set(key, shape)
      }
    }
    return shape
  }

  static of(keys: readonly number[]): Shape {
    let shape = EMPTY
    for (const key of keys) shape = shape.with(key)
    return shape
  }
}

const EMPTY = new Shape([])

/**
 * A node's properties as a shared Shape of keys and an array of values: the published store holds one per
 * node, and a V8 `Map` costs about 200 bytes before its first entry (most nodes have a handful of keys); a
 * flat `[key0, value0, …]` array of its own cost 8 bytes more per key than the values alone.
 * It is a `Map<number, PropertyValue>` to every reader (same methods, insertion order, `set` keeps a key's
 * place); a node with very many keys switches to a real `Map` so lookups stay O(1). A long string may sit in
 * the payload file (`externalize`): its slot holds a `PayloadRef` and every read resolves it.
 */
export class PropertyMap implements Map<number, PropertyValue> {
  private shape: Shape = EMPTY
  private vals: Slot[] = []
  private hashed: Map<number, Slot> | undefined

  constructor(entries?: Iterable<readonly [number, PropertyValue]>) {
    if (entries !== undefined) for (const [key, value] of entries) this.set(key, value)
  }

  /** From parallel key and value lists whose keys are known to be distinct (decoded records). */
  static fromDistinct(keys: readonly number[], values: readonly Slot[]): PropertyMap {
    const map = new PropertyMap()
    if (keys.length > SCAN_LIMIT) {
      for (let i = 0; i < keys.length; i++) map.setSlot(keys[i] as number, values[i] as Slot)
      return map
    }
    map.shape = Shape.of(keys)
    map.vals = values.length === keys.length ? values.slice() : values.slice(0, keys.length)
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
      else {
        map.shape = source.shape
        map.vals = source.vals.map(copy)
      }
      return map
    }
    if (source.size > SCAN_LIMIT) {
      for (const [key, value] of source) map.set(key, Array.isArray(value) ? value.slice() : value)
      return map
    }
    const keys: number[] = []
    const vals: Slot[] = []
    source.forEach((value, key) => {
      keys.push(key)
      vals.push(Array.isArray(value) ? value.slice() : value)
    })
    map.shape = Shape.of(keys)
    map.vals = vals
    return map
  }

  get size(): number {
    return this.hashed === undefined ? this.vals.length : this.hashed.size
  }

  private slot(key: number): number {
    return this.shape.keys.indexOf(key)
  }

  get(key: number): PropertyValue | undefined {
    if (this.hashed !== undefined) {
      const value = this.hashed.get(key)
      return value === undefined ? undefined : resolved(value)
    }
    const at = this.slot(key)
    return at < 0 ? undefined : resolved(this.vals[at] as Slot)
  }

  /** `get` for a reader passing through every node once: a value in the payload file is not cached. */
  peek(key: number): PropertyValue | undefined {
    const value = this.hashed !== undefined ? this.hashed.get(key) : this.vals[this.slot(key)]
    return value instanceof PayloadRef ? value.peek() : value
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
    if (at >= 0) this.vals[at] = value
    else if (this.vals.length < SCAN_LIMIT) {
      // A new array of exactly the new size: push would grow the list to 17 slots, and the store keeps
      // these for the life of the node.
      this.shape = this.shape.with(key)
      this.vals = this.vals.length === 0 ? [value] : [...this.vals, value]
    } else {
      this.hashed = new Map()
      const keys = this.shape.keys
      for (let i = 0; i < keys.length; i++) this.hashed.set(keys[i] as number, this.vals[i] as Slot)
      this.hashed.set(key, value)
      this.shape = EMPTY
      this.vals = []
    }
    return this
  }

  delete(key: number): boolean {
    if (this.hashed !== undefined) return this.hashed.delete(key)
    const at = this.slot(key)
    if (at < 0) return false
    this.shape = Shape.of(this.shape.keys.filter((k) => k !== key))
    this.vals = this.vals.filter((_, i) => i !== at)
    return true
  }

  clear(): void {
    this.shape = EMPTY
    this.vals = []
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
    const keys = this.shape.keys
    const vals = this.vals
    for (let i = 0; i < vals.length; i++)
      callback.call(thisArg, resolved(vals[i] as Slot), keys[i] as number, this)
  }

  /** Every key with its raw slot (a `PayloadRef` unread): the checkpoint walk never reads a payload back. */
  forEachSlot(callback: (slot: Slot, key: number) => void, thisArg?: unknown): void {
    if (this.hashed !== undefined) {
      for (const [key, value] of this.hashed) callback.call(thisArg, value, key)
      return
    }
    const keys = this.shape.keys
    const vals = this.vals
    for (let i = 0; i < vals.length; i++) callback.call(thisArg, vals[i] as Slot, keys[i] as number)
  }

  /** Puts `ref` in `key`'s slot if the slot still holds `value` (a later write keeps its own value). */
  swapToRef(key: number, value: string, ref: PayloadRef): boolean {
    if (this.hashed !== undefined) {
      if (this.hashed.get(key) !== value) return false
      this.hashed.set(key, ref)
      return true
    }
    const at = this.slot(key)
    if (at < 0 || this.vals[at] !== value) return false
    this.vals[at] = ref
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
    else for (let i = 0; i < this.vals.length; i++) this.vals[i] = swap(this.vals[i] as Slot)
    return moved
  }

  *entries(): MapIterator<[number, PropertyValue]> {
    if (this.hashed !== undefined) {
      for (const [key, value] of this.hashed) yield [key, resolved(value)]
      return
    }
    // Live, not a snapshot: whoever owns one (the store, or the transaction that created the node) never
    // changes it while iterating it.
    const keys = this.shape.keys
    const vals = this.vals
    for (let i = 0; i < vals.length; i++) yield [keys[i] as number, resolved(vals[i] as Slot)]
  }

  *keys(): MapIterator<number> {
    // Without resolving values: a payload reference is read only when its value is.
    if (this.hashed !== undefined) yield* this.hashed.keys()
    else yield* this.shape.keys
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
