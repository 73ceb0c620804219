import type { GraphCatalog } from '../graph/catalog.js'
import { type CommitOp, encodeValue } from '../graph/commit.js'
import type { GraphStore } from '../graph/store.js'
import type { PropertyValue } from '../graph/types.js'

/** Records per checkpoint line: few, large JSON.parse calls recover far faster than one per record. */
const BATCH = 4096

/**
 * A checkpoint line of the graph: a batch of create ops (nodes before relationships), with each record's
 * creation sequence so record history stays exact across restarts; plus each workspace's id counters.
 */
export type GraphImageLine =
  | { kind: 'graph_batch'; workspace: string; ops: CommitOp[]; created: number[] }
  | { kind: 'graph_counters'; workspace: string; next_node_id: number; next_relationship_id: number }

export type CreatedSeq = (workspace: string, kind: 'node' | 'rel', id: number) => number

function props(store: GraphStore, map: ReadonlyMap<number, PropertyValue> | undefined) {
  const out: Record<string, ReturnType<typeof encodeValue>> = {}
  if (map) for (const [key, value] of map) out[store.names.name(key)] = encodeValue(value)
  return out
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
    for (const id of store.allRelIds()) {
      ops.push({
        op: 'createRelationship',
        id,
        type: store.names.name(store.relType(id)),
        start: store.relStart(id),
        end: store.relEnd(id),
        props: props(store, store.relProps(id)),
      })
      created.push(createdSeq(workspace, 'rel', id))
      if (ops.length === BATCH) yield* flush()
    }
    yield* flush()
  }
}

export type SetCreated = (workspace: string, kind: 'node' | 'rel', id: number, seq: number) => void

/** Loads checkpoint graph lines: one applyCommit per batch. */
export class GraphImageLoader {
  private readonly counters = new Map<string, { node: number; rel: number }>()

  constructor(
    private readonly catalog: GraphCatalog,
    private readonly setCreated: SetCreated,
  ) {}

  add(line: GraphImageLine): void {
    if (line.kind === 'graph_counters') {
      this.counters.set(line.workspace, { node: line.next_node_id, rel: line.next_relationship_id })
      return
    }
    this.catalog.workspace(line.workspace).applyCommit({ ops: line.ops })
    line.ops.forEach((op, i) => {
      const seq = line.created[i] ?? 0
      if (seq > 0) this.setCreated(line.workspace, op.op === 'createNode' ? 'node' : 'rel', op.id, seq)
    })
  }

  finish(): void {
    for (const [workspace, c] of this.counters) {
      const store = this.catalog.workspace(workspace)
      store.nextNodeId = Math.max(store.nextNodeId, c.node)
      store.nextRelId = Math.max(store.nextRelId, c.rel)
    }
  }
}
