import { EngineError } from '../errors.js'
import type { CommitOp } from '../graph/commit.js'

/**
 * Durable state that lives beside the graph: idempotency receipts, version logs, outbox entries, write
 * authority. A ledger entry is written inside `engine.transact` and commits in the same WAL record as the
 * graph ops of that transaction, so records and receipt are one atomic, durable unit; recovery re-applies
 * the entries in commit order, and every checkpoint carries each ledger's image.
 */
export interface Ledger<E = unknown> {
  /** Unique, stable: it names the entries in the WAL and in checkpoints. */
  readonly name: string
  /**
   * Applies one entry to the in-memory state. Called when its transaction publishes, again on WAL replay,
   * and for each image entry of a checkpoint, so it must be deterministic and must not throw on a valid entry.
   * `ops` are the graph ops of the entry's WAL record on replay, for an entry that refers to them instead of
   * copying what they hold (absent when it publishes, and for image entries).
   */
  apply(entry: E, ops?: readonly CommitOp[]): void
  /** Entries that rebuild the current state from empty; written into every checkpoint. */
  image(): Iterable<E>
  /** Back to empty, before the state is rebuilt from the durable log after a storage failure. */
  reset(): void
}

/** What a transaction hands to its function to record ledger entries. */
export interface LedgerWriter {
  /** Records `entry` for ledger `name`; it applies when the transaction publishes, not before. */
  write(name: string, entry: unknown): void
}

export interface LedgerEntry {
  ledger: string
  entry: unknown
}

/** The ledgers an engine knows; they must all be defined before recovery reads the directory. */
export class LedgerRegistry {
  private readonly ledgers = new Map<string, Ledger>()
  private sealed = false

  define(ledger: Ledger): void {
    if (this.sealed) throw new Error(`ledger ${ledger.name} defined after the engine opened`)
    if (this.ledgers.has(ledger.name)) throw new Error(`ledger ${ledger.name} is defined twice`)
    this.ledgers.set(ledger.name, ledger)
  }

  seal(): void {
    this.sealed = true
  }

  /** A writer that collects entries for one transaction; unknown names fail at once, in the caller. */
  collector(): { writer: LedgerWriter; entries: LedgerEntry[] } {
    const entries: LedgerEntry[] = []
    return {
      entries,
      writer: {
        write: (ledger, entry) => {
          if (!this.ledgers.has(ledger)) throw new EngineError('INTERNAL', `unknown ledger ${ledger}`)
          entries.push({ ledger, entry })
        },
      },
    }
  }

  reset(): void {
    for (const ledger of this.ledgers.values()) ledger.reset()
  }

  apply(entries: readonly LedgerEntry[], ops?: readonly CommitOp[]): void {
    for (const { ledger, entry } of entries) {
      const target = this.ledgers.get(ledger)
      // A directory written by a build with a ledger this one lacks cannot be served without losing state.
      if (target === undefined)
        throw new EngineError('STORAGE_RECOVERY_FAILED', `the log names an unknown ledger ${ledger}`)
      target.apply(entry, ops)
    }
  }

  /** Checkpoint lines, one per image entry. */
  *imageLines(): Iterable<{ kind: 'ledger'; ledger: string; entry: unknown }> {
    for (const [name, ledger] of this.ledgers)
      for (const entry of ledger.image()) yield { kind: 'ledger', ledger: name, entry }
  }
}
