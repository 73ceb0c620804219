import { type CommitOp, encodeValue } from '../graph/commit.js'
import { Dictionary } from '../graph/dictionary.js'
import {
  type PayloadCell,
  PayloadRef,
  type PropertySlot,
  payloadCell,
  resolved,
} from '../graph/payload-ref.js'
import { PropertyMap } from '../graph/property-map.js'
import type { GraphStore } from '../graph/store.js'
import type { PropertyValue } from '../graph/types.js'
import { setOwn } from '../own-key.js'
import { SLICE_POINT } from '../storage/checkpoint-encoder.js'
import type { ColumnLine } from '../storage/column-line.js'
import type { GraphSnapshot, RelBefore, WorkspaceSnapshot } from './image-snapshot.js'
import type { PayloadSpill } from './payload-spill.js'

/** Records per checkpoint line: few, large JSON.parse calls recover far faster than one per record. */
const BATCH = 4096
/** Records walked between two slice points: the writer's clock is read this often inside a batch. */
const SLICE_RECORDS = 64

/**
 * A checkpoint line of the graph: a batch of nodes or of relationships as columns (nodes first; older
 * checkpoints hold nodes as create ops), with each record's creation sequence so record history stays exact
 * across restarts; plus each workspace's id counters.
 */
export type GraphImageLine =
  | { kind: 'graph_batch'; workspace: string; ops: CommitOp[]; created: number[] }
  | NodeColumns
  | RelationshipColumns
  | { kind: 'graph_counters'; workspace: string; next_node_id: number; next_relationship_id: number }

/**
 * Nodes as columns (checkpoints written before these lines have `graph_batch` ones, still loaded): a batch's
 * distinct label lists and key orders once, then per node an index into each, and one column per property
 * key. A column is typed when it can be — `int` (numbers, or decimal strings beyond 2^53) or `str` — and
 * holds encoded values otherwise; `null` marks a node without that key. Each node's keys come back in its
 * own order, so recovery reproduces property order exactly.
 */
export interface NodeColumns {
  kind: 'graph_nodes'
  workspace: string
  label_sets: string[][]
  key_orders: string[][]
  id: number[]
  labels: number[]
  keys: number[]
  props: Record<string, PropertyColumnImage>
  created: number[]
}

export type PropertyColumnImage =
  | { int: (number | string | null)[] }
  | { str: (string | null)[] }
  | { any: (ReturnType<typeof encodeValue> | PayloadCell | null)[] }

/**
 * Relationships as columns: recovery parses a few arrays of numbers per batch instead of one object per
 * relationship (millions of them), which is most of the time and garbage a checkpoint load would make.
 */
export interface RelationshipColumns {
  kind: 'graph_rels'
  workspace: string
  /** Distinct type names of the batch; `type` holds indices into it. */
  types: string[]
  /** Arrays when read from a file, typed arrays when written. */
  id: ArrayLike<number>
  type: ArrayLike<number>
  start: ArrayLike<number>
  end: ArrayLike<number>
  /**
   * Properties by key, as columns over the batch's positions (`null`: none there), in the order the store
   * keeps its keys; a list of pairs, not an object, so a key like "0" keeps its place. Written since the
   * reference bulk work: one object per relationship was most of a relationship batch's encoding time.
   */
  prop_columns?: [key: string, values: (EncodedSlot | null)[]][]
  /** Older images: properties of the relationships that have some, by position in the batch. */
  props?: Record<string, Record<string, EncodedSlot>>
  created: ArrayLike<number>
}

export type EncodedSlot = ReturnType<typeof encodeValue> | PayloadCell

/**
 * A slot as the image holds it: with a spill (the file store), long strings go to the payload file and
 * references stay references; without one (PostgreSQL keeps values resident), every value is resolved.
 */
function imageSlot(
  spill: PayloadSpill | null,
  store: GraphStore,
  kind: 'node' | 'rel',
  id: number,
  key: number,
  slot: PropertySlot,
): PropertySlot {
  return spill === null ? resolved(slot) : spill.slot(store, kind, id, key, slot)
}

const encodeSlot = (slot: PropertySlot) =>
  slot instanceof PayloadRef ? payloadCell(slot) : encodeValue(slot)

/**
 * Every record of every workspace at the snapshot's sequence as column lines, so loading them in order
 * rebuilds the graph; a `SLICE_POINT` between every few dozen records lets the writer yield mid-batch, and
 * commits published at those points have left what they changed ahead of the walk in the snapshot.
 */
export function* graphImage(
  snapshot: GraphSnapshot,
  spill: PayloadSpill | null = null,
): Iterable<GraphImageLine | typeof SLICE_POINT> {
  for (const part of snapshot.workspaces) {
    const workspace = part.workspace
    yield {
      kind: 'graph_counters',
      workspace,
      next_node_id: part.nodeLimit,
      next_relationship_id: part.relLimit,
    }
    let nodes = new NodeColumnsWriter(workspace, spill)
    for (let id = 0; id < part.nodeLimit; ) {
      id = fillNodes(part, nodes, id)
      if (nodes.size === BATCH) {
        yield nodes.line()
        nodes = new NodeColumnsWriter(workspace, spill)
      } else if (id < part.nodeLimit) yield SLICE_POINT
    }
    if (nodes.size > 0) yield nodes.line()
    // Relationship columns are filled in typed arrays, handed over as they are (no array per column to grow).
    let rels = new RelationshipBatch(workspace, spill)
    for (let id = 0; id < part.relLimit; ) {
      id = fillRelationships(part, rels, id)
      if (rels.size === BATCH) {
        yield rels.line()
        rels = new RelationshipBatch(workspace, spill)
      } else if (id < part.relLimit) yield SLICE_POINT
    }
    if (rels.size > 0) yield rels.line()
  }
}

/**
 * Adds nodes from id `from` on until `SLICE_RECORDS` more are in or the batch is full; returns the id to go
 * on from, which is also how far the snapshot's walk has come. A node a commit changed ahead of the walk is
 * written as the snapshot kept it. Plain loops, not the generator's, nor `allNodeIds()`: a generator keeps
 * its locals boxed across resumes and makes a result object per yield, millions of allocations (and
 * scavenges) during the walk.
 */
function fillNodes(part: WorkspaceSnapshot, nodes: NodeColumnsWriter, from: number): number {
  const { store, nodesBefore, nodeCreated: created } = part
  const limit = part.nodeLimit
  for (let id = from; id < limit; id++) {
    const before = nodesBefore.size > 0 ? nodesBefore.get(id) : undefined
    if (before !== undefined) {
      nodesBefore.delete(id)
      if (before === null) continue
      nodes.add(store, id, before.labels, before.props, before.created)
    } else {
      const node = store.node(id)
      if (node === undefined) continue
      nodes.add(store, id, node.labels, node.props, created.get(id))
    }
    if (nodes.size === BATCH || nodes.size % SLICE_RECORDS === 0) {
      part.nodesWalked = id + 1
      return id + 1
    }
  }
  part.nodesWalked = limit
  return limit
}

function fillRelationships(part: WorkspaceSnapshot, rels: RelationshipBatch, from: number): number {
  const { store, relsBefore, relCreated: created } = part
  const limit = part.relLimit
  for (let id = from; id < limit; id++) {
    const before = relsBefore.size > 0 ? relsBefore.get(id) : undefined
    if (before !== undefined) {
      relsBefore.delete(id)
      if (before === null) continue
      rels.addBefore(store, id, before)
    } else {
      if (store.relType(id) < 0) continue
      rels.add(store, id, created.get(id))
    }
    if (rels.size === BATCH || rels.size % SLICE_RECORDS === 0) {
      part.relsWalked = id + 1
      return id + 1
    }
  }
  part.relsWalked = limit
  return limit
}

/**
 * Builds one `graph_rels` line in typed arrays: five columns over one buffer, so a batch is one allocation
 * and one transferable buffer.
 */
class RelationshipBatch {
  private readonly types = new Dictionary<string>()
  /** The batch's number of each type, by type id: no name lookup per relationship. */
  private readonly typeNumbers = new Map<number, number>()
  private readonly columns = new Float64Array(5 * BATCH)
  private readonly id = this.columns.subarray(0, BATCH)
  private readonly type = this.columns.subarray(BATCH, 2 * BATCH)
  private readonly start = this.columns.subarray(2 * BATCH, 3 * BATCH)
  private readonly end = this.columns.subarray(3 * BATCH, 4 * BATCH)
  private readonly created = this.columns.subarray(4 * BATCH, 5 * BATCH)
  /** Property columns by key id, in the order first met in the batch (the store's key order). */
  private readonly propColumns = new Map<number, (EncodedSlot | null)[]>()
  size = 0
  private store: GraphStore | null = null

  constructor(
    private readonly workspace: string,
    private readonly spill: PayloadSpill | null,
  ) {}

  /** A live relationship. */
  add(store: GraphStore, id: number, created: number): void {
    const n = store.relSlotsInto(id, slotKeys, slotValues)
    this.addRecord(
      store,
      id,
      store.relType(id),
      store.relStart(id),
      store.relEnd(id),
      created,
      slotKeys,
      slotValues,
      n,
    )
    slotValues.fill(undefined as unknown as PropertySlot, 0, n) // no value kept alive past the walk
  }

  /** A relationship as the snapshot kept it (a commit changed it ahead of the walk). */
  addBefore(store: GraphStore, id: number, before: RelBefore): void {
    const { type, start, end, created, keys, slots } = before
    this.addRecord(store, id, type, start, end, created, keys, slots, keys.length)
  }

  private addRecord(
    store: GraphStore,
    id: number,
    typeId: number,
    start: number,
    end: number,
    created: number,
    keys: readonly number[],
    slots: readonly PropertySlot[],
    n: number,
  ): void {
    this.store = store
    const at = this.size++
    let typeNumber = this.typeNumbers.get(typeId)
    if (typeNumber === undefined) {
      const typeName = store.names.name(typeId)
      typeNumber = this.types.number(typeName, typeName)
      this.typeNumbers.set(typeId, typeNumber)
    }
    this.id[at] = id
    this.type[at] = typeNumber
    this.start[at] = start
    this.end[at] = end
    this.created[at] = created
    for (let i = 0; i < n; i++) {
      const key = keys[i] as number
      let column = this.propColumns.get(key)
      if (column === undefined) {
        column = new Array<EncodedSlot | null>(at).fill(null)
        this.propColumns.set(key, column)
      }
      while (column.length < at) column.push(null)
      column.push(encodeSlot(imageSlot(this.spill, store, 'rel', id, key, slots[i] as PropertySlot)))
    }
  }

  line(): RelationshipColumns {
    const n = this.size
    return {
      kind: 'graph_rels',
      workspace: this.workspace,
      types: this.types.values,
      id: this.id.subarray(0, n),
      type: this.type.subarray(0, n),
      start: this.start.subarray(0, n),
      end: this.end.subarray(0, n),
      prop_columns: this.propColumnLines(n),
      created: this.created.subarray(0, n),
    }
  }

  private propColumnLines(size: number): NonNullable<RelationshipColumns['prop_columns']> {
    const names = this.store?.names
    const out: NonNullable<RelationshipColumns['prop_columns']> = []
    if (names === undefined) return out
    for (const [key, column] of this.propColumns) {
      while (column.length < size) column.push(null)
      out.push([names.name(key), column])
    }
    return out
  }
}

/** Scratch arrays of the relationship walk: it reads millions of relationships' slots, one at a time. */
const slotKeys: number[] = []
const slotValues: PropertySlot[] = []

/**
 * A checkpoint line as the storage takes it: relationship batches (most of a large image) as column lines,
 * their numbers in typed arrays the encoding worker turns into JSON off the event loop; the rest as JSON.
 */
export function checkpointPiece(
  line: GraphImageLine | typeof SLICE_POINT,
): string | ColumnLine | typeof SLICE_POINT {
  if (line === SLICE_POINT) return line
  if (line.kind !== 'graph_rels') return JSON.stringify(line)
  return {
    fields: [
      ['kind', '"graph_rels"'],
      ['workspace', JSON.stringify(line.workspace)],
      ['types', JSON.stringify(line.types)],
      ['id', floats(line.id)],
      ['type', floats(line.type)],
      ['start', floats(line.start)],
      ['end', floats(line.end)],
      ['prop_columns', JSON.stringify(line.prop_columns ?? [])],
      ['created', floats(line.created)],
    ],
  }
}

const floats = (column: ArrayLike<number>) =>
  column instanceof Float64Array ? column : Float64Array.from(column)

/** Builds one `graph_nodes` line. */
class NodeColumnsWriter {
  private readonly labelSets = new Dictionary<string[]>()
  private readonly keyOrders = new Dictionary<string[]>()
  /** The store shares one label list among the nodes that have it: its number, by identity. */
  private readonly labelSetOf = new Map<readonly number[], number>()
  /** Key orders already numbered, as a trie of key ids: a known order costs no string per node. */
  private readonly keyOrderOf = new KeyOrderNode()
  private readonly columns = new Map<string, PropertyColumn>()
  /** The same columns by key id, for the walk (no name lookup per value). */
  private readonly columnOf = new Map<number, PropertyColumn>()
  private readonly out: NodeColumns
  /** The node being added, for `addCell`: fields, not a closure per node (allocations are scavenges). */
  private at = 0
  private order: KeyOrderNode = this.keyOrderOf
  private store: GraphStore | null = null
  private nodeId = 0

  constructor(
    workspace: string,
    private readonly spill: PayloadSpill | null,
  ) {
    this.out = {
      kind: 'graph_nodes',
      workspace,
      label_sets: this.labelSets.values,
      key_orders: this.keyOrders.values,
      id: [],
      labels: [],
      keys: [],
      props: {},
      created: [],
    }
  }

  get size(): number {
    return this.out.id.length
  }

  add(
    store: GraphStore,
    id: number,
    labels: readonly number[],
    /** Raw slots (a snapshot's copy holds them as they were), or a live node's map. */
    props: ReadonlyMap<number, PropertySlot> | ReadonlyMap<number, PropertyValue>,
    created: number,
  ): void {
    const at = this.out.id.length
    this.out.id.push(id)
    this.out.created.push(created)
    const names = store.names
    let labelSet = this.labelSetOf.get(labels)
    if (labelSet === undefined) {
      labelSet = listNumber(
        this.labelSets,
        labels.map((l) => names.name(l)),
      )
      this.labelSetOf.set(labels, labelSet)
    }
    this.out.labels.push(labelSet)
    this.at = at
    this.order = this.keyOrderOf
    this.store = store
    this.nodeId = id
    // Raw slots: a value already in the payload file is written as its reference, never read back.
    if (props instanceof PropertyMap) props.forEachSlot(this.addCell, this)
    else (props as ReadonlyMap<number, PropertySlot>).forEach(this.addCell, this)
    const order = this.order
    if (order.number < 0) {
      order.number = listNumber(
        this.keyOrders,
        [...props.keys()].map((k) => names.name(k)),
      )
    }
    this.out.keys.push(order.number)
  }

  private addCell(slot: PropertySlot, key: number): void {
    this.order = this.order.next(key)
    const value = imageSlot(this.spill, this.store!, 'node', this.nodeId, key, slot)
    let column = this.columnOf.get(key)
    if (column === undefined) {
      const name = this.store!.names.name(key)
      column = {
        kind: typeof value === 'bigint' ? 'int' : typeof value === 'string' ? 'str' : 'any',
        values: [],
      }
      this.columns.set(name, column)
      this.columnOf.set(key, column)
    }
    if (column.kind === 'int' && typeof value !== 'bigint') demote(column)
    else if (column.kind === 'str' && typeof value !== 'string') demote(column)
    while (column.values.length < this.at) column.values.push(null)
    column.values.push(cell(column.kind, value))
  }

  line(): NodeColumns {
    const size = this.out.id.length
    const props: Record<string, PropertyColumnImage> = {}
    for (const [name, column] of this.columns) {
      while (column.values.length < size) column.values.push(null)
      setOwn(props, name, { [column.kind]: column.values } as PropertyColumnImage)
    }
    this.out.props = props
    return this.out
  }
}

/** A node of the key-order trie: the number of the order that ends here (-1 if none yet), and what follows. */
class KeyOrderNode {
  number = -1
  private readonly children = new Map<number, KeyOrderNode>()

  next(key: number): KeyOrderNode {
    let child = this.children.get(key)
    if (child === undefined) {
      child = new KeyOrderNode()
      this.children.set(key, child)
    }
    return child
  }
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)

function cell(kind: 'int' | 'str' | 'any', value: PropertySlot): unknown {
  if (value instanceof PayloadRef) return payloadCell(value)
  if (kind === 'int') {
    const v = value as bigint
    return v <= MAX_SAFE && v >= -MAX_SAFE ? Number(v) : v.toString()
  }
  return kind === 'str' ? value : encodeValue(value)
}

type PropertyColumn = { kind: 'int' | 'str' | 'any'; values: unknown[] }

/** A typed column that met another type: its cells become encoded values. */
function demote(column: PropertyColumn): void {
  const kind = column.kind
  column.values = column.values.map((v) =>
    v === null ? null : encodeValue(kind === 'int' ? BigInt(v as number | string) : (v as string)),
  )
  column.kind = 'any'
}

const listNumber = (lists: Dictionary<string[]>, items: string[]) => lists.number(items.join('\u0000'), items)
