import { EngineError } from '../errors.js'
import { PAGE_IDS, PagedArray } from '../paged-array.js'
import { NO_RELS, removeId } from './adjacency.js'
import { appendRun } from './append-run.js'
import { ColumnCache, type PropertyColumn } from './columns.js'
import {
  type CommitOp,
  type CommitRecord,
  CREATED,
  CreateRelOp,
  decodeValue,
  type EncodedValue,
} from './commit.js'
import { IdList } from './id-list.js'
import { IdSpace } from './id-space.js'
import { NodeIndexes } from './indexes.js'
import { LabelSets } from './label-sets.js'
import type { PayloadRef, PayloadStore, PropertySlot } from './payload-ref.js'
import { PropertyMap } from './property-map.js'
import { RelPropertyColumns } from './rel-property-columns.js'
import { Transaction } from './transaction.js'
import { type GraphReader, Interner, type NodeRecord, type PropertyValue } from './types.js'

/** The fields of a relationship in `rels`. */
const TYPE = 0
const START = 1
const END = 2

/**
 * The published version of one workspace graph. Nodes are one small record each (labels and keys
 * interned, adjacency as arrays of relationship ids); relationships live in typed-array columns so
 * 5M edges cost a few dozen bytes each, with properties only for the edges that have some.
 *
 * Mutations arrive only through `publish`/`applyCommit`, synchronously, so a reader running on the
 * event loop always sees one whole version. Writers prepare against a `Transaction` overlay.
 */
export class GraphStore implements GraphReader {
  readonly names = new Interner()
  private readonly nodes: (NodeRecord | undefined)[] = []
  private liveNodes = 0
  private liveRels = 0
  /** Live relationships per type id: the count store's answer to `MATCH ()-[r:T]->() RETURN count(r)`. */
  private readonly typeCounts: number[] = []
  /** Type, start and end node of each relationship id, -1 for none (pages: see paged-array.ts). */
  private readonly rels = new PagedArray(Int32Array, 3, -1)
  private readonly relProperties = new RelPropertyColumns()
  /** Property pairs indexed from their first equality lookup on: most written keys are never sought. */
  private readonly indexes = new NodeIndexes(true, (id, key) => this.nodes[id]?.props.get(key))
  private readonly columns = new ColumnCache()
  private readonly labelLists = new LabelSets()
  /** Relationships restored from a checkpoint whose adjacency `finishRestore` has yet to add. */
  private readonly restored = new IdList()
  /** Next ids to hand out; restored by replay because every create op carries its id. */
  private nextNode = 0
  private nextRel = 0
  /** Sequence of the last published commit. */
  sequence = 0
  private writeTail: Promise<unknown> = Promise.resolve()
  private queuedWrites = 0

  /** `ids` is shared by every workspace of one engine (see IdSpace). */
  constructor(readonly ids: IdSpace = new IdSpace()) {}

  get nextNodeId(): number {
    return this.nextNode
  }

  set nextNodeId(next: number) {
    this.nextNode = next
    if (next > this.ids.node) this.ids.node = next
  }

  get nextRelId(): number {
    return this.nextRel
  }

  set nextRelId(next: number) {
    this.nextRel = next
    if (next > this.ids.rel) this.ids.rel = next
  }

  node(id: number): NodeRecord | undefined {
    return this.nodes[id]
  }

  relType(id: number): number {
    return this.rels.get(id, TYPE)
  }

  relStart(id: number): number {
    return this.rels.get(id, START)
  }

  relEnd(id: number): number {
    return this.rels.get(id, END)
  }

  /** A new map of the relationship's properties (they are stored by key, not per relationship). */
  relProps(id: number): ReadonlyMap<number, PropertyValue> | undefined {
    return this.relProperties.of(id)
  }

  /**
   * The relationship's raw property slots, references unread, into the caller's arrays; returns how many
   * (the checkpoint walk).
   */
  relSlotsInto(id: number, keys: number[], slots: PropertySlot[]): number {
    return this.relProperties.slotsInto(id, keys, slots)
  }

  /**
   * After a checkpoint wrote `value` to the payload file: the slot takes `ref` if it still holds that value
   * (a write since keeps its own), and cached label columns drop the text.
   */
  swapToPayload(kind: 'node' | 'rel', id: number, key: number, value: string, ref: PayloadRef): boolean {
    if (kind === 'rel') return this.relProperties.swapToRef(id, key, value, ref)
    const props = this.nodes[id]?.props
    if (!(props instanceof PropertyMap) || !props.swapToRef(key, value, ref)) return false
    this.columns.clear()
    return true
  }

  relProperty(id: number, key: number): PropertyValue | undefined {
    return this.relProperties.get(id, key)
  }

  *allNodeIds(): Iterable<number> {
    const nodes = this.nodes
    for (let id = 0; id < nodes.length; id++) if (nodes[id] !== undefined) yield id
  }

  *allRelIds(): Iterable<number> {
    for (const first of this.rels.pageStarts())
      for (let id = first; id < first + PAGE_IDS; id++) if (this.rels.get(id, TYPE) >= 0) yield id
  }

  labelNodeIds(label: number): Iterable<number> {
    return this.indexes.labels.ids(label)
  }

  propertyNodeIds(label: number, key: number, value: PropertyValue): Iterable<number> {
    if (!this.indexes.props.isActive(label, key)) this.activateIndex(label, key)
    return this.indexes.props.ids(label, key, value)
  }

  /**
   * Indexes one (label, key) pair from now on, starting with a scan of the label: the first lookup of a pair
   * costs a scan, every later one is a hash lookup, and writes keep it current.
   */
  private activateIndex(label: number, key: number): void {
    const props = this.indexes.props
    props.activate(label, key)
    for (const id of this.labelNodeIds(label)) {
      const value = this.nodes[id]?.props.get(key)
      if (value !== undefined) props.add(label, key, value, id)
    }
  }

  labelCount(label: number): number {
    return this.indexes.labels.count(label)
  }

  /** Property `key` of every node labelled `label`, as columns in `labelNodeIds` order (cached until a
   * write touches the label). */
  labelColumn(label: number, key: number): PropertyColumn {
    return this.columns.column(
      label,
      key,
      () => this.labelNodeIds(label),
      (id) => this.nodes[id]?.props,
    )
  }

  nodeCount(): number {
    return this.liveNodes
  }

  relCount(): number {
    return this.liveRels
  }

  relTypeCount(type: number): number {
    return this.typeCounts[type] ?? 0
  }

  private countType(type: number, by: number): void {
    this.typeCounts[type] = (this.typeCounts[type] ?? 0) + by
  }

  /**
   * Moves every node and relationship string value of `minChars` or more to the payload file (`payloads` writes it
   * and reads it back): what stays resident is a reference per value, resolved on every read, so every
   * reader sees the same values (issue 39). Cached label columns are dropped: they would keep the texts alive.
   * Returns how many values moved.
   */
  externalize(minChars: number, payloads: PayloadStore): number {
    let moved = 0
    for (const node of this.nodes)
      if (node !== undefined && node.props instanceof PropertyMap)
        moved += node.props.externalize(minChars, payloads)
    moved += this.relProperties.externalize(minChars, payloads)
    this.columns.clear()
    return moved
  }

  /** A write transaction over this version; it reads through and copies what it touches. */
  begin(): Transaction {
    return new Transaction(this)
  }

  /**
   * Runs `work` after every earlier write has finished: the single-writer queue. A failure in one
   * write does not poison the queue for the next.
   */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    this.queuedWrites++
    const run = this.writeTail.then(work, work).finally(() => {
      this.queuedWrites--
    })
    this.writeTail = run.catch(() => undefined)
    return run
  }

  /** No write is queued or running: a synchronous write may run now, in its turn (see CypherEngine). */
  get writerIdle(): boolean {
    return this.queuedWrites === 0
  }

  /** Applies a prepared commit as the new published version. Synchronous: no reader sees half of it. */
  publish(commit: CommitRecord, sequence: number): void {
    this.applyCommit(commit)
    this.sequence = sequence
  }

  /** Replays a redo record (recovery, or publish). Ids come from the record, so replay is exact. */
  applyCommit(commit: CommitRecord, sequence?: number): void {
    const created = commit[CREATED]
    for (const op of commit.ops) {
      const made = op.op === 'createNode' ? created?.get(op.id) : undefined
      if (made === undefined) this.apply(op)
      else this.adoptNode(op.id, made.labels, made.props)
    }
    if (sequence !== undefined) this.sequence = sequence
  }

  /** Loads one node from a checkpoint image: the same effect as its createNode op, without building one. */
  restoreNode(
    id: number,
    labels: readonly number[],
    keys: readonly number[],
    values: readonly PropertySlot[],
  ): void {
    this.addNode(id, this.labelSet(labels), PropertyMap.fromDistinct(keys, values))
  }

  /**
   * Loads one relationship from a checkpoint image: the same effect as a createRelationship op, without
   * building one (recovery loads millions of them). Adjacency is added by `finishRestore`, all at once and
   * at exact sizes, instead of millions of pushes that grow (and over-allocate) every list.
   */
  restoreRelationship(
    id: number,
    type: number,
    startId: number,
    endId: number,
    props: Map<number, PropertySlot> | undefined,
  ): void {
    if (this.relType(id) >= 0) throw corrupt(`relationship ${id} already exists`)
    this.mustNode(startId)
    this.mustNode(endId)
    this.putRel(id, type, startId, endId)
    this.countType(type, 1)
    if (props !== undefined) for (const [key, value] of props) this.relProperties.set(id, key, value)
    this.restored.push(id)
    this.liveRels++
    if (id >= this.nextRelId) this.nextRelId = id + 1
  }

  /** Adds the adjacency of every relationship restored since the last call, in restore order. */
  finishRestore(): void {
    const restored = this.restored.take()
    if (restored.length === 0) return
    // Counting sort of the restored ids by endpoint (stable: restore order within a node), then one array per
    // node copied from its contiguous run: writing millions of ids straight into a million small arrays was
    // memory-bound on the random accesses.
    const outRuns = this.runsBy(restored, START)
    const inRuns = this.runsBy(restored, END)
    for (let id = 0; id < this.nodes.length; id++) {
      const node = this.nodes[id]
      if (node === undefined) continue
      node.out = appendRun(
        node.out,
        outRuns.ids,
        outRuns.offsets[id] as number,
        outRuns.offsets[id + 1] as number,
      )
      node.in = appendRun(node.in, inRuns.ids, inRuns.offsets[id] as number, inRuns.offsets[id + 1] as number)
    }
  }

  /** `ids` grouped by `endpoint[id]`: the run of node n is ids[offsets[n] .. offsets[n + 1]). */
  private runsBy(ids: Int32Array, endpoint: number): { ids: Int32Array; offsets: Int32Array } {
    const n = this.nodes.length
    const offsets = new Int32Array(n + 1)
    for (let i = 0; i < ids.length; i++) {
      const node = this.rels.get(ids[i] as number, endpoint) + 1
      offsets[node] = (offsets[node] as number) + 1
    }
    for (let node = 0; node < n; node++)
      offsets[node + 1] = (offsets[node + 1] as number) + (offsets[node] as number)
    const cursor = offsets.slice(0, n)
    const sorted = new Int32Array(ids.length)
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i] as number
      const node = this.rels.get(id, endpoint)
      const at = cursor[node] as number
      sorted[at] = id
      cursor[node] = at + 1
    }
    return { ids: sorted, offsets }
  }

  private mustNode(id: number): NodeRecord {
    const node = this.nodes[id]
    if (node === undefined) throw corrupt(`node ${id} does not exist`)
    return node
  }

  private mustRel(id: number): void {
    if (this.relType(id) < 0) throw corrupt(`relationship ${id} does not exist`)
  }

  private decodeProps(props: Record<string, EncodedValue>): PropertyMap {
    const names = Object.keys(props)
    const keys = new Array<number>(names.length)
    const values = new Array<PropertyValue>(names.length)
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string
      keys[i] = this.names.id(name)
      values[i] = decodeValue(props[name] as EncodedValue)
    }
    return PropertyMap.fromDistinct(keys, values)
  }

  /**
   * A node as its transaction left it (labels interned, values typed): the same node its createNode op and
   * the later ops on it would give, since those ops only assign. A PropertyMap is taken over (it was the
   * transaction's to give, see Transaction.createNode); any other map is copied, lists included.
   */
  private adoptNode(id: number, labels: readonly number[], props: ReadonlyMap<number, PropertyValue>): void {
    this.addNode(id, this.labelSet(labels), props instanceof PropertyMap ? props : PropertyMap.copyOf(props))
  }

  /** The shared list for these labels (label-sets.ts): a node's labels are always one of them. */
  labelSet(labels: readonly number[]): number[] {
    return this.labelLists.of(labels)
  }

  private addNode(id: number, labels: number[], props: PropertyMap): void {
    if (this.nodes[id] !== undefined) throw corrupt(`node ${id} already exists`)
    this.nodes[id] = { id, labels, props, out: NO_RELS, in: NO_RELS }
    this.liveNodes++
    if (id >= this.nextNodeId) this.nextNodeId = id + 1
    this.indexes.addNode(id, labels, props)
    this.columns.touched(labels)
  }

  private apply(op: CommitOp): void {
    switch (op.op) {
      case 'createNode': {
        const labels = this.labelSet(op.labels.map((label) => this.names.id(label)))
        this.addNode(op.id, labels, this.decodeProps(op.props))
        return
      }
      case 'deleteNode': {
        const node = this.mustNode(op.id)
        this.columns.touched(node.labels)
        if (node.out.length > 0 || node.in.length > 0) throw corrupt(`node ${op.id} still has relationships`)
        this.indexes.removeNode(op.id, node.labels, node.props)
        this.nodes[op.id] = undefined
        this.liveNodes--
        return
      }
      case 'addLabel': {
        const node = this.mustNode(op.id)
        const label = this.names.id(op.label)
        if (node.labels.includes(label)) return
        node.labels = this.labelSet([...node.labels, label])
        this.indexes.addLabel(op.id, label, node.props)
        this.columns.touched([label])
        return
      }
      case 'removeLabel': {
        const node = this.mustNode(op.id)
        const label = this.names.lookup(op.label)
        const at = node.labels.indexOf(label)
        if (at < 0) return
        node.labels = this.labelSet(node.labels.filter((l) => l !== label))
        this.indexes.removeLabel(op.id, label, node.props)
        this.columns.touched([label])
        return
      }
      case 'setNodeProperty': {
        const node = this.mustNode(op.id)
        const key = this.names.id(op.key)
        const value = decodeValue(op.value)
        this.indexes.setProperty(op.id, node.labels, key, node.props.get(key), value)
        node.props.set(key, value)
        this.columns.touched(node.labels)
        return
      }
      case 'removeNodeProperty': {
        const node = this.mustNode(op.id)
        const key = this.names.lookup(op.key)
        const before = node.props.get(key)
        if (before === undefined) return
        this.indexes.setProperty(op.id, node.labels, key, before, undefined)
        node.props.delete(key)
        this.columns.touched(node.labels)
        return
      }
      case 'createRelationship': {
        if (this.relType(op.id) >= 0) throw corrupt(`relationship ${op.id} already exists`)
        const start = this.mustNode(op.start)
        const end = this.mustNode(op.end)
        const type = this.names.id(op.type)
        this.putRel(op.id, type, op.start, op.end)
        this.countType(type, 1)
        if (op instanceof CreateRelOp && op.names === this.names)
          op.values.forEach((value, key) => {
            this.relProperties.set(op.id, key, value)
          })
        else
          for (const key of Object.keys(op.props))
            this.relProperties.set(op.id, this.names.id(key), decodeValue(op.props[key] as EncodedValue))
        if (start.out === NO_RELS) start.out = [op.id]
        else start.out.push(op.id)
        if (end.in === NO_RELS) end.in = [op.id]
        else end.in.push(op.id)
        this.liveRels++
        if (op.id >= this.nextRelId) this.nextRelId = op.id + 1
        return
      }
      case 'deleteRelationship': {
        this.mustRel(op.id)
        removeId(this.mustNode(this.relStart(op.id)).out, op.id)
        removeId(this.mustNode(this.relEnd(op.id)).in, op.id)
        this.countType(this.relType(op.id), -1)
        this.rels.set(op.id, -1, TYPE)
        this.relProperties.clear(op.id)
        this.liveRels--
        return
      }
      case 'setRelationshipProperty': {
        this.mustRel(op.id)
        this.relProperties.set(op.id, this.names.id(op.key), decodeValue(op.value))
        return
      }
      case 'removeRelationshipProperty': {
        this.mustRel(op.id)
        this.relProperties.delete(op.id, this.names.lookup(op.key))
        return
      }
    }
  }

  private putRel(id: number, type: number, start: number, end: number): void {
    const page = this.rels.pageFor(id)
    const at = this.rels.offset(id)
    page[at + TYPE] = type
    page[at + START] = start
    page[at + END] = end
  }
}

function corrupt(message: string): EngineError {
  return new EngineError('COMMIT_REPLAY_FAILED', `cannot apply commit: ${message}`)
}
