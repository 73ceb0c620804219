import { externalized, type PayloadRef, type PayloadStore, resolved } from './payload-ref.js'
import type { PropertyValue } from './types.js'

/**
 * Relationship properties as one column per key, indexed by relationship id: a relationship with a property
 * costs one array slot, not a Map of its own (which was most of the heap of a graph whose edges carry a
 * property or two), and reading one is an array load, not a hash lookup in a map of millions of entries
 * (recall reads four or five properties of every edge it walks). Absent is `undefined`; a column only a few
 * far-apart relationships use stays small because V8 keeps such an array in dictionary mode. A
 * relationship's keys come out in the order the keys were first seen in the graph. A long string may sit in the
 * payload file (`externalize`): its slot holds a `PayloadRef`, resolved on every read.
 */
export class RelPropertyColumns {
  private readonly byKey = new Map<number, (PropertyValue | PayloadRef | undefined)[]>()

  get(id: number, key: number): PropertyValue | undefined {
    const value = this.byKey.get(key)?.[id]
    return value === undefined ? undefined : resolved(value)
  }

  /** A new map of the relationship's properties, or undefined when it has none. */
  of(id: number): Map<number, PropertyValue> | undefined {
    // No iterator when no relationship has a property: a checkpoint asks this of millions of them.
    if (this.byKey.size === 0) return undefined
    let out: Map<number, PropertyValue> | undefined
    for (const [key, column] of this.byKey) {
      const value = column[id]
      if (value === undefined) continue
      out ??= new Map()
      out.set(key, resolved(value))
    }
    return out
  }

  /**
   * The relationship's raw slots (references unread) into `keys` and `slots` from index 0, in key order;
   * returns how many. The checkpoint walk asks this of millions of relationships: caller-owned arrays, no
   * map per relationship.
   */
  slotsInto(id: number, keys: number[], slots: (PropertyValue | PayloadRef)[]): number {
    let n = 0
    for (const [key, column] of this.byKey) {
      const value = column[id]
      if (value === undefined) continue
      keys[n] = key
      slots[n++] = value
    }
    return n
  }

  /** Puts `ref` in the slot if it still holds `value` (see PropertyMap.swapToRef). */
  swapToRef(id: number, key: number, value: string, ref: PayloadRef): boolean {
    const column = this.byKey.get(key)
    if (column === undefined || column[id] !== value) return false
    column[id] = ref
    return true
  }

  set(id: number, key: number, value: PropertyValue | PayloadRef): void {
    let column = this.byKey.get(key)
    if (column === undefined) {
      column = []
      this.byKey.set(key, column)
    }
    column[id] = value
  }

  delete(id: number, key: number): void {
    const column = this.byKey.get(key)
    // An assignment, not `delete`: deleting an element turns a fast array into a dictionary.
    if (column !== undefined && id < column.length) column[id] = undefined
  }

  /** Moves every string of `minChars` or more to the payload file (see PropertyMap.externalize). */
  externalize(minChars: number, payloads: PayloadStore): number {
    let moved = 0
    for (const column of this.byKey.values())
      for (let id = 0; id < column.length; id++) {
        const value = column[id]
        if (value === undefined) continue
        const out = externalized(value, minChars, payloads)
        if (out === value) continue
        column[id] = out
        moved++
      }
    return moved
  }

  clear(id: number): void {
    for (const column of this.byKey.values()) if (id < column.length) column[id] = undefined
  }
}
