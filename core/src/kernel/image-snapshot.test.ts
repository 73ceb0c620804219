import { describe, expect, it } from 'vitest'
import { GraphCatalog } from '../graph/catalog.js'
import { type CommitOp, encodeValue } from '../graph/commit.js'
import type { GraphStore } from '../graph/store.js'
import type { PropertyValue } from '../graph/types.js'
import { SLICE_POINT } from '../storage/checkpoint-encoder.js'
import { random as seeded } from '../testing/assistant-memory.js'
import { type GraphImageLine, graphImage } from './graph-image.js'
import { GraphImageLoader } from './graph-image-loader.js'
import { GraphSnapshot } from './image-snapshot.js'

/** Draws from the shared seeded generator, so a failing seed can be replayed. */
function random(seed: number) {
  const next = seeded(seed)
  const int = (n: number) => Math.floor(next() * n)
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T
  return { next, int, pick }
}
type Random = ReturnType<typeof random>

const KEYS = ['a', 'b', 'c', 'text']
const LABELS = ['A', 'B', 'C']
const TYPES = ['X', 'Y']

function value(r: Random): PropertyValue {
  switch (r.int(5)) {
    case 0:
      return BigInt(r.int(1000) - 500)
    case 1:
      return r.next() * 10
    case 2:
      return `v${r.int(50)}`
    case 3:
      return [BigInt(r.int(9)), BigInt(r.int(9))]
    default:
      return 'long '.repeat(r.int(80))
  }
}

/** Creation sequences kept as the kernel's record history keeps them. */
class Created {
  readonly node = new Map<string, number>()
  readonly rel = new Map<string, number>()
  lookup = (workspace: string, kind: 'node' | 'rel') => {
    const map = kind === 'node' ? this.node : this.rel
    return {
      get: (id: number) => map.get(`${workspace}/${id}`) ?? 0,
      set: (id: number, seq: number) => map.set(`${workspace}/${id}`, seq),
    }
  }
}

/** A random commit over the live store: every kind of op, including creates at ids handed out long ago. */
function randomOps(r: Random, store: GraphStore, spareNodeIds: number[]): CommitOp[] {
  const ops: CommitOp[] = []
  const nodes = [...store.allNodeIds()]
  const rels = [...store.allRelIds()]
  const count = 1 + r.int(4)
  const touchedNodes = new Set<number>()
  for (let i = 0; i < count; i++) {
    const kind = r.int(10)
    if (kind === 0 || nodes.length < 2) {
      const id = spareNodeIds.length > 0 && r.int(2) === 0 ? spareNodeIds.pop()! : store.nextNodeId + i
      if (store.node(id) !== undefined || touchedNodes.has(id)) continue
      touchedNodes.add(id)
      const props: Record<string, ReturnType<typeof encodeValue>> = {}
      for (const key of KEYS) if (r.int(2) === 0) props[key] = encodeValue(value(r))
      ops.push({ op: 'createNode', id, labels: [r.pick(LABELS)], props })
      return ops // one create per commit keeps the ids simple
    }
    const id = r.pick(nodes)
    if (touchedNodes.has(id)) continue
    switch (kind) {
      case 1: {
        const node = store.node(id)!
        if (node.out.length === 0 && node.in.length === 0) {
          touchedNodes.add(id)
          ops.push({ op: 'deleteNode', id })
        }
        break
      }
      case 2:
        ops.push({ op: 'addLabel', id, label: r.pick(LABELS) })
        break
      case 3:
        ops.push({ op: 'removeLabel', id, label: r.pick(LABELS) })
        break
      case 4:
      case 5:
        ops.push({ op: 'setNodeProperty', id, key: r.pick(KEYS), value: encodeValue(value(r)) })
        break
      case 6:
        if (store.node(id)!.props.has(store.names.id('a')))
          ops.push({ op: 'removeNodeProperty', id, key: 'a' })
        break
      case 7:
        ops.push({
          op: 'createRelationship',
          id: store.nextRelId,
          type: r.pick(TYPES),
          start: id,
          end: r.pick(nodes.filter((n) => !touchedNodes.has(n))),
          props: r.int(2) === 0 ? {} : { w: encodeValue(value(r)) },
        })
        return ops
      case 8:
        if (rels.length > 0) {
          ops.push({ op: 'deleteRelationship', id: r.pick(rels) })
          return ops
        }
        break
      default:
        if (rels.length > 0)
          ops.push({
            op: 'setRelationshipProperty',
            id: r.pick(rels),
            key: 'w',
            value: encodeValue(value(r)),
          })
    }
  }
  return ops
}

/** Every record with labels, types, endpoints and properties in the store's own order. */
function dump(catalog: GraphCatalog) {
  return catalog.workspaceIds().map((workspace) => {
    const store = catalog.workspace(workspace)
    const names = (ids: readonly number[]) => ids.map((id) => store.names.name(id))
    return {
      workspace,
      nodes: [...store.allNodeIds()].map((id) => {
        const node = store.node(id)!
        return [id, names(node.labels), [...node.props].map(([k, v]) => [store.names.name(k), v])]
      }),
      rels: [...store.allRelIds()].map((id) => [
        id,
        store.names.name(store.relType(id)),
        store.relStart(id),
        store.relEnd(id),
        [...(store.relProps(id) ?? new Map())].map(([k, v]) => [store.names.name(k), v]),
      ]),
    }
  })
}

/** A line as the checkpoint file gives it back: typed arrays become arrays. */
const asRead = (line: GraphImageLine): GraphImageLine =>
  JSON.parse(JSON.stringify(line, (_k, v) => (ArrayBuffer.isView(v) ? Array.from(v as Float64Array) : v)))

function load(lines: GraphImageLine[], created: Created): GraphCatalog {
  const catalog = new GraphCatalog()
  const loader = new GraphImageLoader(catalog, created.lookup)
  for (const line of lines) loader.add(asRead(line))
  loader.finish()
  return catalog
}

describe('checkpoint image while commits go on (copy on write)', () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`holds exactly the graph at its sequence, and replaying the commits since gives the live graph (seed ${seed})`, () => {
      const r = random(seed)
      const catalog = new GraphCatalog()
      const created = new Created()
      let seq = 0
      const commit = (workspace: string, ops: CommitOp[], snapshot?: GraphSnapshot) => {
        if (ops.length === 0) return
        seq++
        const store = catalog.workspace(workspace)
        snapshot?.beforeCommit(workspace, ops)
        for (const op of ops)
          if (op.op === 'createNode' || op.op === 'createRelationship')
            created.lookup(workspace, op.op === 'createNode' ? 'node' : 'rel').set(op.id, seq)
        store.applyCommit({ ops })
      }
      // Two workspaces; node ids with gaps that commits during the image fill (ids handed out before S).
      const spare: Record<string, number[]> = { w1: [], w2: [] }
      for (const workspace of ['w1', 'w2']) {
        for (let id = 0; id < 600; id++) {
          if (id % 7 === 3) {
            spare[workspace]!.push(id)
            continue
          }
          const props: Record<string, ReturnType<typeof encodeValue>> = {}
          for (const key of KEYS) if (r.int(3) > 0) props[key] = encodeValue(value(r))
          commit(workspace, [{ op: 'createNode', id, labels: [r.pick(LABELS)], props }])
        }
        const store = catalog.workspace(workspace)
        for (let i = 0; i < 250; i++) commit(workspace, randomOps(r, store, []))
      }
      const atS = dump(catalog)
      const createdAtS = new Map([...created.node].map(([k, v]) => [`n${k}`, v]))
      for (const [k, v] of created.rel) createdAtS.set(`r${k}`, v)

      const snapshot = new GraphSnapshot(catalog, created.lookup)
      const window: [string, CommitOp[]][] = []
      const lines: GraphImageLine[] = []
      for (const line of graphImage(snapshot)) {
        if (line !== SLICE_POINT) lines.push(line)
        // Commits land between slices, as writers do between the checkpoint's event-loop turns.
        for (let n = 3 + r.int(10); n > 0; n--) {
          const workspace = r.pick(['w1', 'w2'])
          const ops = randomOps(r, catalog.workspace(workspace), spare[workspace]!)
          window.push([workspace, ops])
          commit(workspace, ops, snapshot)
        }
      }
      expect(window.length).toBeGreaterThan(50)
      expect(snapshot.kept).toBe(0) // every kept record was written and let go

      const loadedCreated = new Created()
      const loaded = load(lines, loadedCreated)
      expect(dump(loaded)).toEqual(atS)
      // The image's creation sequences are those at S too (records created since are not in it).
      const createdLoaded = new Map([...loadedCreated.node].map(([k, v]) => [`n${k}`, v]))
      for (const [k, v] of loadedCreated.rel) createdLoaded.set(`r${k}`, v)
      const atSPresent = new Map<string, number>()
      for (const part of atS) {
        for (const [id] of part.nodes)
          atSPresent.set(`n${part.workspace}/${id}`, createdAtS.get(`n${part.workspace}/${id}`)!)
        for (const [id] of part.rels)
          atSPresent.set(`r${part.workspace}/${id}`, createdAtS.get(`r${part.workspace}/${id}`)!)
      }
      expect(createdLoaded).toEqual(atSPresent)

      // Replaying what the log holds above S over the image gives the live graph.
      for (const [workspace, ops] of window)
        if (ops.length > 0) loaded.workspace(workspace).applyCommit({ ops })
      expect(dump(loaded)).toEqual(dump(catalog))
    })
  }
})
