/**
 * Reference-write metrics read from the core at scrape time: the write counters and reconciliation gauges
 * (FACTS' names), and the projection attempts with the backoff's next retry time. The projection outbox
 * gauges come through the operations plugin's sources.
 */
import type { Engine } from '@service/core'
import { Counter, Gauge, type Registry } from 'prom-client'

export function registerMetrics(engine: Engine, registers: Registry[]): void {
  const counters = () => engine.ref.counters()
  const operations = new Counter({
    name: 'service_ref_write_operations_total',
    help: 'Reference write operations by outcome (applied, failed), since the process started.',
    labelNames: ['outcome'],
    registers,
    collect() {
      const c = counters()
      this.reset()
      this.inc({ outcome: 'applied' }, c.applied_operations)
      this.inc({ outcome: 'failed' }, c.failed_operations)
    },
  })
  operations.inc({ outcome: 'applied' }, 0)
  new Counter({
    name: 'service_ref_write_idempotent_replays_total',
    help: 'Reference writes answered from their receipt (same key, same request).',
    registers,
    collect() {
      this.reset()
      this.inc(counters().idempotent_replays)
    },
  })
  new Gauge({
    name: 'service_ref_write_reconciliation_pending',
    help: 'Committed reference writes not yet reconciled with the reference.',
    registers,
    collect() {
      this.set(counters().pending_reconciliation)
    },
  })
  new Gauge({
    name: 'service_ref_write_reconciliation_quarantined',
    help: 'Committed reference writes quarantined for divergence.',
    registers,
    collect() {
      this.set(counters().quarantined_reconciliation)
    },
  })
  registerProjectionAttempts(engine, registers)
}

/** Attempts of the projector and its backoff (issue 29: an outage makes no more attempts than it allows). */
function registerProjectionAttempts(engine: Engine, registers: Registry[]): void {
  const attempts = () => engine.ref.projectionAttempts()
  new Counter({
    name: 'service_ref_projection_attempts_total',
    help: 'Projection requests sent to the reference (a batch request counts once), since the process started.',
    registers,
    collect() {
      this.reset()
      this.inc(attempts().requests_total)
    },
  })
  new Counter({
    name: 'service_ref_projection_attempted_entries_total',
    help: 'Outbox entries carried by projection requests, since the process started.',
    registers,
    collect() {
      this.reset()
      this.inc(attempts().entries_total)
    },
  })
  new Gauge({
    name: 'service_ref_projection_next_retry_timestamp_seconds',
    help: 'When the backoff lets the next projection retry start (Unix seconds); 0 when no entry waits.',
    registers,
    collect() {
      const at = attempts().next_retry_at_ms
      this.set(at === null ? 0 : at / 1000)
    },
  })
  new Gauge({
    name: 'service_ref_projection_batch_form',
    help: 'Whether the reference offers the batch form, one-hot over unknown, supported, unsupported.',
    labelNames: ['state'],
    registers,
    collect() {
      const supported = attempts().batch_supported
      const state = supported === null ? 'unknown' : supported ? 'supported' : 'unsupported'
      for (const s of ['unknown', 'supported', 'unsupported']) this.set({ state: s }, s === state ? 1 : 0)
    },
  })
}
