import type { GraphCatalog } from '../graph/catalog.js'
import { type CommitOp, decodeValue, encodeValue } from '../graph/commit.js'
import type { GraphStore } from '../graph/store.js'
import type { PropertyValue } from '../graph/types.js'
import { recordOf } from '../own-key.js'

/** Records per checkpoint line: few, large JSON.parse calls recover far faster than one per record. */
const BATCH = 4096

/**
 * A checkpoint line of the graph: a batch of create ops (nodes before relationships), with each record's
 * creation sequence so record history stays exact across restarts; plus each workspace's id counters.
 */
export type GraphImageLine =
  | { kind: 'graph_batch'; workspace: string; ops: CommitOp[]; created: number[] }
  | RelationshipColumns
  | { kind: 'graph_counters'; workspace: string; next_node_id: number; next_relationship_id: number }

/**
 * Relationships as columns: recovery parses a few arrays of numbers per batch instead of one object per
 * relationship (millions of them), which is most of the time and garbage a checkpoint load would make.
 */
export interface RelationshipColumns {
  kind: 'graph_rels'
  workspace: string
  /** Distinct type names of the batch; `type` holds indices into it. */
  types: string[]
  id: number[]
  type: number[]
  start: number[]
  end: number[]
  /** Properties of the relationships that have some, by position in the batch. */
  props: Record<string, Record<string, ReturnType<typeof encodeValue>>>
  created: number[]
}

export type CreatedSeq = (workspace: string, kind: 'node' | 'rel', id: number) => number

function props(store: GraphStore, map: ReadonlyMap<number, PropertyValue> | undefined) {
  return recordOf(
    [...(map ?? [])].map(([key, value]) => [store.names.name(key), encodeValue(value)] as const),
  )
}

/** Every record of every workspace as batched create ops, so replaying the lines in order rebuilds the graph. */
export function* graphImage(catalog: GraphCatalog, createdSeq: CreatedSeq): Iterable<GraphImageLine> {
  for (const workspace of catalog.workspaceIds()) {
    const store = catalog.workspace(workspace)
    yield {
      kind: 'graph_counters',
      workspace,
      next_node_id: store.nextNodeId,
      next_relationship_id: store.nextRelId,
    }
    let ops: CommitOp[] = []
    let created: number[] = []
    const flush = function* (): Iterable<GraphImageLine> {
      if (ops.length === 0) return
      yield { kind: 'graph_batch', workspace, ops, created }
      ops = []
      created = []
    }
    for (const id of store.allNodeIds()) {
      const node = store.node(id)!
      ops.push({
        op: 'createNode',
        id,
        labels: node.labels.map((l) => store.names.name(l)),
        props: props(store, node.props),
      })
      created.push(createdSeq(workspace, 'node', id))
      if (ops.length === BATCH) yield* flush()
    }
    yield* flush()
    let rels = emptyColumns(workspace)
    const typeIndex = new Map<string, number>()
    for (const id of store.allRelIds()) {
      const typeName = store.names.name(store.relType(id))
      let t = typeIndex.get(typeName)
      if (t === undefined) {
        t = rels.types.length
        rels.types.push(typeName)
        typeIndex.set(typeName, t)
      }
      const position = rels.id.length
      rels.id.push(id)
      rels.type.push(t)
      rels.start.push(store.relStart(id))
      rels.end.push(store.relEnd(id))
      const p = store.relProps(id)
      if (p !== undefined && p.size > 0) rels.props[position] = props(store, p)
      rels.created.push(createdSeq(workspace, 'rel', id))
      if (rels.id.length === BATCH) {
        yield rels
        rels = emptyColumns(workspace)
        typeIndex.clear()
      }
    }
    if (rels.id.length > 0) yield rels
  }
}

function emptyColumns(workspace: string): RelationshipColumns {
  return {
    kind: 'graph_rels',
    workspace,
    types: [],
    id: [],
    type: [],
    start: [],
    end: [],
    props: {},
    created: [],
  }
}

/** The creation-sequence column of a workspace's records, so a loader can write it without a call per record. */
export type CreatedColumn = (
  workspace: string,
  kind: 'node' | 'rel',
) => { set(id: number, seq: number): void }

/** Loads checkpoint graph lines: one applyCommit per batch. */
export class GraphImageLoader {
  private readonly counters = new Map<string, { node: number; rel: number }>()

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
    if (line.kind === 'graph_rels') {
      const store = this.catalog.workspace(line.workspace)
      const typeIds = line.types.map((t) => store.names.id(t))
      const created = this.createdColumn(line.workspace, 'rel')
      for (let i = 0; i < line.id.length; i++) {
        const encoded = line.props[i]
        const props =
          encoded === undefined
            ? undefined
            : new Map(Object.entries(encoded).map(([k, v]) => [store.names.id(k), decodeValue(v)] as const))
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

  finish(): void {
    for (const workspace of this.catalog.workspaceIds()) this.catalog.workspace(workspace).finishRestore()
    for (const [workspace, c] of this.counters) {
      const store = this.catalog.workspace(workspace)
      store.nextNodeId = Math.max(store.nextNodeId, c.node)
      store.nextRelId = Math.max(store.nextRelId, c.rel)
    }
  }
}
