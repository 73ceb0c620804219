/** The settings of reference writes (RefOptions) and the defaults that complete them. */

import type { RetentionWindow } from './receipt-retention.js'
import type { ReferenceClient } from './reference-client.js'
import type { ReferenceProbe } from './reference-probe.js'

export interface RefOptions {
  /** SERVICE_OPENCTI_SYNC_MAX_OPERATIONS: operations one write may carry (bulk items; merge target + sources). */
  maxOperations?: number
  /** SERVICE_REF_SYNC_MAX_REPLAY_IDENTITIES: unresolved outbox entries before writes get backpressure. */
  outboxCapacity?: number
  /** SERVICE_REF_SHADOW_MAX_CONCURRENCY: concurrent writes, and projection requests in flight. */
  maxConcurrency?: number
  /** SERVICE_REF_SHADOW_TIMEOUT_MS: deadline of one projection request. */
  timeoutMs?: number
  /** The reference platform; null or absent makes a service-only store. */
  reference?: ReferenceClient | null
  /** The reference's readiness, parity snapshot and journal, for the rollback's evidence (null: none). */
  referenceProbe?: ReferenceProbe | null
  /** Backoff of a failed projection: delay after its first failure (doubling, with jitter). */
  retryIntervalMs?: number
  /** Ceiling of that delay. */
  retryMaxMs?: number
  /** Entries in one projection batch request, and the most a batch request here may carry. */
  batchMax?: number
  /** Receipts kept for replay (receipt-retention.ts): the newest `count`, none older than `ageMs`. */
  receiptRetention?: RetentionWindow
  /** Where a 0.3.0 deployment left its dual-write state (`<storage dir>/runtime/opencti-write-state.json`). */
  legacyStateFile?: string | null
  now?: () => number
}

/** The numeric limits and the clock, every one set. */
export type ResolvedRefOptions = Required<
  Omit<RefOptions, 'reference' | 'referenceProbe' | 'legacyStateFile' | 'receiptRetention'>
>

export function resolveRefOptions(options: RefOptions): ResolvedRefOptions {
  return {
    maxOperations: options.maxOperations ?? 512,
    outboxCapacity: options.outboxCapacity ?? 4096,
    maxConcurrency: options.maxConcurrency ?? 4,
    timeoutMs: options.timeoutMs ?? 2000,
    retryIntervalMs: options.retryIntervalMs ?? 1000,
    retryMaxMs: options.retryMaxMs ?? Math.max(30_000, options.retryIntervalMs ?? 1000),
    batchMax: options.batchMax ?? 64,
    now: options.now ?? Date.now,
  }
}
