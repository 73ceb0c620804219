import { PagedArray } from '../paged-array.js'
import { normalizeInPlace } from './embeddings/provider.js'

export interface Neighbour {
  id: number
  /** Cosine similarity, -1..1. */
  similarity: number
}

const NO_SLOT = -1

/**
 * Exact cosine search over unit vectors, each stored as int8 codes with one scale (its largest component
 * over 127): a quarter of float32's bytes (100 dims: 104 bytes a document instead of 400), since every
 * searchable document has one and at millions of documents they were the seed index's largest part. The
 * error on a cosine is below 1 % of the largest component's step (~0.004 on a 100-d unit vector), well
 * under the gaps that rank documents; queries stay float32. At 100k x 100 dims a full scan is ~10 M
 * multiply-adds (a few ms); no ANN library builds offline here (hnswlib-node and usearch need a native
 * toolchain or a downloaded binary), and exact search has no recall loss to explain. Slots are found by
 * node id through an Int32Array (node ids are dense), not a Map: no heap object per document.
 */
export class VectorIndex {
  private codes: Int8Array
  private scales: Float32Array
  /** Node id of each slot; -1 for a free one. */
  private ids: Int32Array
  /** Slot of each node id; -1 when the node has no vector. */
  private readonly slotOf = new PagedArray(Int32Array, 1, NO_SLOT)
  private readonly free: number[] = []
  private used = 0
  private count = 0

  constructor(
    readonly dims: number,
    initialCapacity = 1024,
  ) {
    this.codes = new Int8Array(initialCapacity * dims)
    this.scales = new Float32Array(initialCapacity)
    this.ids = new Int32Array(initialCapacity).fill(NO_SLOT)
  }

  get size(): number {
    return this.count
  }

  has(id: number): boolean {
    return this.slot(id) !== NO_SLOT
  }

  private slot(id: number): number {
    return this.slotOf.get(id)
  }

  /** Stores `vector` (normalised here); a zero vector removes the node instead. */
  set(id: number, vector: Float32Array): void {
    if (vector.length !== this.dims) throw new Error(`vector has ${vector.length} dims, index ${this.dims}`)
    const v = Float32Array.from(vector)
    if (!normalizeInPlace(v)) {
      this.remove(id)
      return
    }
    let slot = this.slot(id)
    if (slot === NO_SLOT) {
      slot = this.free.pop() ?? this.used++
      if (slot >= this.ids.length) this.grow()
      this.slotOf.set(id, slot)
      this.ids[slot] = id
      this.count++
    }
    let max = 0
    for (let i = 0; i < this.dims; i++) max = Math.max(max, Math.abs(v[i] as number))
    const scale = max / 127
    this.scales[slot] = scale
    const base = slot * this.dims
    for (let i = 0; i < this.dims; i++) this.codes[base + i] = Math.round((v[i] as number) / scale)
  }

  remove(id: number): void {
    const slot = this.slot(id)
    if (slot === NO_SLOT) return
    this.slotOf.set(id, NO_SLOT)
    this.ids[slot] = NO_SLOT
    this.free.push(slot)
    this.count--
  }

  clear(): void {
    this.slotOf.clear()
    this.ids.fill(NO_SLOT)
    this.free.length = 0
    this.used = 0
    this.count = 0
  }

  private grow(): void {
    const capacity = Math.max(this.ids.length * 2, 16)
    const codes = new Int8Array(capacity * this.dims)
    codes.set(this.codes)
    this.codes = codes
    const scales = new Float32Array(capacity)
    scales.set(this.scales)
    this.scales = scales
    const ids = new Int32Array(capacity).fill(NO_SLOT)
    ids.set(this.ids)
    this.ids = ids
  }

  /** Cosine between a stored node and a unit query, or undefined when the node has no vector. */
  similarity(id: number, query: Float32Array): number | undefined {
    const slot = this.slot(id)
    return slot === NO_SLOT ? undefined : this.dot(slot, query)
  }

  private dot(slot: number, q: Float32Array): number {
    const c = this.codes
    const base = slot * this.dims
    let s = 0
    for (let i = 0; i < this.dims; i++) s += (c[base + i] as number) * (q[i] as number)
    return s * (this.scales[slot] as number)
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
