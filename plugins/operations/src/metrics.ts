import type { Engine, PayloadFigures } from '@service/core'
import { SERVICE_VERSION } from '@service/core'
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client'
import { memoryOperationMetrics, stixImportMetrics } from './feature-metrics.js'
import { LIFECYCLE_STATES, type Lifecycle } from './lifecycle.js'
import { RequestDurationHistogram } from './request-histogram.js'
import { type HealthSources, WRITE_AUTHORITIES } from './sources.js'

export interface ServiceMetrics {
  registry: Registry
  httpDuration: RequestDurationHistogram
  activeRequests: Gauge
  /** Counts a STIX import's objects by outcome (service_stix_import_records_total). */
  stixImported: ReturnType<typeof stixImportMetrics>
  /** Counts a memory operation and, for recall, observes its usage (service_memory_*). */
  memoryOperation: ReturnType<typeof memoryOperationMetrics>
}

export const REQUEST_DURATION_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
]

/** Sets a counter to an absolute value read from its source of truth at scrape time. */
const setCounter = (counter: Counter, value: number) => {
  counter.reset()
  if (value > 0) counter.inc(value)
}

/**
 * The metric families the spec names, plus process metrics and an HTTP duration histogram. Values are read
 * from the engine and the feature areas at scrape time, so they never drift from the state they describe.
 */
export function createMetrics(
  engine: Engine,
  lifecycle: Lifecycle,
  sources: () => HealthSources,
): ServiceMetrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const registers = [registry]

  new Gauge({
    name: 'service_build_info',
    help: 'Build information; always 1.',
    labelNames: ['version'],
    registers,
    collect() {
      this.set({ version: SERVICE_VERSION }, 1)
    },
  })
  new Gauge({
    name: 'service_uptime_seconds',
    help: 'Seconds since the process started serving.',
    registers,
    collect() {
      this.set((Date.now() - lifecycle.startedAtMs) / 1000)
    },
  })
  new Gauge({
    name: 'service_ready',
    help: '1 when the service accepts traffic.',
    registers,
    collect() {
      this.set(lifecycle.state === 'ready' && engine.isReady() ? 1 : 0)
    },
  })
  new Gauge({
    name: 'service_lifecycle_state',
    help: 'One-hot lifecycle state.',
    labelNames: ['state'],
    registers,
    collect() {
      for (const state of LIFECYCLE_STATES) this.set({ state }, lifecycle.state === state ? 1 : 0)
    },
  })
  const shutdownStarted = new Counter({
    name: 'service_shutdown_started_total',
    help: 'Graceful shutdowns started.',
    registers,
    collect() {
      setCounter(shutdownStarted, lifecycle.shutdownStarted)
    },
  })
  const shutdownFailures = new Counter({
    name: 'service_shutdown_failures_total',
    help: 'Graceful shutdowns that missed their deadline or failed to flush.',
    registers,
    collect() {
      setCounter(shutdownFailures, lifecycle.shutdownFailures)
    },
  })
  new Gauge({
    name: 'service_domain_providers_configured',
    help: 'Domain providers listed in the provider manifest and loaded or skipped.',
    registers,
    collect() {
      this.set(sources().domainProviders().configured)
    },
  })
  new Gauge({
    name: 'service_domain_providers_ready',
    help: 'Domain providers loaded and reporting ready.',
    registers,
    collect() {
      this.set(sources().domainProviders().ready)
    },
  })
  const expiredTotal = new Counter({
    name: 'service_sessions_expired_total',
    help: 'Sessions stopped by the idle time-to-live.',
    registers,
    collect() {
      setCounter(expiredTotal, sources().sessionTtl().total_expired_sessions)
    },
  })
  new Gauge({
    name: 'service_sessions_expired_last_5m',
    help: 'Sessions stopped by the idle time-to-live in the last five minutes.',
    registers,
    collect() {
      this.set(sources().sessionTtl().expired_last_5m_sessions)
    },
  })
  new Gauge({
    name: 'service_storage_mode',
    help: 'One-hot storage mode.',
    labelNames: ['mode'],
    registers,
    collect() {
      for (const mode of ['ephemeral', 'persistent'] as const)
        this.set({ mode }, engine.storageMode === mode ? 1 : 0)
    },
  })
  const durabilityGauge = (
    name: string,
    help: string,
    read: (d: ReturnType<Engine['durability']>) => number,
  ) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read(engine.durability()))
      },
    })
  durabilityGauge('service_storage_wal_bytes', 'Bytes in live write-ahead log segments.', (d) => d.wal_bytes)
  durabilityGauge(
    'service_storage_wal_lag_sequences',
    'Committed sequences not yet in a checkpoint.',
    (d) => d.wal_lag_sequences,
  )
  durabilityGauge(
    'service_storage_checkpoint_age_seconds',
    'Age of the newest checkpoint (0 when none).',
    (d) => d.checkpoint_age_seconds ?? 0,
  )
  durabilityGauge(
    'service_storage_compaction_backlog_bytes',
    'WAL bytes below the checkpoint awaiting compaction.',
    (d) => d.compaction_backlog_bytes,
  )
  // The payload file and its bounded cache (file store; 0 when every value stays resident).
  const payloadGauge = (name: string, help: string, read: (p: PayloadFigures) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        const figures = engine.payloads()
        this.set(figures === null ? 0 : read(figures))
      },
    })
  payloadGauge('service_storage_payload_file_bytes', 'Bytes in the payload file.', (p) => p.file_bytes)
  payloadGauge('service_storage_payload_cache_bytes', 'Heap held by the payload cache.', (p) => p.cache_bytes)
  payloadGauge(
    'service_storage_payload_cache_limit_bytes',
    'The payload cache bound (SERVICE_STORAGE_PAYLOAD_CACHE_BYTES).',
    (p) => p.cache_limit_bytes,
  )
  // Reads counted by the cache since the engine opened: counters that follow its totals.
  const payloadCounter = (name: string, help: string, read: (p: PayloadFigures) => number) => {
    let seen = 0
    return new Counter({
      name,
      help,
      registers,
      collect() {
        const figures = engine.payloads()
        const total = figures === null ? 0 : read(figures)
        if (total > seen) this.inc(total - seen)
        seen = Math.max(seen, total)
      },
    })
  }
  payloadCounter(
    'service_storage_payload_cache_hits_total',
    'Payload reads the cache answered.',
    (p) => p.cache_hits,
  )
  payloadCounter(
    'service_storage_payload_cache_misses_total',
    'Payload reads that went to the file.',
    (p) => p.cache_misses,
  )
  durabilityGauge(
    'service_storage_recovery_warning_count',
    'Warnings raised by the last recovery.',
    (d) => d.recovery.warning_count,
  )
  new Gauge({
    name: 'service_storage_recovery_outcome',
    help: 'One-hot outcome of the start-up recovery.',
    labelNames: ['outcome'],
    registers,
    collect() {
      const outcome = engine.durability().recovery.outcome
      for (const o of ['ephemeral', 'recovered', 'unavailable'] as const)
        this.set({ outcome: o }, outcome === o ? 1 : 0)
    },
  })

  new Gauge({
    name: 'service_storage_fault_state',
    help: 'One-hot storage fault state: healthy, reloading (reads wait), writes_suspended (reads go on).',
    labelNames: ['state'],
    registers,
    collect() {
      const state = engine.storageFaults().state
      for (const s of ['healthy', 'reloading', 'writes_suspended'] as const)
        this.set({ state: s }, state === s ? 1 : 0)
    },
  })
  // Read followers: how far this server is behind the PostgreSQL log, and its role (one-hot).
  new Gauge({
    name: 'service_storage_follower_lag_sequences',
    help: 'Commit sequences the log holds that this server has not applied yet (0 on a primary).',
    registers,
    collect() {
      this.set(engine.replication()?.lag_sequences ?? 0)
    },
  })
  new Gauge({
    name: 'service_storage_follower_lag_ms',
    help: 'Milliseconds this server has been behind the log (0 when caught up or a primary).',
    registers,
    collect() {
      this.set(engine.replication()?.lag_ms ?? 0)
    },
  })
  new Gauge({
    name: 'service_storage_role',
    help: 'One-hot role in the durable store: primary, follower or fenced (all 0 when ephemeral).',
    labelNames: ['role'],
    registers,
    collect() {
      const role = engine.replication()?.role
      for (const r of ['primary', 'follower', 'fenced'] as const) this.set({ role: r }, role === r ? 1 : 0)
    },
  })
  const faultCounter = (
    name: string,
    help: string,
    key: 'faults_total' | 'recoveries_total' | 'checkpoint_failures_total',
  ) =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        setCounter(this, engine.storageFaults()[key])
      },
    })
  faultCounter(
    'service_storage_faults_total',
    'Write-ahead log failures (fsync, write, open).',
    'faults_total',
  )
  faultCounter(
    'service_storage_fault_recoveries_total',
    'Recoveries in place after a log failure (writes resumed without a restart).',
    'recoveries_total',
  )
  faultCounter(
    'service_storage_checkpoint_failures_total',
    'Checkpoints that failed (the previous one and the log stay in use).',
    'checkpoint_failures_total',
  )

  const refGauge = (name: string, help: string, key: 'outbox_depth' | 'lag' | 'quarantined') =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(sources().refProjection()[key])
      },
    })
  refGauge(
    'service_ref_projection_outbox_depth',
    'Projection outbox entries prepared or pending.',
    'outbox_depth',
  )
  refGauge('service_ref_projection_lag', 'Projection outbox entries not yet delivered.', 'lag')
  refGauge(
    'service_ref_projection_quarantined',
    'Projection outbox entries quarantined for divergence.',
    'quarantined',
  )
  const retries = new Counter({
    name: 'service_ref_projection_retries_total',
    help: 'Projection attempts retried after a transport error, timeout or rejection.',
    registers,
    collect() {
      setCounter(retries, sources().refProjection().retries_total)
    },
  })
  const reconstructions = new Counter({
    name: 'service_ref_projection_reconstruction_total',
    help: 'Canonical reconstructions served.',
    registers,
    collect() {
      setCounter(reconstructions, sources().refProjection().reconstruction_total)
    },
  })
  new Gauge({
    name: 'service_ref_write_authority',
    help: 'One-hot write authority over the three authorities.',
    labelNames: ['authority'],
    registers,
    collect() {
      const current = sources().refProjection().authority
      for (const authority of WRITE_AUTHORITIES) this.set({ authority }, authority === current ? 1 : 0)
    },
  })

  const activeRequests = new Gauge({
    name: 'service_active_requests',
    help: 'Requests in flight.',
    registers,
  })
  const httpDuration = new RequestDurationHistogram(
    'service_http_request_duration_seconds',
    'HTTP request duration by route pattern and status.',
    REQUEST_DURATION_BUCKETS,
    registry,
  )
  return {
    registry,
    httpDuration,
    activeRequests,
    stixImported: stixImportMetrics(registry),
    memoryOperation: memoryOperationMetrics(registry),
  }
}
