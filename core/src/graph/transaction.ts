import { EngineError } from '../errors.js'
import { AddedEdges } from './added-edges.js'
import { NO_RELS, removeId } from './adjacency.js'
import {
  type CommitOp,
  type CommitRecord,
  CREATED,
  CreateNodeOp,
  CreateRelOp,
  encodeValue,
} from './commit.js'
import { CreatedList } from './created-list.js'
import type { IdSpace } from './id-space.js'
import { NodeIndexes, type PropertyIndex } from './indexes.js'
import { PropertyMap } from './property-map.js'
import type { GraphReader, Interner, NodeRecord, PropertyValue, RelationshipRecord } from './types.js'

/**
 * A write transaction: an overlay over one published version. The first write to a record copies it
 * (its properties at once, adjacency arrays only when an edge is added or removed; a label change replaces
 * the shared label list); reads go to the copy when there is one, else through to the store. Nothing
 * reaches the store until the caller publishes the redo record from `prepare()`, so abandoning the
 * transaction is free.
 */
/** The published graph a transaction overlays: a reader that also interns label sets. */
export interface TransactionBase extends GraphReader {
  /** Next ids to hand out: a transaction allocates above them. */
  readonly nextNodeId: number
  readonly nextRelId: number
  /** The engine-wide id space new ids come from (see IdSpace). */
  readonly ids: IdSpace
  relProperty(id: number, key: number): PropertyValue | undefined
  /** The shared, frozen list for a set of label ids. */
  labelSet(labels: readonly number[]): number[]
}

/** Shared by every commit without deletions (only read then). */
const NO_ENDS = new Map<number, number[]>()

export class Transaction implements GraphReader {
  readonly names: Interner
  /** Touched nodes: the copy, or null once deleted. */
  private readonly nodes = new Map<number, NodeRecord | null>()
  /**
   * Index entries for touched nodes only; the store's entries for them are skipped. Built on the first read
   * that needs it (from the re-indexed records), then kept up to date: a transaction that only writes, as
   * most do, never pays for indexing its records twice (here and again when the store applies them).
   */
  private overlayIndexes: NodeIndexes | undefined
  /** Nodes created here (null once deleted): the store adopts them at publish (see `createdNodes` in commit.ts). */
  private readonly createdNodes = new CreatedList()
  private readonly ops: CommitOp[] = []
  // Made on first use: a write that creates a node or two (the commonest) never needs them.
  private ownAdjacencySet: Set<number> | undefined
  private reindexedSet: Set<number> | undefined
  private relsMap: Map<number, RelationshipRecord | null> | undefined
  private deletedNodesSet: Set<number> | undefined
  private deletedRelTypesMap: Map<number, number> | undefined
  private nextNodeId: number
  /** Ids from here on were created by this transaction: their records and index entries are its own. */
  private readonly firstNewNode: number
  private nextRelId: number
  private liveNodeDelta = 0
  private liveRelDelta = 0

  private get ownAdjacency(): Set<number> {
    this.ownAdjacencySet ??= new Set()
    return this.ownAdjacencySet
  }

  /**
   * Base nodes whose index entries live in this overlay (labels/properties changed, or deleted); created
   * nodes (ids from `firstNewNode`) always do. A node touched only for its adjacency shares labels and
   * properties with the store and keeps its store index entries: adding an edge copies two arrays.
   */
  private get reindexed(): Set<number> {
    this.reindexedSet ??= new Set()
    return this.reindexedSet
  }

  /** Touched relationships: the copy, or null once deleted. */
  private get rels(): Map<number, RelationshipRecord | null> {
    this.relsMap ??= new Map()
    return this.relsMap
  }

  private get deletedNodes(): Set<number> {
    this.deletedNodesSet ??= new Set()
    return this.deletedNodesSet
  }

  private get deletedRelTypes(): Map<number, number> {
    this.deletedRelTypesMap ??= new Map()
    return this.deletedRelTypesMap
  }

  constructor(private readonly base: TransactionBase) {
    this.names = base.names
    this.nextNodeId = base.nextNodeId
    this.firstNewNode = base.nextNodeId
    this.nextRelId = base.nextRelId
  }

  /** Number of redo operations so far: the mutation count budgets are checked against. */
  get opCount(): number {
    return this.ops.length
  }

  /** This transaction's record of a node: created or copied here, null once deleted, else undefined. */
  private own(id: number): NodeRecord | null | undefined {
    return id >= this.firstNewNode ? (this.createdNodes.find(id) ?? this.nodes.get(id)) : this.nodes.get(id)
  }

  node(id: number): NodeRecord | undefined {
    const copy = this.own(id)
    if (copy !== undefined) return copy ?? undefined
    return this.base.node(id)
  }

  /** True when this transaction deleted the node (reading it afterwards is an error in Cypher). */
  isDeletedNode(id: number): boolean {
    return this.deletedNodes.has(id)
  }

  isDeletedRel(id: number): boolean {
    return this.rels.get(id) === null
  }

  /** Type of a relationship this transaction deleted (Cypher still answers `type(r)` for it), or -1. */
  deletedRelType(id: number): number {
    return this.deletedRelTypes.get(id) ?? -1
  }

  relType(id: number): number {
    const copy = this.rels.get(id)
    if (copy !== undefined) return copy === null ? -1 : copy.type
    return this.base.relType(id)
  }

  relStart(id: number): number {
    const copy = this.rels.get(id)
    if (copy !== undefined) return copy === null ? -1 : copy.start
    return this.base.relStart(id)
  }

  relEnd(id: number): number {
    const copy = this.rels.get(id)
    if (copy !== undefined) return copy === null ? -1 : copy.end
    return this.base.relEnd(id)
  }

  relProps(id: number): ReadonlyMap<number, PropertyValue> | undefined {
    const copy = this.rels.get(id)
    if (copy !== undefined) return copy === null ? undefined : copy.props
    return this.base.relProps(id)
  }

  relProperty(id: number, key: number): PropertyValue | undefined {
    const copy = this.rels.get(id)
    if (copy !== undefined) return copy === null ? undefined : copy.props.get(key)
    return this.base.relProperty(id, key)
  }

  *allNodeIds(): Iterable<number> {
    for (const id of this.base.allNodeIds()) if (!this.nodes.has(id)) yield id
    for (const [id, node] of this.nodes) if (node !== null) yield id
    yield* this.createdNodes.ids()
  }

  /** Base ids still valid for index answers: not re-indexed here (changed, created or deleted). */
  private *baseIndexed(ids: Iterable<number>): Iterable<number> {
    for (const id of ids) if (!this.reindexed.has(id)) yield id
  }

  *allRelIds(): Iterable<number> {
    for (const id of this.base.allRelIds()) if (!this.rels.has(id)) yield id
    for (const [id, rel] of this.rels) if (rel !== null) yield id
  }

  *labelNodeIds(label: number): Iterable<number> {
    yield* this.baseIndexed(this.base.labelNodeIds(label))
    yield* this.indexes().labels.ids(label)
  }

  propertyNodeIds(label: number, key: number, value: PropertyValue): Iterable<number> {
    const base = this.base.propertyNodeIds(label, key, value)
    const own = this.overlayProps(label, key).ids(label, key, value)
    // Nothing re-indexed here and no entry of its own (a bulk load's endpoint lookups): the store's answer as
    // it is, without two generators a lookup.
    if ((this.reindexedSet?.size ?? 0) === 0 && Array.isArray(own) && own.length === 0) return base
    return this.withOwn(base, own)
  }

  private *withOwn(base: Iterable<number>, own: Iterable<number>): Iterable<number> {
    yield* this.baseIndexed(base)
    yield* own
  }

  /** The first of `propertyNodeIds`, without its generators (a point lookup per record in bulk writes). */
  firstPropertyNodeId(label: number, key: number, value: PropertyValue): number | undefined {
    for (const id of this.base.propertyNodeIds(label, key, value)) if (!this.reindexed.has(id)) return id
    for (const id of this.overlayProps(label, key).ids(label, key, value)) return id
    return undefined
  }

  /**
   * The overlay's property index with (label, key) in it. Pairs are indexed from their first lookup on, as in
   * the store: indexing every property of every node a bulk write creates (descriptions, patterns, raw
   * payloads) was 3% of an import for pairs nothing looked up.
   */
  private overlayProps(label: number, key: number): PropertyIndex {
    const indexes = this.indexes()
    if (!indexes.props.isActive(label, key)) {
      indexes.props.activate(label, key)
      for (const id of indexes.labels.ids(label)) {
        const value = this.own(id)?.props.get(key)
        if (value !== undefined) indexes.props.add(label, key, value, id)
      }
    }
    return indexes.props
  }

  /** An estimate for choosing scans: exact enough to rank labels. */
  labelCount(label: number): number {
    return this.base.labelCount(label) + this.indexes().labels.count(label)
  }

  nodeCount(): number {
    return this.base.nodeCount() + this.liveNodeDelta
  }

  relCount(): number {
    return this.base.relCount() + this.liveRelDelta
  }

  // ---- writes -------------------------------------------------------------------------------

  /**
   * Creates a node with `props`. A `PropertyMap` is taken over, not copied: at publish it becomes the stored
   * node's own, so the caller must not keep or reuse it (any other Map is copied then).
   */
  createNode(labels: number[], props: Map<number, PropertyValue>): number {
    const id = this.base.ids.takeNode(this.nextNodeId)
    this.nextNodeId = id + 1
    // Shared until changed: label changes here replace the list, and the first edge copies the adjacency.
    const unique = this.base.labelSet(labels.length < 2 ? labels : [...new Set(labels)])
    const node: NodeRecord = { id, labels: unique, props, out: NO_RELS, in: NO_RELS }
    this.createdNodes.add(id, node)
    this.overlayIndexes?.addNode(id, node.labels, props)
    this.liveNodeDelta++
    this.ops.push(new CreateNodeOp(id, node, this.nameOf))
    return id
  }

  /** Sets (value) or removes (undefined) a node property. Returns whether anything changed. */
  setNodeProperty(id: number, key: number, value: PropertyValue | undefined): boolean {
    const node = this.touch(id)
    const before = node.props.get(key)
    if (before === undefined && value === undefined) return false
    this.overlayIndexes?.setProperty(id, node.labels, key, before, value)
    if (value === undefined) {
      node.props.delete(key)
      this.ops.push({ op: 'removeNodeProperty', id, key: this.nameOf(key) })
    } else {
      node.props.set(key, value)
      this.ops.push({ op: 'setNodeProperty', id, key: this.nameOf(key), value: encodeValue(value) })
    }
    return true
  }

  addLabel(id: number, label: number): boolean {
    const node = this.touch(id)
    if (node.labels.includes(label)) return false
    node.labels = [...node.labels, label]
    this.overlayIndexes?.addLabel(id, label, node.props)
    this.ops.push({ op: 'addLabel', id, label: this.nameOf(label) })
    return true
  }

  removeLabel(id: number, label: number): boolean {
    const node = this.touch(id)
    const at = node.labels.indexOf(label)
    if (at < 0) return false
    node.labels = node.labels.filter((l) => l !== label)
    this.overlayIndexes?.removeLabel(id, label, node.props)
    this.ops.push({ op: 'removeLabel', id, label: this.nameOf(label) })
    return true
  }

  /** Deletes a node; its relationships must be gone by `prepare()` (checked there, as Cypher does). */
  deleteNode(id: number): boolean {
    const node = this.node(id)
    if (node === undefined) return false
    if (this.reindexed.has(id) || id >= this.firstNewNode)
      this.overlayIndexes?.removeNode(id, node.labels, node.props)
    this.reindexed.add(id)
    if (!this.createdNodes.delete(id)) this.nodes.set(id, null)
    this.deletedNodes.add(id)
    this.liveNodeDelta--
    this.ops.push({ op: 'deleteNode', id })
    return true
  }

  createRelationship(type: number, start: number, end: number, props: Map<number, PropertyValue>): number {
    const from = this.growAdjacency(start)
    const to = this.growAdjacency(end)
    const id = this.base.ids.takeRel(this.nextRelId)
    this.nextRelId = id + 1
    this.rels.set(id, { id, type, start, end, props })
    if (from instanceof AddedEdges) from.addOut(id)
    else from.out.push(id)
    if (to instanceof AddedEdges) to.addIn(id)
    else to.in.push(id)
    this.liveRelDelta++
    this.ops.push(new CreateRelOp(id, this.nameOf(type), start, end, props, this.names))
    return id
  }

  setRelationshipProperty(id: number, key: number, value: PropertyValue | undefined): boolean {
    const rel = this.touchRel(id)
    const before = rel.props.get(key)
    if (before === undefined && value === undefined) return false
    if (value === undefined) {
      rel.props.delete(key)
      this.ops.push({ op: 'removeRelationshipProperty', id, key: this.nameOf(key) })
    } else {
      rel.props.set(key, value)
      this.ops.push({ op: 'setRelationshipProperty', id, key: this.nameOf(key), value: encodeValue(value) })
    }
    return true
  }

  deleteRelationship(id: number): boolean {
    const type = this.relType(id)
    if (type < 0) return false
    const start = this.relStart(id)
    const end = this.relEnd(id)
    // A deleted endpoint keeps its adjacency until prepare() so the dangling edge is detected.
    const from = this.own(start) === null ? undefined : this.touchAdjacency(start)
    const to = this.own(end) === null ? undefined : this.touchAdjacency(end)
    if (from !== undefined) removeId(from.out, id)
    if (to !== undefined) removeId(to.in, id)
    this.rels.set(id, null)
    this.deletedRelTypes.set(id, type)
    this.liveRelDelta--
    this.ops.push({ op: 'deleteRelationship', id })
    return true
  }

  /**
   * Checks the commit-time constraints and returns the redo record. Deleted nodes must have lost all
   * their relationships (Cypher checks at the end of the query, not at each DELETE).
   */
  prepare(): CommitRecord {
    // Relationships of this transaction touching a deleted node, found in one pass (not one per node).
    const deleted = this.deletedNodesSet?.size ?? 0
    const overlayEnds = deleted > 0 ? new Map<number, number[]>() : NO_ENDS
    if (deleted > 0) {
      for (const [rel, live] of this.rels) {
        if (!live) continue
        for (const end of live.start === live.end ? [live.start] : [live.start, live.end]) {
          if (!this.deletedNodes.has(end)) continue
          const list = overlayEnds.get(end)
          if (list === undefined) overlayEnds.set(end, [rel])
          else list.push(rel)
        }
      }
    }
    for (const id of this.deletedNodesSet ?? []) {
      const before = this.base.node(id)
      const adjacency = before === undefined ? [] : [...before.out, ...before.in]
      adjacency.push(...(overlayEnds.get(id) ?? []))
      for (const rel of adjacency) {
        if (this.relType(rel) >= 0) {
          throw new EngineError(
            'DELETE_CONNECTED_NODE',
            `cannot delete node ${id} because it still has relationships; use DETACH DELETE`,
          )
        }
      }
    }
    // Node deletions go last: a node's relationships may be deleted by later operations of the same
    // query (paths, lists), and replay must never see a node removed before its edges.
    const ops: CommitOp[] = deleted === 0 ? this.ops : this.ops.filter((op) => op.op !== 'deleteNode')
    if (deleted > 0) for (const op of this.ops) if (op.op === 'deleteNode') ops.push(op)
    const commit: CommitRecord = { ops }
    if (this.createdNodes.size > 0) commit[CREATED] = this.createdNodes
    return commit
  }

  private readonly nameOf = (id: number): string => this.names.name(id)

  private indexes(): NodeIndexes {
    if (this.overlayIndexes === undefined) {
      const indexes = new NodeIndexes(true)
      for (const id of [...this.reindexed, ...this.createdNodes.ids()]) {
        const node = this.own(id)
        if (node) indexes.addNode(id, node.labels, node.props)
      }
      this.overlayIndexes = indexes
    }
    return this.overlayIndexes
  }

  /** The node's own copy with private properties (labels are replaced, never edited), indexed in the overlay. */
  private touch(id: number): NodeRecord {
    const node = this.shallow(id)
    if (id < this.firstNewNode && !this.reindexed.has(id)) {
      node.props = PropertyMap.copyOf(node.props) // keeps payload references unread
      this.reindexed.add(id)
      this.overlayIndexes?.addNode(id, node.labels, node.props)
    }
    return node
  }

  /** The node's overlay record; labels and properties may still be shared with the store. */
  private shallow(id: number): NodeRecord {
    const copy = this.own(id)
    if (copy) return copy
    const node = copy === null ? undefined : this.base.node(id)
    if (node === undefined) throw new EngineError('ENTITY_NOT_FOUND', `node ${id} does not exist`)
    const record: NodeRecord = { id, labels: node.labels, props: node.props, out: node.out, in: node.in }
    this.nodes.set(id, record)
    return record
  }

  /**
   * The node's record for adding an edge: a stored node not touched before gets an AddedEdges record (its
   * lists copied only if read here); any other goes through touchAdjacency.
   */
  private growAdjacency(id: number): NodeRecord {
    if (id >= this.firstNewNode || this.nodes.has(id)) return this.touchAdjacency(id)
    const node = this.base.node(id)
    if (node === undefined) throw new EngineError('ENTITY_NOT_FOUND', `node ${id} does not exist`)
    const record = new AddedEdges(id, node.labels, node.props, node.out, node.in)
    this.nodes.set(id, record)
    // Its lists are its own once read: touchAdjacency must not copy them again.
    this.ownAdjacency.add(id)
    return record
  }

  private touchAdjacency(id: number): NodeRecord {
    const node = this.shallow(id)
    if (!this.ownAdjacency.has(id)) {
      node.out = node.out.slice()
      node.in = node.in.slice()
      this.ownAdjacency.add(id)
    }
    return node
  }

  private touchRel(id: number): RelationshipRecord {
    const copy = this.rels.get(id)
    if (copy) return copy
    const type = copy === null ? -1 : this.base.relType(id)
    if (type < 0) throw new EngineError('ENTITY_NOT_FOUND', `relationship ${id} does not exist`)
    const rel: RelationshipRecord = {
      id,
      type,
      start: this.base.relStart(id),
      end: this.base.relEnd(id),
      props: new Map(this.base.relProps(id)),
    }
    this.rels.set(id, rel)
    return rel
  }
}
