import { externalized, type PayloadRef, type PayloadStore, resolved } from './payload-ref.js'
import { RelColumn, type RelSlot } from './rel-column.js'
import type { PropertyValue } from './types.js'

/**
 * Relationship properties as one column per key, indexed by relationship id: a relationship with a property
 * costs one array slot, not a Map of its own (which was most of the heap of a graph whose edges carry a
 * property or two), and reading one is an array load, not a hash lookup in a map of millions of entries
 * (recall reads four or five properties of every edge it walks). A relationship's keys come out in the order
 * the keys were first seen in the graph. A long string may sit in the payload file (`externalize`): its slot
 * holds a reference, resolved on every read. Payload references and STIX-style ids are kept in typed arrays
 * (rel-column.ts).
 */
export class RelPropertyColumns {
  private readonly byKey = new Map<number, RelColumn>()

  get(id: number, key: number): PropertyValue | undefined {
    const value = this.byKey.get(key)?.slot(id)
    return value === undefined ? undefined : resolved(value)
  }

  /** A new map of the relationship's properties, or undefined when it has none. */
  of(id: number): Map<number, PropertyValue> | undefined {
    // No iterator when no relationship has a property: a checkpoint asks this of millions of them.
    if (this.byKey.size === 0) return undefined
    let out: Map<number, PropertyValue> | undefined
    for (const [key, column] of this.byKey) {
      const value = column.slot(id)
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
  slotsInto(id: number, keys: number[], slots: RelSlot[]): number {
    let n = 0
    for (const [key, column] of this.byKey) {
      const value = column.slot(id)
      if (value === undefined) continue
      keys[n] = key
      slots[n++] = value
    }
    return n
  }

  /** Puts `ref` in the slot if it still holds `value` (see PropertyMap.swapToRef). */
  swapToRef(id: number, key: number, value: string, ref: PayloadRef): boolean {
    const column = this.byKey.get(key)
    if (column === undefined || column.slot(id) !== value) return false
    column.set(id, ref)
    return true
  }

  set(id: number, key: number, value: RelSlot): void {
    let column = this.byKey.get(key)
    if (column === undefined) {
      column = new RelColumn()
      this.byKey.set(key, column)
    }
    column.set(id, value)
  }

  delete(id: number, key: number): void {
    this.byKey.get(key)?.clear(id)
  }

  /** Moves every string of `minChars` or more to the payload file (see PropertyMap.externalize). */
  externalize(minChars: number, payloads: PayloadStore): number {
    let moved = 0
    for (const column of this.byKey.values())
      for (let id = 0; id < column.length; id++) {
        const value = column.slot(id)
        if (value === undefined) continue
        const out = externalized(value, minChars, payloads)
        if (out === value) continue
        column.set(id, out)
        moved++
      }
    return moved
  }

  clear(id: number): void {
    for (const column of this.byKey.values()) column.clear(id)
  }
}
