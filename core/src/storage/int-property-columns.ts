/**
 * The `props` of a relationship checkpoint line whose property values are all integers, kept as columns: the
 * importer fills typed arrays, and the file writer (on its own thread) writes the JSON object the loader
 * reads, `{"<row>":{"<name>":{"i":"<value>"},…},…}`, rows without properties left out. The batch crosses to
 * the writer as a few transferred buffers instead of a string of every relationship's properties.
 */
export interface IntPropertyColumns {
  /** The property names, and each one's values by row (read only where the row's key order names it). */
  names: string[]
  columns: Float64Array[]
  /** Key orders, as indexes into `names`. */
  keyOrders: number[][]
  /** `orders[row]`: 1 + the index of the row's key order; 0 for a row without properties. */
  orders: Float64Array
}

export function isIntPropertyColumns(value: unknown): value is IntPropertyColumns {
  return typeof value === 'object' && value !== null && 'keyOrders' in value && 'orders' in value
}

/** The columns' buffers, to transfer. */
export function intPropertyBuffers(props: IntPropertyColumns): ArrayBuffer[] {
  return [props.orders.buffer as ArrayBuffer, ...props.columns.map((c) => c.buffer as ArrayBuffer)]
}

/** The JSON text of the columns (what the file writer writes as bytes). */
export function intPropertyColumnsText(props: IntPropertyColumns): string {
  const names = props.names.map((name) => JSON.stringify(name))
  const parts: string[] = []
  for (let row = 0; row < props.orders.length; row++) {
    const order = props.orders[row]!
    if (order === 0) continue
    const keys = props.keyOrders[order - 1]!
    const values = keys.map((k) => `${names[k]}:{"i":"${String(props.columns[k]![row])}"}`)
    parts.push(`"${row}":{${values.join(',')}}`)
  }
  return `{${parts.join(',')}}`
}
