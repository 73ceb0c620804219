import type { RefState } from './state.js'

/** Entries listed by the status route at the most (the newest). */
const STATUS_LIST_MAX = 1024

/** What the status figures are read from. */
export interface StatusView {
  state: RefState
  retriesTotal: number
  tally: {
    applied_operations: number
    failed_operations: number
    idempotent_replays: number
    reconstruction_runs: number
  }
  mode: 'elastic_free' | 'reversible_reference'
}

/** The live figures /metrics and /version read (projection gauges, authority, mode). */
export function projectionFigures(view: StatusView) {
  const prepared = view.state.count('prepared')
  const pending = view.state.count('pending')
  return {
    outbox_depth: prepared + pending,
    lag: view.state.unresolved(),
    retries_total: view.retriesTotal,
    quarantined: view.state.count('quarantined'),
    reconstruction_total: view.tally.reconstruction_runs,
    authority: view.state.authority,
    mode: view.mode,
  }
}

/** The status counters (FACTS §8 `result`), without the lists. */
export function statusCounters(view: StatusView) {
  const f = projectionFigures(view)
  const pending = view.state.count('pending')
  return {
    pending_reconciliation: pending,
    fully_reconciled: pending === 0 && f.quarantined === 0,
    applied_operations: view.tally.applied_operations,
    failed_operations: view.tally.failed_operations,
    idempotent_replays: view.tally.idempotent_replays,
    quarantined_reconciliation: f.quarantined,
    projection_outbox_depth: f.outbox_depth,
    projection_lag: f.lag,
    projection_retries: f.retries_total,
    projection_quarantined: f.quarantined,
    write_authority: f.authority,
    write_authority_trigger: view.state.trigger,
    fully_synchronized: f.lag === 0,
    reconstruction_runs: f.reconstruction_total,
    ref_mode: f.mode,
    high_water_sequence: view.state.nextSequence - 1,
  }
}

export function statusReport(view: StatusView) {
  const entries = [...view.state.entries.values()].slice(-STATUS_LIST_MAX)
  const reconciliations = entries
    .filter((e) => e.status !== 'prepared')
    .map((e) => ({
      idempotency_key_hash: e.key,
      correlation_id: e.correlation_id,
      status:
        e.status === 'delivered'
          ? ('reconciled' as const)
          : e.status === 'quarantined'
            ? ('quarantined' as const)
            : ('pending' as const),
      attempts: e.attempts,
      diagnostic: e.diagnostic,
    }))
  return {
    ok: true as const,
    result: statusCounters(view),
    reconciliations,
    projections: entries.map((e) => ({
      sequence: e.sequence,
      ordering_key_hash: e.ordering_key_hash,
      status: e.status,
      attempts: e.attempts,
      diagnostic: e.diagnostic,
    })),
    audits: view.state.audits(STATUS_LIST_MAX),
  }
}
