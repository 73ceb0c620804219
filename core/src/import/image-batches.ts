import { encodeValue, valueJson } from '../graph/commit.js'
import { Dictionary } from '../graph/dictionary.js'
import { type PayloadCell, payloadCell } from '../graph/payload-ref.js'
import type { PropertyValue } from '../graph/types.js'
import type { NodeColumns, PropertyColumnImage } from '../kernel/graph-image.js'
import { setOwn } from '../own-key.js'
import type { ColumnLine } from '../storage/column-line.js'
import type { IntPropertyColumns } from '../storage/int-property-columns.js'
import type { PayloadAddress } from '../storage/payload-file.js'
import type { RowValues } from './row-values.js'

/** Records per checkpoint line, as the engine's own images batch them (graph-image.ts). */
export const IMAGE_BATCH = 4096

/** Where strings of `minBytes` or more go: the payload file, the image keeping only a reference. */
export interface PayloadSink {
  readonly minBytes: number
  append(text: string): PayloadAddress
}

type Cell = PropertyValue | PayloadCell
type Column = { kind: 'int' | 'str' | 'any'; values: unknown[] }

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)

/** A string long enough for the payload file becomes a reference cell; any other value stays as it is. */
function spilled(value: PropertyValue, payloads: PayloadSink | null): Cell {
  if (payloads === null || typeof value !== 'string' || value.length * 3 < payloads.minBytes) return value
  if (value.length < payloads.minBytes && Buffer.byteLength(value, 'utf8') < payloads.minBytes) return value
  return payloadCell(payloads.append(value))
}

/** Property names as JSON strings, each quoted once per import. */
const quotedNames = new Map<string, string>()
function quoted(name: string): string {
  let text = quotedNames.get(name)
  if (text === undefined) {
    text = JSON.stringify(name)
    quotedNames.set(name, text)
  }
  return text
}

const isString = (cell: Cell): cell is string => typeof cell === 'string'
const isPayload = (cell: Cell): cell is PayloadCell =>
  typeof cell === 'object' && cell !== null && !Array.isArray(cell) && '$payload' in cell

/** The image form of a cell in a column of `kind` (the loader's `decodeCell` reads it back). */
function columnCell(kind: Column['kind'], cell: Cell): unknown {
  if (kind === 'int') {
    const v = cell as bigint
    return v <= MAX_SAFE && v >= -MAX_SAFE ? Number(v) : v.toString()
  }
  if (kind === 'str') return cell
  return isPayload(cell) ? cell : encodeValue(cell)
}

/** A typed column that met another kind of value: its cells become encoded values (a string encodes as itself). */
function demote(column: Column): void {
  if (column.kind === 'int') column.values = column.values.map((v) => (v === null ? null : { i: String(v) }))
  column.kind = 'any'
}

/**
 * One `graph_nodes` checkpoint line being filled, node by node, in the shape `GraphImageLoader` loads: the
 * batch's label sets and key orders once each, per node an index into both, a column per property key.
 */
export class NodeImageBatch {
  private readonly labelSets = new Dictionary<string[]>()
  private readonly keyOrders = new Dictionary<string[]>()
  private readonly columns = new Map<string, Column>()
  private readonly id: number[] = []
  private readonly labels: number[] = []
  private readonly keys: number[] = []

  constructor(
    private readonly workspace: string,
    private readonly payloads: PayloadSink | null,
  ) {}

  get size(): number {
    return this.id.length
  }

  /**
   * Adds a node. `labelKey` and `keyOrderKey` identify the label list and the key order (callers reuse them
   * per file, so the dictionaries hash a short string, not the lists).
   */
  add(
    id: number,
    labelKey: string,
    labels: readonly string[],
    keyOrderKey: string,
    names: readonly string[],
    row: RowValues,
  ): void {
    const at = this.id.length
    this.id.push(id)
    this.labels.push(this.labelSets.number(labelKey, labels as string[]))
    this.keys.push(this.keyOrders.number(keyOrderKey, names as string[]))
    for (let k = 0; k < names.length; k++) {
      const value = row.values[k] as PropertyValue | null
      // a short integer is a number already: what an int column holds, and `{i}` text in any other
      const cell = value === null ? null : spilled(value, this.payloads)
      const int = cell === null || typeof cell === 'bigint'
      let column = this.columns.get(names[k]!)
      if (column === undefined) {
        column = { kind: int ? 'int' : isString(cell) ? 'str' : 'any', values: [] }
        this.columns.set(names[k]!, column)
      }
      if ((column.kind === 'int' && !int) || (column.kind === 'str' && !isString(cell!))) demote(column)
      while (column.values.length < at) column.values.push(null)
      if (cell !== null) column.values.push(columnCell(column.kind, cell))
      else column.values.push(column.kind === 'int' ? row.ints[k] : { i: String(row.ints[k]) })
    }
  }

  /** The batch as its checkpoint line (JSON text). */
  line(): string {
    const size = this.id.length
    const props: Record<string, PropertyColumnImage> = {}
    for (const [name, column] of this.columns) {
      while (column.values.length < size) column.values.push(null)
      setOwn(props, name, { [column.kind]: column.values } as PropertyColumnImage)
    }
    const line: NodeColumns = {
      kind: 'graph_nodes',
      workspace: this.workspace,
      label_sets: this.labelSets.values,
      key_orders: this.keyOrders.values,
      id: this.id,
      labels: this.labels,
      keys: this.keys,
      props,
      created: new Array<number>(size).fill(0),
    }
    return JSON.stringify(line)
  }
}

/** One `graph_rels` checkpoint line being filled: four number columns in one buffer, properties by position. */
export class RelationshipImageBatch {
  private readonly types = new Dictionary<string>()
  private readonly columns = new Float64Array(5 * IMAGE_BATCH)
  /**
   * While every property so far is a short integer, the properties are columns the file writer spells out
   * (`IntPropertyColumns`); from the first other value on, JSON text written as it goes.
   */
  private ints: { props: IntPropertyColumns; keyOrders: Dictionary<number[]> } | null
  private propsText = ''
  size = 0

  constructor(
    private readonly workspace: string,
    private readonly payloads: PayloadSink | null,
  ) {
    const keyOrders = new Dictionary<number[]>()
    // the props' key orders are the dictionary's own list, filled as rows come
    const props = {
      names: [],
      columns: [],
      keyOrders: keyOrders.values,
      orders: new Float64Array(IMAGE_BATCH),
    }
    this.ints = { props, keyOrders }
  }

  /** Adds a relationship; `order` names its present properties, whose values `row` holds in that order. */
  add(
    id: number,
    type: string,
    start: number,
    end: number,
    order: { key: string; names: readonly string[] },
    row: RowValues,
  ): void {
    const at = this.size++
    this.columns[at] = id
    this.columns[IMAGE_BATCH + at] = this.types.number(type, type)
    this.columns[2 * IMAGE_BATCH + at] = start
    this.columns[3 * IMAGE_BATCH + at] = end
    // the fifth column, creation sequences, stays 0: imported records have no commit of their own
    const { names } = order
    if (names.length === 0) return
    if (this.ints !== null && row.allInts(names.length)) {
      this.addInts(at, order, row)
      return
    }
    if (this.ints !== null) this.toText()
    const values = names.map((_, k) => row.value(k))
    this.addText(at, names, values)
  }

  private addInts(at: number, order: { key: string; names: readonly string[] }, row: RowValues): void {
    const { props, keyOrders } = this.ints!
    const index =
      keyOrders.known(order.key) ??
      keyOrders.number(
        order.key,
        order.names.map((name) => this.intColumn(name)),
      )
    props.orders[at] = index + 1
    const keys = props.keyOrders[index]!
    for (let k = 0; k < keys.length; k++) props.columns[keys[k]!]![at] = row.ints[k]!
  }

  /** The index of the integer column of property `name`, made on first use. */
  private intColumn(name: string): number {
    const { props } = this.ints!
    let k = props.names.indexOf(name)
    if (k < 0) {
      k = props.names.push(name) - 1
      props.columns.push(new Float64Array(IMAGE_BATCH))
    }
    return k
  }

  /** Writes the integer columns so far as text: a value of another kind came. */
  private toText(): void {
    const { props } = this.ints!
    this.ints = null
    for (let at = 0; at < this.size - 1; at++) {
      const order = props.orders[at]!
      if (order === 0) continue
      const keys = props.keyOrders[order - 1]!
      const names = keys.map((k) => props.names[k]!)
      this.addText(
        at,
        names,
        keys.map((k) => BigInt(props.columns[k]![at]!)),
      )
    }
  }

  private addText(at: number, names: readonly string[], values: readonly PropertyValue[]): void {
    // Written as JSON text as it goes (what JSON.stringify of the engine's props record gives), not as an
    // object per relationship and one per value.
    let text = `${this.propsText === '' ? '' : ','}"${at}":{`
    for (let k = 0; k < names.length; k++) {
      const cell = spilled(values[k]!, this.payloads)
      text += `${k > 0 ? ',' : ''}${quoted(names[k]!)}:${isPayload(cell) ? JSON.stringify(cell) : valueJson(cell)}`
    }
    this.propsText += `${text}}`
  }

  /** The batch as a column line: its numbers stay typed arrays until the file writer encodes them. */
  line(): ColumnLine {
    const n = this.size
    const column = (i: number) => this.columns.subarray(i * IMAGE_BATCH, i * IMAGE_BATCH + n)
    let props: string | IntPropertyColumns = `{${this.propsText}}`
    if (this.ints !== null) {
      const ints = this.ints.props
      props = { ...ints, orders: ints.orders.subarray(0, n) }
    }
    return {
      fields: [
        ['kind', '"graph_rels"'],
        ['workspace', JSON.stringify(this.workspace)],
        ['types', JSON.stringify(this.types.values)],
        ['id', column(0)],
        ['type', column(1)],
        ['start', column(2)],
        ['end', column(3)],
        ['props', props],
        ['created', column(4)],
      ],
    }
  }
}
