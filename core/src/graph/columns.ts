import { Dictionary } from './dictionary.js'
import type { GraphReader, PropertyValue } from './types.js'

/**
 * One property of every node of one label, laid out as columns in label-scan order: what a scan that
 * aggregates or filters many rows reads instead of chasing node -> property map -> value per row. A column
 * whose present values are all strings is also dictionary-encoded (equal strings share one code), so
 * grouping by it is array indexing, not hashing.
 */
export interface PropertyColumn {
  /** Node ids, in the order `labelNodeIds` yields them. */
  readonly ids: Int32Array
  /** The property per row; null where the node lacks it. */
  readonly values: readonly (PropertyValue | null)[]
  /** Dictionary code per row (-1 for null) when every present value is a string. */
  readonly codes: Int32Array | undefined
  readonly dictionary: readonly string[] | undefined
}

/** Builds the column of `key` over `ids` from each node's property map. */
export function buildColumn(
  ids: Int32Array,
  read: (id: number) => ReadonlyMap<number, PropertyValue> | undefined,
  key: number,
): PropertyColumn {
  const values: (PropertyValue | null)[] = new Array(ids.length)
  let codes: Int32Array | undefined = new Int32Array(ids.length)
  const strings = new Dictionary<string>()
  for (let i = 0; i < ids.length; i++) {
    const value = read(ids[i] as number)?.get(key) ?? null
    values[i] = value
    if (codes === undefined) continue
    if (value === null) codes[i] = -1
    else if (typeof value === 'string') {
      const code = strings.number(value, value)
      codes[i] = code
      values[i] = strings.values[code] as string
    } else codes = undefined
  }
  return codes === undefined
    ? { ids, values, codes: undefined, dictionary: undefined }
    : { ids, values, codes, dictionary: strings.values }
}

/**
 * Columns per (label, key), built on first use and dropped when a write touches a node of the label: a
 * write-heavy label pays nothing, a scanned one pays one build per change.
 */
export class ColumnCache {
  private readonly byLabel = new Map<number, { ids: Int32Array; columns: Map<number, PropertyColumn> }>()
  /** Rows held across all cached columns; past `maxCells` the cache starts over (about 16 bytes a cell). */
  private cells = 0

  constructor(private readonly maxCells = 8_000_000) {}

  /** A node with these labels changed (created, deleted, relabelled, or a property set/removed). */
  touched(labels: readonly number[]): void {
    for (const label of labels) {
      const entry = this.byLabel.get(label)
      if (entry === undefined) continue
      this.cells -= entry.ids.length * (entry.columns.size + 1)
      this.byLabel.delete(label)
    }
  }

  /** Drops every cached column. */
  clear(): void {
    this.byLabel.clear()
    this.cells = 0
  }

  column(
    label: number,
    key: number,
    scan: () => Iterable<number>,
    read: (id: number) => ReadonlyMap<number, PropertyValue> | undefined,
  ): PropertyColumn {
    let entry = this.byLabel.get(label)
    if (entry === undefined) {
      entry = { ids: Int32Array.from(scan()), columns: new Map() }
      this.byLabel.set(label, entry)
      this.cells += entry.ids.length
    }
    let column = entry.columns.get(key)
    if (column === undefined) {
      column = buildColumn(entry.ids, read, key)
      if (this.cells + column.ids.length > this.maxCells) {
        // Over budget: drop every other label's columns (this scan still gets its column).
        for (const other of [...this.byLabel.keys()]) if (other !== label) this.touched([other])
      }
      entry.columns.set(key, column)
      this.cells += column.ids.length
    }
    return column
  }
}

/** A label's column from any reader: the published store's cached one, else built from a live scan. */
export function labelColumnOf(graph: GraphReader, label: number, key: number): PropertyColumn {
  const cached = (graph as { labelColumn?: (label: number, key: number) => PropertyColumn }).labelColumn
  if (cached !== undefined) return cached.call(graph, label, key)
  const live: number[] = []
  for (const id of graph.labelNodeIds(label)) if (graph.node(id) !== undefined) live.push(id)
  return buildColumn(Int32Array.from(live), (id) => graph.node(id)?.props, key)
}
