import { type CommitRecord, decodeValue, type EncodedValue, encodeValue } from '../graph/commit.js'
import type { GraphStore } from '../graph/store.js'
import type { PropertyValue } from '../graph/types.js'
import { PagedArray } from '../paged-array.js'

/** A record's content at some version: what a projection shows. */
export interface NodeState {
  labels: string[]
  props: Map<string, PropertyValue>
}
export interface RelState {
  type: string
  start: number
  end: number
  props: Map<string, PropertyValue>
}

interface Version<S> {
  /** The commit sequence that replaced this content. */
  seq: number
  state: S
}

interface Lifetime<S> {
  deleted?: number
  /** Before-images, ascending by the sequence that superseded each. */
  before?: Version<S>[]
}

/** One record's history as a checkpoint line. */
export interface HistoryLine {
  kind: 'node' | 'rel'
  id: number
  created: number
  deleted?: number
  before?: { seq: number; state: unknown }[]
}

export interface HistoryStats {
  versions: number
  floorSeq: number
}

/**
 * Record history by commit sequence, as an undo log: for every record, when it was created and deleted, and
 * the content it had before each later change. The graph as of sequence S is the current record unless it
 * changed after S, in which case it is the before-image of the first change after S — so unchanged data is
 * never copied. Memory is bounded by `maxVersions`: past it the oldest before-images are dropped and
 * `floorSeq` rises; boundaries below the floor can no longer be read.
 */
/**
 * Creation sequences by record id: 8 bytes a record instead of a Map entry, in pages (a workspace's ids need
 * not start near 0); 0 for an id never created here.
 */
export type SeqColumn = PagedArray<Float64Array>

export class RecordHistory {
  /** Only records that changed after creation or were deleted have a lifetime entry. */
  private readonly nodes = new Map<number, Lifetime<NodeState>>()
  private readonly rels = new Map<number, Lifetime<RelState>>()
  readonly nodeCreated: SeqColumn = new PagedArray(Float64Array)
  readonly relCreated: SeqColumn = new PagedArray(Float64Array)
  private versions = 0
  floorSeq = 0
  /** (seq, kind, id) of every before-image in age order, for pruning. */
  private readonly order: { seq: number; kind: 'node' | 'rel'; id: number }[] = []
  private orderHead = 0

  constructor(private readonly maxVersions = 1_000_000) {}

  static nodeState(store: GraphStore, id: number): NodeState | null {
    const node = store.node(id)
    if (node === undefined) return null
    const props = new Map<string, PropertyValue>()
    for (const [key, value] of node.props) props.set(store.names.name(key), value)
    return { labels: node.labels.map((l) => store.names.name(l)), props }
  }

  static relState(store: GraphStore, id: number): RelState | null {
    const type = store.relType(id)
    if (type < 0) return null
    const props = new Map<string, PropertyValue>()
    for (const [key, value] of store.relProps(id) ?? []) props.set(store.names.name(key), value)
    return { type: store.names.name(type), start: store.relStart(id), end: store.relEnd(id), props }
  }

  /** Records what `commit` is about to change in `store` (call before it is applied). */
  capture(store: GraphStore, commit: CommitRecord, seq: number): void {
    // Records this commit creates have ids from the store's next ids on (it is not applied yet): they have
    // no before-image to keep, and need no entry in the touched sets (a bulk create would fill them).
    const newNodes = store.nextNodeId
    const newRels = store.nextRelId
    // Made on the first change of an existing record: a commit that only creates (most) needs none.
    let touchedNodes: Set<number> | undefined
    let touchedRels: Set<number> | undefined
    for (const op of commit.ops) {
      switch (op.op) {
        case 'createNode':
          this.nodeCreated.set(op.id, seq)
          break
        case 'createRelationship':
          this.relCreated.set(op.id, seq)
          break
        case 'deleteNode':
        case 'addLabel':
        case 'removeLabel':
        case 'setNodeProperty':
        case 'removeNodeProperty':
          touchedNodes ??= new Set<number>()
          if (op.id < newNodes && !touchedNodes.has(op.id)) {
            touchedNodes.add(op.id)
            this.keep('node', this.nodes, op.id, seq, RecordHistory.nodeState(store, op.id))
          }
          // Created and deleted in one commit: it never existed at any boundary.
          if (op.op === 'deleteNode') this.lifetime(this.nodes, op.id).deleted = seq
          break
        default:
          touchedRels ??= new Set<number>()
          if (op.id < newRels && !touchedRels.has(op.id)) {
            touchedRels.add(op.id)
            this.keep('rel', this.rels, op.id, seq, RecordHistory.relState(store, op.id))
          }
          if (op.op === 'deleteRelationship') this.lifetime(this.rels, op.id).deleted = seq
      }
    }
    this.prune()
  }

  private lifetime<S>(map: Map<number, Lifetime<S>>, id: number): Lifetime<S> {
    let life = map.get(id)
    if (life === undefined) {
      life = {}
      map.set(id, life)
    }
    return life
  }

  private createdOf(kind: 'node' | 'rel', id: number): number {
    return (kind === 'node' ? this.nodeCreated : this.relCreated).get(id)
  }

  private keep<S>(
    kind: 'node' | 'rel',
    map: Map<number, Lifetime<S>>,
    id: number,
    seq: number,
    state: S | null,
  ): void {
    if (state === null) return
    if (this.createdOf(kind, id) === seq) return // created in this very commit: it had no earlier content
    const life = this.lifetime(map, id)
    if (life.before === undefined) life.before = []
    life.before.push({ seq, state })
    this.order.push({ seq, kind, id })
    this.versions++
  }

  private prune(): void {
    while (this.versions > this.maxVersions && this.orderHead < this.order.length) {
      const oldest = this.order[this.orderHead++]!
      const life = (oldest.kind === 'node' ? this.nodes : this.rels).get(oldest.id)
      if (life?.before?.[0]?.seq === oldest.seq) {
        life.before.shift()
        this.versions--
        this.floorSeq = Math.max(this.floorSeq, oldest.seq)
      }
    }
    if (this.orderHead > 65_536 && this.orderHead * 2 > this.order.length) {
      this.order.splice(0, this.orderHead)
      this.orderHead = 0
    }
  }

  private stateAt<S>(
    created: number,
    life: Lifetime<S> | undefined,
    seq: number,
    current: () => S | null,
  ): S | null {
    if (seq < created) return null
    if (life === undefined) return current()
    if (life.deleted !== undefined && seq >= life.deleted) return null
    const later = life.before?.find((v) => v.seq > seq)
    return later === undefined ? current() : later.state
  }

  /** Version number of a record as of `seq`: 1 at creation, +1 for each later change up to `seq`. */
  versionAt(kind: 'node' | 'rel', id: number, seq: number): { version: number; since: number } {
    const life = (kind === 'node' ? this.nodes : this.rels).get(id)
    const created = this.createdOf(kind, id)
    const changes = life?.before?.filter((v) => v.seq <= seq) ?? []
    return { version: 1 + changes.length, since: changes.at(-1)?.seq ?? created }
  }

  /** Whether a record existed at `seq`, without building its content (for counting what a budget omits). */
  existsAt(store: GraphStore, kind: 'node' | 'rel', id: number, seq: number): boolean {
    if (seq < this.createdOf(kind, id)) return false
    const life = (kind === 'node' ? this.nodes : this.rels).get(id)
    if (life?.deleted !== undefined) return seq < life.deleted
    return kind === 'node' ? store.node(id) !== undefined : store.relType(id) >= 0
  }

  nodeAt(store: GraphStore, id: number, seq: number): NodeState | null {
    return this.stateAt(this.nodeCreated.get(id), this.nodes.get(id), seq, () =>
      RecordHistory.nodeState(store, id),
    )
  }

  relAt(store: GraphStore, id: number, seq: number): RelState | null {
    return this.stateAt(this.relCreated.get(id), this.rels.get(id), seq, () =>
      RecordHistory.relState(store, id),
    )
  }

  /** Every retained version of a node, oldest first: its before-images, then its current content if it lives. */
  nodeVersions(store: GraphStore, id: number): NodeState[] {
    const states = (this.nodes.get(id)?.before ?? []).map((v) => v.state)
    const current = RecordHistory.nodeState(store, id)
    return current === null ? states : [...states, current]
  }

  relVersions(store: GraphStore, id: number): RelState[] {
    const states = (this.rels.get(id)?.before ?? []).map((v) => v.state)
    const current = RecordHistory.relState(store, id)
    return current === null ? states : [...states, current]
  }

  /** Every node id that may have existed at some point: live ones and deleted ones still in history. */
  *nodeIds(store: GraphStore): Iterable<number> {
    const deleted = [...this.nodes]
      .filter(([id, life]) => life.deleted !== undefined && store.node(id) === undefined)
      .map(([id]) => id)
    yield* mergeSorted(
      store.allNodeIds(),
      deleted.sort((a, b) => a - b),
    )
  }

  *relIds(store: GraphStore): Iterable<number> {
    const deleted = [...this.rels]
      .filter(([id, life]) => life.deleted !== undefined && store.relType(id) < 0)
      .map(([id]) => id)
    yield* mergeSorted(
      store.allRelIds(),
      deleted.sort((a, b) => a - b),
    )
  }

  stats(): HistoryStats {
    return { versions: this.versions, floorSeq: this.floorSeq }
  }

  /** Serialisable form for checkpoints (only records with something to remember). */
  *export(): Iterable<HistoryLine> {
    for (const [kind, map] of [
      ['node', this.nodes],
      ['rel', this.rels],
    ] as const) {
      for (const [id, life] of map) {
        yield {
          kind,
          id,
          created: this.createdOf(kind, id),
          ...(life.deleted === undefined ? {} : { deleted: life.deleted }),
          ...(life.before === undefined || life.before.length === 0
            ? {}
            : {
                before: life.before.map((v) => ({
                  seq: v.seq,
                  state: { ...v.state, props: [...v.state.props].map(([k, x]) => [k, encodeValue(x)]) },
                })),
              }),
        }
      }
    }
  }

  import(entry: HistoryLine): void {
    const before = entry.before?.map((v) => {
      const s = v.state as { props: [string, unknown][] } & Record<string, unknown>
      return {
        seq: v.seq,
        state: { ...s, props: new Map(s.props.map(([k, x]) => [k, decodeValue(x as EncodedValue)])) },
      }
    })
    ;(entry.kind === 'node' ? this.nodeCreated : this.relCreated).set(entry.id, entry.created)
    const life = {
      ...(entry.deleted === undefined ? {} : { deleted: entry.deleted }),
      ...(before ? { before } : {}),
    }
    if (entry.kind === 'node') this.nodes.set(entry.id, life as unknown as Lifetime<NodeState>)
    else this.rels.set(entry.id, life as unknown as Lifetime<RelState>)
    for (const v of before ?? []) this.order.push({ seq: v.seq, kind: entry.kind, id: entry.id })
    this.versions += before?.length ?? 0
  }

  sortOrder(): void {
    this.order.sort((a, b) => a.seq - b.seq)
  }
}

function* mergeSorted(a: Iterable<number>, b: number[]): Iterable<number> {
  let j = 0
  for (const x of a) {
    while (j < b.length && b[j]! < x) yield b[j++]!
    yield x
  }
  while (j < b.length) yield b[j++]!
}
