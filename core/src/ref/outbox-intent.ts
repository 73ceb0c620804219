/**
 * What a write records before its payload: its outbox intent (sequence, ordering key, touched records), and
 * the payload turns that keep payloads in intent order.
 */
import { orderingKey, touchedIds } from './evaluate.js'
import { hashOrderingKey } from './identity.js'
import type { RefWriteRequest } from './request.js'
import type { OutboxEntry } from './state.js'

/** A write's outbox entry as its intent records it: prepared, not yet holding its request or answer. */
export function outboxIntent(request: RefWriteRequest, keyHash: string, sequence: number): OutboxEntry {
  return {
    sequence,
    key: keyHash,
    ordering_key_hash: hashOrderingKey(orderingKey(request, sequence)),
    correlation_id: request.context.correlation_id,
    status: 'prepared',
    attempts: 0,
    diagnostic: null,
    request: null,
    response: null,
  }
}

/**
 * The records an entry's write touched: as an older intent logged them, else derived once from its request
 * (the projector asks only of entries whose payload committed, which hold it; one without is a barrier).
 */
export function touchedOf(entry: OutboxEntry): string[] {
  entry.touched ??= entry.request === null ? ['*'] : touchedIds(entry.request as RefWriteRequest)
  return entry.touched
}

/** The request as stored (outbox, journal): the caller's idempotency key replaced by its hash. */
export const storedRequest = (request: RefWriteRequest, keyHash: string): RefWriteRequest => ({
  ...request,
  context: { ...request.context, idempotency_key: keyHash },
})

/** Payload turns: a write's payload commits only after the one before it in intent order. */
export class PayloadTurns {
  private readonly turns = new Map<number, { done: Promise<void>; release: () => void }>()

  open(sequence: number): void {
    let release = () => {}
    const done = new Promise<void>((resolve) => {
      release = resolve
    })
    this.turns.set(sequence, { done, release })
  }

  close(sequence: number): void {
    const turn = this.turns.get(sequence)
    if (turn === undefined) return
    this.turns.delete(sequence)
    turn.release()
  }

  /** The turn of the write before `sequence` (undefined when it has ended). */
  before(sequence: number): Promise<void> | undefined {
    return this.turns.get(sequence - 1)?.done
  }
}
