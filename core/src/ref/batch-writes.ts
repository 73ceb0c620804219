/**
 * The batch form of reference writes, which a primary's projector uses to send a run of consecutive outbox
 * entries in one request. Each entry is an ordinary write (its own idempotency key, receipt and answer);
 * they are admitted in order and commit together in that order (batch-commit.ts: one intent record and one
 * payload record for the run). The first entry that is not applied (a failure outcome, a refused write, or
 * one whose batch already stopped) stops the batch: later entries are skipped and nothing of them is
 * applied, so the reference never holds a write whose predecessor it refused.
 */
import { type EngineError, isEngineError } from '../errors.js'
import { RefErrors } from './codes.js'
import type { StoredResponse } from './state.js'

export type BatchEntryAnswer =
  | { result: 'answered'; response: StoredResponse }
  /** Refused with an HTTP-level code, as the write route would have answered it. */
  | { result: 'refused'; error: EngineError }
  | { result: 'skipped' }

export interface BatchPort<A> {
  batchMax: number
  /** An answer now (replay, failure), a thrown HTTP-level code, or an admitted write. */
  admit(body: unknown, call: { correlationId?: string | undefined }): { answer: StoredResponse } | A
  /** Marks an admitted write in progress (its key is refused to the rest of the batch until it ends). */
  hold(admitted: A): void
  takePermit(): void
  releasePermit(): void
  /** Commits admitted writes in order, one answer each; ends every hold. */
  commit(admitted: A[]): Promise<BatchEntryAnswer[]>
}

export const SKIPPED: BatchEntryAnswer = { result: 'skipped' }

/** A refusal becomes the entry's answer when it carries an HTTP-level code; anything else fails the batch. */
export function refusal(error: unknown): BatchEntryAnswer {
  if (isEngineError(error) && error.category !== 'internal') return { result: 'refused', error }
  throw error
}

export async function writeBatch<A extends object>(
  bodies: unknown,
  call: { correlationId?: string | undefined },
  port: BatchPort<A>,
): Promise<BatchEntryAnswer[]> {
  if (!Array.isArray(bodies) || bodies.length === 0 || bodies.length > port.batchMax)
    throw RefErrors.batchInvalid(`writes must hold 1 to ${port.batchMax} write requests`)
  port.takePermit()
  const answers: (BatchEntryAnswer | null)[] = []
  const admitted: A[] = []
  /** An admission that failed without an HTTP-level code: the batch fails, after what was admitted commits. */
  let fault: { error: unknown } | null = null
  try {
    let stopped = false
    for (const body of bodies) {
      if (stopped) {
        answers.push(SKIPPED)
        continue
      }
      let admission: { answer: StoredResponse } | A
      try {
        admission = port.admit(body, call)
      } catch (error) {
        stopped = true
        if (!isEngineError(error) || error.category === 'internal') fault = { error }
        answers.push(fault === null ? refusal(error) : SKIPPED)
        continue
      }
      if ('answer' in admission) {
        // A replay answers success and the batch goes on; a failure outcome stops it.
        if (admission.answer.outcome.status !== 'success') stopped = true
        answers.push({ result: 'answered', response: admission.answer })
        continue
      }
      port.hold(admission)
      admitted.push(admission)
      answers.push(null) // answered by the commit
    }
    // The commit ends the holds of the admitted writes, whatever its outcome.
    const committed = admitted.length === 0 ? [] : await port.commit(admitted)
    if (fault !== null) throw fault.error
    let next = 0
    return answers.map((answer) => answer ?? (committed[next++] as BatchEntryAnswer))
  } finally {
    port.releasePermit()
  }
}
