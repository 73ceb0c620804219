import type { PayloadFile } from '../storage/payload-file.js'
import type { CheckpointSource, GraphImageWalk } from './checkpointer.js'
import { checkpointPiece, graphImage } from './graph-image.js'
import { GraphSnapshot } from './image-snapshot.js'
import { PayloadSpill } from './payload-spill.js'
import type { RecoveryTargets } from './recovery.js'
import type { PayloadFigures } from './types.js'

/** Strings of this many UTF-8 bytes or more go to the payload file at a checkpoint (file store). */
export const DEFAULT_PAYLOAD_MIN_BYTES = 64

/**
 * The kernel's state as checkpoint lines, the inverse of recovery's replay over the same targets: the graph as
 * column lines (long strings spilled to the payload file when the store has one), then feature state, record
 * history and ledgers. Also reports the payload file it spills to.
 */
export class ImageSource implements CheckpointSource {
  /** The payload spill of the image being written, if any. */
  private spill: PayloadSpill | null = null

  constructor(
    private readonly targets: RecoveryTargets,
    /** The store's payload file; undefined while closed, when ephemeral, or in PostgreSQL. */
    private readonly payloads: () => PayloadFile | undefined,
    private readonly payloadMinBytes = DEFAULT_PAYLOAD_MIN_BYTES,
  ) {}

  /** The graph as it is now (the image's sequence), walked lazily; see GraphSnapshot. */
  graphImage(): GraphImageWalk {
    const payloads = this.payloads()
    const spill =
      payloads === undefined || this.payloadMinBytes <= 0
        ? null
        : new PayloadSpill(payloads, this.payloadMinBytes)
    this.spill = spill
    const { catalog, histories } = this.targets
    const snapshot = new GraphSnapshot(catalog, (workspace, kind) => histories.createdAt(workspace, kind))
    return {
      beforeCommit: (workspace, ops) => snapshot.beforeCommit(workspace, ops),
      *[Symbol.iterator]() {
        for (const line of graphImage(snapshot, spill)) yield checkpointPiece(line)
      },
    }
  }

  /** After a checkpoint: the values its image moved to the payload file leave the heap, if it is durable. */
  imageEnded(durable: boolean): void {
    const spill = this.spill
    this.spill = null
    if (spill === null) return
    if (durable) spill.durable()
    else spill.abandon()
  }

  *stateLines(): Iterable<string> {
    for (const state of this.targets.states) for (const line of state.imageLines()) yield JSON.stringify(line)
    for (const line of this.targets.histories.imageLines()) yield JSON.stringify(line)
    for (const line of this.targets.ledgers.imageLines()) yield JSON.stringify(line)
  }

  /** The payload file and its cache (file store); null when values stay resident (ephemeral, PostgreSQL). */
  payloadFigures(): PayloadFigures | null {
    const file = this.payloads()
    if (file === undefined) return null
    const cache = file.cacheStats()
    return {
      file_bytes: file.size,
      cache_bytes: cache.bytes,
      cache_limit_bytes: cache.limit,
      cache_hits: cache.hits,
      cache_misses: cache.misses,
    }
  }
}
