/**
 * Replication as the kernel sees it: a read follower applies the primary's records as the log grows, and
 * read-your-writes waits until a commit sequence is visible here (on a primary or a follower).
 */
import type { CommitRecord } from '../graph/commit.js'
import type { DurableStore, ReplicationReport } from '../storage/durable-store.js'
import type { WalRecord } from '../storage/wal-record.js'
import { type RecoveryTargets, recordApplier } from './recovery.js'
import { SequenceWaiters } from './sequence-waiters.js'
import { type GraphWalBody, walOps } from './wal-graph-body.js'

/** What replication uses of the kernel. */
export interface ReplicationPort {
  /** The open durable store; null when ephemeral or not yet open. */
  storage(): DurableStore | null
  /** The commit sequence in ephemeral mode (persistent mode uses the WAL's). */
  localSequence(): number
  recoveryTargets(): RecoveryTargets
  /** Keeps the derived indexes current after a graph change, as a commit does. */
  indexCommit(workspace: string, ops: CommitRecord['ops']): void
  /** Rebuilds every state from what is durable. */
  reload(): Promise<void>
  warn(message: string): void
}

export class Replication {
  /** Reads that asked to see a sequence (read-your-writes) wait here until it is applied. */
  private readonly sequenceWaiters = new SequenceWaiters()

  constructor(private readonly port: ReplicationPort) {}

  /** Commit `sequence` is visible here now (durable on a primary, applied on a follower). */
  reached(sequence: number): void {
    this.sequenceWaiters.reached(sequence)
  }

  /**
   * A read follower applies the primary's records as the log grows, through the path recovery replays
   * them, and keeps the derived indexes current as a commit would.
   */
  follow(storage: DurableStore): void {
    let apply = recordApplier(this.port.recoveryTargets())
    storage.follow({
      apply: (records: readonly WalRecord[]) => {
        for (const record of records) {
          apply(record)
          if (record.kind !== 'graph') continue
          const body = record.body as GraphWalBody
          const ops = walOps(body)
          if (ops.length === 0) continue
          this.port.indexCommit(body.workspace, ops)
        }
        const last = records.at(-1)
        if (last !== undefined) this.sequenceWaiters.reached(last.seq)
      },
      rebase: async () => {
        await this.port.reload()
        apply = recordApplier(this.port.recoveryTargets())
      },
      promoted: () => this.port.warn('this server is now the primary and accepts writes'),
    })
  }

  /** Where the durable state lives, this process's role, and a follower's lag. */
  report(): ReplicationReport | null {
    return this.port.storage()?.replication() ?? null
  }

  /**
   * Read-your-writes: resolves true once commit `sequence` is visible here (at once on a primary, whose
   * acknowledged writes are), false when `timeoutMs` passes first.
   */
  async waitForSequence(sequence: number, timeoutMs: number): Promise<boolean> {
    const storage = this.port.storage()
    const visible = () =>
      storage === null ? this.port.localSequence() : storage.replication().applied_sequence
    if (visible() >= sequence) return true
    return this.sequenceWaiters.wait(sequence, timeoutMs, visible)
  }

  /** The newest durable commit sequence: what a write's answer names for a later read-your-writes. */
  durableSequence(): number {
    const storage = this.port.storage()
    return storage === null ? this.port.localSequence() : storage.durableSeq
  }
}
