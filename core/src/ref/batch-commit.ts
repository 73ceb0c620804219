/**
 * The group commit of a batch of reference writes: the run's intents go in one WAL record and its payloads
 * in one more, instead of two records (two engine transactions) per write. Each write keeps its own
 * sequence, receipt, audit, answer and outbox entry; only the transactions are shared. Per write, the two
 * transactions and their promises cost several times what evaluating a small write does, so this is what
 * lets a reference keep up with a primary draining its outbox.
 *
 * Stop rules are the single form's: the first write not applied stops the run. A write that fails its
 * checks without changing anything (a failed non-atomic item set, a missing record) writes its `drop` in the
 * shared payload and the later writes are dropped with it. A write whose evaluation must be discarded (an
 * atomic batch that rolled back part-way, or an error) cannot be cut out of a shared transaction: the whole
 * payload is discarded and committed again without it and its successors (evaluation is deterministic on the
 * same graph, and the turn is held throughout, so the prefix evaluates the same way again).
 */
import { isEngineError } from '../errors.js'
import type { Transaction } from '../graph/transaction.js'
import type { LedgerWriter } from '../kernel/ledger.js'
import { type BatchEntryAnswer, refusal, SKIPPED } from './batch-writes.js'
import { messageOf, RefErrors } from './codes.js'
import type { Evaluated } from './evaluate.js'
import { REF_LEDGER, type RefLedgerEntry, type StoredResponse } from './state.js'
import type { Admitted } from './write-admission.js'

/** Previous relationship-index values of the ids a payload changed, to restore when it is discarded. */
export type IndexUndo = [id: string, previous: number | undefined][]

/** Thrown out of a payload transaction to discard it: the write at `index` could not be applied. */
class Discard {
  constructor(
    readonly index: number,
    /** An atomic write's own failure answer, or the error that stopped it. */
    readonly cause: { response: StoredResponse } | { error: unknown },
  ) {}
}

export interface GroupCommitPort {
  now(): number
  /** Writes the run's intents (sequences from the returned first one), opening a turn for each. */
  intents(admitted: readonly Admitted[]): Promise<{ first: number; durable: Promise<void> | undefined }>
  /** The turn of the write before `sequence` (undefined when it has ended). */
  turnBefore(sequence: number): Promise<void> | undefined
  closeTurn(sequence: number): void
  /** One payload transaction, durable when it resolves; its value is the function's. */
  transact<T>(fn: (tx: Transaction, ledger: LedgerWriter) => T): Promise<T>
  /**
   * One write's payload work inside `tx` (records, receipt, audit, journal, or its drop); throws its
   * `AtomicAbort` answer when it must be discarded. Relationship-index changes are recorded in `undo`.
   */
  payload(
    tx: Transaction,
    ledger: LedgerWriter,
    admitted: Admitted,
    sequence: number,
    undo: IndexUndo,
  ): Evaluated
  /** The atomic abort an evaluation throws, or null for anything else. */
  abortAnswer(error: unknown): StoredResponse | null
  revertIndex(undo: IndexUndo): void
  /** Counts the outcome and, for an applied projected write, wakes the projector. */
  settled(admitted: Admitted, applied: number, failed: number): void
  release(admitted: Admitted): void
}

/** Commits `admitted` in order as one group; one answer per write. */
export async function commitGroup(admitted: Admitted[], port: GroupCommitPort): Promise<BatchEntryAnswer[]> {
  const answers: BatchEntryAnswer[] = admitted.map(() => SKIPPED)
  // A write whose deadline has passed stops the run before anything of it is written.
  let live = admitted.findIndex((a) => expired(a, port.now()))
  if (live === 0) {
    for (const a of admitted) port.release(a)
    answers[0] = refusal(RefErrors.timeout())
    return answers
  }
  if (live < 0) live = admitted.length
  for (const a of admitted.slice(live)) port.release(a)
  if (live < admitted.length) answers[live] = refusal(RefErrors.timeout())
  const run = admitted.slice(0, live)

  let first = 0
  let intentDurable: Promise<void> | undefined
  try {
    ;({ first, durable: intentDurable } = await port.intents(run))
  } catch (error) {
    for (const a of run) port.release(a)
    answers[0] = refusal(
      RefErrors.stateFailed(`the write-ahead intent could not be persisted: ${messageOf(error)}`),
    )
    return answers
  }
  const sequences = run.map((_, i) => first + i)
  try {
    await port.turnBefore(first)
    // Past its deadline now: this write and the later ones are dropped, nothing of them applied.
    const due = run.findIndex((a) => expired(a, port.now()))
    const upTo = due < 0 ? run.length : due
    if (due >= 0) answers[due] = refusal(RefErrors.timeout())
    let size = upTo
    let aborted: { index: number; answer: BatchEntryAnswer } | null = null
    for (;;) {
      let evaluated: Evaluated[]
      try {
        evaluated = await port.transact((tx, ledger) => {
          const done = payloads(tx, ledger, run.slice(0, size), sequences, port)
          // The next writes may start once this group has run: they publish after it, sharing group
          // commits. (A discarded group keeps its turns: its prefix commits first.)
          for (const sequence of sequences) port.closeTurn(sequence)
          return done
        })
      } catch (error) {
        if (!(error instanceof Discard)) {
          // Nothing of the group committed: its first write answers the failure, the others are skipped.
          answers.fill(SKIPPED)
          answers[0] = refusal(commitError(error))
          return answers
        }
        const cause = error.cause
        aborted = {
          index: error.index,
          answer:
            'response' in cause
              ? { result: 'answered', response: cause.response }
              : refusal(commitError(cause.error)),
        }
        size = error.index
        continue
      }
      for (const [i, e] of evaluated.entries()) {
        answers[i] = { result: 'answered', response: e.response }
        port.settled(run[i] as Admitted, e.applied, e.failed)
      }
      if (aborted !== null) {
        answers[aborted.index] = aborted.answer
        if (aborted.answer.result === 'answered') port.settled(run[aborted.index] as Admitted, 0, 1)
      }
      break
    }
    await intentDurable
    return answers
  } finally {
    for (const sequence of sequences) port.closeTurn(sequence)
    for (const a of run) port.release(a)
  }
}

/** The payloads of `run` in order, up to the first not applied; every other sequence of the group dropped. */
function payloads(
  tx: Transaction,
  ledger: LedgerWriter,
  run: Admitted[],
  sequences: number[],
  port: GroupCommitPort,
): Evaluated[] {
  const undo: IndexUndo = []
  const evaluated: Evaluated[] = []
  for (const [i, admitted] of run.entries()) {
    let e: Evaluated
    try {
      e = port.payload(tx, ledger, admitted, sequences[i] as number, undo)
    } catch (error) {
      port.revertIndex(undo)
      const response = port.abortAnswer(error)
      throw new Discard(i, response === null ? { error } : { response })
    }
    evaluated.push(e)
    if (e.applied === 0) break // its own drop is written; the later ones are dropped below
  }
  const dropped = sequences.slice(evaluated.length)
  if (dropped.length > 0) ledger.write(REF_LEDGER, { k: 'drop', sequences: dropped } satisfies RefLedgerEntry)
  return evaluated
}

const expired = (a: Admitted, now: number): boolean => {
  const deadline = a.request.context.deadline_unix_ms ?? null
  return deadline !== null && now > deadline
}

/** The single form's mapping: an engine fault is a write failure with its message; anything else is internal. */
function commitError(error: unknown): unknown {
  if (isEngineError(error) && error.category !== 'internal')
    return RefErrors.writeFailed(`the write could not be committed: ${error.message}`)
  return error
}
