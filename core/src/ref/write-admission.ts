/**
 * The checks a reference write passes before it commits (single and batch form alike): the request's shape
 * and limits, its idempotency key (replay, conflict, expiry, still in progress), readiness, storage, the
 * write authority and the outbox's capacity; and the permits that bound concurrent writes.
 */
import type { WriteFailure } from './apply.js'
import { RefErrors } from './codes.js'
import { limitProblem } from './evaluate.js'
import { fingerprint, hashKey } from './identity.js'
import { unpackResponse } from './packed-response.js'
import { receiptExpired } from './receipt-retention.js'
import { type RefWriteRequest, requestProblem, WRITE_OPERATIONS } from './request.js'
import type { RefState, StoredResponse } from './state.js'
import type { StatusView } from './status-report.js'
import type { ResolvedRefOptions } from './write-options.js'

export interface WriteCall {
  /** The HTTP request's correlation id, used when the body's own cannot be read. */
  correlationId?: string | undefined
  /** A write the reference accepted while primary, brought back by the return path: applied whatever the
   * authority, never projected back. */
  returned?: boolean
}

/** A write that passed its checks, ready to commit. */
export interface Admitted {
  request: RefWriteRequest
  keyHash: string
  print: string
  envelope: (outcome: StoredResponse['outcome']) => StoredResponse
  /** False for a write the return path brings back from the reference: it is not projected there again. */
  projected: boolean
}
export type Admission = { answer: StoredResponse } | Admitted

/** What admission reads of the write path (and the counters it bumps). */
export interface AdmissionPort {
  state: RefState
  options: Pick<ResolvedRefOptions, 'maxOperations' | 'outboxCapacity' | 'now'>
  tally: StatusView['tally']
  /** Idempotency-key hashes of writes being committed now. */
  inflight: ReadonlySet<string>
  /** Why startup recovery blocked readiness; null when ready. */
  blocked: string | null
  persistent: boolean
  /** True when writes are projected to a reference (the outbox bound applies). */
  projecting: boolean
}

/** The checks before a write commits: an answer now (replay, failure), a thrown HTTP-level code, or go. */
export function admitWrite(body: unknown, call: WriteCall, port: AdmissionPort): Admission {
  const loose = (body ?? {}) as {
    contract_version?: { major?: number; minor?: number }
    context?: { idempotency_key?: unknown; correlation_id?: unknown }
    operation?: { operation?: unknown }
  }
  const name = loose.operation?.operation
  if (typeof name === 'string' && !(WRITE_OPERATIONS as readonly string[]).includes(name))
    throw RefErrors.invalidOperation(name)
  const key = loose.context?.idempotency_key
  if (typeof key !== 'string' || key.trim() === '') throw RefErrors.keyRequired()
  const correlationId =
    typeof loose.context?.correlation_id === 'string' && loose.context.correlation_id !== ''
      ? loose.context.correlation_id
      : (call.correlationId ?? 'unknown')
  const envelope = (outcome: StoredResponse['outcome']): StoredResponse => ({
    contract_version: { major: 1, minor: loose.contract_version?.minor ?? 0 },
    correlation_id: correlationId,
    outcome,
  })
  const fail = (failure: WriteFailure) => {
    port.tally.failed_operations += 1
    return { answer: envelope({ status: 'failure', error: failure }) }
  }

  const problem = requestProblem(body)
  if (problem !== null) return fail({ code: 'INVALID_REQUEST', message: problem, retryable: false })
  const request = body as RefWriteRequest
  const shapeProblem = limitProblem(request, port.options.maxOperations)
  if (shapeProblem !== null) return fail({ code: 'INVALID_REQUEST', message: shapeProblem, retryable: false })

  const keyHash = hashKey(key)
  const print = fingerprint(request)
  // In progress first: its receipt may be published before it is durable, and only the original caller
  // may be answered before that.
  if (port.inflight.has(keyHash))
    throw RefErrors.suspended('a write with this idempotency key is still in progress; retry with it')
  const state = port.state
  const receipt = state.receipts.get(keyHash)
  if (
    receipt === undefined
      ? state.retention.isRetired(keyHash)
      : !state.retention.fresh(receipt, port.options.now())
  )
    return fail(receiptExpired(state.retention.window))
  if (receipt !== undefined) {
    if (receipt.fingerprint !== print)
      return fail({
        code: 'CONFLICT',
        message: 'this idempotency key was used with a different request',
        retryable: false,
      })
    port.tally.idempotent_replays += 1
    return { answer: unpackResponse(receipt.response) }
  }
  if (port.blocked !== null) throw RefErrors.notReady(port.blocked)
  if (!port.persistent)
    return fail({
      code: 'BACKEND_UNAVAILABLE',
      message: 'reference writes are acknowledged only with persistent storage',
      retryable: true,
    })
  const returned = call.returned === true
  if (!returned && state.authority !== 'service_primary')
    throw RefErrors.suspended(
      `writes are suspended: authority is ${state.authority}` +
        (state.trigger === null ? '' : ` (trigger ${state.trigger})`),
    )
  if (!returned && port.projecting && state.unresolved() >= port.options.outboxCapacity)
    throw RefErrors.suspended(
      `the projection outbox is full (${port.options.outboxCapacity} unresolved entries); retry with the same key`,
    )
  return { request, keyHash, print, envelope, projected: !returned }
}

/** Concurrent writes (a batch holds one permit): past the bound a write is refused with backpressure. */
export class WritePermits {
  private held = 0

  constructor(private readonly max: number) {}

  take(): void {
    if (this.held >= this.max) throw RefErrors.backpressure(this.max)
    this.held += 1
  }

  release(): void {
    this.held -= 1
  }
}
