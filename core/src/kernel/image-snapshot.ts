import type { GraphCatalog } from '../graph/catalog.js'
import type { CommitOp } from '../graph/commit.js'
import type { PropertySlot } from '../graph/payload-ref.js'
import { PropertyMap } from '../graph/property-map.js'
import type { GraphStore } from '../graph/store.js'

/** A node as it was at the image's sequence: labels, raw property slots in the node's order, creation sequence. */
export interface NodeBefore {
  labels: readonly number[]
  props: ReadonlyMap<number, PropertySlot>
  created: number
}

/** A relationship as it was at the image's sequence. */
export interface RelBefore {
  type: number
  start: number
  end: number
  keys: number[]
  slots: PropertySlot[]
  created: number
}

/** The creation sequences of a workspace's nodes or relationships, by record id (0 when unknown). */
export type CreatedSeq = (workspace: string, kind: 'node' | 'rel') => SeqLookup
export type SeqLookup = { get(id: number): number }

/**
 * One workspace's part of a checkpoint image of sequence S while it is walked, in id order, nodes then
 * relationships. The ids the walk has passed are in the image; ids at or above the limits were created
 * after S and are not. A commit published meanwhile tells the snapshot first, and each record it touches
 * ahead of the walk keeps its state at S here (copy on write), so the walk writes that state instead of the
 * live one. Writers never wait for an image, and the image holds exactly the state at S.
 */
export class WorkspaceSnapshot {
  /** Every node id (relationship id) at S is below this. */
  readonly nodeLimit: number
  readonly relLimit: number
  /** Ids below these are in the image already. */
  nodesWalked = 0
  relsWalked = 0
  /** State at S of records changed ahead of the walk: null when the record did not exist at S. */
  readonly nodesBefore = new Map<number, NodeBefore | null>()
  readonly relsBefore = new Map<number, RelBefore | null>()
  readonly nodeCreated: SeqLookup
  readonly relCreated: SeqLookup

  constructor(
    readonly workspace: string,
    readonly store: GraphStore,
    created: CreatedSeq,
  ) {
    this.nodeLimit = store.nextNodeId
    this.relLimit = store.nextRelId
    this.nodeCreated = created(workspace, 'node')
    this.relCreated = created(workspace, 'rel')
  }

  /** Before `ops` are applied to the live store. */
  beforeCommit(ops: readonly CommitOp[]): void {
    for (const op of ops) {
      switch (op.op) {
        case 'createRelationship':
        case 'deleteRelationship':
        case 'setRelationshipProperty':
        case 'removeRelationshipProperty':
          this.keepRel(op.id)
          break
        default:
          this.keepNode(op.id)
      }
    }
  }

  private keepNode(id: number): void {
    if (id < this.nodesWalked || id >= this.nodeLimit || this.nodesBefore.has(id)) return
    const node = this.store.node(id)
    if (node === undefined) {
      this.nodesBefore.set(id, null) // created after S with an id handed out before it
      return
    }
    const props = new Map<number, PropertySlot>()
    if (node.props instanceof PropertyMap) node.props.forEachSlot((slot, key) => props.set(key, slot))
    else for (const [key, value] of node.props) props.set(key, value)
    // Label lists are replaced on change, never changed in place: the reference is the state at S.
    this.nodesBefore.set(id, { labels: node.labels, props, created: this.nodeCreated.get(id) })
  }

  private keepRel(id: number): void {
    if (id < this.relsWalked || id >= this.relLimit || this.relsBefore.has(id)) return
    const store = this.store
    const type = store.relType(id)
    if (type < 0) {
      this.relsBefore.set(id, null)
      return
    }
    const keys: number[] = []
    const slots: PropertySlot[] = []
    store.relSlotsInto(id, keys, slots)
    this.relsBefore.set(id, {
      type,
      start: store.relStart(id),
      end: store.relEnd(id),
      keys,
      slots,
      created: this.relCreated.get(id),
    })
  }
}

/**
 * The graph of every workspace at the image's sequence, fixed when the image starts (synchronously, at S):
 * workspaces made later are rebuilt by the log's replay, as are the records created after S.
 */
export class GraphSnapshot {
  readonly workspaces: WorkspaceSnapshot[]
  private readonly byName = new Map<string, WorkspaceSnapshot>()

  constructor(catalog: GraphCatalog, created: CreatedSeq) {
    this.workspaces = catalog.workspaceIds().map((name) => {
      const part = new WorkspaceSnapshot(name, catalog.workspace(name), created)
      this.byName.set(name, part)
      return part
    })
  }

  /** A commit of `workspace` is about to be applied to the live graph. */
  beforeCommit(workspace: string, ops: readonly CommitOp[]): void {
    if (ops.length > 0) this.byName.get(workspace)?.beforeCommit(ops)
  }

  /** Records kept for the walk (their copies are memory the image holds until the walk passes them). */
  get kept(): number {
    let n = 0
    for (const w of this.workspaces) n += w.nodesBefore.size + w.relsBefore.size
    return n
  }
}
