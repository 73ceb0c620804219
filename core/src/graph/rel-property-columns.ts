import type { PropertyValue } from './types.js'

/**
 * Relationship properties as one column per key, indexed by relationship id: a relationship with a property
 * costs one array slot, not a Map of its own (which was most of the heap of a graph whose edges carry a
 * property or two), and reading one is an array load, not a hash lookup in a map of millions of entries
 * (recall reads four or five properties of every edge it walks). Absent is `undefined`; a column only a few
 * far-apart relationships use stays small because V8 keeps such an array in dictionary mode. A
 * relationship's keys come out in the order the keys were first seen in the graph.
 */
export class RelPropertyColumns {
  private readonly byKey = new Map<number, (PropertyValue | undefined)[]>()

  get(id: number, key: number): PropertyValue | undefined {
    return this.byKey.get(key)?.[id]
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
      out.set(key, value)
    }
    return out
  }

  set(id: number, key: number, value: PropertyValue): void {
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

  clear(id: number): void {
    for (const column of this.byKey.values()) if (id < column.length) column[id] = undefined
  }
}
