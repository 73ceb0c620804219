/**
 * The batch form of reference writes, which a primary's projector uses to send a run of consecutive outbox
 * entries in one request. Each entry is an ordinary write (its own idempotency key, receipt and answer);
 * they are admitted in order and commit in that order, pipelined so they share group commits. The first
 * entry that is not applied (a failure outcome, a refused write, or one whose batch already stopped)
 * stops the batch: later entries are skipped and nothing of them is applied, so the reference never holds
 * a write whose predecessor it refused.
 */
import { type EngineError, isEngineError } from '../errors.js'
import { RefErrors } from './codes.js'
import type { StoredResponse } from './state.js'

export type BatchEntryAnswer =
  | { result: 'answered'; response: StoredResponse }
  /** Refused with an HTTP-level code, as the write route would have answered it. */
  | { result: 'refused'; error: EngineError }
  | { result: 'skipped' }

/** Shared by the entries of one batch: the position of the first entry not applied (Infinity: none yet). */
export interface BatchGate {
  stopAt: number
}

/** Entry `index` of the batch may commit only while no earlier entry failed. */
export interface BatchSlot {
  gate: BatchGate
  index: number
}

export interface BatchPort<A> {
  batchMax: number
  admit(body: unknown, call: { correlationId?: string | undefined }): { answer: StoredResponse } | A
  takePermit(): void
  releasePermit(): void
  run(admitted: A, slot: BatchSlot): Promise<StoredResponse | null>
}

const SKIPPED: BatchEntryAnswer = { result: 'skipped' }

export async function writeBatch<A extends object>(
  bodies: unknown,
  call: { correlationId?: string | undefined },
  port: BatchPort<A>,
): Promise<BatchEntryAnswer[]> {
  if (!Array.isArray(bodies) || bodies.length === 0 || bodies.length > port.batchMax)
    throw RefErrors.batchInvalid(`writes must hold 1 to ${port.batchMax} write requests`)
  port.takePermit()
  const gate: BatchGate = { stopAt: Number.POSITIVE_INFINITY }
  const stop = (index: number) => {
    gate.stopAt = Math.min(gate.stopAt, index)
  }
  const refused = (index: number, error: unknown): BatchEntryAnswer => {
    stop(index)
    if (isEngineError(error) && error.category !== 'internal') return { result: 'refused', error }
    throw error
  }
  const answers: Promise<BatchEntryAnswer>[] = []
  try {
    for (const [index, body] of bodies.entries()) {
      if (gate.stopAt < index) {
        answers.push(Promise.resolve(SKIPPED))
        continue
      }
      let admitted: { answer: StoredResponse } | A
      try {
        admitted = port.admit(body, call)
      } catch (error) {
        answers.push(Promise.resolve(refused(index, error)))
        continue
      }
      if ('answer' in admitted) {
        // A replay answers success and the batch goes on; a failure outcome stops it.
        if (admitted.answer.outcome.status !== 'success') stop(index)
        answers.push(Promise.resolve({ result: 'answered', response: admitted.answer }))
        continue
      }
      answers.push(
        port.run(admitted, { gate, index }).then(
          (response): BatchEntryAnswer => (response === null ? SKIPPED : { result: 'answered', response }),
          (error) => refused(index, error),
        ),
      )
    }
    return await Promise.all(answers)
  } finally {
    port.releasePermit()
  }
}
