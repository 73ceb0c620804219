import { normalizeInPlace } from './embeddings/provider.js'

export interface Neighbour {
  id: number
  /** Cosine similarity, -1..1. */
  similarity: number
}

/**
 * Exact cosine search over unit vectors in one growable Float32Array. At 100k x 100 dims a full scan is
 * ~10 M multiply-adds (a few ms); no ANN library builds offline here (hnswlib-node and usearch need a
 * native toolchain or a downloaded binary), and exact search has no recall loss to explain.
 */
export class VectorIndex {
  private data: Float32Array
  private readonly slotOf = new Map<number, number>()
  private ids: Int32Array
  private readonly free: number[] = []
  private used = 0

  constructor(
    readonly dims: number,
    initialCapacity = 1024,
  ) {
    this.data = new Float32Array(initialCapacity * dims)
    this.ids = new Int32Array(initialCapacity).fill(-1)
  }

  get size(): number {
    return this.slotOf.size
  }

  has(id: number): boolean {
    return this.slotOf.has(id)
  }

  /** Stores `vector` (normalised here); a zero vector removes the node instead. */
  set(id: number, vector: Float32Array): void {
    if (vector.length !== this.dims) throw new Error(`vector has ${vector.length} dims, index ${this.dims}`)
    const v = Float32Array.from(vector)
    if (!normalizeInPlace(v)) {
      this.remove(id)
      return
    }
    let slot = this.slotOf.get(id)
    if (slot === undefined) {
      slot = this.free.pop() ?? this.used++
      if (slot >= this.ids.length) this.grow()
      this.slotOf.set(id, slot)
      this.ids[slot] = id
    }
    this.data.set(v, slot * this.dims)
  }

  remove(id: number): void {
    const slot = this.slotOf.get(id)
    if (slot === undefined) return
    this.slotOf.delete(id)
    this.ids[slot] = -1
    this.free.push(slot)
  }

  clear(): void {
    this.slotOf.clear()
    this.ids.fill(-1)
    this.free.length = 0
    this.used = 0
  }

  private grow(): void {
    const capacity = this.ids.length * 2
    const data = new Float32Array(capacity * this.dims)
    data.set(this.data)
    this.data = data
    const ids = new Int32Array(capacity).fill(-1)
    ids.set(this.ids)
    this.ids = ids
  }

  /** Cosine between a stored node and a unit query, or undefined when the node has no vector. */
  similarity(id: number, query: Float32Array): number | undefined {
    const slot = this.slotOf.get(id)
    if (slot === undefined) return undefined
    return this.dot(slot, query)
  }

  private dot(slot: number, q: Float32Array): number {
    const d = this.data
    const base = slot * this.dims
    let s = 0
    for (let i = 0; i < this.dims; i++) s += (d[base + i] as number) * (q[i] as number)
    return s
  }

  /** The `k` nearest nodes to a unit query, best first, ties by node id; only positive similarity. */
  nearest(query: Float32Array, k: number): Neighbour[] {
    const top: Neighbour[] = []
    if (k <= 0) return top
    const better = (a: Neighbour, b: Neighbour) =>
      a.similarity > b.similarity || (a.similarity === b.similarity && a.id < b.id)
    for (let slot = 0; slot < this.used; slot++) {
      const id = this.ids[slot] as number
      if (id < 0) continue
      const similarity = this.dot(slot, query)
      if (!(similarity > 0)) continue
      const n = { id, similarity }
      const worst = top[top.length - 1]
      if (top.length === k && worst !== undefined && !better(n, worst)) continue
      // Insertion into a short sorted list: k is top_k x 10, small next to the scan.
      let i = top.length < k ? top.length : k - 1
      top[i] = n
      while (i > 0 && better(n, top[i - 1] as Neighbour)) {
        top[i] = top[i - 1] as Neighbour
        top[i - 1] = n
        i--
      }
    }
    return top
  }
}
