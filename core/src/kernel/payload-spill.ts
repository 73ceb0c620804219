import { PayloadRef, type PayloadSource, type PayloadStore, type PropertySlot } from '../graph/payload-ref.js'
import type { GraphStore } from '../graph/store.js'

/** The payload file as a checkpoint writes it: appends, and reads for the references it hands out. */
export type PayloadWriter = PayloadStore & PayloadSource

/** A value written during the walk, waiting for the checkpoint to be durable before its slot takes the ref. */
interface PendingSwap {
  store: GraphStore
  kind: 'node' | 'rel'
  id: number
  key: number
  value: string
  ref: PayloadRef
}

/**
 * Moves long string values to the payload file while a checkpoint image walks the graph (issue 39). The walk
 * hands over raw slots: a slot that already holds a `PayloadRef` stays that reference (never read, never
 * rewritten); a string of `minBytes` UTF-8 bytes or more is appended and the image holds a reference to it.
 * The graph keeps the string until `durable`: only after the payload file is synced and the manifest names the
 * checkpoint does each slot still holding exactly that string take the reference (a value a later commit
 * changed keeps the new value; its payload is dead). Appends are safe at any time, a frozen image included.
 */
export class PayloadSpill {
  private pending: PendingSwap[] = []
  /** Strings shorter than this many UTF-16 units cannot reach `minBytes` (3 bytes per unit at most). */
  private readonly minChars: number

  constructor(
    private readonly file: PayloadWriter,
    private readonly minBytes: number,
  ) {
    if (!Number.isSafeInteger(minBytes) || minBytes < 1)
      throw new Error(`payload threshold must be a positive integer, not ${minBytes}`)
    this.minChars = Math.ceil(minBytes / 3)
  }

  /**
   * The slot as the image holds it: a reference for a value in (or now appended to) the payload file, the
   * value itself otherwise.
   */
  slot(store: GraphStore, kind: 'node' | 'rel', id: number, key: number, slot: PropertySlot): PropertySlot {
    if (typeof slot !== 'string' || slot.length < this.minChars) return slot
    if (slot.length < this.minBytes && Buffer.byteLength(slot, 'utf8') < this.minBytes) return slot
    const { offset, bytes } = this.file.append(slot)
    const ref = new PayloadRef(this.file, offset, bytes)
    this.pending.push({ store, kind, id, key, value: slot, ref })
    return ref
  }

  /** Values appended by this walk. */
  get written(): number {
    return this.pending.length
  }

  /** The checkpoint is durable: slots unchanged since the walk take their references. Returns how many did. */
  durable(): number {
    let swapped = 0
    for (const p of this.pending) if (p.store.swapToPayload(p.kind, p.id, p.key, p.value, p.ref)) swapped++
    this.pending = []
    return swapped
  }

  /** The checkpoint failed: the graph keeps its strings (what was appended is dead). */
  abandon(): void {
    this.pending = []
  }
}
