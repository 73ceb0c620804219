// Loading checkpoint graph lines (graph-image.ts writes them): columns back into stores, payload cells as references.
import type { GraphCatalog } from '../graph/catalog.js'
import { decodeValue, type encodeValue } from '../graph/commit.js'
import {
  isPayloadCell,
  type PayloadCell,
  PayloadRef,
  type PayloadSource,
  type PropertySlot,
} from '../graph/payload-ref.js'
import { RepeatedStrings } from '../graph/repeated-strings.js'
import { ownValue } from '../own-key.js'
import type { EncodedSlot, GraphImageLine, PropertyColumnImage, RelationshipColumns } from './graph-image.js'

function decodeCell(
  column: PropertyColumnImage,
  at: number,
  payloads: PayloadSource | null,
): PropertySlot | undefined {
  if ('int' in column) {
    const v = column.int[at]
    return v === null || v === undefined ? undefined : BigInt(v)
  }
  if ('str' in column) return column.str[at] ?? undefined
  const v = column.any[at]
  return v === null || v === undefined ? undefined : decodeSlot(v, payloads)
}

/** An `any` cell or relationship property: a payload reference becomes a `PayloadRef`, read only when used. */
function decodeSlot(
  cell: ReturnType<typeof encodeValue> | PayloadCell,
  payloads: PayloadSource | null,
): PropertySlot {
  if (!isPayloadCell(cell)) return decodeValue(cell)
  if (payloads === null) throw new Error('checkpoint references the payload file, but none is open')
  return new PayloadRef(payloads, cell.$payload[0], cell.$payload[1])
}

/** The creation-sequence column of a workspace's records, so a loader can write it without a call per record. */
export type CreatedColumn = (
  workspace: string,
  kind: 'node' | 'rel',
) => { set(id: number, seq: number): void }

/**
 * Loads checkpoint graph lines: one applyCommit per batch. Repeated string values are shared again as they were
 * before the checkpoint (RepeatedStrings), not one copy per record.
 */
export class GraphImageLoader {
  private readonly counters = new Map<string, { node: number; rel: number }>()
  private strings = new RepeatedStrings()
  /** The payload file the image's references point into (set by the file store before its lines load). */
  payloads: PayloadSource | null = null

  constructor(
    private readonly catalog: GraphCatalog,
    private readonly createdColumn: CreatedColumn,
  ) {}

  private setCreated(workspace: string, kind: 'node' | 'rel', id: number, seq: number): void {
    this.createdColumn(workspace, kind).set(id, seq)
  }

  add(line: GraphImageLine): void {
    if (line.kind === 'graph_counters') {
      this.counters.set(line.workspace, { node: line.next_node_id, rel: line.next_relationship_id })
      return
    }
    if (line.kind === 'graph_nodes') {
      const store = this.catalog.workspace(line.workspace)
      const labelSets = line.label_sets.map((names) => names.map((n) => store.names.id(n)))
      const keyOrders = line.key_orders.map((names) => names.map((n) => store.names.id(n)))
      const columns = line.key_orders.map((names) =>
        names.map((n) => ownValue(line.props, n) as PropertyColumnImage),
      )
      const interners = line.key_orders.map((names) => names.map((n) => this.strings.key(n)))
      const created = this.createdColumn(line.workspace, 'node')
      for (let i = 0; i < line.id.length; i++) {
        const keys = keyOrders[line.keys[i]!]!
        const cols = columns[line.keys[i]!]!
        const values = new Array<PropertySlot>(keys.length)
        for (let k = 0; k < keys.length; k++) {
          const value = decodeCell(cols[k]!, i, this.payloads)
          if (value === undefined) throw new Error(`checkpoint node ${line.id[i]} lacks a value for its key`)
          const interner = interners[line.keys[i]!]![k]!
          values[k] =
            typeof value === 'string'
              ? interner.of(value)
              : Array.isArray(value)
                ? interner.list(value)
                : value
        }
        store.restoreNode(line.id[i]!, labelSets[line.labels[i]!]!, keys, values)
        const seq = line.created[i] ?? 0
        if (seq > 0) created.set(line.id[i]!, seq)
      }
      return
    }
    if (line.kind === 'graph_rels') {
      const store = this.catalog.workspace(line.workspace)
      const typeIds = line.types.map((t) => store.names.id(t))
      const created = this.createdColumn(line.workspace, 'rel')
      const columns = (line.prop_columns ?? []).map(([k, values]) => ({ k, id: store.names.id(k), values }))
      for (let i = 0; i < line.id.length; i++) {
        const props = columns.length > 0 ? this.columnProps(columns, i) : this.objectProps(line, i)
        const id = line.id[i]!
        store.restoreRelationship(id, typeIds[line.type[i]!]!, line.start[i]!, line.end[i]!, props)
        const seq = line.created[i] ?? 0
        if (seq > 0) created.set(id, seq)
      }
      return
    }
    this.catalog.workspace(line.workspace).applyCommit({ ops: line.ops })
    line.ops.forEach((op, i) => {
      const seq = line.created[i] ?? 0
      if (seq > 0) this.setCreated(line.workspace, op.op === 'createNode' ? 'node' : 'rel', op.id, seq)
    })
  }

  /** A relationship's properties from the batch's columns (undefined when it has none). */
  private columnProps(
    columns: { k: string; id: number; values: (EncodedSlot | null)[] }[],
    at: number,
  ): Map<number, PropertySlot> | undefined {
    let props: Map<number, PropertySlot> | undefined
    for (const { k, id, values } of columns) {
      const cell = values[at]
      if (cell === null || cell === undefined) continue
      props ??= new Map()
      props.set(id, this.shared(k, decodeSlot(cell, this.payloads)))
    }
    return props
  }

  /** A relationship's properties as an older image holds them: an object per relationship that has some. */
  private objectProps(line: RelationshipColumns, at: number): Map<number, PropertySlot> | undefined {
    const encoded = line.props?.[at]
    if (encoded === undefined) return undefined
    const store = this.catalog.workspace(line.workspace)
    return new Map(
      Object.entries(encoded).map(
        ([k, v]) => [store.names.id(k), this.shared(k, decodeSlot(v, this.payloads))] as const,
      ),
    )
  }

  private shared(key: string, value: PropertySlot): PropertySlot {
    if (typeof value === 'string') return this.strings.key(key).of(value)
    return Array.isArray(value) ? this.strings.key(key).list(value) : value
  }

  finish(): void {
    this.strings = new RepeatedStrings() // the load's table goes; what it shared stays shared
    for (const workspace of this.catalog.workspaceIds()) this.catalog.workspace(workspace).finishRestore()
    for (const [workspace, c] of this.counters) {
      const store = this.catalog.workspace(workspace)
      store.nextNodeId = Math.max(store.nextNodeId, c.node)
      store.nextRelId = Math.max(store.nextRelId, c.rel)
    }
  }
}
