import type { CommitOp } from '../graph/commit.js'
import type { CheckpointPiece } from '../storage/checkpoint.js'
import type { DurableStore } from '../storage/durable-store.js'
import type { VisibilityGate } from './visibility-gate.js'

/**
 * The graph's lines of an image, read lazily from the live graph while the image is written in slices; a
 * commit published meanwhile calls `beforeCommit` before it changes the graph, so the lines stay those of
 * the image's sequence.
 */
export interface GraphImageWalk extends Iterable<CheckpointPiece> {
  beforeCommit(workspace: string, ops: readonly CommitOp[]): void
}

/** Where a checkpoint's lines come from: the graph, then every other state, each line a JSON object. */
export interface CheckpointSource {
  /** Taken at the image's sequence (synchronously); lines as JSON text, or column lines encoded off the loop. */
  graphImage(): GraphImageWalk
  /** Encoded up front, in one go: sessions, history, ledgers and feature state may change meanwhile. */
  stateLines(): Iterable<string>
  /** The image's checkpoint is durable (or failed): values it moved to the payload file may leave the heap. */
  imageEnded?(durable: boolean): void
}

/** Told how each checkpoint ended, for /health. */
export interface CheckpointOutcome {
  failed(error: Error): void
  succeeded(): void
}

const RETRY_FIRST_MS = 1000
const RETRY_MAX_MS = 60_000

/**
 * Writes checkpoints, one at a time (an explicit call may meet the automatic one), and starts one when the
 * log says the replay has grown enough. A failed checkpoint leaves the previous one and the log as they were
 * (the manifest switches only after the new file is synced and renamed); the next automatic attempt waits
 * out a backoff, so a full or failing disk is not hammered by every write.
 */
export class Checkpointer {
  private running: Promise<void> | null = null
  private tail: Promise<void> = Promise.resolve()
  private retryDelayMs = 0
  private retryAfterMs = 0
  /** The graph walk of the image being written, while one is. */
  private image: GraphImageWalk | null = null

  constructor(
    private readonly storage: () => DurableStore | null,
    private readonly gate: VisibilityGate,
    private readonly source: CheckpointSource,
    private readonly outcome: CheckpointOutcome,
  ) {}

  /** After a write: start a checkpoint when due, none is running and no failure's backoff is pending. */
  maybeStart(): void {
    if (this.running !== null || performance.now() < this.retryAfterMs) return
    if (this.storage()?.shouldCheckpoint()) {
      this.running = this.checkpoint().finally(() => {
        this.running = null
      })
      this.running.catch(() => {})
    }
  }

  checkpoint(): Promise<void> {
    const run = this.tail.then(() => this.write())
    this.tail = run.catch(() => {})
    run.then(
      () => {
        this.retryDelayMs = 0
        this.retryAfterMs = 0
        this.outcome.succeeded()
      },
      (error: Error) => {
        this.retryDelayMs = Math.min(Math.max(this.retryDelayMs * 2, RETRY_FIRST_MS), RETRY_MAX_MS)
        this.retryAfterMs = performance.now() + this.retryDelayMs
        this.outcome.failed(error)
      },
    )
    return run
  }

  /**
   * A commit of `workspace` is about to change the graph: an image being written keeps what it changes ahead
   * of its walk as it was. Synchronous by design.
   */
  beforePublish(workspace: string, ops: readonly CommitOp[]): void {
    this.image?.beforeCommit(workspace, ops)
  }

  /** Waits for an automatic checkpoint in progress (close does this before its final one). */
  async settle(): Promise<void> {
    await this.running
  }

  /**
   * Writes the image at the log's last sequence S without stopping the engine. At a moment when everything
   * published is durable, everything but the graph is encoded and the graph's walk starts (both at S, in one
   * tick); the graph is then written in slices between event-loop turns while reads and writes go on. A commit
   * published meanwhile is above S: it leaves what it changes ahead of the walk as it was at S (copy on write),
   * and replays over the image.
   */
  private async write(): Promise<void> {
    const storage = this.storage()
    if (storage === null) return
    // A failed log's state is being rebuilt or is unknown past its durable sequence: no image of it now.
    if (storage.failed !== null) throw storage.failed
    await this.gate.enterRead()
    let sequence: number
    let rest: string[]
    let graph: GraphImageWalk
    try {
      sequence = storage.lastSeq
      rest = [...this.source.stateLines()]
      graph = this.source.graphImage()
      this.image = graph
    } finally {
      this.gate.exitRead()
    }
    const lines = function* () {
      yield* graph
      yield* rest
    }
    let durable = false
    try {
      await storage.checkpoint(sequence, lines(), () => new Promise((r) => setImmediate(r)))
      durable = true
    } finally {
      this.image = null
      this.source.imageEnded?.(durable)
    }
  }
}
