import type { GraphCatalog } from '../graph/catalog.js'
import { type CommitOp, encodeValue } from '../graph/commit.js'
import type { GraphStore } from '../graph/store.js'
import type { PropertyValue } from '../graph/types.js'

/** A checkpoint line of the graph: one create op per record, plus each workspace's id counters. */
export type GraphImageLine =
  | { kind: 'graph'; workspace: string; op: CommitOp }
  | { kind: 'graph_counters'; workspace: string; next_node_id: number; next_relationship_id: number }

function props(store: GraphStore, map: ReadonlyMap<number, PropertyValue> | undefined) {
  const out: Record<string, ReturnType<typeof encodeValue>> = {}
  if (map) for (const [key, value] of map) out[store.names.name(key)] = encodeValue(value)
  return out
}

/** Every record of every workspace as create ops: nodes first, so replaying in order rebuilds the graph. */
export function* graphImage(catalog: GraphCatalog): Iterable<GraphImageLine> {
  for (const workspace of catalog.workspaceIds()) {
    const store = catalog.workspace(workspace)
    yield {
      kind: 'graph_counters',
      workspace,
      next_node_id: store.nextNodeId,
      next_relationship_id: store.nextRelId,
    }
    for (const id of store.allNodeIds()) {
      const node = store.node(id)!
      yield {
        kind: 'graph',
        workspace,
        op: {
          op: 'createNode',
          id,
          labels: node.labels.map((l) => store.names.name(l)),
          props: props(store, node.props),
        },
      }
    }
    for (const id of store.allRelIds()) {
      yield {
        kind: 'graph',
        workspace,
        op: {
          op: 'createRelationship',
          id,
          type: store.names.name(store.relType(id)),
          start: store.relStart(id),
          end: store.relEnd(id),
          props: props(store, store.relProps(id)),
        },
      }
    }
  }
}

/** Loads checkpoint graph lines in batches (one applyCommit per batch keeps recovery fast). */
export class GraphImageLoader {
  private readonly batches = new Map<string, CommitOp[]>()
  private readonly counters = new Map<string, { node: number; rel: number }>()

  constructor(private readonly catalog: GraphCatalog) {}

  add(line: GraphImageLine): void {
    if (line.kind === 'graph_counters') {
      this.counters.set(line.workspace, { node: line.next_node_id, rel: line.next_relationship_id })
      return
    }
    let batch = this.batches.get(line.workspace)
    if (batch === undefined) {
      batch = []
      this.batches.set(line.workspace, batch)
    }
    batch.push(line.op)
    if (batch.length >= 10_000) this.flushWorkspace(line.workspace)
  }

  private flushWorkspace(workspace: string): void {
    const ops = this.batches.get(workspace)
    if (ops === undefined || ops.length === 0) return
    this.catalog.workspace(workspace).applyCommit({ ops })
    this.batches.set(workspace, [])
  }

  finish(): void {
    for (const workspace of this.batches.keys()) this.flushWorkspace(workspace)
    for (const [workspace, c] of this.counters) {
      const store = this.catalog.workspace(workspace)
      store.nextNodeId = Math.max(store.nextNodeId, c.node)
      store.nextRelId = Math.max(store.nextRelId, c.rel)
    }
  }
}
