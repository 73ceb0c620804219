import { type CheckpointPiece, SLICE_POINT } from '../storage/checkpoint.js'
import type { DurableStore } from '../storage/durable-store.js'
import type { VisibilityGate } from './visibility-gate.js'

/** Where a checkpoint's lines come from: the graph, then every other state, each line a JSON object. */
export interface CheckpointSource {
  /** Lines as JSON text, or column lines the storage encodes off the event loop. */
  graphLines(): Iterable<CheckpointPiece>
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
/** How long an image waits for writers already under way before it starts anyway (and may freeze). */
const WRITERS_WAIT_MS = 1000

/**
 * The graph's lines, read lazily from the live graph while the image is written in slices; `freeze` reads
 * the rest at once, so a commit published after it is not in the image. Lines already handed out are
 * copies and stay as they were.
 */
class FreezableLines implements Iterable<CheckpointPiece> {
  private readonly source: Iterator<CheckpointPiece>
  private frozen: CheckpointPiece[] | null = null

  constructor(lines: Iterable<CheckpointPiece>) {
    this.source = lines[Symbol.iterator]()
  }

  freeze(): void {
    if (this.frozen !== null) return
    const rest: CheckpointPiece[] = []
    for (let next = this.source.next(); !next.done; next = this.source.next())
      if (next.value !== SLICE_POINT) rest.push(next.value)
    this.frozen = rest
  }

  *[Symbol.iterator](): Iterator<CheckpointPiece> {
    for (;;) {
      if (this.frozen !== null) {
        yield* this.frozen
        return
      }
      const next = this.source.next()
      if (next.done) return
      yield next.value
    }
  }
}

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
  /** The graph lines of the image being written, while one is. */
  private image: FreezableLines | null = null

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
   * A commit is about to be published: an image being written reads the rest of the graph now, as it is at
   * the image's sequence. Rare (the image first waits for writers under way), and synchronous by design.
   */
  beforePublish(): void {
    this.image?.freeze()
  }

  /** Waits for an automatic checkpoint in progress (close does this before its final one). */
  async settle(): Promise<void> {
    await this.running
  }

  /**
   * Writes the image at the log's last sequence S without stopping the engine. Everything but the graph is
   * encoded first; the graph is then written in slices between event-loop turns while this holds the
   * visibility gate's read side, so reads go on and new graph writers wait until it is done. A writer already
   * under way is waited for first (bounded); one that publishes anyway freezes the rest of the image. So the
   * image holds exactly the commits up to S, and records logged meanwhile are above S and replay over it.
   */
  private async write(): Promise<void> {
    const storage = this.storage()
    if (storage === null) return
    // A failed log's state is being rebuilt or is unknown past its durable sequence: no image of it now.
    if (storage.failed !== null) throw storage.failed
    await this.gate.enterImage(WRITERS_WAIT_MS)
    try {
      const sequence = storage.lastSeq
      const rest = [...this.source.stateLines()]
      const graph = new FreezableLines(this.source.graphLines())
      this.image = graph
      const lines = function* () {
        yield* graph
        yield* rest
      }
      let durable = false
      try {
        await storage.checkpoint(sequence, lines(), () => new Promise((r) => setImmediate(r)))
        durable = true
      } finally {
        this.source.imageEnded?.(durable)
      }
    } finally {
      this.image = null
      this.gate.exitRead()
    }
  }
}
