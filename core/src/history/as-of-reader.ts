import { indexKey } from '../graph/indexes.js'
import type { GraphStore } from '../graph/store.js'
import type { GraphReader, NodeRecord, PropertyValue } from '../graph/types.js'
import type { NodeState, RecordHistory, RelState } from './record-history.js'

/**
 * The graph of one workspace as it was at commit sequence `seq`, behind the same read interface as the live
 * store, so code that reads the graph (STIX export, graph validation) can read a snapshot unchanged. Records
 * are materialised on demand from record history and memoised for the life of the reader.
 */
export class AsOfReader implements GraphReader {
  private readonly nodes = new Map<number, NodeRecord | null>()
  private readonly rels = new Map<number, RelState | null>()
  private nodeList: number[] | null = null
  private relList: number[] | null = null

  constructor(
    private readonly store: GraphStore,
    private readonly history: RecordHistory,
    private readonly seq: number,
  ) {}

  get names() {
    return this.store.names
  }

  private intern(name: string): number {
    const id = this.store.names.lookup(name)
    return id >= 0 ? id : this.store.names.id(name)
  }

  private props(map: Map<string, PropertyValue>): Map<number, PropertyValue> {
    const out = new Map<number, PropertyValue>()
    for (const [key, value] of map) out.set(this.intern(key), value)
    return out
  }

  node(id: number): NodeRecord | undefined {
    let record = this.nodes.get(id)
    if (record === undefined) {
      const state: NodeState | null = this.history.nodeAt(this.store, id, this.seq)
      record =
        state === null
          ? null
          : {
              id,
              labels: state.labels.map((l) => this.intern(l)),
              props: this.props(state.props),
              out: [],
              in: [],
            }
      this.nodes.set(id, record)
    }
    return record ?? undefined
  }

  private rel(id: number): RelState | null {
    let state = this.rels.get(id)
    if (state === undefined) {
      state = this.history.relAt(this.store, id, this.seq)
      this.rels.set(id, state)
    }
    return state
  }

  relType(id: number): number {
    const state = this.rel(id)
    return state === null ? -1 : this.intern(state.type)
  }

  relStart(id: number): number {
    return this.rel(id)?.start ?? -1
  }

  relEnd(id: number): number {
    return this.rel(id)?.end ?? -1
  }

  relProps(id: number): ReadonlyMap<number, PropertyValue> | undefined {
    const state = this.rel(id)
    return state === null ? undefined : this.props(state.props)
  }

  allNodeIds(): Iterable<number> {
    this.nodeList ??= [...this.history.nodeIds(this.store)].filter((id) => this.node(id) !== undefined)
    return this.nodeList
  }

  allRelIds(): Iterable<number> {
    this.relList ??= [...this.history.relIds(this.store)].filter((id) => this.rel(id) !== null)
    return this.relList
  }

  *labelNodeIds(label: number): Iterable<number> {
    for (const id of this.allNodeIds()) if (this.node(id)!.labels.includes(label)) yield id
  }

  *propertyNodeIds(label: number, key: number, value: PropertyValue): Iterable<number> {
    // The same equality the live property index uses.
    const wanted = indexKey(value)
    for (const id of this.labelNodeIds(label)) {
      const v = this.node(id)!.props.get(key)
      if (v !== undefined && indexKey(v) === wanted) yield id
    }
  }

  labelCount(label: number): number {
    return [...this.labelNodeIds(label)].length
  }

  nodeCount(): number {
    return [...this.allNodeIds()].length
  }

  relCount(): number {
    return [...this.allRelIds()].length
  }
}
