import { EngineError, type ExplicitTransaction } from '@service/core'
import type { DetachedValue, ResultCursor } from '@service/core/cypher'
import type { BoltBackend } from './backend.js'
import type { OpenResult } from './result-stream.js'

/** Records of a streamed result computed in one go: a larger PULL is served slice by slice, yielding between. */
export const SLICE_RECORDS = 4096

/** What a streamed pull needs of its connection. */
export interface PullHost {
  backend: BoltBackend
  /** The handler budget: each slice has it (and `tx_timeout`, when given, bounds the whole stream). */
  requestTimeoutMs: number
  signal: AbortSignal
  /** Throws when the result may not go on (its transaction ended). */
  check(): void
  /** The connection ended: stop. */
  ended(): boolean
  /** Between two slices: what is packed goes out, a backed-up socket drains, the event loop turns. */
  breathe(): Promise<void>
  /** Records one slice sent (metrics). */
  streamed?(records: number): void
}

/**
 * `n` records (all when negative) of a streamed result into `sink`, slice by slice: between slices the event
 * loop serves other connections and HTTP, and a socket that is backed up is waited for, so the server holds one
 * slice of the result, never all of it. A slice on the published graph runs where the backend allows reads.
 */
export async function pullStreamed(
  result: OpenResult,
  n: number,
  sink: (row: DetachedValue[]) => void,
  host: PullHost,
): Promise<void> {
  const cursor = result.cursor as ResultCursor
  const backend = host.backend
  let left = n < 0 ? Number.POSITIVE_INFINITY : n
  while (left > 0 && cursor.hasMore && !host.ended()) {
    host.check()
    const size = Math.min(left, SLICE_RECORDS)
    const options = {
      signal: host.signal,
      deadline: Math.min(Date.now() + host.requestTimeoutMs, result.deadline ?? Number.MAX_VALUE),
    }
    const slice = (): number => cursor.pull(size, sink, options)
    const sent =
      cursor.onPublishedGraph && backend.readSlice !== undefined
        ? await backend.readSlice(cursor.workspaceId, slice)
        : slice()
    host.streamed?.(sent)
    left -= sent
    if (left > 0 && cursor.hasMore) await host.breathe()
  }
}

/** A streamed result of a transaction (it may read its overlay) goes on only while the transaction is open. */
export function checkTransactionOpen(tx: ExplicitTransaction | null): void {
  const state = tx?.state() ?? 'rolled_back'
  if (state === 'open') return
  throw state === 'timed_out'
    ? new EngineError('TRANSACTION_TIMED_OUT', 'the transaction timed out and was rolled back')
    : new EngineError('TRANSACTION_CLOSED', `the transaction is already ${state.replace('_', ' ')}`)
}
