import { type CommitOp, createdRelProperty } from '../graph/commit.js'
import { IdList } from '../graph/id-list.js'
import type { GraphStore } from '../graph/store.js'
import type { DerivedIndex } from '../kernel/types.js'
import { memoize } from '../memo.js'
import { PagedArray } from '../paged-array.js'
import { Bm25Index, type IndexedDocument } from './bm25-index.js'
import type { EmbeddingProvider, EmbeddingSlot } from './embeddings/provider.js'
import { ForegroundLoad } from './foreground-load.js'
import {
  CONTEXT_JSON_KEY,
  CONTEXT_KEY,
  embeddingText,
  isSearchable,
  type NodeFields,
  nodeFields,
} from './node-text.js'
import { relationshipDocument } from './relationship-text.js'
import { inSlices } from './slices.js'
import { analyze, analyzeWithContent } from './tokenizer.js'
import { VectorIndex } from './vector-index.js'

/** Stale nodes past which a background catch-up starts (see `onCommit`). */
const STALE_BACKGROUND = 50_000

const NOTHING = { stems: [], content: [] }
const NO_STEMS: readonly string[] = []

/** A graph has few label sets and every node repeats one: their stems are worked out once (read-only). */
const labelStems = memoize((text): readonly string[] => analyze(text))
const stemsOfLabels = (labels: readonly string[]) => labelStems(labels.join('\n'))

/** What the lexical index stores of a node's fields. */
export function indexedDocument(f: NodeFields): IndexedDocument {
  const name = f.name.length === 0 ? NOTHING : analyzeWithContent(f.name.join('\n'))
  const body = f.body.length === 0 ? NOTHING : analyzeWithContent(f.body.join('\n'))
  const context = f.context.length === 0 ? NOTHING : analyzeWithContent(f.context.join('\n'))
  return {
    fields: [name.stems, stemsOfLabels(f.labels), body.stems, context.stems],
    // The context is in the phrase sequence too: "[Ryuk] can list installed apps" says "installed apps" of
    // both ends as their own descriptions would (tuning part, hybrid nDCG@10 0.816 -> 0.825, full_text
    // 0.794 -> 0.797; five objectives up by 0.08 to 0.27, three down by 0.02 at most).
    sequence: sequenceOf(name.content, body.content, context.content),
    ids: f.ids,
  }
}

/** The parts' content stems in order, without copying when only one part has any (the commonest case). */
function sequenceOf(...parts: readonly (readonly string[])[]): readonly string[] {
  const filled = parts.filter((p) => p.length > 0)
  return filled.length === 0
    ? NO_STEMS
    : filled.length === 1
      ? (filled[0] as readonly string[])
      : filled.flat()
}

/**
 * Node ids waiting to be indexed, each once, in the order first touched: a mark per id (in pages) and a list,
 * so a bulk write of a million nodes queues them without hashing.
 */
class NodeQueue {
  private readonly marks = new PagedArray(Uint8Array)
  private readonly ids = new IdList(1024)
  private head = 0

  get size(): number {
    return this.ids.length - this.head
  }

  add(id: number): void {
    if (this.marks.get(id) === 1) return
    this.marks.set(id, 1)
    this.ids.push(id)
  }

  shift(): number {
    const id = this.ids.at(this.head++)
    this.marks.set(id, 0)
    if (this.head === this.ids.length) {
      this.ids.truncate(0)
      this.head = 0
    } else if (this.head >= 4096 && this.head * 2 >= this.ids.length) {
      // Mostly consumed: reuse the front rather than grow.
      this.ids.dropFront(this.head)
      this.head = 0
    }
    return id
  }
}

/** One workspace's full-text and vector state. */
export class WorkspaceSeedIndex {
  readonly bm25 = new Bm25Index()
  vectors: VectorIndex | null = null
  /** Texts waiting for an asynchronous provider (node id -> text). */
  readonly pending = new Map<number, string>()
  private maxDegreeCache: number | null = null
  /** Settles when a whole-workspace embedding pass (after a provider arrived) is done. */
  embedding: Promise<void> = Promise.resolve()
  /** Nodes that pass has still to embed. */
  embeddingLeft = 0
  /** Nodes touched by commits since the last catch-up (below `rebuildFrom`). */
  readonly stale = new NodeQueue()
  /** Next node id of a pending whole-graph pass; +Infinity when none is pending. */
  rebuildFrom = Number.POSITIVE_INFINITY
  /** Memory relationships as searchable facts: kind, text properties and evidence (relationship-text.ts). */
  readonly relations = new Bm25Index()
  /** Relationships touched since the last catch-up, and the cursor of a whole-graph pass over them. */
  readonly staleRelations = new NodeQueue()
  rebuildRelationsFrom = Number.POSITIVE_INFINITY

  constructor(public store: GraphStore) {}

  degreeChanged(): void {
    this.maxDegreeCache = null
  }

  /** Largest relationship count of any node (FACTS degree normaliser); cached until relationships change. */
  maxDegree(): number {
    if (this.maxDegreeCache === null) {
      let max = 0
      for (const id of this.store.allNodeIds()) {
        const n = this.store.node(id)
        if (n !== undefined) max = Math.max(max, n.out.length + n.in.length)
      }
      this.maxDegreeCache = max
    }
    return this.maxDegreeCache
  }
}

/** Nodes of a workspace whose entry is not current yet: what a pending whole-graph pass and commits left. */
function notIndexed(ws: WorkspaceSeedIndex): number {
  const rebuild = Number.isFinite(ws.rebuildFrom) ? Math.max(0, ws.store.nextNodeId - ws.rebuildFrom) : 0
  return rebuild + ws.stale.size
}

/**
 * Whether a relationship op can change its ends' context field (node-text.ts): a created relationship with a
 * text, its text set or removed, or any deletion (the op no longer says whether it had one).
 */
function changesContext(op: CommitOp): boolean {
  switch (op.op) {
    case 'createRelationship': {
      const json = createdRelProperty(op, CONTEXT_JSON_KEY)
      return (
        typeof createdRelProperty(op, CONTEXT_KEY) === 'string' ||
        (typeof json === 'string' && json.includes(CONTEXT_KEY))
      )
    }
    case 'deleteRelationship':
      return true
    case 'setRelationshipProperty':
    case 'removeRelationshipProperty':
      return op.key === CONTEXT_KEY || op.key === CONTEXT_JSON_KEY
    default:
      return false
  }
}

/**
 * The engine-maintained derived index behind seed search: per workspace, a BM25 inverted index and a
 * vector index, rebuilt after recovery and kept current from every commit's redo ops, caught up when it is
 * read. A local (synchronous) embedding provider embeds during the catch-up; a remote one queues texts that
 * the next dense search flushes first, so a search right after a write sees the write either way.
 */
export class SeedIndex implements DerivedIndex {
  readonly name = 'seed-search'
  private readonly workspaces = new Map<string, WorkspaceSeedIndex>()
  private warming: Promise<void> | null = null
  private warmScheduled = false
  private readonly foreground = new ForegroundLoad()

  constructor(private readonly embeddings: EmbeddingSlot) {
    embeddings.onChange((provider) => {
      for (const ws of this.workspaces.values()) this.reembed(ws, provider)
    })
  }

  /** The workspace's index, brought up to date with every published commit first. */
  workspace(id: string): WorkspaceSeedIndex | undefined {
    const ws = this.workspaces.get(id)
    if (ws !== undefined) this.catchUp(ws)
    return ws
  }

  private ensure(id: string, store: GraphStore): WorkspaceSeedIndex {
    let ws = this.workspaces.get(id)
    if (ws === undefined) {
      ws = new WorkspaceSeedIndex(store)
      ws.vectors = this.embeddings.provider ? new VectorIndex(this.embeddings.provider.dimensions) : null
      this.workspaces.set(id, ws)
    }
    ws.store = store
    return ws
  }

  /** After recovery (or at attach): every node is stale; the next read (or `warm`) indexes them. */
  rebuild(workspaces: ReadonlyMap<string, GraphStore>): void {
    this.workspaces.clear()
    for (const [id, store] of workspaces) {
      const ws = this.ensure(id, store)
      ws.rebuildFrom = 0
      ws.rebuildRelationsFrom = 0
    }
  }

  /**
   * Commits only mark the nodes they touched: indexing happens on the next read of the workspace, in one
   * batch. A write that is never searched pays nothing for search, bulk writes are indexed together, and a
   * read still sees every published commit (it catches up before it scores).
   */
  onCommit(workspaceId: string, store: GraphStore, ops: CommitOp[]): void {
    const ws = this.ensure(workspaceId, store)
    this.foreground.committed()
    for (const op of ops) {
      if (op.op === 'createRelationship' || op.op === 'deleteRelationship') ws.degreeChanged()
      if (changesContext(op)) {
        // Both ends read the relationship's text into their context field. A deleted relationship keeps its
        // ends in the store (ids are never reused), so they are found after the commit too.
        const [start, end] =
          op.op === 'createRelationship' ? [op.start, op.end] : [store.relStart(op.id), store.relEnd(op.id)]
        if (start >= 0 && start < ws.rebuildFrom) ws.stale.add(start)
        if (end >= 0 && end < ws.rebuildFrom) ws.stale.add(end)
      }
      if (
        op.op === 'createRelationship' ||
        op.op === 'deleteRelationship' ||
        op.op === 'setRelationshipProperty' ||
        op.op === 'removeRelationshipProperty'
      ) {
        if (op.id < ws.rebuildRelationsFrom) ws.staleRelations.add(op.id)
      } else {
        if (op.op === 'deleteNode') ws.degreeChanged()
        if (op.id < ws.rebuildFrom) ws.stale.add(op.id)
      }
    }
    // A long run of writes with no search in between is indexed in the background, so neither the stale
    // set nor the first search after it grows without bound.
    if (ws.stale.size >= STALE_BACKGROUND) this.warmSoon()
  }

  /**
   * Starts the background catch-up on a later event-loop turn, not inside the commit that crossed the mark:
   * the write is answered first, and its indexing is not charged to it.
   */
  private warmSoon(): void {
    if (this.warming !== null || this.warmScheduled) return
    this.warmScheduled = true
    setImmediate(() => {
      this.warmScheduled = false
      this.warm().catch(() => {}) // a read catches up whatever is left
    })
  }

  /** Indexes what commits left stale, synchronously: `max` nodes at most (all by default). */
  private catchUp(ws: WorkspaceSeedIndex, max = Number.POSITIVE_INFINITY): boolean {
    const store = ws.store
    const texts = new Map<number, string>()
    let budget = max
    // The whole-graph pass of a rebuild: ids are dense, so a cursor walks them.
    while (ws.rebuildFrom < store.nextNodeId && budget > 0) {
      this.refresh(ws, ws.rebuildFrom++, texts)
      budget--
    }
    if (ws.rebuildFrom >= store.nextNodeId) ws.rebuildFrom = Number.POSITIVE_INFINITY
    while (ws.stale.size > 0 && budget-- > 0) this.refresh(ws, ws.stale.shift(), texts)
    this.embedNow(ws, texts)
    while (ws.rebuildRelationsFrom < store.nextRelId && budget > 0) {
      this.refreshRelation(ws, ws.rebuildRelationsFrom++)
      budget--
    }
    if (ws.rebuildRelationsFrom >= store.nextRelId) ws.rebuildRelationsFrom = Number.POSITIVE_INFINITY
    while (ws.staleRelations.size > 0 && budget-- > 0) this.refreshRelation(ws, ws.staleRelations.shift())
    const current =
      ws.rebuildFrom === Number.POSITIVE_INFINITY &&
      ws.stale.size === 0 &&
      ws.rebuildRelationsFrom === Number.POSITIVE_INFINITY &&
      ws.staleRelations.size === 0
    if (current && max !== 0) {
      // Caught up: a run of writes is over, give back what building ahead reserved.
      ws.bm25.trim()
      ws.relations.trim()
    }
    return current
  }

  /**
   * Indexes every workspace in slices between event-loop turns: after attach (a recovered graph) and after
   * long runs of writes. One pass at a time; reads catch up synchronously whatever is left.
   */
  warm(): Promise<void> {
    if (this.warming !== null) return this.warming
    // Cleared after it settles (a microtask later even when there was nothing to do), never before it is set.
    const run = this.warmAll().finally(() => {
      this.warming = null
    })
    this.warming = run
    return run
  }

  private async warmAll(): Promise<void> {
    const between = () => this.foreground.giveWay()
    for (const ws of this.workspaces.values()) await inSlices((nodes) => this.catchUp(ws, nodes), { between })
  }

  /** Nodes whose entry is not current yet, without catching up (operators, tests). */
  staleNodes(id: string): number {
    const ws = this.workspaces.get(id)
    return ws === undefined ? 0 : notIndexed(ws)
  }

  /**
   * What background indexing has still to do, over every workspace: nodes and relationships not indexed yet,
   * and nodes not embedded yet (a pass after the provider arrived, or texts queued for a remote one).
   */
  backlog(): { index: number; embeddings: number } {
    let index = 0
    let embeddings = 0
    for (const [id, ws] of this.workspaces) {
      const relations = Number.isFinite(ws.rebuildRelationsFrom)
        ? Math.max(0, ws.store.nextRelId - ws.rebuildRelationsFrom)
        : 0
      index += this.staleNodes(id) + relations + ws.staleRelations.size
      embeddings += ws.embeddingLeft + ws.pending.size
    }
    return { index, embeddings }
  }

  /** One node's entry as the store now has it: indexed, re-indexed or removed. */
  private refresh(ws: WorkspaceSeedIndex, id: number, texts: Map<number, string>): void {
    const node = ws.store.node(id)
    const fields = node === undefined || !isSearchable(ws.store, node) ? null : nodeFields(ws.store, node)
    if (fields === null || fields.retired) this.unindex(ws, id)
    else texts.set(id, this.index(ws, id, fields))
  }

  /** One relationship's entry as the store now has it (memory relationships only). */
  private refreshRelation(ws: WorkspaceSeedIndex, id: number): void {
    const doc = relationshipDocument(ws.store, id)
    if (doc === null) ws.relations.remove(id)
    else ws.relations.upsert(id, doc)
  }

  /** Indexes a node's fields; returns the text to embed. */
  private index(ws: WorkspaceSeedIndex, id: number, fields: NodeFields): string {
    ws.bm25.upsert(id, indexedDocument(fields))
    return embeddingText(fields)
  }

  private unindex(ws: WorkspaceSeedIndex, id: number): void {
    ws.bm25.remove(id)
    ws.vectors?.remove(id)
    ws.pending.delete(id)
  }

  /** Embeds in place with a synchronous provider, else queues for `flush`. */
  private embedNow(ws: WorkspaceSeedIndex, texts: Map<number, string>): void {
    const provider = this.embeddings.provider
    if (provider === null || ws.vectors === null || texts.size === 0) return
    if (provider.embedSync === undefined) {
      for (const [id, text] of texts) ws.pending.set(id, text)
      return
    }
    const ids = [...texts.keys()]
    const vectors = provider.embedSync([...texts.values()])
    for (let i = 0; i < ids.length; i++) ws.vectors.set(ids[i] as number, vectors[i] as Float32Array)
  }

  /**
   * A provider arrived (or went): start over with its dimension and embed every indexed node in slices. Nodes
   * not indexed yet (a rebuild after recovery still under way, stale ones) are embedded when the background
   * pass or a read indexes them, with these vectors. Catching up here first held the event loop for the whole
   * rebuild: 37 s on a 2M-object store, during which the server answered nothing, not even readiness.
   */
  private reembed(ws: WorkspaceSeedIndex, provider: EmbeddingProvider | null): void {
    ws.pending.clear()
    const expected = ws.bm25.size + notIndexed(ws)
    ws.vectors = provider ? new VectorIndex(provider.dimensions, Math.max(1024, expected)) : null
    if (provider === null) return
    const vectors = ws.vectors
    const ids = [...ws.bm25.docIds()]
    let next = 0
    ws.embeddingLeft = ids.length
    ws.embedding = inSlices((count) => {
      if (ws.vectors !== vectors) return true // superseded by a newer provider (it counts its own)
      const texts = new Map<number, string>()
      for (const id of ids.slice(next, next + count)) {
        const node = ws.store.node(id)
        if (node !== undefined && ws.bm25.has(id)) texts.set(id, embeddingText(nodeFields(ws.store, node)))
      }
      next += count
      ws.embeddingLeft = Math.max(0, ids.length - next)
      if (provider.embedSync) this.embedNow(ws, texts)
      else for (const [id, text] of texts) ws.pending.set(id, text)
      return next >= ids.length
    })
  }

  /** Waits for a whole-workspace pass, then embeds queued texts (remote providers). */
  async flush(ws: WorkspaceSeedIndex, signal?: AbortSignal): Promise<void> {
    await ws.embedding
    const provider = this.embeddings.provider
    if (provider === null || ws.vectors === null || ws.pending.size === 0) return
    const batch = new Map(ws.pending)
    const vectors = await provider.embed([...batch.values()], signal)
    const ids = [...batch.keys()]
    vectors.forEach((v, i) => {
      const id = ids[i] as number
      // A newer write re-queued the node meanwhile: its newer text is embedded by a later flush.
      if (ws.pending.get(id) !== batch.get(id)) return
      ws.pending.delete(id)
      ws.vectors?.set(id, v)
    })
  }
}
