import { indexKey } from '../graph/indexes.js'
import type { GraphStore } from '../graph/store.js'
import type { GraphReader, NodeRecord, PropertyValue } from '../graph/types.js'
import type { RecordHistory } from './record-history.js'

/** The property every memory and memory relationship version carries: when that version was recorded. */
const RECORDED_AT = 'recorded_at'

const recordedAt = (props: ReadonlyMap<string, PropertyValue>): number | null => {
  const v = props.get(RECORDED_AT)
  if (typeof v !== 'string') return null
  const ms = Date.parse(v)
  return Number.isNaN(ms) ? null : ms
}

/**
 * A workspace as it was recorded at an instant (recall's `as_of`), behind the live store's read interface: a
 * record carrying `recorded_at` is seen in its newest retained version recorded at or before the instant, and
 * not at all when every version was recorded after it (a version written later is not seen; a memory forgotten
 * later is still there, in the version it had). Records without `recorded_at` are seen as they are. Adjacency is
 * the live record's; relationships recorded after the instant are filtered out as they are read.
 */
export class AsRecordedReader implements GraphReader {
  private readonly nodes = new Map<number, NodeRecord | null>()
  private readonly rels = new Map<
    number,
    { type: number; start: number; end: number; props: Map<number, PropertyValue> } | null
  >()

  constructor(
    private readonly store: GraphStore,
    private readonly history: RecordHistory,
    private readonly atMs: number,
  ) {}

  get names() {
    return this.store.names
  }

  get nextNodeId(): number {
    return this.store.nextNodeId
  }

  get nextRelId(): number {
    return this.store.nextRelId
  }

  private interned(props: Map<string, PropertyValue>): Map<number, PropertyValue> {
    const out = new Map<number, PropertyValue>()
    for (const [key, value] of props) out.set(this.store.names.id(key), value)
    return out
  }

  node(id: number): NodeRecord | undefined {
    let record = this.nodes.get(id)
    if (record === undefined) {
      record = this.resolveNode(id)
      this.nodes.set(id, record)
    }
    return record ?? undefined
  }

  private resolveNode(id: number): NodeRecord | null {
    const live = this.store.node(id)
    if (live !== undefined) {
      const key = this.store.names.lookup(RECORDED_AT)
      const at = key < 0 ? undefined : live.props.get(key)
      const ms = typeof at === 'string' ? Date.parse(at) : Number.NaN
      // The common case: unversioned, or recorded before the instant, so the live record is the answer.
      if (Number.isNaN(ms) || ms <= this.atMs) return live
    }
    const versions = this.history.nodeVersions(this.store, id)
    for (let i = versions.length - 1; i >= 0; i--) {
      const state = versions[i] as (typeof versions)[number]
      const ms = recordedAt(state.props)
      if (ms !== null && ms > this.atMs) continue
      return {
        id,
        labels: state.labels.map((l) => this.store.names.id(l)),
        props: this.interned(state.props),
        out: live?.out ?? [],
        in: live?.in ?? [],
      }
    }
    return null
  }

  private rel(id: number) {
    let state = this.rels.get(id)
    if (state === undefined) {
      state = null
      const versions = this.history.relVersions(this.store, id)
      for (let i = versions.length - 1; i >= 0; i--) {
        const v = versions[i] as (typeof versions)[number]
        const ms = recordedAt(v.props)
        if (ms !== null && ms > this.atMs) continue
        state = {
          type: this.store.names.id(v.type),
          start: v.start,
          end: v.end,
          props: this.interned(v.props),
        }
        break
      }
      this.rels.set(id, state)
    }
    return state
  }

  relType(id: number): number {
    return this.rel(id)?.type ?? -1
  }

  relStart(id: number): number {
    return this.rel(id)?.start ?? -1
  }

  relEnd(id: number): number {
    return this.rel(id)?.end ?? -1
  }

  relProps(id: number): ReadonlyMap<number, PropertyValue> | undefined {
    return this.rel(id)?.props
  }

  relProperty(id: number, key: number): PropertyValue | undefined {
    return this.rel(id)?.props.get(key)
  }

  *allNodeIds(): Iterable<number> {
    for (const id of this.store.allNodeIds()) if (this.node(id) !== undefined) yield id
  }

  *allRelIds(): Iterable<number> {
    for (const id of this.store.allRelIds()) if (this.rel(id) !== null) yield id
  }

  *labelNodeIds(label: number): Iterable<number> {
    for (const id of this.store.labelNodeIds(label)) if (this.node(id)?.labels.includes(label)) yield id
  }

  *propertyNodeIds(label: number, key: number, value: PropertyValue): Iterable<number> {
    const wanted = indexKey(value)
    for (const id of this.labelNodeIds(label)) {
      const v = this.node(id)?.props.get(key)
      if (v !== undefined && indexKey(v) === wanted) yield id
    }
  }

  /** The live counts: recall uses them as the workspace's size (hub degree), not as answers. */
  labelCount(label: number): number {
    return this.store.labelCount(label)
  }

  nodeCount(): number {
    return this.store.nodeCount()
  }

  relCount(): number {
    return this.store.relCount()
  }
}
