import type { PersistentStorage } from '../storage/persistent-storage.js'
import type { VisibilityGate } from './visibility-gate.js'

/** Where a checkpoint's lines come from: the graph, then every other state, each line a JSON object. */
export interface CheckpointSource {
  graphLines(): Iterable<string>
  /** Encoded up front, in one go: sessions, history, ledgers and feature state may change meanwhile. */
  stateLines(): Iterable<string>
}

/**
 * Writes checkpoints, one at a time (an explicit call may meet the automatic one), and starts one when the
 * log says the replay has grown enough.
 */
export class Checkpointer {
  private running: Promise<void> | null = null
  private tail: Promise<void> = Promise.resolve()

  constructor(
    private readonly storage: () => PersistentStorage | null,
    private readonly gate: VisibilityGate,
    private readonly source: CheckpointSource,
    private readonly onWarning: ((message: string) => void) | undefined,
  ) {}

  /** After a write: start a checkpoint when due and none is running. */
  maybeStart(): void {
    if (this.storage()?.shouldCheckpoint() && this.running === null) {
      this.running = this.checkpoint().finally(() => {
        this.running = null
      })
      this.running.catch((error: Error) => this.onWarning?.(`checkpoint failed: ${error.message}`))
    }
  }

  checkpoint(): Promise<void> {
    const run = this.tail.then(() => this.write())
    this.tail = run.catch(() => {})
    return run
  }

  /** Waits for an automatic checkpoint in progress (close does this before its final one). */
  async settle(): Promise<void> {
    await this.running
  }

  /**
   * Writes the image at the log's last sequence S without stopping the engine. Everything but the graph is
   * encoded first; the graph is then written in slices between event-loop turns while this holds the
   * visibility gate's read side, so reads go on and graph writers wait until it is done. Records logged
   * meanwhile are above S and replay over the image.
   */
  private async write(): Promise<void> {
    const storage = this.storage()
    if (storage === null) return
    await this.gate.enterRead()
    try {
      const sequence = storage.lastSeq
      const rest = [...this.source.stateLines()]
      const lines = function* (graph: Iterable<string>) {
        yield* graph
        yield* rest
      }
      await storage.checkpoint(
        sequence,
        lines(this.source.graphLines()),
        () => new Promise((r) => setImmediate(r)),
      )
    } finally {
      this.gate.exitRead()
    }
  }
}
